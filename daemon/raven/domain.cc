#include "daemon/raven/domain.h"

#include <openssl/evp.h>

#include <array>
#include <ctime>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"

namespace raw::raven {

// The names of each enum, indexed by its value.
template <typename E>
struct EnumNames;
template <>
struct EnumNames<Outcome> {
  static constexpr std::array<std::string_view, 4> kNames = {"research", "general-writing",
                                                             "academic-writing", "learning"};
};
template <>
struct EnumNames<Grounding> {
  static constexpr std::array<std::string_view, 3> kNames = {"required", "optional", "none"};
};
template <>
struct EnumNames<Phase> {
  static constexpr std::array<std::string_view, 4> kNames = {"active", "stopped", "completed",
                                                             "completed-with-limits"};
};
template <>
struct EnumNames<Stage> {
  static constexpr std::array<std::string_view, 6> kNames = {"discover", "read",   "analyze",
                                                             "draft",    "verify", "refine"};
};
template <>
struct EnumNames<SourceRole> {
  static constexpr std::array<std::string_view, 4> kNames = {"primary", "secondary", "dataset",
                                                             "user-provided"};
};
template <>
struct EnumNames<ClaimKind> {
  static constexpr std::array<std::string_view, 2> kNames = {"external", "analysis"};
};
template <>
struct EnumNames<Importance> {
  static constexpr std::array<std::string_view, 2> kNames = {"material", "context"};
};
template <>
struct EnumNames<Disposition> {
  static constexpr std::array<std::string_view, 4> kNames = {"supported", "qualified", "deferred",
                                                             "rejected"};
};
template <>
struct EnumNames<LimitationKind> {
  static constexpr std::array<std::string_view, 3> kNames = {"source", "tool", "coverage"};
};
template <>
struct EnumNames<CheckStatus> {
  static constexpr std::array<std::string_view, 4> kNames = {"unchecked", "reachable", "failed",
                                                             "unavailable"};
};
template <>
struct EnumNames<CheckOutcome> {
  static constexpr std::array<std::string_view, 6> kNames = {
      "verified", "drifted", "unreachable", "blocked", "absent", "unchecked"};
};

template <typename E>
std::optional<E> Parse(std::string_view name) {
  const auto& names = EnumNames<E>::kNames;
  for (size_t i = 0; i < names.size(); ++i) {
    if (names[i] == name) return static_cast<E>(i);
  }
  return std::nullopt;
}

template <typename E>
std::vector<std::string> Names() {
  return {EnumNames<E>::kNames.begin(), EnumNames<E>::kNames.end()};
}

#define RAVEN_ENUM_FUNCTIONS(E)                                                          \
  std::string Name(E v) { return std::string(EnumNames<E>::kNames.at(static_cast<size_t>(v))); } \
  template std::optional<E> Parse<E>(std::string_view);                                  \
  template std::vector<std::string> Names<E>();
RAVEN_ENUM_FUNCTIONS(Outcome)
RAVEN_ENUM_FUNCTIONS(Grounding)
RAVEN_ENUM_FUNCTIONS(Phase)
RAVEN_ENUM_FUNCTIONS(Stage)
RAVEN_ENUM_FUNCTIONS(SourceRole)
RAVEN_ENUM_FUNCTIONS(ClaimKind)
RAVEN_ENUM_FUNCTIONS(Importance)
RAVEN_ENUM_FUNCTIONS(Disposition)
RAVEN_ENUM_FUNCTIONS(LimitationKind)
RAVEN_ENUM_FUNCTIONS(CheckStatus)
RAVEN_ENUM_FUNCTIONS(CheckOutcome)
#undef RAVEN_ENUM_FUNCTIONS

bool OutcomeFits(CheckOutcome outcome, CheckStatus status) {
  switch (outcome) {
    case CheckOutcome::kVerified:
      return status == CheckStatus::kReachable;
    case CheckOutcome::kDrifted:
    case CheckOutcome::kAbsent:
      return status == CheckStatus::kFailed;
    default:
      return status == CheckStatus::kFailed || status == CheckStatus::kUnavailable;
  }
}

bool Source::SameEvidence(const Source& o) const {
  return source_id == o.source_id && url == o.url && title == o.title && locator == o.locator &&
         excerpt == o.excerpt && role == o.role && family == o.family && as_of == o.as_of;
}

bool Claim::NeedsSupport() const {
  return kind == ClaimKind::kExternal &&
         (disposition == Disposition::kSupported || disposition == Disposition::kQualified);
}

const Source* TaskState::FindSource(std::string_view id) const {
  for (const Source& s : sources) {
    if (s.source_id == id) return &s;
  }
  return nullptr;
}

const Claim* TaskState::FindClaim(std::string_view id) const {
  for (const Claim& c : claims) {
    if (c.claim_id == id) return &c;
  }
  return nullptr;
}

size_t CodePoints(std::string_view s) {
  size_t n = 0;
  for (unsigned char c : s) {
    if ((c & 0xC0) != 0x80) ++n;
  }
  return n;
}

std::string_view PrefixCodePoints(std::string_view s, size_t n) {
  size_t cut = 0;
  for (size_t chars = 0; cut < s.size() && chars < n; ++chars) {
    ++cut;
    while (cut < s.size() && (static_cast<unsigned char>(s[cut]) & 0xC0) == 0x80) ++cut;
  }
  return s.substr(0, cut);
}

namespace {

// The length of the Unicode white space character at s[i], 0 if none.
size_t SpaceAt(std::string_view s, size_t i) {
  unsigned char c = s[i];
  if (c == ' ' || (c >= '\t' && c <= '\r')) return 1;
  auto starts = [&](std::string_view p) { return s.substr(i, p.size()) == p; };
  static constexpr std::string_view kWide[] = {
      "\xC2\xA0",     "\xE1\x9A\x80", "\xE2\x80\xA8", "\xE2\x80\xA9", "\xE2\x80\xAF",
      "\xE2\x81\x9F", "\xE3\x80\x80", "\xEF\xBB\xBF"};
  for (std::string_view p : kWide) {
    if (starts(p)) return p.size();
  }
  // U+2000..U+200A: E2 80 80..8A.
  if (i + 2 < s.size() && c == 0xE2 && static_cast<unsigned char>(s[i + 1]) == 0x80 &&
      static_cast<unsigned char>(s[i + 2]) >= 0x80 && static_cast<unsigned char>(s[i + 2]) <= 0x8A) {
    return 3;
  }
  return 0;
}

// The start of the white space run that ends `s` (s.size() if none).
size_t TrailingSpaceStart(std::string_view s) {
  size_t end = s.size();
  bool moved = true;
  while (moved && end > 0) {
    moved = false;
    // White space characters are at most 3 bytes long.
    for (size_t len = 1; len <= 3 && len <= end; ++len) {
      if (SpaceAt(s, end - len) == len) {
        end -= len;
        moved = true;
        break;
      }
    }
  }
  return end;
}

}  // namespace

std::string TrimText(std::string_view s) {
  size_t begin = 0;
  while (begin < s.size()) {
    size_t len = SpaceAt(s, begin);
    if (len == 0) break;
    begin += len;
  }
  s.remove_prefix(begin);
  return std::string(s.substr(0, TrailingSpaceStart(s)));
}

bool ValidId(std::string_view id) {
  if (id.empty() || id.size() > 64 || !absl::ascii_isalnum(id[0])) return false;
  for (char c : id) {
    if (!absl::ascii_isalnum(c) && c != '.' && c != '_' && c != '-') return false;
  }
  return true;
}

std::string Sha256Hex(std::string_view bytes) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int len = 0;
  EVP_Digest(bytes.data(), bytes.size(), digest, &len, EVP_sha256(), nullptr);
  std::string hex;
  for (unsigned int i = 0; i < len; ++i) absl::StrAppendFormat(&hex, "%02x", static_cast<unsigned>(digest[i]));
  return hex;
}

std::string Sha256Tagged(std::string_view bytes) { return "sha256:" + Sha256Hex(bytes); }

std::string MakeTaskId(std::string_view session_id, int ordinal) {
  return absl::StrCat("rvn-", Sha256Hex(session_id).substr(0, 12), "-", ordinal);
}

std::string MakeCheckpointId(std::string_view task_id, int ordinal) {
  return absl::StrCat(std::string(task_id), "-cp-", ordinal);
}

namespace {
std::tm UtcOf(int64_t unix_ms) {
  std::time_t secs = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  gmtime_r(&secs, &tm);
  return tm;
}
}  // namespace

std::string IsoTime(int64_t unix_ms) {
  std::tm tm = UtcOf(unix_ms);
  return absl::StrFormat("%04d-%02d-%02dT%02d:%02d:%02d.%03dZ", tm.tm_year + 1900, tm.tm_mon + 1,
                         tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec,
                         static_cast<int>(unix_ms % 1000));
}

std::string IsoDate(int64_t unix_ms) {
  std::tm tm = UtcOf(unix_ms);
  return absl::StrFormat("%04d-%02d-%02d", tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday);
}

namespace {

// "." or "..", any dot possibly written "%2e" (in either case).
bool DotsSegment(std::string_view s, size_t dots) {
  for (size_t i = 0; i < dots; ++i) {
    if (s.starts_with(".")) {
      s.remove_prefix(1);
    } else if (s.size() >= 3 && s[0] == '%' && s[1] == '2' && (s[2] == 'e' || s[2] == 'E')) {
      s.remove_prefix(3);
    } else {
      return false;
    }
  }
  return s.empty();
}

// `path` (starting with '/') with its "." and ".." segments resolved (RFC
// 3986 §5.2.4), "%2e" read as "." as a browser reads it: "/a/./b/../c" is
// "/a/c", "/a/.." is "/". The result has no such segment left.
std::string WithoutDotSegments(std::string_view path) {
  std::vector<std::string_view> out;
  size_t at = 1;
  while (true) {
    const size_t slash = path.find('/', at);
    const bool last = slash == std::string_view::npos;
    const std::string_view segment = path.substr(at, last ? std::string_view::npos : slash - at);
    if (DotsSegment(segment, 1) || DotsSegment(segment, 2)) {
      if (DotsSegment(segment, 2) && !out.empty()) out.pop_back();
      if (last) out.emplace_back();  // "/a/." and "/a/b/.." name a directory
    } else {
      out.push_back(segment);
    }
    if (last) break;
    at = slash + 1;
  }
  std::string joined;
  for (std::string_view segment : out) {
    joined.push_back('/');
    joined.append(segment);
  }
  return joined.empty() ? "/" : joined;
}

// CanonicalUrl; `resolve_dots` false gives the form written before dot
// segments were resolved.
absl::Status Canonical(std::string_view url, std::string& out, bool resolve_dots);

}  // namespace

absl::Status CanonicalUrl(std::string_view url, std::string& out) {
  return Canonical(url, out, true);
}

bool IsStoredCanonicalUrl(std::string_view url) {
  std::string canonical;
  if (!Canonical(url, canonical, true).ok()) return false;
  if (canonical == url) return true;
  return Canonical(url, canonical, false).ok() && canonical == url;
}

namespace {

absl::Status Canonical(std::string_view url, std::string& out, bool resolve_dots) {
  if (CodePoints(url) > Limits::kUrlChars) {
    return absl::InvalidArgumentError(
        absl::StrCat("URL longer than ", Limits::kUrlChars, " characters"));
  }
  for (unsigned char c : url) {
    if (c <= ' ' || c == 0x7F) {
      return absl::InvalidArgumentError("invalid external URL: white space or control character");
    }
  }
  size_t colon = url.find("://");
  if (colon == std::string_view::npos) {
    return absl::InvalidArgumentError("invalid external URL: not an absolute http(s) URL");
  }
  std::string scheme = absl::AsciiStrToLower(std::string(url.substr(0, colon)));
  if (scheme != "http" && scheme != "https") {
    return absl::InvalidArgumentError("invalid external URL: only http and https are accepted");
  }
  std::string_view rest = url.substr(colon + 3);
  size_t auth_end = rest.find_first_of("/?#");
  std::string_view authority = rest.substr(0, auth_end);
  std::string_view tail = auth_end == std::string_view::npos ? "" : rest.substr(auth_end);
  if (authority.find('@') != std::string_view::npos) {
    return absl::InvalidArgumentError(
        "credential-bearing URL refused: remove the user information before the host");
  }
  std::string host(authority);
  std::string port;
  size_t port_colon = host.rfind(':');
  if (port_colon != std::string::npos && host.find(']', port_colon) == std::string::npos) {
    port = host.substr(port_colon + 1);
    host.resize(port_colon);
    for (char c : port) {
      if (!absl::ascii_isdigit(c)) {
        return absl::InvalidArgumentError("invalid external URL: bad port");
      }
    }
    if ((scheme == "http" && port == "80") || (scheme == "https" && port == "443")) port.clear();
  }
  // What is left must be one host: a bracketed IPv6 literal, or a name with
  // no further ':' (a doubled ":port" would lose its second port on the next
  // pass and so not be its own canonical form).
  const bool bracketed = !host.empty() && host.front() == '[';
  if (bracketed ? host.back() != ']' || host.find(']') != host.size() - 1
                : host.find_first_of(":[]") != std::string::npos) {
    return absl::InvalidArgumentError("invalid external URL: bad host or port");
  }
  host = absl::AsciiStrToLower(host);
  while (!host.empty() && host.back() == '.') host.pop_back();
  if (host.empty()) return absl::InvalidArgumentError("invalid external URL: no host");
  std::string path(tail);
  if (path.empty() || path[0] != '/') path.insert(0, "/");
  if (resolve_dots) {
    // One page, one form: "/a/../b" is "/b" (the query and fragment stay).
    const size_t end = path.find_first_of("?#");
    path = WithoutDotSegments(std::string_view(path).substr(0, end)) +
           (end == std::string::npos ? "" : path.substr(end));
  }
  std::string canonical = absl::StrCat(scheme, "://", host, port.empty() ? "" : ":", port, path);
  // The ceiling applies to what is stored: the inserted "/" can lengthen it.
  if (CodePoints(canonical) > Limits::kUrlChars) {
    return absl::InvalidArgumentError(
        absl::StrCat("URL longer than ", Limits::kUrlChars, " characters"));
  }
  out = std::move(canonical);
  return absl::OkStatus();
}

}  // namespace

std::string_view PageUrl(std::string_view canonical_url) {
  return canonical_url.substr(0, canonical_url.find('#'));
}

const Source* Successor(const std::vector<Source>& sources, const Source& source) {
  if (source.check.status != CheckStatus::kFailed) return nullptr;
  bool later = false;
  for (const Source& s : sources) {
    if (later && PageUrl(s.url) == PageUrl(source.url)) return &s;
    if (&s == &source || s.source_id == source.source_id) later = true;
  }
  return nullptr;
}

std::string UrlIdentity(std::string_view url) {
  size_t colon = url.find("://");
  if (colon == std::string_view::npos) return "";
  std::string scheme = absl::AsciiStrToLower(std::string(url.substr(0, colon)));
  if (scheme != "http" && scheme != "https") return "";
  std::string_view authority = url.substr(colon + 3);
  authority = authority.substr(0, authority.find_first_of("/?#"));
  if (size_t at = authority.rfind('@'); at != std::string_view::npos) {
    authority.remove_prefix(at + 1);
  }
  std::string_view host = authority, port;
  size_t port_colon = authority.rfind(':');
  if (port_colon != std::string_view::npos &&
      authority.find(']', port_colon) == std::string_view::npos) {
    host = authority.substr(0, port_colon);
    port = authority.substr(port_colon + 1);
  }
  std::string decoded;
  for (size_t i = 0; i < host.size(); ++i) {
    if (host[i] == '%' && i + 2 < host.size() && absl::ascii_isxdigit(host[i + 1]) &&
        absl::ascii_isxdigit(host[i + 2])) {
      auto nibble = [](char c) { return absl::ascii_isdigit(c) ? c - '0' : (c | 0x20) - 'a' + 10; };
      decoded.push_back(static_cast<char>(nibble(host[i + 1]) * 16 + nibble(host[i + 2])));
      i += 2;
    } else {
      decoded.push_back(host[i]);
    }
  }
  decoded = absl::AsciiStrToLower(decoded);
  if (!decoded.empty() && decoded.back() == '.') decoded.pop_back();
  if (decoded.empty()) return "";
  // The port as a number: "080" is port 80; no digits is the default.
  size_t digits = port.find_first_not_of('0');
  std::string number(digits == std::string_view::npos ? "" : port.substr(digits));
  for (char c : number) {
    if (!absl::ascii_isdigit(c)) return "";
  }
  if (number.empty() && !port.empty()) number = "0";
  if ((scheme == "http" && number == "80") || (scheme == "https" && number == "443")) {
    number.clear();
  }
  return number.empty() ? decoded : absl::StrCat(decoded, ":", number);
}

}  // namespace raw::raven
