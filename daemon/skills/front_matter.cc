#include "daemon/skills/front_matter.h"

#include <optional>
#include <utility>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"

namespace raw::skills {
namespace {

constexpr std::string_view kBom = "\xEF\xBB\xBF";
constexpr std::string_view kFence = "---";
constexpr size_t kQuotedLineBytes = 60;

std::string_view Strip(std::string_view s) {
  while (!s.empty() && absl::ascii_isspace(static_cast<unsigned char>(s.front()))) {
    s.remove_prefix(1);
  }
  while (!s.empty() && absl::ascii_isspace(static_cast<unsigned char>(s.back()))) {
    s.remove_suffix(1);
  }
  return s;
}

bool IsFence(std::string_view line) {
  while (!line.empty() && (line.back() == ' ' || line.back() == '\t')) line.remove_suffix(1);
  return line == kFence;
}

bool IsKey(std::string_view key) {
  if (key.empty()) return false;
  for (char c : key) {
    if (!absl::ascii_isalnum(static_cast<unsigned char>(c)) && c != '_' && c != '-') return false;
  }
  return true;
}

std::string Shown(std::string_view line) {
  std::string_view cut = line.substr(0, kQuotedLineBytes);
  return absl::StrCat("\"", absl::CHexEscape(absl::string_view(cut.data(), cut.size())),
                      line.size() > cut.size() ? "..." : "", "\"");
}

// Removes one pair of matching quotes; nullopt for an unclosed quote.
std::optional<std::string> Unquote(const std::string& value) {
  if (value.empty() || (value.front() != '"' && value.front() != '\'')) return value;
  const char quote = value.front();
  if (value.size() < 2 || value.back() != quote) return std::nullopt;
  std::string inner = value.substr(1, value.size() - 2);
  if (quote == '\'') return absl::StrReplaceAll(inner, {{"''", "'"}});
  std::string out;
  for (size_t i = 0; i < inner.size(); ++i) {
    if (inner[i] != '\\' || i + 1 == inner.size()) {
      out += inner[i];
      continue;
    }
    char e = inner[++i];
    out += e == 'n' ? '\n' : e == 't' ? '\t' : e;
  }
  return out;
}

// Splits `text` into lines, dropping '\r' before '\n'.
class LineReader {
 public:
  explicit LineReader(std::string_view text) : text_(text) {}
  bool Next(std::string_view& line) {
    if (pos_ >= text_.size()) return false;
    size_t nl = text_.find('\n', pos_);
    size_t end = nl == std::string_view::npos ? text_.size() : nl;
    line = text_.substr(pos_, end - pos_);
    if (!line.empty() && line.back() == '\r') line.remove_suffix(1);
    pos_ = nl == std::string_view::npos ? text_.size() : nl + 1;
    ++number_;
    return true;
  }
  int number() const { return number_; }
  std::string_view rest() const { return text_.substr(pos_); }

 private:
  std::string_view text_;
  size_t pos_ = 0;
  int number_ = 0;
};

}  // namespace

absl::StatusOr<FrontMatter> ParseFrontMatter(std::string_view text, const std::string& file) {
  if (text.substr(0, kBom.size()) == kBom) text.remove_prefix(kBom.size());
  LineReader lines(text);
  std::string_view line;
  if (!lines.Next(line) || !IsFence(line)) {
    return absl::InvalidArgumentError(absl::StrCat(
        file, ": no front matter: the file must start with a line \"---\", then "
              "\"name: ...\" and \"description: ...\" lines, then another \"---\" line"));
  }
  FrontMatter fm;
  std::map<std::string, int> key_lines;
  std::string key;
  bool literal = false;
  bool closed = false;
  while (lines.Next(line)) {
    if (IsFence(line)) {
      closed = true;
      break;
    }
    std::string_view trimmed = Strip(line);
    if (trimmed.empty()) continue;
    if (line.front() == ' ' || line.front() == '\t') {
      if (key.empty()) {
        return absl::InvalidArgumentError(absl::StrCat(
            file, ":", lines.number(), ": indented line before any key: ", Shown(line)));
      }
      std::string& value = fm.fields[key];
      if (!value.empty()) value += literal ? "\n" : " ";
      value += trimmed;
      continue;
    }
    if (trimmed.front() == '#') continue;
    size_t colon = line.find(':');
    if (colon == std::string_view::npos) {
      return absl::InvalidArgumentError(absl::StrCat(
          file, ":", lines.number(), ": expected a \"key: value\" line, got ", Shown(line)));
    }
    std::string_view k = Strip(line.substr(0, colon));
    if (!IsKey(k)) {
      return absl::InvalidArgumentError(
          absl::StrCat(file, ":", lines.number(), ": invalid key ", Shown(k),
                       " (use letters, digits, '_' and '-')"));
    }
    key = std::string(k);
    if (key_lines.contains(key)) {
      return absl::InvalidArgumentError(absl::StrCat(file, ":", lines.number(), ": key \"", key,
                                                     "\" appears twice (first on line ",
                                                     key_lines[key], ")"));
    }
    key_lines[key] = lines.number();
    std::string_view value = Strip(line.substr(colon + 1));
    literal = value == "|" || value == "|-" || value == "|+";
    if (literal || value == ">" || value == ">-" || value == ">+") value = {};
    fm.fields[key] = std::string(value);
  }
  if (!closed) {
    return absl::InvalidArgumentError(absl::StrCat(
        file, ": front matter is not closed: no second line \"---\" after line 1"));
  }
  for (auto& [k, value] : fm.fields) {
    std::optional<std::string> unquoted = Unquote(value);
    if (!unquoted.has_value()) {
      return absl::InvalidArgumentError(absl::StrCat(file, ":", key_lines[k], ": the value of \"",
                                                     k, "\" has an unclosed quote"));
    }
    value = std::move(*unquoted);
  }
  std::string_view body = lines.rest();
  while (true) {
    size_t nl = body.find('\n');
    if (nl == std::string_view::npos || !Strip(body.substr(0, nl)).empty()) break;
    body.remove_prefix(nl + 1);
  }
  fm.body = std::string(body);
  return fm;
}

}  // namespace raw::skills
