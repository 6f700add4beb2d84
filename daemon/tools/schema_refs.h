// Schema references: the checks of a schema's "$ref"s that keep valijson's
// recursion bounded, run before valijson sees the schema.
//
// valijson follows "$ref" with no bound of its own. A chain of references
// that comes back to itself ({"$ref": "#"}) never ends parsing; a loop
// through keywords that apply to the same value (allOf, anyOf, oneOf, not,
// if/then/else, dependencies) never ends validating. Either overflows the
// stack. A loop through a keyword that moves into a part of the value
// (properties, patternProperties, additionalProperties, items,
// additionalItems, contains, propertyNames) is a recursive schema, whose
// validation ends where the value ends.
//
// CheckReferences follows what valijson parses, from the root: the keywords
// above, and each "$ref" resolved as valijson resolves it (a JSON Pointer
// into the current document; another document through `find_document`).
// It reports, as "<pointer>: <what is wrong>": each loop of the first kind;
// each "$ref" or "id" longer than kMaxReferenceBytes (valijson matches them
// against a std::regex, which recurses once per character); and a schema
// whose parse could nest deeper than kMaxSchemaNesting; and one that
// applies more than kMaxApplicationsPerValue subschemas to one value. A
// reference it cannot follow is left to valijson, which rejects it or
// follows it; SchemaValidator also bounds valijson's stack use, so a loop
// this check does not foresee fails the schema instead of the process.
// Pure; thread-safe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include "common/json.h"

namespace raw::tools::schema_refs {

inline constexpr size_t kMaxReferenceBytes = 1024;
// The deepest valijson's parse may recurse, in subschemas (about 1-2 KB of
// stack each). A schema nested as deep as a JSON document may be (512
// levels, two per subschema) stays well below it.
inline constexpr size_t kMaxSchemaNesting = 1000;
// The most subschemas a schema may apply to one value of the arguments
// (references that branch without looping multiply them; ordinary schemas
// apply tens).
inline constexpr uint64_t kMaxApplicationsPerValue = 10000;

// The document a "$ref" to another URI names (the URI as valijson passes
// it to its fetch function: the part before '#'), or null when none.
using DocumentFinder = std::function<const Json*(const std::string& uri)>;

// `schema` as given (before CheckAndRewrite moves keywords around).
std::vector<std::string> CheckReferences(const Json& schema, const DocumentFinder& find_document);

}  // namespace raw::tools::schema_refs
