#include "daemon/tools/schema_regex.h"

#define PCRE2_CODE_UNIT_WIDTH 8

#include <pcre2.h>

#include <utility>

#include "absl/strings/str_cat.h"
#include "re2/re2.h"

namespace raw::tools::schema_keywords {
namespace {

// The bounds of one PCRE2 match. A pattern such as "^(?:(?!foo).)*$" on a
// kMaxBacktrackingSubject-byte subject takes a small fraction of them;
// "^(?=a)(a|a)*b$" on "aaa…acb" (exponential backtracking) stops at the
// match limit after about a millisecond.
constexpr uint32_t kMatchLimit = 200000;
constexpr uint32_t kDepthLimit = 100000;
constexpr uint32_t kHeapLimitKib = 32 * 1024;

// ECMA-262, JSON Schema's dialect, as far as PCRE2 can follow it: `$` only
// at the very end; `.` stops at CR and LF; \d, \w, \s are ASCII (no
// PCRE2_UCP; ECMA-262's \s also takes Unicode spaces, as RE2's does not);
// \uhhhh and \u{h…} escapes; "[^]" is any character; a backreference to a
// group that took no part matches the empty string. \C (a single byte) is
// refused.
constexpr uint32_t kOptions = PCRE2_UTF | PCRE2_MATCH_INVALID_UTF | PCRE2_DOLLAR_ENDONLY |
                              PCRE2_ALT_BSUX | PCRE2_ALLOW_EMPTY_CLASS | PCRE2_MATCH_UNSET_BACKREF |
                              PCRE2_NEVER_BACKSLASH_C;

std::string ErrorMessage(int code) {
  PCRE2_UCHAR buffer[256];
  int length = pcre2_get_error_message(code, buffer, sizeof(buffer));
  if (length < 0) return absl::StrCat("PCRE2 error ", code);
  return std::string(reinterpret_cast<const char*>(buffer), static_cast<size_t>(length));
}

}  // namespace

class SchemaRegex::Backtracking {
 public:
  // Null with `error` set when PCRE2 refuses `source`.
  static std::shared_ptr<const Backtracking> Compile(const std::string& source,
                                                     std::string* error) {
    pcre2_compile_context* compile = pcre2_compile_context_create(nullptr);
    pcre2_set_newline(compile, PCRE2_NEWLINE_ANYCRLF);
    pcre2_set_compile_extra_options(compile, PCRE2_EXTRA_ALT_BSUX);
    int code = 0;
    PCRE2_SIZE offset = 0;
    pcre2_code* regex = pcre2_compile(reinterpret_cast<PCRE2_SPTR>(source.data()), source.size(),
                                      kOptions, &code, &offset, compile);
    pcre2_compile_context_free(compile);
    if (regex == nullptr) {
      *error = absl::StrCat(ErrorMessage(code), " at offset ", offset);
      return nullptr;
    }
    pcre2_match_context* limits = pcre2_match_context_create(nullptr);
    pcre2_set_match_limit(limits, kMatchLimit);
    pcre2_set_depth_limit(limits, kDepthLimit);
    pcre2_set_heap_limit(limits, kHeapLimitKib);
    return std::shared_ptr<const Backtracking>(new Backtracking(regex, limits));
  }

  ~Backtracking() {
    pcre2_match_context_free(limits_);
    pcre2_code_free(regex_);
  }
  Backtracking(const Backtracking&) = delete;
  Backtracking& operator=(const Backtracking&) = delete;

  // PCRE2's result: >= 0 a match, PCRE2_ERROR_NOMATCH none, else an error.
  int Search(const std::string& subject) const {
    // Match data is per call; the code and the match context are only read.
    pcre2_match_data* data = pcre2_match_data_create(1, nullptr);
    if (data == nullptr) return PCRE2_ERROR_NOMEMORY;
    int rc = pcre2_match(regex_, reinterpret_cast<PCRE2_SPTR>(subject.data()), subject.size(), 0, 0,
                         data, limits_);
    pcre2_match_data_free(data);
    return rc;
  }

 private:
  Backtracking(pcre2_code* regex, pcre2_match_context* limits) : regex_(regex), limits_(limits) {}
  pcre2_code* regex_;
  pcre2_match_context* limits_;
};

std::optional<SchemaRegex> SchemaRegex::Compile(const std::string& source, std::string* error) {
  SchemaRegex regex;
  regex.source_ = source;
  RE2::Options options;
  options.set_log_errors(false);
  auto re2 = std::make_shared<const RE2>(source, options);
  if (re2->ok()) {
    regex.re2_ = std::move(re2);
    return regex;
  }
  std::string pcre2_error;
  regex.backtracking_ = Backtracking::Compile(source, &pcre2_error);
  if (regex.backtracking_ != nullptr) return regex;
  *error = absl::StrCat("invalid regular expression \"", source, "\": ", re2->error(), " (",
                        pcre2_error, ")");
  return std::nullopt;
}

bool SchemaRegex::Search(const std::string& subject, std::string* error) const {
  if (re2_ != nullptr) return RE2::PartialMatch(subject, *re2_);
  if (subject.size() > kMaxBacktrackingSubject) {
    *error = absl::StrCat("a string of ", subject.size(), " bytes is too long to check against \"",
                          source_, "\"");
    return false;
  }
  int rc = backtracking_->Search(subject);
  if (rc >= 0) return true;
  if (rc == PCRE2_ERROR_NOMATCH) return false;
  if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT || rc == PCRE2_ERROR_HEAPLIMIT ||
      rc == PCRE2_ERROR_NOMEMORY) {
    *error =
        absl::StrCat("could not be checked against \"", source_, "\" within Raw's matching limit");
  } else {
    *error = absl::StrCat("could not be checked against \"", source_, "\": ", ErrorMessage(rc));
  }
  return false;
}

}  // namespace raw::tools::schema_keywords
