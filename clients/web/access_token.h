// The secret every request to a local server carries (local_server.h):
// generated fresh per process from the kernel's random source, compared in
// constant time.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"

namespace raw::web {

// 32 random bytes from getrandom(2), as 64 lower-case hex characters.
absl::StatusOr<std::string> NewAccessToken();

// OK when `token` can serve as an access token: at least 32 characters, all
// of them URL-unreserved (A-Z a-z 0-9 - . _ ~), so it travels unescaped in a
// header, a query parameter and a cookie.
absl::Status ValidateAccessToken(std::string_view token);

// True when `given` equals `expected`. The time taken depends only on the
// lengths, never on where the strings differ.
bool TokenEquals(std::string_view given, std::string_view expected);

// The name of a local server's session cookie, `prefix`_PORT. A browser
// sends a cookie to every port of its host (cookies are not isolated by
// port), so the port in the name keeps the cookies of two servers apart.
std::string SessionCookieName(std::string_view prefix, uint16_t port);

// The Set-Cookie value that hands `secret` to a browser under `name`:
// HttpOnly, SameSite=Strict, Path=/.
std::string SessionCookie(std::string_view name, std::string_view secret);

// The Set-Cookie value that makes a browser drop its cookie `name` set by
// SessionCookie (same name and path, Max-Age=0).
std::string ExpiredSessionCookie(std::string_view name);

}  // namespace raw::web
