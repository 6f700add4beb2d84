// SchemaValidator: a tool's input JSON Schema (Draft 7), compiled once with
// valijson, checking the arguments of every call before its handler runs.
//
// Errors name the failing location as a JSON Pointer into the arguments and
// say what was expected, so the model can correct its call, e.g.
//   arguments do not match the schema of read_file:
//   - /offset: expected type integer, got string
//   - /: missing required property "path"
//   - /: property "colour" is not allowed (allowed: path, offset, limit)
// Lines from nested schemas (items, properties, if/then, allOf) are reported
// at their own location only; alternatives of anyOf/oneOf add one summary
// line. At most 20 lines, then "… and N more".
// "$ref" resolves within the schema (JSON Pointers, and subschemas that
// declare an absolute "$id"); nothing is ever fetched, so a reference to
// another document is a compile error, and so are references that loop
// without moving into the value or nest too deep (schema_refs.h); a check
// that would still nest past 1 MiB of stack fails (InvalidArgument) instead
// of overflowing it. Patterns use RE2, else PCRE2 within matching limits
// (schema_regex.h); a value they cannot check is refused.
// Thread-safety: immutable after Compile; Validate may run on any thread.
#pragma once

#include <memory>
#include <string>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/json.h"

namespace raw::tools {

class SchemaValidator {
 public:
  // Fails (InvalidArgument, naming what is wrong) when `schema` is not a
  // valid Draft 7 schema.
  static absl::StatusOr<std::shared_ptr<const SchemaValidator>> Compile(const Json& schema);

  // OK, or InvalidArgument whose message lists every violation (at most a
  // few dozen lines) as above. `tool_name` appears in the first line.
  absl::Status Validate(const Json& instance, const std::string& tool_name) const;

  ~SchemaValidator();
  SchemaValidator(const SchemaValidator&) = delete;
  SchemaValidator& operator=(const SchemaValidator&) = delete;

 private:
  struct Impl;
  explicit SchemaValidator(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace raw::tools
