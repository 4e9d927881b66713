"""What the Gemini API takes in a function declaration's `parametersJsonSchema`: google-genai's
`types.JSONSchema`, and `prefixItems`.

The API takes `prefixItems` (tuples) in the JSON Schema it reads, as Google's announcement of
its JSON Schema support lists it
(https://blog.google/technology/developers/gemini-api-structured-outputs/), and as the API
reference lists it among the JSON Schema properties the API supports (given for
`GenerationConfig.responseJsonSchema`, https://ai.google.dev/api/generate-content#generationconfig,
the same JSON Schema support). The package's
`JSONSchema` type has no field for it, so a schema is checked here with each `prefixItems`
taken out and its elements checked as schemas of their own. Nothing else is let through that
the type refuses.
"""
from __future__ import annotations

import copy
from typing import Any, Optional

# Keywords whose value is one schema, and those whose value is a map or a list of schemas.
ONE = ("items", "additionalProperties")
MAP = ("properties", "$defs")
LIST = ("anyOf", "oneOf")


def _split(schema: Any, out: list[Any]) -> Any:
    """`schema` without its `prefixItems`, at any depth; the schemas they held go to `out`."""
    if not isinstance(schema, dict):
        return schema
    schema = dict(schema)
    prefix = schema.pop("prefixItems", None)
    if isinstance(prefix, list):
        out.extend(prefix)
    elif prefix is not None:
        schema["prefixItems"] = prefix  # not a list: left for the type to refuse
    for key in ONE:
        if key in schema:
            schema[key] = _split(schema[key], out)
    for key in MAP:
        if isinstance(schema.get(key), dict):
            schema[key] = {name: _split(value, out) for name, value in schema[key].items()}
    for key in LIST:
        if isinstance(schema.get(key), list):
            schema[key] = [_split(value, out) for value in schema[key]]
    return schema


def json_schema_error(schema: Any) -> Optional[str]:
    """None when the API takes `schema` as `parametersJsonSchema`, else why not."""
    from google.genai import types
    import pydantic

    pending = [copy.deepcopy(schema)]
    while pending:
        rest: list[Any] = []
        part = _split(pending.pop(), rest)
        try:
            types.JSONSchema.model_validate(part)
        except pydantic.ValidationError as error:
            return str(error)
        pending.extend(rest)
    return None
