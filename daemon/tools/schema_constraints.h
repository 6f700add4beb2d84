// Schema constraints: the valijson constraints behind the private keywords
// that schema_keywords.h rewrites `type`, `enum`, `const`, `pattern`,
// `format` and `additionalProperties: false` to. Each says what was expected
// and what was given; patterns run on RE2.
// Thread-safety: the constraints and SchemaRegex are immutable once built
// and may be used from any number of threads.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <regex>
#include <string>

namespace re2 {
class RE2;
}
namespace valijson {
class SchemaParser;
}

namespace raw::tools::schema_keywords {

// Private keywords are "$raw:" + the keyword; `additionalProperties: false`
// becomes kClosedKey: {"names": [...], "patterns": [...]}.
inline constexpr char kPrivatePrefix[] = "$raw:";
inline constexpr char kClosedKey[] = "$raw:closed";

// std::regex recurses about once per character: beyond this many bytes a
// subject is refused rather than risking the stack.
inline constexpr size_t kMaxStdRegexSubject = 4096;

// A regular expression as JSON Schema means it: found anywhere in the
// subject. RE2 when it can compile the expression (linear time, no
// recursion); otherwise std::regex (ECMAScript syntax RE2 lacks, such as
// lookahead) on subjects of at most kMaxStdRegexSubject bytes.
class SchemaRegex {
 public:
  // Fails with `error` set when neither engine accepts `source`.
  static std::optional<SchemaRegex> Compile(const std::string& source, std::string* error);

  // True on a match; false with `error` empty on no match, or set when the
  // subject could not be checked.
  bool Search(const std::string& subject, std::string* error) const;
  const std::string& source() const { return source_; }

 private:
  std::string source_;
  std::shared_ptr<const re2::RE2> re2_;
  std::shared_ptr<const std::regex> fallback_;
};

// Registers the constraints of the private keywords with `parser`. A
// malformed keyword value makes parsing throw (SchemaValidator catches it).
void AddConstraintBuilders(valijson::SchemaParser& parser);

}  // namespace raw::tools::schema_keywords
