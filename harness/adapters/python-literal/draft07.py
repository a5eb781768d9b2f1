"""JSON Schema draft-07 validation as §6.2 words it ("Validates output against JSON Schema draft-07
using ajv strict mode"), stdlib only.

ajv's strict mode refuses a schema with an unknown keyword or a keyword value of the wrong shape
(`SchemaError`, reported as `invalid_schema`); without a format plugin it knows no `format`, and
it resolves no remote `$ref`. Validation follows draft-07: `integer` accepts `1.0`, string
lengths count code points, `pattern` is an ECMAScript regex with the `u` flag (ajv's
`new RegExp(p, "u")`), `$ref` siblings are ignored, numbers compare as JSON numbers.
Anything this module does not render faithfully raises `Unsupported`.
"""

from __future__ import annotations

import math
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


def _is_number(v: Any) -> bool:
    return isinstance(v, (int, float)) and not isinstance(v, bool)


def _count(v: Any) -> bool:
    return _is_number(v) and v >= 0 and float(v).is_integer()


def check_schema(schema: Any, root: Any, depth: int = 0) -> None:
    """ajv strict's compile-time refusals."""
    if depth > MAX_DEPTH:
        raise Unsupported("schema nested too deeply")
    if isinstance(schema, bool):
        return
    if not isinstance(schema, dict):
        raise SchemaError("a schema is an object or a boolean")
    for key, value in schema.items():
        if key not in KNOWN:
            raise SchemaError(f"strict mode: unknown keyword {key!r}")
        if key in SCHEMA_KEYS:
            if key == "items" and isinstance(value, list):
                for s in value:
                    check_schema(s, root, depth + 1)
            elif key == "additionalProperties" or key == "additionalItems":
                check_schema(value, root, depth + 1)
            else:
                check_schema(value, root, depth + 1)
        elif key in SCHEMA_ARRAYS:
            if not isinstance(value, list) or not value:
                raise SchemaError(f"{key} must be a non-empty array")
            for s in value:
                check_schema(s, root, depth + 1)
        elif key in SCHEMA_MAPS:
            if not isinstance(value, dict):
                raise SchemaError(f"{key} must be an object")
            for k, s in value.items():
                if key == "patternProperties":
                    _compile(k)
                check_schema(s, root, depth + 1)
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
                    check_schema(dep, root, depth + 1)
        elif key == "$ref":
            if not isinstance(value, str):
                raise SchemaError("$ref must be a string")
            resolve(value, root)
        elif key in ("contentMediaType", "contentEncoding"):
            raise Unsupported(f"{key}")


def _compile(pattern: str) -> None:
    try:
        ecmaregex.test(pattern, "u", "")
    except ecmaregex.JsSyntaxError as e:
        raise SchemaError(f"pattern: {e}") from e
    except ecmaregex.Unsupported as e:
        raise Unsupported(f"pattern: {e}") from e


def resolve(ref: str, root: Any) -> Any:
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


def valid(v: Any, schema: Any, root: Any) -> bool:
    if schema is True:
        return True
    if schema is False:
        return False
    if "$ref" in schema:
        return valid(v, resolve(schema["$ref"], root), root)  # draft-07: siblings ignored
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
            q = v / s["multipleOf"]
            if not (math.isfinite(q) and float(q).is_integer()):
                return False
    if isinstance(v, str):
        if "minLength" in s and _length(v) < s["minLength"]:
            return False
        if "maxLength" in s and _length(v) > s["maxLength"]:
            return False
        if "pattern" in s and not ecmaregex.test(s["pattern"], "u", v):
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
                if not valid(x, sub, root):
                    return False
            extra = s.get("additionalItems", True)
            if not all(valid(x, extra, root) for x in v[len(items):]):
                return False
        elif not all(valid(x, items, root) for x in v):
            return False
        if "contains" in s and not any(valid(x, s["contains"], root) for x in v):
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
                if not valid(x, props[k], root):
                    return False
            for p, sub in patterns.items():
                if ecmaregex.test(p, "u", k):
                    matched = True
                    if not valid(x, sub, root):
                        return False
            if not matched and not valid(x, s.get("additionalProperties", True), root):
                return False
        if "propertyNames" in s and not all(valid(k, s["propertyNames"], root) for k in v):
            return False
        for k, dep in s.get("dependencies", {}).items():
            if k in v:
                if isinstance(dep, list):
                    if any(d not in v for d in dep):
                        return False
                elif not valid(v, dep, root):
                    return False
    if "allOf" in s and not all(valid(v, sub, root) for sub in s["allOf"]):
        return False
    if "anyOf" in s and not any(valid(v, sub, root) for sub in s["anyOf"]):
        return False
    if "oneOf" in s and sum(1 for sub in s["oneOf"] if valid(v, sub, root)) != 1:
        return False
    if "not" in s and valid(v, s["not"], root):
        return False
    if "if" in s:
        branch = s.get("then", True) if valid(v, s["if"], root) else s.get("else", True)
        if not valid(v, branch, root):
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
