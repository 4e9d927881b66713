"""Validates JSON Lines on stdin as the google-genai package's `types.Schema` (a function
declaration's `parameters`) or, given `--json-schema`, its `types.JSONSchema`
(`parametersJsonSchema`).

Each output line is {"ok": true}, or {"error": "..."} with pydantic's message. Both types
forbid unknown keys, so a keyword the type does not have is an error.
"""
import json
import sys

from google.genai import types

kind = types.JSONSchema if "--json-schema" in sys.argv[1:] else types.Schema

for line in sys.stdin:
    schema = json.loads(line)
    try:
        kind.model_validate(schema)
        out = {"ok": True}
    except Exception as error:  # reported, compared as a failure
        out = {"error": f"{type(error).__name__}: {error}"}
    sys.stdout.write(json.dumps(out) + "\n")
