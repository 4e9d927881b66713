"""Validates JSON Lines on stdin as the google-genai package takes a function declaration's
schema: `parameters` for the Gemini Developer API or, given `--json-schema`,
`parametersJsonSchema`.

For `parameters`, each schema goes through `_transformers.t_schema`, the package's own
processing of a `Schema` for a client of the Developer API (`Client(vertexai=False)`; a stub
client object with `vertexai = False` stands for it): `process_schema` inlines `$defs`, says
`null` as `nullable`, and raises for what the Developer API does not take (`additionalProperties`),
then `types.Schema` validates the result.

For `parametersJsonSchema`, `types.JSONSchema` validates each schema as the Gemini API reads it
(see `tests/servers/gemini_api_schema.py` for where the API takes more than the type says).

Each output line is {"ok": true}, or {"error": "..."} with the package's message. Both types
forbid unknown keys, so a keyword the type does not have is an error.
"""
import copy
import json
import sys
from pathlib import Path

from google.genai import _transformers

sys.dont_write_bytecode = True
sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "servers"))
from gemini_api_schema import json_schema_error  # noqa: E402


class DeveloperApiClient:
    """What `process_schema` reads of a client: which API it talks to."""

    vertexai = False


def parameters_error(schema):
    _transformers.t_schema(DeveloperApiClient(), copy.deepcopy(schema))


json_schema = "--json-schema" in sys.argv[1:]

for line in sys.stdin:
    schema = json.loads(line)
    try:
        if json_schema:
            error = json_schema_error(schema)
            if error is not None:
                raise ValueError(error)
        else:
            parameters_error(schema)
        out = {"ok": True}
    except Exception as error:  # reported, compared as a failure
        out = {"error": f"{type(error).__name__}: {error}"}
    sys.stdout.write(json.dumps(out) + "\n")
