"""Applies the openai package's own strict-schema transformation to JSON Lines on stdin.

Each input line is a JSON schema; each output line is what
`openai.lib._pydantic._ensure_strict_json_schema` makes of it (as `to_strict_json_schema`
calls it: the schema is its own root), or {"error": "..."}.
"""
import copy
import json
import sys

from openai.lib._pydantic import _ensure_strict_json_schema

for line in sys.stdin:
    schema = json.loads(line)
    try:
        strict = copy.deepcopy(schema)
        out = _ensure_strict_json_schema(strict, path=(), root=strict)
    except Exception as error:  # reported, compared as a failure
        out = {"error": f"{type(error).__name__}: {error}"}
    sys.stdout.write(json.dumps(out) + "\n")
