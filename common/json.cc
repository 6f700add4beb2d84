#include "common/json.h"

#include <string.h>

#include <algorithm>
#include <array>

#include "absl/strings/str_cat.h"
#include "absl/strings/string_view.h"
#include "common/utf8.h"

namespace raw {
namespace {

// The index of the quote that closes the string opened at `open`, or npos.
// memchr finds each candidate quote; one preceded by an odd run of
// backslashes is escaped.
size_t StringEnd(std::string_view text, size_t open) {
  size_t from = open + 1;
  while (from < text.size()) {
    const void* hit = memchr(text.data() + from, '"', text.size() - from);
    if (hit == nullptr) return std::string_view::npos;
    size_t quote = static_cast<const char*>(hit) - text.data();
    size_t backslashes = 0;
    while (quote - backslashes > open + 1 && text[quote - backslashes - 1] == '\\') ++backslashes;
    if (backslashes % 2 == 0) return quote;
    from = quote + 1;
  }
  return std::string_view::npos;
}

// The byte offset where `text` first nests deeper than kMaxJsonDepth
// arrays and objects, or npos. A linear scan that skips strings (and
// comments when they are allowed); it never judges validity, which is the
// parser's job. Every level takes at least one byte, so a text of at most
// kMaxJsonDepth bytes (a typical stream event) needs no scan.
size_t TooDeepAt(std::string_view text, bool allow_comments) {
  if (text.size() <= static_cast<size_t>(kMaxJsonDepth)) return std::string_view::npos;
  int depth = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    char c = text[i];
    if (c == '"') {
      i = StringEnd(text, i);
      if (i == std::string_view::npos) return i;
    } else if (c == '[' || c == '{') {
      if (++depth > kMaxJsonDepth) return i;
    } else if (c == ']' || c == '}') {
      --depth;
    } else if (allow_comments && c == '/' && i + 1 < text.size()) {
      if (text[i + 1] == '/') {
        size_t end = text.find('\n', i);
        i = end == std::string_view::npos ? text.size() : end;
      } else if (text[i + 1] == '*') {
        size_t end = text.find("*/", i + 2);
        i = end == std::string_view::npos ? text.size() : end + 1;
      }
    }
  }
  return std::string_view::npos;
}

// "line L, column C" of byte `at` (both counted from 1, columns in bytes).
std::string LineAndColumn(std::string_view text, size_t at) {
  std::string_view before = text.substr(0, at);
  size_t line_start = before.rfind('\n');
  line_start = line_start == std::string_view::npos ? 0 : line_start + 1;
  return absl::StrCat("line ", std::count(before.begin(), before.end(), '\n') + 1, ", column ",
                      at - line_start + 1);
}

// The names nlohmann's messages give the tokens it expected.
constexpr std::array<absl::string_view, 16> kTokenNames = {"<uninitialized>",
                                                           "true literal",
                                                           "false literal",
                                                           "null literal",
                                                           "string literal",
                                                           "number literal",
                                                           "'['",
                                                           "'{'",
                                                           "']'",
                                                           "'}'",
                                                           "':'",
                                                           "','",
                                                           "<parse error>",
                                                           "end of input",
                                                           "'[', '{', or a literal",
                                                           "unknown token"};

// nlohmann's message for a token it could not read quotes the token ("...;
// last read: '<bytes>'; expected <token>"), and the token may be anything
// of the text: from the opening quote of an unterminated string on, a key
// pasted into a config, a model's tool arguments. The quote is dropped;
// where the error is and what was expected stay, and both are nlohmann's
// fixed text.
std::string WithoutQuotedText(const std::string& what) {
  constexpr std::string_view kQuote = "; last read: '";
  size_t at = what.find(kQuote);
  if (at == std::string::npos) return what;
  for (absl::string_view name : kTokenNames) {
    std::string tail = absl::StrCat("'; expected ", name);
    if (what.size() >= at + kQuote.size() + tail.size() &&
        what.compare(what.size() - tail.size(), tail.size(), tail) == 0) {
      return absl::StrCat(what.substr(0, at), "; expected ", name);
    }
  }
  return what.substr(0, at);
}

template <typename J>
absl::StatusOr<J> ParseAs(std::string_view text, bool allow_comments) {
  // nlohmann takes a NUL for the end of the input and ignores what follows
  // it; JSON text holds none (one in a string is written \u0000).
  if (const void* nul = memchr(text.data(), '\0', text.size()); nul != nullptr) {
    return absl::InvalidArgumentError(
        absl::StrCat("invalid JSON: a NUL byte at ",
                     LineAndColumn(text, static_cast<const char*>(nul) - text.data()),
                     " (JSON text holds none; in a string it is written \\u0000)"));
  }
  if (size_t at = TooDeepAt(text, allow_comments); at != std::string_view::npos) {
    return absl::InvalidArgumentError(absl::StrCat("invalid JSON: nested more than ",
                                                   kMaxJsonDepth, " levels deep (at byte ", at,
                                                   ")"));
  }
  try {
    return J::parse(text.begin(), text.end(), /*cb=*/nullptr,
                    /*allow_exceptions=*/true, allow_comments);
  } catch (const nlohmann::json::parse_error& e) {
    // e.what() looks like "[json.exception.parse_error.101] parse error at
    // line 3, column 5: syntax error ..."; drop the bracketed prefix.
    std::string what = e.what();
    auto pos = what.find("] ");
    if (pos != std::string::npos) what = what.substr(pos + 2);
    // The message goes where only UTF-8 may (the API's string fields, JSON).
    return absl::InvalidArgumentError(
        absl::StrCat("invalid JSON: ", SanitizeUtf8(WithoutQuotedText(what))));
  } catch (const nlohmann::json::out_of_range&) {
    // "number overflow parsing '<the number>'": the only one a parse throws.
    return absl::InvalidArgumentError("invalid JSON: a number is out of range");
  } catch (const std::exception& e) {
    // Up to the first quote, which would start text of the input.
    std::string what = e.what();
    return absl::InvalidArgumentError(
        absl::StrCat("invalid JSON: ", SanitizeUtf8(what.substr(0, what.find('\'')))));
  }
}

}  // namespace

absl::StatusOr<Json> ParseJson(std::string_view text, bool allow_comments) {
  return ParseAs<Json>(text, allow_comments);
}

absl::StatusOr<OrderedJson> ParseOrderedJson(std::string_view text) {
  return ParseAs<OrderedJson>(text, false);
}

std::string DumpJson(const Json& value, int indent) {
  return value.dump(indent, ' ', false, Json::error_handler_t::replace);
}

std::string DumpJson(const OrderedJson& value, int indent) {
  return value.dump(indent, ' ', false, OrderedJson::error_handler_t::replace);
}

}  // namespace raw
