#include "common/pattern.h"

#include <array>
#include <functional>
#include <optional>
#include <unordered_map>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "re2/re2.h"

namespace raw {
namespace {

constexpr std::string_view kRegexPrefix = "re:";

// At most this many bytes of a pattern are quoted in an error message.
constexpr size_t kQuoteLimit = 200;

std::string Quote(std::string_view text) {
  if (text.size() <= kQuoteLimit) return absl::StrCat("\"", std::string(text), "\"");
  return absl::StrCat("\"", std::string(text.substr(0, kQuoteLimit)), "…\" (", text.size(),
                      " bytes)");
}

// absl::string_view is not std::string_view in this Abseil build.
bool HasRegexPrefix(std::string_view text) {
  return text.substr(0, kRegexPrefix.size()) == kRegexPrefix;
}

// Translates a glob into an (unanchored) RE2 expression; Matches anchors it.
absl::StatusOr<std::string> GlobToRegex(std::string_view glob, Pattern::Style style) {
  // Globs compile in Latin-1 mode so that any byte string (paths need not
  // be UTF-8) can match; `?` still takes a whole UTF-8 sequence.
  const bool path = style == Pattern::Style::kPath;
  const std::string any_run = path ? "[^/]*" : "(?s:.*)";
  const std::string any_char =
      path ? R"((?:[\x00-\x2e\x30-\x7f]|[\xc0-\xff][\x80-\xbf]*|[\x80-\xbf]))"
           : R"((?:[\x00-\x7f]|[\xc0-\xff][\x80-\xbf]*|[\x80-\xbf]))";
  std::string regex;
  std::string literal;  // pending literal characters, quoted when flushed
  auto flush = [&] {
    regex += RE2::QuoteMeta(literal);
    literal.clear();
  };
  for (size_t i = 0; i < glob.size(); ++i) {
    char c = glob[i];
    if (c == '\\') {
      if (i + 1 == glob.size()) {
        return absl::InvalidArgumentError(
            absl::StrCat("pattern ", Quote(glob), " ends with a backslash (escape nothing)"));
      }
      literal += glob[++i];
      continue;
    }
    if (c == '?') {
      flush();
      regex += any_char;
      continue;
    }
    if (c != '*') {
      literal += c;
      continue;
    }
    size_t end = i;
    while (end < glob.size() && glob[end] == '*') ++end;
    flush();
    if (end - i == 1) {
      regex += any_run;
    } else if (!path) {
      regex += any_run;
    } else {
      // `**` as a whole path component may also stand for no directory at
      // all: "a/**/b" matches "a/b" and "**/x" matches "x".
      bool starts_component = i == 0 || glob[i - 1] == '/';
      bool followed_by_slash = end < glob.size() && glob[end] == '/';
      if (starts_component && followed_by_slash) {
        regex += "(?s:.*/)?";
        ++end;  // the '/' is part of the optional group
      } else {
        regex += "(?s:.*)";
      }
    }
    i = end - 1;
  }
  flush();
  return regex;
}

// For a glob that is a literal text, or a literal text and then a trailing
// run of stars that matches any run of bytes (`*` in kText style, `**` in
// kPath style), that text unescaped and how it must be compared; nullopt for
// any other glob. The answers are the program's: GlobToRegex quotes the
// literal and turns such a run into "(?s:.*)".
std::optional<std::pair<std::string, bool>> LiteralGlob(std::string_view glob,
                                                        Pattern::Style style) {
  std::string literal;
  for (size_t i = 0; i < glob.size(); ++i) {
    char c = glob[i];
    if (c == '\\') {
      if (i + 1 == glob.size()) return std::nullopt;
      literal += glob[++i];
      continue;
    }
    if (c == '?') return std::nullopt;
    if (c != '*') {
      literal += c;
      continue;
    }
    size_t end = i;
    while (end < glob.size() && glob[end] == '*') ++end;
    if (end != glob.size()) return std::nullopt;
    if (style == Pattern::Style::kPath && end - i < 2) return std::nullopt;
    return std::make_pair(std::move(literal), true);
  }
  return std::make_pair(std::move(literal), false);
}

}  // namespace

absl::StatusOr<Pattern> Pattern::Compile(std::string_view text, Style style) {
  if (text.empty()) return absl::InvalidArgumentError("pattern is empty");
  auto state = std::make_shared<State>();
  state->text = std::string(text);
  state->style = style;
  std::string regex;
  if (HasRegexPrefix(text)) {
    regex = std::string(text.substr(kRegexPrefix.size()));
    if (regex.empty()) {
      return absl::InvalidArgumentError("regular expression after \"re:\" is empty");
    }
    state->is_regex = true;
  } else {
    auto translated = GlobToRegex(text, style);
    if (!translated.ok()) return translated.status();
    regex = *std::move(translated);
  }
  RE2::Options options;
  options.set_log_errors(false);
  // Regexes work on UTF-8. In both kinds `.` (and so `*`) matches a newline:
  // a subject with one in it (a quoted argument, a file or tool name) must
  // not slip past a deny rule whose `.*` would match it without. "(?-s)"
  // in the expression restores RE2's default.
  options.set_dot_nl(true);
  if (!state->is_regex) options.set_encoding(RE2::Options::EncodingLatin1);
  auto compiled = std::make_unique<const RE2>(regex, options);
  if (!compiled->ok()) {
    if (state->is_regex) {
      return absl::InvalidArgumentError(
          absl::StrCat("invalid regular expression ", Quote(regex), ": ", compiled->error()));
    }
    return absl::InvalidArgumentError(
        absl::StrCat("pattern ", Quote(text), " cannot be compiled: ", compiled->error()));
  }
  state->regex = std::move(compiled);
  if (!state->is_regex) {
    if (auto literal = LiteralGlob(text, style)) {
      state->literal = std::move(literal->first);
      state->shortcut = literal->second ? Shortcut::kPrefix : Shortcut::kExact;
    }
  }
  return Pattern(std::move(state));
}

absl::StatusOr<Pattern> Pattern::CompileCached(std::string_view text, Style style) {
  // Looked up by a string_view, without making a key string.
  struct Hash {
    using is_transparent = void;
    size_t operator()(std::string_view s) const { return std::hash<std::string_view>{}(s); }
  };
  using Cache = std::unordered_map<std::string, absl::StatusOr<Pattern>, Hash, std::equal_to<>>;
  static absl::Mutex mu(absl::kConstInit);
  // One per style, guarded by mu; never destroyed, so no exit-time
  // destructor races a thread still matching.
  static auto* caches = new std::array<Cache, 2>();
  Cache& cache = (*caches)[style == Style::kPath ? 1 : 0];
  {
    absl::MutexLock lock(&mu);
    if (auto it = cache.find(text); it != cache.end()) return it->second;
  }
  absl::StatusOr<Pattern> compiled = Compile(text, style);
  absl::MutexLock lock(&mu);
  if (cache.size() >= kCachedPatterns) cache.clear();
  cache.emplace(std::string(text), compiled);
  return compiled;
}

bool Pattern::Matches(std::string_view subject) const {
  const State& state = *state_;
  switch (state.shortcut) {
    case Shortcut::kExact:
      return subject == state.literal;
    case Shortcut::kPrefix:
      return subject.starts_with(state.literal);
    case Shortcut::kNone:
      break;
  }
  return RE2::FullMatch(re2::StringPiece(subject.data(), subject.size()), *state.regex);
}

std::string EscapeGlob(std::string_view text) {
  std::string out;
  out.reserve(text.size() + 4);
  for (char c : text) {
    if (c == '*' || c == '?' || c == '\\') out += '\\';
    out += c;
  }
  // "re:x" would select the regex syntax; "\re:x" is the literal text.
  if (HasRegexPrefix(out)) out.insert(0, 1, '\\');
  return out;
}

}  // namespace raw
