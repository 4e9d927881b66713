"""Validates JSON Lines on stdin as the google-genai package's `types.Schema`.

Each input line is a JSON schema as sent in a function declaration's `parameters`; each
output line is {"ok": true}, or {"error": "..."} with pydantic's message. The type forbids
unknown keys, so a keyword Gemini's Schema does not have is an error.
"""
import json
import sys

from google.genai import types

for line in sys.stdin:
    schema = json.loads(line)
    try:
        types.Schema.model_validate(schema)
        out = {"ok": True}
    except Exception as error:  # reported, compared as a failure
        out = {"error": f"{type(error).__name__}: {error}"}
    sys.stdout.write(json.dumps(out) + "\n")
