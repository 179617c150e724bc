"""JSON Schema as Claude Code accepts it: draft-07.

Claude Code validates `--json-schema` with Ajv's draft-07 and refuses a schema that declares a newer
draft (`Error: --json-schema is not a valid JSON Schema: no schema with key or ref
"https://json-schema.org/draft/2020-12/schema"`, seen with the real CLI 2.1.332). pydantic writes
draft 2020-12, so every schema we hand to Claude Code or ship in plugin/schemas/ goes through
`to_draft7`: `$defs` become `definitions` (and every `$ref` follows), `prefixItems` become an
`items` array, 2020-12-only keywords are spelled the draft-07 way, and OpenAPI's `discriminator`
(which Ajv's strict mode rejects as an unknown keyword) is dropped. Stdlib only.
"""

from __future__ import annotations

import copy
from typing import Any

DRAFT7 = "http://json-schema.org/draft-07/schema#"
DROPPED = frozenset({"discriminator", "$dynamicRef", "$dynamicAnchor", "$anchor", "$vocabulary", "$comment"})


def to_draft7(schema: dict[str, Any]) -> dict[str, Any]:
    """A draft-07 copy of a (pydantic, draft 2020-12) schema, with `$schema` set to draft-07."""
    out = _walk(copy.deepcopy(schema))
    assert isinstance(out, dict)
    out.pop("$schema", None)
    return {"$schema": DRAFT7, **out}


def _ref(ref: str) -> str:
    return "#/definitions/" + ref[len("#/$defs/") :] if ref.startswith("#/$defs/") else ref


def _walk(node: Any) -> Any:
    if isinstance(node, list):
        return [_walk(item) for item in node]
    if not isinstance(node, dict):
        return node
    out: dict[str, Any] = {}
    for key, value in node.items():
        if key in DROPPED:
            continue
        if key == "$defs" or (key == "definitions" and isinstance(value, dict)):
            out.setdefault("definitions", {}).update({name: _walk(sub) for name, sub in value.items()})
        elif key == "$ref" and isinstance(value, str):
            out["$ref"] = _ref(value)
        elif key in ("properties", "patternProperties"):
            out[key] = {name: _walk(sub) for name, sub in value.items()}
        elif key == "prefixItems":
            out["items"] = _walk(value)
            if "items" in node:
                out["additionalItems"] = _walk(node["items"])
        elif key == "items" and "prefixItems" in node:
            continue  # became additionalItems above
        elif key in ("dependentRequired", "dependentSchemas"):
            out.setdefault("dependencies", {}).update(_walk(value))
        else:
            out[key] = _walk(value)
    if "$ref" in out and len(out) > 1:  # draft-07 ignores a $ref's siblings: keep them through allOf
        ref = out.pop("$ref")
        out = {**out, "allOf": [{"$ref": ref}, *out.get("allOf", [])]}
    return out
