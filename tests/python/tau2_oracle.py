"""τ²-bench's own replay of each task's golden actions, the reference the Rust example is held to.

For every task of a domain, prints one JSON line: the task's id and the hash of the database
after its golden actions, as τ²'s `EnvironmentEvaluator.calculate_reward` computes the gold
side: a fresh `Environment` from the domain's `get_environment`, its state set from the task's
initial state, each golden action made with `make_tool_call` (an action that raises is logged
and skipped, as there), then `get_db_hash()`. A first line gives the hash of the untouched
database. The evaluator module itself is not imported: it pulls in pandas, which the lean
environment of scripts/tau2.sh leaves out; the lines below are the same calls.

    python tests/python/tau2_oracle.py airline
    python tests/python/tau2_oracle.py airline --tools   # the tools as τ² offers them

With `--tools`, prints instead each tool's OpenAI schema as τ² sends it to a model (name,
description, parameters), one JSON line a tool.
"""

import importlib
import json
import sys

from loguru import logger


def main() -> None:
    domain = sys.argv[1]
    logger.remove()
    module = importlib.import_module(f"tau2.domains.{domain}.environment")
    if sys.argv[2:] == ["--tools"]:
        for tool in module.get_environment().get_tools():
            print(json.dumps(tool.openai_schema["function"]), flush=True)
        return
    tasks = module.get_tasks(None)
    print(json.dumps({"initial": module.get_environment().get_db_hash()}), flush=True)
    for task in tasks:
        environment = module.get_environment()
        initial = task.initial_state
        environment.set_state(
            initialization_data=initial.initialization_data if initial else None,
            initialization_actions=initial.initialization_actions if initial else None,
            message_history=(initial.message_history or []) if initial else [],
        )
        failed = []
        for action in task.evaluation_criteria.actions or []:
            try:
                environment.make_tool_call(
                    tool_name=action.name,
                    requestor=action.requestor,
                    **action.arguments,
                )
            except Exception as error:  # noqa: BLE001 - as τ²'s evaluator does
                failed.append(f"{action.name}: {error}")
        print(
            json.dumps(
                {"task": task.id, "hash": environment.get_db_hash(), "failed": failed}
            ),
            flush=True,
        )


if __name__ == "__main__":
    main()
