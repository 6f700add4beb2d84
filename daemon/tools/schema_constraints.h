// Schema constraints: the valijson constraints behind the private keywords
// that schema_keywords.h rewrites `type`, `enum`, `const`, `pattern`,
// `format` and `additionalProperties: false` to. Each says what was expected
// and what was given; patterns run on SchemaRegex (RE2, else bounded PCRE2).
//
// `patternProperties` is taken from valijson too (it matched them with
// std::regex): CheckAndRewrite moves each object's patternProperties (and
// its additionalProperties schema, which must skip the names they match)
// into a holder that valijson parses like any subschema but never applies,
// {"allOf": [{"if": true, "else": {kPatternHolderKey: id, "properties":
// {"0": …, "1": …, "additional": …}}}]}, and puts kPatternPropertiesKey:
// {"id", "names", "patterns", "additional"} in their place. Once valijson
// has parsed the schema, LinkPatternProperties finds the holders' parsed
// subschemas for that constraint to validate the matching values with.
// Thread-safety: the constraints and SchemaRegex are immutable once built
// and may be used from any number of threads.
#pragma once

#include <memory>

#include "daemon/tools/schema_regex.h"

namespace valijson {
class Schema;
class SchemaParser;
}  // namespace valijson

namespace raw::tools::schema_keywords {

// Private keywords are "$raw:" + the keyword; `additionalProperties: false`
// becomes kClosedKey: {"names": [...], "patterns": [...]}.
inline constexpr char kPrivatePrefix[] = "$raw:";
inline constexpr char kClosedKey[] = "$raw:closed";
inline constexpr char kPatternPropertiesKey[] = "$raw:patternProperties";
inline constexpr char kPatternHolderKey[] = "$raw:patternHolder";

// The parsed subschemas of the patternProperties holders, by holder id.
class PatternSubschemas;

// Registers the constraints of the private keywords with `parser`. A
// malformed keyword value makes parsing throw (SchemaValidator catches it).
// The constraints of kPatternPropertiesKey refer to the returned object:
// fill it with LinkPatternProperties once `parser` has populated the schema,
// and keep it as long as the schema.
std::shared_ptr<PatternSubschemas> AddConstraintBuilders(valijson::SchemaParser& parser);

// Records the holders' subschemas of `schema` in `subschemas`.
void LinkPatternProperties(const valijson::Schema& schema, PatternSubschemas& subschemas);

}  // namespace raw::tools::schema_keywords
