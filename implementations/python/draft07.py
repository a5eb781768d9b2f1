"""JSON Schema draft-07 validation as §6.2 words it ("Validates output against JSON Schema draft-07
using ajv strict mode"), stdlib only.

ajv's strict mode refuses a schema with an unknown keyword or a keyword value of the wrong shape
(`SchemaError`, reported as `invalid_schema`); without a format plugin it knows no `format`, and
it resolves no remote `$ref`. Validation follows draft-07: `integer` accepts `1.0`, string
lengths count code points, `pattern` is an ECMAScript regex with the `u` flag (ajv's
`new RegExp(p, "u")`), `$ref` siblings are ignored, numbers compare as JSON numbers.
Anything this module does not render faithfully raises `Unsupported`.

The example library's decision reading (D12, D29) is `check_d29` then `valid(..., linear=True)`:
the draft-07 `$schema` only, ajv strict's keyword walk (depth ≤ 64), the meta-schema's value
rules, local `$ref`s (and the draft-07 meta-schema) only, `pattern` on the linear-time engine,
`multipleOf` in exact decimal arithmetic.
"""

from __future__ import annotations

import base64
import binascii
import json
import math
import re
from urllib.parse import unquote
from decimal import Decimal
from typing import Any

import ecmaregex


class SchemaError(Exception):
    """ajv strict would refuse to compile the schema."""


class Unsupported(Exception):
    """Not rendered faithfully here."""


TYPES = {"null", "boolean", "object", "array", "number", "string", "integer"}
SCHEMA_KEYS = {"not", "if", "then", "else", "additionalItems", "additionalProperties", "contains", "propertyNames", "items"}
SCHEMA_ARRAYS = {"allOf", "anyOf", "oneOf"}
SCHEMA_MAPS = {"properties", "patternProperties", "definitions"}
NUMBERS = {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"}
COUNTS = {"minLength", "maxLength", "minItems", "maxItems", "minProperties", "maxProperties"}
OTHER = {"$schema", "$id", "$ref", "$comment", "title", "description", "default", "examples", "readOnly", "writeOnly",
         "type", "enum", "const", "required", "dependencies", "uniqueItems", "pattern", "format", "contentMediaType",
         "contentEncoding"}
KNOWN = SCHEMA_KEYS | SCHEMA_ARRAYS | SCHEMA_MAPS | NUMBERS | COUNTS | OTHER
MAX_DEPTH = 10_000

# --- the example library's reading (D12, D29): `check_d29` then `valid(..., linear=True)` ----------
D29_EXTRA = {"$defs", "$vocabulary"}  # ajv's core extras, accepted as keywords
DRAFT7_URIS = {"http://json-schema.org/draft-07/schema#", "http://json-schema.org/draft-07/schema"}
MAX_D29_DEPTH = 64  # deepest schema nesting walked; deeper is `limit_exceeded`


class TooDeep(Exception):
    """D29 reading: schema objects nested deeper than MAX_D29_DEPTH."""


def check_d29(schema: Any) -> None:
    """D29: the draft-07 `$schema` only, ajv strict's keyword rules walked in key order
    (unknown keyword, any `format` → SchemaError; too deep → TooDeep), then the keyword values
    (`check_schema`: types, patterns on the linear engine, local `$ref` only)."""
    if isinstance(schema, dict) and "$schema" in schema and (
        not isinstance(schema["$schema"], str) or schema["$schema"] not in DRAFT7_URIS
    ):
        raise SchemaError("$schema is not draft-07")
    _walk_d29(schema, 0)
    check_schema(schema, schema, linear=True)
    _compile_d29(schema, schema, set())


def _compile_d29(schema: Any, root: Any, seen: set) -> None:
    """The compile step of a draft-07 validator (D29): the subschemas that can apply are built
    — `$ref`s resolved (their siblings are ignored, draft-07), patterns compiled by the
    linear-time engine; `definitions` are built only through a `$ref`, `then`/`else` only
    with an `if` (and an `if` only with one of them), `additionalItems` only after an
    `items` array."""
    if not isinstance(schema, dict) or id(schema) in seen:
        return
    seen.add(id(schema))
    if "$ref" in schema:
        target = resolve(schema["$ref"], root, True)
        _compile_d29(target, _ref_document(schema["$ref"], root)[0], seen)
        return
    if "pattern" in schema:
        _compile(schema["pattern"], True)
    subs = [schema.get(k) for k in ("additionalProperties", "contains", "propertyNames", "not")]
    for key in ("properties", "patternProperties"):
        subs += list(schema.get(key, {}).values())
    for key in schema.get("patternProperties", {}):
        _compile(key, True)
    items = schema.get("items")
    subs += items if isinstance(items, list) else [items]
    if isinstance(items, list):
        subs.append(schema.get("additionalItems"))
    for key in ("allOf", "anyOf", "oneOf"):
        subs += schema.get(key, [])
    subs += [d for d in schema.get("dependencies", {}).values() if not isinstance(d, list)]
    if "if" in schema and ("then" in schema or "else" in schema):
        subs += [schema["if"], schema.get("then"), schema.get("else")]
    for sub in subs:
        _compile_d29(sub, root, seen)


def _walk_d29(schema: Any, depth: int) -> None:
    if depth > MAX_D29_DEPTH:
        raise TooDeep(f"schema nested deeper than {MAX_D29_DEPTH}")
    if isinstance(schema, bool):
        return
    if not isinstance(schema, dict):
        raise SchemaError("a schema is an object or a boolean")
    for key in sorted(schema):
        value = schema[key]
        if key in SCHEMA_KEYS - {"items"}:
            _walk_d29(value, depth + 1)
        elif key == "items" or key in SCHEMA_ARRAYS:
            if isinstance(value, list):
                for sub in value:
                    _walk_d29(sub, depth + 1)
            elif key == "items":
                _walk_d29(value, depth + 1)
            else:
                raise SchemaError(f"{key} must be an array")
        elif key in SCHEMA_MAPS or key == "$defs":
            if not isinstance(value, dict):
                raise SchemaError(f"{key} must be an object")
            for name in sorted(value):
                _walk_d29(value[name], depth + 1)
        elif key == "dependencies":
            if not isinstance(value, dict):
                raise SchemaError("dependencies must be an object")
            for name in sorted(value):
                if not isinstance(value[name], list):
                    _walk_d29(value[name], depth + 1)
        elif key == "format":
            raise SchemaError("format: no format is known (D29)")
        elif key not in KNOWN and key not in D29_EXTRA:
            raise SchemaError(f"unknown keyword {key!r}")


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _count(v: Any) -> bool:
    return _is_number(v) and v >= 0 and float(v).is_integer()


def check_schema(schema: Any, root: Any, depth: int = 0, linear: bool = False) -> None:
    """ajv strict's compile-time refusals (`linear`: the example library's reading, D29)."""
    if depth > MAX_DEPTH:
        raise Unsupported("schema nested too deeply")
    if isinstance(schema, bool):
        return
    if not isinstance(schema, dict):
        raise SchemaError("a schema is an object or a boolean")
    for key, value in schema.items():
        if linear and key in D29_EXTRA:
            continue  # the draft-07 meta-schema does not know them: their values are free
        if key not in KNOWN:
            raise SchemaError(f"strict mode: unknown keyword {key!r}")
        if linear:
            _meta_d29(key, value)
        if key in SCHEMA_KEYS:
            if key == "items" and isinstance(value, list):
                for s in value:
                    check_schema(s, root, depth + 1, linear)
            elif key == "additionalProperties" or key == "additionalItems":
                check_schema(value, root, depth + 1, linear)
            else:
                check_schema(value, root, depth + 1, linear)
        elif key in SCHEMA_ARRAYS:
            if not isinstance(value, list) or not value:
                raise SchemaError(f"{key} must be a non-empty array")
            for s in value:
                check_schema(s, root, depth + 1, linear)
        elif key in SCHEMA_MAPS:
            if not isinstance(value, dict):
                raise SchemaError(f"{key} must be an object")
            for k, s in value.items():
                if key == "patternProperties":
                    if not linear:  # D29: compiled where applied (_compile_d29)
                        _compile(k)
                check_schema(s, root, depth + 1, linear)
        elif key in NUMBERS:
            if not _is_number(value) or (key == "multipleOf" and value <= 0):
                raise SchemaError(f"{key} must be a number")
        elif key in COUNTS:
            if not _count(value):
                raise SchemaError(f"{key} must be a non-negative integer")
        elif key == "type":
            names = value if isinstance(value, list) else [value]
            if not names or not all(isinstance(n, str) and n in TYPES for n in names):
                raise SchemaError("type must name draft-07 types")
        elif key == "required":
            if not isinstance(value, list) or not all(isinstance(n, str) for n in value):
                raise SchemaError("required must be an array of strings")
        elif key == "enum":
            if not isinstance(value, list):
                raise SchemaError("enum must be an array")
        elif key == "uniqueItems":
            if not isinstance(value, bool):
                raise SchemaError("uniqueItems must be a boolean")
        elif key == "pattern":
            if not isinstance(value, str):
                raise SchemaError("pattern must be a string")
            if not linear:
                _compile(value)
        elif key == "format":
            raise SchemaError(f"unknown format {value!r} (strict mode, no format plugin)")
        elif key == "dependencies":
            if not isinstance(value, dict):
                raise SchemaError("dependencies must be an object")
            for dep in value.values():
                if isinstance(dep, list):
                    if not all(isinstance(n, str) for n in dep):
                        raise SchemaError("dependencies lists strings")
                else:
                    check_schema(dep, root, depth + 1, linear)
        elif key == "$ref":
            if not isinstance(value, str):
                raise SchemaError("$ref must be a string")
            if not linear:
                resolve(value, root)
        elif key in ("contentMediaType", "contentEncoding"):
            if not linear:
                raise Unsupported(f"{key}")
            if not isinstance(value, str):
                raise SchemaError(f"{key} must be a string")


def _unique(items: list) -> bool:
    return all(not _equal(items[i], items[j]) for i in range(len(items)) for j in range(i + 1, len(items)))


def _meta_d29(key: str, value: Any) -> None:
    """The draft-07 meta-schema's rules that `check_schema` leaves to ajv's meta validation:
    unique `required` / `type` / `dependencies` lists, a non-empty `items` array, and the
    types of the annotation keywords."""
    strings = {"$id", "$schema", "$ref", "$comment", "title", "description"}
    if key in ("required", "type") and isinstance(value, list) and not _unique(value):
        raise SchemaError(f"{key} entries must be unique")
    if key == "items" and isinstance(value, list) and not value:
        raise SchemaError("items must be a schema or a non-empty array")
    if key == "dependencies" and isinstance(value, dict):
        if any(isinstance(d, list) and not _unique(d) for d in value.values()):
            raise SchemaError("dependencies lists must be unique")
    if key in strings and not isinstance(value, str):
        raise SchemaError(f"{key} must be a string")
    if key in ("readOnly", "writeOnly") and not isinstance(value, bool):
        raise SchemaError(f"{key} must be a boolean")
    if key == "examples" and not isinstance(value, list):
        raise SchemaError("examples must be an array")


def _compile(pattern: str, linear: bool = False) -> None:
    try:
        if linear:  # D29: no backtracking; lookaround and backreferences refuse the schema
            ecmaregex.compile_linear(pattern, "u")
        else:
            ecmaregex.test(pattern, "u", "")
    except (ecmaregex.JsSyntaxError, ecmaregex.NotRegular, ecmaregex.TooLarge) as e:
        raise SchemaError(f"pattern: {e}") from e
    except ecmaregex.Unsupported as e:
        raise Unsupported(f"pattern: {e}") from e


def _content_ok(text: str, s: dict) -> bool:
    """D29 reading: draft-07's `contentEncoding: base64` and `contentMediaType:
    application/json` are asserted (other encodings and media types are annotations)."""
    data: Any = text
    if s.get("contentEncoding") == "base64":
        try:
            raw = base64.b64decode(text, validate=True)
        except (binascii.Error, ValueError):
            return False
        if base64.b64encode(raw).decode("ascii") != text:
            return False  # non-canonical padding bits
        data = raw
    if s.get("contentMediaType") == "application/json":
        try:
            json.loads(data, parse_constant=_no_constant)
        except (ValueError, UnicodeDecodeError):
            return False
    return True


def _no_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


def _linear_test(pattern: str, flags: str, subject: str) -> bool:
    return ecmaregex.compile_linear(pattern, flags).test(subject)


_ACTIVE_REFS: set = set()


# The draft-07 meta-schema (json-schema.org/draft-07/schema), the one document a `$ref` may name
# besides the schema itself (a validator knows it without fetching anything).
META = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "$id": "http://json-schema.org/draft-07/schema#",
    "title": "Core schema meta-schema",
    "definitions": {
        "schemaArray": {"type": "array", "minItems": 1, "items": {"$ref": "#"}},
        "nonNegativeInteger": {"type": "integer", "minimum": 0},
        "nonNegativeIntegerDefault0": {"allOf": [{"$ref": "#/definitions/nonNegativeInteger"}, {"default": 0}]},
        "simpleTypes": {"enum": ["array", "boolean", "integer", "null", "number", "object", "string"]},
        "stringArray": {"type": "array", "items": {"type": "string"}, "uniqueItems": True, "default": []},
    },
    "type": ["object", "boolean"],
    "properties": {
        "$id": {"type": "string", "format": "uri-reference"},
        "$schema": {"type": "string", "format": "uri"},
        "$ref": {"type": "string", "format": "uri-reference"},
        "$comment": {"type": "string"},
        "title": {"type": "string"},
        "description": {"type": "string"},
        "default": True,
        "readOnly": {"type": "boolean", "default": False},
        "writeOnly": {"type": "boolean", "default": False},
        "examples": {"type": "array", "items": True},
        "multipleOf": {"type": "number", "exclusiveMinimum": 0},
        "maximum": {"type": "number"},
        "exclusiveMaximum": {"type": "number"},
        "minimum": {"type": "number"},
        "exclusiveMinimum": {"type": "number"},
        "maxLength": {"$ref": "#/definitions/nonNegativeInteger"},
        "minLength": {"$ref": "#/definitions/nonNegativeIntegerDefault0"},
        "pattern": {"type": "string", "format": "regex"},
        "additionalItems": {"$ref": "#"},
        "items": {"anyOf": [{"$ref": "#"}, {"$ref": "#/definitions/schemaArray"}], "default": True},
        "maxItems": {"$ref": "#/definitions/nonNegativeInteger"},
        "minItems": {"$ref": "#/definitions/nonNegativeIntegerDefault0"},
        "uniqueItems": {"type": "boolean", "default": False},
        "contains": {"$ref": "#"},
        "maxProperties": {"$ref": "#/definitions/nonNegativeInteger"},
        "minProperties": {"$ref": "#/definitions/nonNegativeIntegerDefault0"},
        "required": {"$ref": "#/definitions/stringArray"},
        "additionalProperties": {"$ref": "#"},
        "definitions": {"type": "object", "additionalProperties": {"$ref": "#"}, "default": {}},
        "properties": {"type": "object", "additionalProperties": {"$ref": "#"}, "default": {}},
        "patternProperties": {"type": "object", "additionalProperties": {"$ref": "#"}, "propertyNames": {"format": "regex"}, "default": {}},
        "dependencies": {"type": "object", "additionalProperties": {"anyOf": [{"$ref": "#"}, {"$ref": "#/definitions/stringArray"}]}},
        "propertyNames": {"$ref": "#"},
        "const": True,
        "enum": {"type": "array", "items": True},
        "type": {"anyOf": [
            {"$ref": "#/definitions/simpleTypes"},
            {"type": "array", "items": {"$ref": "#/definitions/simpleTypes"}, "minItems": 1, "uniqueItems": True},
        ]},
        "format": {"type": "string"},
        "contentMediaType": {"type": "string"},
        "contentEncoding": {"type": "string"},
        "if": {"$ref": "#"},
        "then": {"$ref": "#"},
        "else": {"$ref": "#"},
        "allOf": {"$ref": "#/definitions/schemaArray"},
        "anyOf": {"$ref": "#/definitions/schemaArray"},
        "oneOf": {"$ref": "#/definitions/schemaArray"},
        "not": {"$ref": "#"},
    },
    "default": True,
}
META_BASE = "http://json-schema.org/draft-07/schema"


def _ref_document(ref: str, root: Any) -> tuple:
    """(the document a `$ref` points into, its fragment): the schema itself or the meta-schema."""
    base, _, fragment = ref.partition("#")
    if base == "":
        return root, fragment
    if base == META_BASE:
        return META, fragment
    raise SchemaError(f"can't resolve reference {ref!r} (no remote schemas)")


def _resolve_d29(ref: str, root: Any) -> Any:
    """D29: only references into the same schema (or the draft-07 meta-schema) — `` or `#`
    (the root), a JSON pointer `#/…` (percent-decoded, `~1` `~0` unescaped), or a `$id`
    anchor `#name` defined in it."""
    root, fragment = _ref_document(ref, root)
    if fragment == "":
        return root
    if not fragment.startswith("/"):
        found = _find_anchor(root, "#" + fragment, 0)
        if found is None:
            raise SchemaError(f"no $id {ref!r} in the schema")
        return found
    node = root
    for part in fragment[1:].split("/"):
        part = unquote(part).replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and re.fullmatch(r"0|[1-9][0-9]*", part) and int(part) < len(node):
            node = node[int(part)]
        else:
            raise SchemaError(f"can't resolve reference {ref!r}")
    return node


def _find_anchor(node: Any, anchor: str, depth: int) -> Any:
    if depth > MAX_D29_DEPTH * 2:
        return None
    if isinstance(node, dict):
        if node.get("$id") == anchor:
            return node
        children = node.values()
    elif isinstance(node, list):
        children = node
    else:
        return None
    for child in children:
        found = _find_anchor(child, anchor, depth + 1)
        if found is not None:
            return found
    return None


def resolve(ref: str, root: Any, linear: bool = False) -> Any:
    if linear:
        return _resolve_d29(ref, root)
    if not ref.startswith("#"):
        raise SchemaError(f"can't resolve reference {ref!r} (no remote schemas)")
    node = root
    path = ref[1:]
    if path in ("", "/"):
        return root
    if not path.startswith("/"):
        raise Unsupported("$ref to an anchor")
    for part in path[1:].split("/"):
        part = part.replace("~1", "/").replace("~0", "~")
        if isinstance(node, dict) and part in node:
            node = node[part]
        elif isinstance(node, list) and part.isdigit() and int(part) < len(node):
            node = node[int(part)]
        else:
            raise SchemaError(f"can't resolve reference {ref!r}")
    return node


def _type_of(v: Any) -> str:
    if v is None:
        return "null"
    if isinstance(v, bool):
        return "boolean"
    if isinstance(v, dict):
        return "object"
    if isinstance(v, list):
        return "array"
    if isinstance(v, (int, float)):
        return "number"
    return "string"


def _has_type(v: Any, name: str) -> bool:
    t = _type_of(v)
    if name == "integer":
        return t == "number" and float(v).is_integer()
    return t == name or (name == "number" and t == "number")


def _equal(a: Any, b: Any) -> bool:
    if _is_number(a) and _is_number(b):
        return a == b
    if isinstance(a, list) and isinstance(b, list):
        return len(a) == len(b) and all(_equal(x, y) for x, y in zip(a, b))
    if isinstance(a, dict) and isinstance(b, dict):
        return a.keys() == b.keys() and all(_equal(a[k], b[k]) for k in a)
    return type(a) is type(b) and a == b


def _length(s: str) -> int:
    return len(s)  # code points (ajv's ucs2length)


def valid(v: Any, schema: Any, root: Any, linear: bool = False) -> bool:
    """`linear`: the example library's decision reading (D29): patterns on the linear-time
    engine, `multipleOf` in exact decimal arithmetic."""
    test = _linear_test if linear else ecmaregex.test
    if schema is True:
        return True
    if schema is False:
        return False
    if "$ref" in schema:
        if linear:
            # D29 reading: a `$ref` cycle that consumes nothing of the instance (`{"$ref": "#"}`)
            # asserts nothing; it is not followed again.
            key = (id(schema), id(v))
            if key in _ACTIVE_REFS:
                return True
            _ACTIVE_REFS.add(key)
            target_root = _ref_document(schema["$ref"], root)[0]
            try:
                return valid(v, resolve(schema["$ref"], root, linear), target_root, linear)
            finally:
                _ACTIVE_REFS.discard(key)
        return valid(v, resolve(schema["$ref"], root), root, linear)  # draft-07: siblings ignored
    s = schema
    if "type" in s:
        names = s["type"] if isinstance(s["type"], list) else [s["type"]]
        if not any(_has_type(v, n) for n in names):
            return False
    if "enum" in s and not any(_equal(v, e) for e in s["enum"]):
        return False
    if "const" in s and not _equal(v, s["const"]):
        return False
    if _is_number(v):
        if "minimum" in s and v < s["minimum"]:
            return False
        if "maximum" in s and v > s["maximum"]:
            return False
        if "exclusiveMinimum" in s and v <= s["exclusiveMinimum"]:
            return False
        if "exclusiveMaximum" in s and v >= s["exclusiveMaximum"]:
            return False
        if "multipleOf" in s:
            if linear:
                if Decimal(repr(v)) % Decimal(repr(s["multipleOf"])) != 0:
                    return False
            else:
                q = v / s["multipleOf"]
                if not (math.isfinite(q) and float(q).is_integer()):
                    return False
    if isinstance(v, str):
        if "minLength" in s and _length(v) < s["minLength"]:
            return False
        if "maxLength" in s and _length(v) > s["maxLength"]:
            return False
        if "pattern" in s and not test(s["pattern"], "u", v):
            return False
        if linear and not _content_ok(v, s):
            return False
    if isinstance(v, list):
        if "minItems" in s and len(v) < s["minItems"]:
            return False
        if "maxItems" in s and len(v) > s["maxItems"]:
            return False
        if s.get("uniqueItems") is True:
            for i in range(len(v)):
                for j in range(i + 1, len(v)):
                    if _equal(v[i], v[j]):
                        return False
        items = s.get("items", True)
        if isinstance(items, list):
            for x, sub in zip(v, items):
                if not valid(x, sub, root, linear):
                    return False
            extra = s.get("additionalItems", True)
            if not all(valid(x, extra, root, linear) for x in v[len(items):]):
                return False
        elif not all(valid(x, items, root, linear) for x in v):
            return False
        if "contains" in s and not any(valid(x, s["contains"], root, linear) for x in v):
            return False
    if isinstance(v, dict):
        if "minProperties" in s and len(v) < s["minProperties"]:
            return False
        if "maxProperties" in s and len(v) > s["maxProperties"]:
            return False
        if any(k not in v for k in s.get("required", [])):
            return False
        props = s.get("properties", {})
        patterns = s.get("patternProperties", {})
        for k, x in v.items():
            matched = False
            if k in props:
                matched = True
                if not valid(x, props[k], root, linear):
                    return False
            for p, sub in patterns.items():
                if test(p, "u", k):
                    matched = True
                    if not valid(x, sub, root, linear):
                        return False
            if not matched and not valid(x, s.get("additionalProperties", True), root, linear):
                return False
        if "propertyNames" in s and not all(valid(k, s["propertyNames"], root, linear) for k in v):
            return False
        for k, dep in s.get("dependencies", {}).items():
            if k in v:
                if isinstance(dep, list):
                    if any(d not in v for d in dep):
                        return False
                elif not valid(v, dep, root, linear):
                    return False
    if "allOf" in s and not all(valid(v, sub, root, linear) for sub in s["allOf"]):
        return False
    if "anyOf" in s and not any(valid(v, sub, root, linear) for sub in s["anyOf"]):
        return False
    if "oneOf" in s and sum(1 for sub in s["oneOf"] if valid(v, sub, root, linear)) != 1:
        return False
    if "not" in s and valid(v, s["not"], root, linear):
        return False
    if "if" in s and (not linear or "then" in s or "else" in s):  # an `if` alone asserts nothing
        branch = s.get("then", True) if valid(v, s["if"], root, linear) else s.get("else", True)
        if not valid(v, branch, root, linear):
            return False
    return True


def validate(schema: Any, output: Any) -> bool:
    """ajv.compile(schema) (SchemaError when strict refuses), then validate(output)."""
    check_schema(schema, schema)
    try:
        return valid(output, schema, schema)
    except RecursionError as e:
        raise Unsupported("schema or output nested too deeply for this validator") from e
    except ecmaregex.Unsupported as e:
        raise Unsupported(f"pattern: {e}") from e
