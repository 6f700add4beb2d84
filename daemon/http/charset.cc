#include "daemon/http/charset.h"

#include <iconv.h>

#include <algorithm>
#include <cerrno>
#include <initializer_list>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "common/utf8.h"

namespace raw::http {
namespace {

// How far into an HTML page a <meta charset> is looked for.
constexpr size_t kMetaCharsetWindow = 2048;

// WHATWG Encoding Standard labels whose encoding is not what iconv reads
// under the same name (or that iconv does not know), with the encoding
// browsers decode them as.
struct LabelGroup {
  const char* encoding;
  std::initializer_list<const char*> labels;
};
const LabelGroup kLabelGroups[] = {
    {"utf-8",
     {"unicode-1-1-utf-8", "unicode11utf8", "unicode20utf8", "utf-8", "utf8", "x-unicode20utf8"}},
    {"windows-1252",
     {"ansi_x3.4-1968", "ascii", "cp1252", "cp819", "csisolatin1", "ibm819", "iso-8859-1",
      "iso-ir-100", "iso8859-1", "iso88591", "iso_8859-1", "iso_8859-1:1987", "l1", "latin1",
      "us-ascii", "windows-1252", "x-cp1252"}},
    {"windows-1254",
     {"cp1254", "csisolatin5", "iso-8859-9", "iso-ir-148", "iso8859-9", "iso88599", "iso_8859-9",
      "iso_8859-9:1989", "l5", "latin5", "windows-1254", "x-cp1254"}},
    {"windows-874",
     {"dos-874", "iso-8859-11", "iso8859-11", "iso885911", "tis-620", "windows-874"}},
    {"gb18030",
     {"chinese", "csgb2312", "csiso58gb231280", "gb2312", "gb_2312", "gb_2312-80", "gbk",
      "iso-ir-58", "x-gbk", "gb18030"}},
    {"big5-hkscs", {"big5", "big5-hkscs", "cn-big5", "csbig5", "x-x-big5"}},
    {"cp949",
     {"cseuckr", "csksc56011987", "euc-kr", "iso-ir-149", "korean", "ks_c_5601-1987",
      "ks_c_5601-1989", "ksc5601", "ksc_5601", "windows-949"}},
    {"cp932",
     {"csshiftjis", "ms932", "ms_kanji", "shift-jis", "shift_jis", "sjis", "windows-31j",
      "x-sjis"}},
    {"iso-8859-8", {"csiso88598i", "iso-8859-8-i", "logical"}},
    {"utf-16le",
     {"csunicode", "iso-10646-ucs-2", "ucs-2", "unicode", "unicodefeff", "utf-16", "utf-16le"}},
    {"utf-16be", {"unicodefffe", "utf-16be"}},
};

}  // namespace

std::string EncodingForLabel(std::string_view label_in) {
  std::string label = absl::AsciiStrToLower(
      absl::StripAsciiWhitespace(absl::string_view(label_in.data(), label_in.size())));
  for (const LabelGroup& group : kLabelGroups) {
    for (const char* l : group.labels) {
      if (label == l) return group.encoding;
    }
  }
  return label;
}

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
  std::string label = head.substr(pos, end - pos);
  if (absl::StartsWith(EncodingForLabel(label), "utf-16")) return "utf-8";
  return label;
}

std::string BomCharset(std::string_view body) {
  if (body.substr(0, 3) == "\xEF\xBB\xBF") return "utf-8";
  if (body.substr(0, 2) == "\xFF\xFE") return "utf-16le";
  if (body.substr(0, 2) == "\xFE\xFF") return "utf-16be";
  return "";
}

absl::StatusOr<std::string> ToUtf8(std::string_view body, const std::string& label) {
  const std::string charset = EncodingForLabel(label);
  if (charset.empty() || charset == "utf-8") {
    if (body.substr(0, 3) == "\xEF\xBB\xBF") body.remove_prefix(3);
    return SanitizeUtf8(body);
  }
  iconv_t cd = iconv_open("UTF-8", charset.c_str());
  if (cd == reinterpret_cast<iconv_t>(-1)) {
    return absl::InvalidArgumentError(
        absl::StrCat("the response uses charset \"", label, "\", which cannot be converted"));
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
