#include "clients/present/text.h"

#include <time.h>

#include <algorithm>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"

namespace raw::present {

std::string Truncate(const std::string& text, size_t max_chars) {
  size_t chars = 0;
  for (size_t i = 0; i < text.size(); ++i) {
    // Count lead bytes only; continuation bytes are 10xxxxxx.
    if ((static_cast<unsigned char>(text[i]) & 0xC0) == 0x80) continue;
    if (chars == max_chars) return absl::StrCat(text.substr(0, i), "...");
    ++chars;
  }
  return text;
}

std::string FirstLine(const std::string& text) {
  size_t pos = 0;
  while (pos < text.size()) {
    size_t end = text.find('\n', pos);
    if (end == std::string::npos) end = text.size();
    std::string line(absl::StripAsciiWhitespace(text.substr(pos, end - pos)));
    if (!line.empty()) {
      bool more = !absl::StripAsciiWhitespace(absl::string_view(text).substr(end)).empty();
      return more ? absl::StrCat(line, " ...") : line;
    }
    pos = end + 1;
  }
  return "";
}

std::string Excerpt(const std::string& text, int max_lines, size_t max_line_chars) {
  std::vector<std::string> lines;
  std::vector<absl::string_view> all =
      absl::StrSplit(absl::StripTrailingAsciiWhitespace(text), '\n');
  for (absl::string_view line : all) {
    if (static_cast<int>(lines.size()) == max_lines) {
      lines.push_back("...");
      break;
    }
    lines.push_back(Truncate(std::string(absl::StripTrailingAsciiWhitespace(line)), max_line_chars));
  }
  return absl::StrJoin(lines, "\n");
}

std::string OneLine(const std::string& text) {
  std::string out;
  bool blank = false;
  for (char c : text) {
    if (c == '\n' || c == '\r' || c == '\t' || c == ' ') {
      blank = true;
      continue;
    }
    if (blank && !out.empty()) out.push_back(' ');
    blank = false;
    out.push_back(c);
  }
  return out;
}

std::string FormatLocalTime(int64_t unix_ms) {
  if (unix_ms <= 0) return "-";
  time_t seconds = static_cast<time_t>(unix_ms / 1000);
  struct tm local;
  if (localtime_r(&seconds, &local) == nullptr) return "-";
  char buf[32];
  size_t n = strftime(buf, sizeof buf, "%Y-%m-%d %H:%M", &local);
  return std::string(buf, n);
}

std::string FormatExpiry(int64_t expires_at_unix_ms, int64_t now_unix_ms) {
  constexpr int64_t kMinute = 60 * 1000;
  constexpr int64_t kHour = 60 * kMinute;
  constexpr int64_t kDay = 24 * kHour;
  if (expires_at_unix_ms <= 0) return "never";
  int64_t left = expires_at_unix_ms - now_unix_ms;
  if (left <= 0) return "due";
  if (left < kHour) return absl::StrCat("in ", std::max<int64_t>(1, left / kMinute), " min");
  if (left < 2 * kDay) return absl::StrCat("in ", left / kHour, " h");
  return absl::StrCat("in ", left / kDay, " days");
}

std::string FormatDurationMs(int64_t ms) {
  if (ms < 1000) return absl::StrCat(ms, " ms");
  if (ms < 60 * 1000) return absl::StrFormat("%.1f s", static_cast<double>(ms) / 1000.0);
  return absl::StrCat(ms / 60000, " min ", (ms % 60000) / 1000, " s");
}

std::string ImageLabel(const std::string& mime_type, int64_t width, int64_t height, size_t bytes) {
  const size_t slash = mime_type.find('/');
  std::string type = slash == std::string::npos ? mime_type : mime_type.substr(slash + 1);
  for (char& c : type) c = absl::ascii_toupper(static_cast<unsigned char>(c));
  std::string label = absl::StrCat("[image: ", type.empty() ? "?" : type);
  if (width > 0 && height > 0) absl::StrAppend(&label, ", ", width, "x", height);
  if (bytes < 1024) {
    absl::StrAppend(&label, ", ", bytes, " B]");
  } else if (bytes < 1024 * 1024) {
    absl::StrAppend(&label, ", ", (bytes + 512) / 1024, " KB]");
  } else {
    absl::StrAppend(&label, ", ",
                    absl::StrFormat("%.1f", static_cast<double>(bytes) / (1024 * 1024)), " MB]");
  }
  return label;
}

std::string ImageLines(const v1::UserMessage& message) {
  std::string lines;
  for (const v1::Image& image : message.images()) {
    if (!lines.empty()) lines += "\n";
    lines += ImageLabel(image.mime_type(), image.width(), image.height(), image.data().size());
  }
  return lines;
}

}  // namespace raw::present
