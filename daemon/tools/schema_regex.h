// SchemaRegex: a JSON Schema regular expression ("pattern",
// "patternProperties"), matched the way JSON Schema means it: found anywhere
// in the subject.
//
// RE2 when it can compile the expression: linear time, no recursion. What
// RE2 lacks (lookahead, lookbehind, backreferences) runs on PCRE2 with
// options close to ECMA-262 and a bound on the work of every match: a
// match, depth and heap limit, and at most kMaxBacktrackingSubject bytes of
// subject (PCRE2's limits count backtracking steps, not the characters a
// step scans, so the length still bounds the time). A subject that hits a
// bound is neither a match nor a mismatch: Search reports it, and the
// callers refuse the argument.
// Thread-safety: immutable once compiled; Search may run on any thread.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <string>

namespace re2 {
class RE2;
}

namespace raw::tools::schema_keywords {

// The longest subject (in bytes) matched with PCRE2; RE2 has no such limit.
inline constexpr size_t kMaxBacktrackingSubject = 4096;

class SchemaRegex {
 public:
  // Fails with `error` set when neither engine accepts `source`.
  static std::optional<SchemaRegex> Compile(const std::string& source, std::string* error);

  // True on a match; false with `error` empty on no match, or set (e.g.
  // `could not be checked against "…" within Raw's matching limit`) when the
  // subject could not be checked.
  bool Search(const std::string& subject, std::string* error) const;
  const std::string& source() const { return source_; }

 private:
  class Backtracking;  // the PCRE2 code and its match limits

  std::string source_;
  std::shared_ptr<const re2::RE2> re2_;
  std::shared_ptr<const Backtracking> backtracking_;
};

}  // namespace raw::tools::schema_keywords
