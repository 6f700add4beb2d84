#include "daemon/http/charset.h"

#include <iconv.h>

#include <algorithm>
#include <cerrno>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/utf8.h"

namespace raw::http {
namespace {

// How far into an HTML page a <meta charset> is looked for.
constexpr size_t kMetaCharsetWindow = 2048;

}  // namespace

std::string HeaderParameter(std::string_view header_in, std::string_view name_in) {
  absl::string_view header(header_in.data(), header_in.size());
  absl::string_view name(name_in.data(), name_in.size());
  size_t semi = header.find(';');
  while (semi != absl::string_view::npos) {
    absl::string_view rest = header.substr(semi + 1);
    size_t next = rest.find(';');
    absl::string_view param = absl::StripAsciiWhitespace(rest.substr(0, next));
    size_t eq = param.find('=');
    if (eq != absl::string_view::npos &&
        absl::EqualsIgnoreCase(absl::StripAsciiWhitespace(param.substr(0, eq)), name)) {
      absl::string_view value = absl::StripAsciiWhitespace(param.substr(eq + 1));
      if (value.size() >= 2 && value.front() == '"' && value.back() == '"') {
        value = value.substr(1, value.size() - 2);
      }
      return absl::AsciiStrToLower(value);
    }
    semi = next == absl::string_view::npos ? next : semi + 1 + next;
  }
  return "";
}

std::string MetaCharset(std::string_view body) {
  std::string head = absl::AsciiStrToLower(
      absl::string_view(body.data(), std::min(body.size(), kMetaCharsetWindow)));
  size_t pos = head.find("charset=");
  if (pos == std::string::npos) return "";
  pos += 8;
  while (pos < head.size() && (head[pos] == '"' || head[pos] == '\'' || head[pos] == ' ')) ++pos;
  size_t end = pos;
  while (end < head.size() && (absl::ascii_isalnum(static_cast<unsigned char>(head[end])) ||
                               head[end] == '-' || head[end] == '_' || head[end] == ':')) {
    ++end;
  }
  return head.substr(pos, end - pos);
}

std::string BomCharset(std::string_view body) {
  if (body.substr(0, 3) == "\xEF\xBB\xBF") return "utf-8";
  if (body.substr(0, 2) == "\xFF\xFE") return "utf-16le";
  if (body.substr(0, 2) == "\xFE\xFF") return "utf-16be";
  return "";
}

absl::StatusOr<std::string> ToUtf8(std::string_view body, const std::string& charset) {
  if (charset.empty() || charset == "utf-8" || charset == "utf8" || charset == "us-ascii" ||
      charset == "ascii") {
    if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);
    return SanitizeUtf8(body);
  }
  iconv_t cd = iconv_open("UTF-8", charset.c_str());
  if (cd == reinterpret_cast<iconv_t>(-1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the response uses charset \"", charset, "\", which cannot be converted"));
  }
  std::string out;
  char buffer[16 * 1024];
  char* in = const_cast<char*>(body.data());
  size_t in_left = body.size();
  while (in_left > 0) {
    char* dst = buffer;
    size_t dst_left = sizeof(buffer);
    size_t rc = iconv(cd, &in, &in_left, &dst, &dst_left);
    out.append(buffer, static_cast<size_t>(dst - buffer));
    if (rc == static_cast<size_t>(-1)) {
      if (errno == E2BIG) continue;
      // An invalid or truncated sequence: replace one byte and go on.
      out += "\xEF\xBF\xBD";
      ++in;
      --in_left;
    }
  }
  iconv_close(cd);
  if (absl::StartsWith(out, "\xEF\xBB\xBF")) out.erase(0, 3);
  return SanitizeUtf8(out);
}

}  // namespace raw::http
