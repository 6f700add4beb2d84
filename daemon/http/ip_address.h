// IP address classes for requests that must reach only the public internet
// (builtin/web_fetch): which addresses lead into this machine or its
// networks, checked on the socket address libcurl is about to connect to.
//
// Pure functions; thread-safe.
#pragma once

#include <sys/socket.h>

#include <optional>
#include <string>

namespace raw::http {

// Why `address` (AF_INET or AF_INET6) is not a public unicast address, in
// words for messages ("a loopback address", "a private address
// (10.0.0.0/8)"); nullopt when it is public. Refused: unspecified
// (0.0.0.0/8, ::), loopback (127.0.0.0/8, ::1), private (10/8, 172.16/12,
// 192.168/16, 100.64/10 carrier-grade NAT, fc00::/7 unique local, fec0::/10
// site-local), link-local (169.254/16 with the cloud metadata address
// 169.254.169.254, fe80::/10), multicast (224/4, ff00::/8), reserved and
// broadcast (240/4 with 255.255.255.255), and the IETF special-purpose and
// documentation blocks (192.0.0/24, 192.0.2/24, 198.18/15, 198.51.100/24,
// 203.0.113/24, 2001:db8::/32). IPv6 forms that carry an IPv4 address
// (IPv4-mapped ::ffff:a.b.c.d, IPv4-compatible ::a.b.c.d, NAT64
// 64:ff9b::/96, 6to4 2002::/16) are judged by that IPv4 address. Any other
// family is refused.
std::optional<std::string> NonPublicAddressReason(const sockaddr* address, socklen_t length);

// The numeric text of `address` ("127.0.0.1", "::1"), "" for other families.
std::string AddressText(const sockaddr* address, socklen_t length);

}  // namespace raw::http
