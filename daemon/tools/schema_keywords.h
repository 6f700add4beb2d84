// Schema keywords: the checks of a schema's own shape, and the part of Draft 7
// that SchemaValidator handles itself instead of leaving it to valijson.
//
// CheckAndRewrite walks a schema like the Draft 7 meta-schema does, naming
// each malformed keyword by its JSON Pointer (and each "$ref" within the
// document that points at nothing), and renames `type`, `enum`, `const`,
// `pattern`, `format`, `patternProperties` and `additionalProperties:
// false` to private keywords whose constraints (schema_constraints.h) say
// what was expected and what was given, and match patterns with
// SchemaRegex (RE2, else PCRE2 within limits; schema_regex.h): valijson's
// std::regex backtracks without bound and recurses once per character.
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "common/json.h"

namespace raw::tools::schema_keywords {

struct RewriteResult {
  // "<pointer>: <what is wrong>" per malformed keyword; empty when valid.
  std::vector<std::string> errors;
};

// Checks `schema` and rewrites it in place for AddConstraintBuilders.
RewriteResult CheckAndRewrite(Json& schema);

// JSON Pointer escaping of one reference token ("~" -> "~0", "/" -> "~1").
std::string EscapePointer(const std::string& segment);

// Unicode code points in UTF-8 `text` (what maxLength counts).
size_t CodePoints(const std::string& text);

// "integer", "number", "string", ... as JSON Schema names the type of `value`.
std::string JsonTypeName(const Json& value);

// `value` as compact JSON, cut to a few dozen characters, for messages.
std::string Brief(const Json& value);

}  // namespace raw::tools::schema_keywords
