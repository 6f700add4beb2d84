#include "clients/web/access_token.h"

#include <sys/random.h>

#include <cerrno>
#include <cstring>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace raw::web {

absl::StatusOr<std::string> NewAccessToken() {
  unsigned char bytes[32];
  size_t filled = 0;
  while (filled < sizeof(bytes)) {
    ssize_t n = getrandom(bytes + filled, sizeof(bytes) - filled, 0);
    if (n < 0) {
      if (errno == EINTR) continue;
      return absl::InternalError(absl::StrCat("getrandom: ", std::strerror(errno)));
    }
    filled += static_cast<size_t>(n);
  }
  static constexpr char kHex[] = "0123456789abcdef";
  std::string token;
  token.reserve(2 * sizeof(bytes));
  for (unsigned char b : bytes) {
    token.push_back(kHex[b >> 4]);
    token.push_back(kHex[b & 15]);
  }
  return token;
}

absl::Status ValidateAccessToken(std::string_view token) {
  if (token.size() < 32) {
    return absl::InvalidArgumentError(
        absl::StrCat("access token: ", token.size(), " characters; at least 32 are required"));
  }
  for (char c : token) {
    bool unreserved = (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') ||
                      c == '-' || c == '.' || c == '_' || c == '~';
    if (!unreserved) {
      return absl::InvalidArgumentError(
          "access token: only A-Z a-z 0-9 - . _ ~ are allowed (it must travel unescaped)");
    }
  }
  return absl::OkStatus();
}

bool TokenEquals(std::string_view given, std::string_view expected) {
  // Every byte of `expected` is visited whatever `given` holds; a length
  // mismatch only sets the result, it does not end the loop.
  unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (size_t i = 0; i < expected.size(); ++i) {
    unsigned char g = i < given.size() ? static_cast<unsigned char>(given[i]) : 0;
    diff |= static_cast<unsigned char>(g ^ static_cast<unsigned char>(expected[i]));
  }
  return diff == 0;
}

std::string SessionCookieName(std::string_view prefix, uint16_t port) {
  return absl::StrCat(absl::string_view(prefix.data(), prefix.size()), "_", port);
}

std::string SessionCookie(std::string_view name, std::string_view secret) {
  return absl::StrCat(absl::string_view(name.data(), name.size()), "=",
                      absl::string_view(secret.data(), secret.size()),
                      "; HttpOnly; SameSite=Strict; Path=/");
}

std::string ExpiredSessionCookie(std::string_view name) {
  return absl::StrCat(absl::string_view(name.data(), name.size()),
                      "=; Max-Age=0; HttpOnly; SameSite=Strict; Path=/");
}

}  // namespace raw::web
