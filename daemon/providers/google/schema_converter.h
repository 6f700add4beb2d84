// SchemaConverter: turns a tool's JSON Schema into the subset of the
// OpenAPI 3.0 Schema Object that Gemini's functionDeclarations[].parameters
// accepts (the `Schema` message). Gemini rejects every other keyword with a
// 400 ("Unknown name ... Cannot find field"), so the conversion keeps only
// what the message models and rewrites what it can express differently:
//
// - local "$ref"s ("#/$defs/X", "#/definitions/X", "#") are resolved inline
//   (a reference cycle, a depth beyond kMaxDepth, or a reference met after
//   5000 schemas were already inlined ends in a schema keeping only the
//   target's type, rather than recursing forever or multiplying the
//   output for references that fan out);
// - "type" becomes the upper-case enum name ("string" -> "STRING"); a type
//   list [T, "null"] becomes T plus "nullable": true, and a list of several
//   types becomes "anyOf" of one schema per type;
// - "const" becomes a one-value "enum"; "enum" is kept only when every
//   value is a string (Gemini allows enums on STRING only);
// - "oneOf" becomes "anyOf"; "allOf" members are merged into the schema
//   (properties and required lists united, otherwise the first value wins);
// - "format" is kept only where Gemini accepts it (STRING: enum, date-time;
//   NUMBER: float, double; INTEGER: int32, int64);
// - "required" keeps only names present in "properties";
// - a tuple "items" list keeps its first schema;
// - every other keyword ($schema, additionalProperties, exclusiveMinimum,
//   propertyNames, patternProperties, $id, examples, ...) is dropped.
// An object schema without properties is left out at the root (the
// declaration then has no "parameters") and stays {"type":"OBJECT"} when
// nested. Keys keep the input's order, so the output is deterministic.
//
// Pure functions; thread-safe.
#pragma once

#include <optional>

#include "common/json.h"

namespace raw::providers::google {

// The "parameters" value for a declaration, or nullopt when it must be
// left out (no schema, or an object schema without properties).
std::optional<OrderedJson> ToGeminiParameters(const OrderedJson& json_schema);

}  // namespace raw::providers::google
