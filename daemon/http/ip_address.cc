#include "daemon/http/ip_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>

#include <array>
#include <cstdint>
#include <cstring>

#include "absl/strings/str_cat.h"

namespace raw::http {
namespace {

struct V4Block {
  uint32_t network;
  int prefix;
  const char* reason;
};

constexpr uint32_t V4(int a, int b, int c, int d) {
  return (static_cast<uint32_t>(a) << 24) | (static_cast<uint32_t>(b) << 16) |
         (static_cast<uint32_t>(c) << 8) | static_cast<uint32_t>(d);
}

// Most specific first where blocks nest (the broadcast address lies in 240/4).
constexpr std::array<V4Block, 16> kV4Blocks = {{
    {V4(0, 0, 0, 0), 8, "an unspecified address (0.0.0.0/8)"},
    {V4(127, 0, 0, 0), 8, "a loopback address (127.0.0.0/8)"},
    {V4(10, 0, 0, 0), 8, "a private address (10.0.0.0/8)"},
    {V4(172, 16, 0, 0), 12, "a private address (172.16.0.0/12)"},
    {V4(192, 168, 0, 0), 16, "a private address (192.168.0.0/16)"},
    {V4(100, 64, 0, 0), 10, "a carrier-grade NAT address (100.64.0.0/10)"},
    {V4(169, 254, 169, 254), 32, "the link-local cloud metadata address"},
    {V4(169, 254, 0, 0), 16, "a link-local address (169.254.0.0/16)"},
    {V4(224, 0, 0, 0), 4, "a multicast address (224.0.0.0/4)"},
    {V4(255, 255, 255, 255), 32, "the broadcast address"},
    {V4(240, 0, 0, 0), 4, "a reserved address (240.0.0.0/4)"},
    {V4(192, 0, 0, 0), 24, "an IETF special-purpose address (192.0.0.0/24)"},
    {V4(192, 0, 2, 0), 24, "a documentation address (192.0.2.0/24)"},
    {V4(198, 51, 100, 0), 24, "a documentation address (198.51.100.0/24)"},
    {V4(203, 0, 113, 0), 24, "a documentation address (203.0.113.0/24)"},
    {V4(198, 18, 0, 0), 15, "a benchmarking address (198.18.0.0/15)"},
}};

std::optional<std::string> V4Reason(uint32_t address) {
  for (const V4Block& block : kV4Blocks) {
    uint32_t mask = block.prefix == 0 ? 0 : ~uint32_t{0} << (32 - block.prefix);
    if ((address & mask) == block.network) return std::string(block.reason);
  }
  return std::nullopt;
}

uint32_t V4At(const uint8_t* bytes) {
  return V4(bytes[0], bytes[1], bytes[2], bytes[3]);
}

bool AllZero(const uint8_t* bytes, size_t n) {
  for (size_t i = 0; i < n; ++i) {
    if (bytes[i] != 0) return false;
  }
  return true;
}

// The reason for an IPv6 form that carries an IPv4 address.
std::string Embedded(const char* form, const std::string& v4_reason) {
  return absl::StrCat(v4_reason, " in ", form, " form");
}

std::optional<std::string> V6Reason(const uint8_t* b) {
  if (AllZero(b, 16)) return "an unspecified address (::)";
  if (AllZero(b, 15) && b[15] == 1) return "a loopback address (::1)";
  if (AllZero(b, 10) && b[10] == 0xff && b[11] == 0xff) {
    if (auto reason = V4Reason(V4At(b + 12))) return Embedded("IPv4-mapped", *reason);
    return std::nullopt;
  }
  if (AllZero(b, 12)) {
    // IPv4-compatible (deprecated): the kernel routes it as the IPv4 address
    // on some systems; every one is judged by that address.
    if (auto reason = V4Reason(V4At(b + 12))) return Embedded("IPv4-compatible", *reason);
    return std::nullopt;
  }
  static constexpr uint8_t kNat64[12] = {0x00, 0x64, 0xff, 0x9b, 0, 0, 0, 0, 0, 0, 0, 0};
  if (std::memcmp(b, kNat64, sizeof(kNat64)) == 0) {
    if (auto reason = V4Reason(V4At(b + 12))) return Embedded("NAT64", *reason);
    return std::nullopt;
  }
  if (b[0] == 0x20 && b[1] == 0x02) {
    if (auto reason = V4Reason(V4At(b + 2))) return Embedded("6to4", *reason);
    return std::nullopt;
  }
  // Prefixes whose traffic a local relay or translator carries on to an
  // address the prefix does not show: local-use NAT64 (RFC 8215, any
  // embedding length) and Teredo (the client's IPv4 address, obfuscated).
  if (b[0] == 0x00 && b[1] == 0x64 && b[2] == 0xff && b[3] == 0x9b && b[4] == 0 && b[5] == 1) {
    return "a local-use NAT64 address (64:ff9b:1::/48)";
  }
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0) {
    return "a Teredo address (2001::/32)";
  }
  if (b[0] == 0x01 && AllZero(b + 1, 7)) return "a discard-only address (100::/64)";
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0 && b[3] == 0x02 && b[4] == 0 && b[5] == 0) {
    return "a benchmarking address (2001:2::/48)";
  }
  if ((b[0] & 0xfe) == 0xfc) return "a private address (unique local, fc00::/7)";
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0x80) return "a link-local address (fe80::/10)";
  if (b[0] == 0xfe && (b[1] & 0xc0) == 0xc0) return "a private address (site-local, fec0::/10)";
  if (b[0] == 0xff) return "a multicast address (ff00::/8)";
  if (b[0] == 0x20 && b[1] == 0x01 && b[2] == 0x0d && b[3] == 0xb8) {
    return "a documentation address (2001:db8::/32)";
  }
  return std::nullopt;
}

}  // namespace

std::optional<std::string> NonPublicAddressReason(const sockaddr* address, socklen_t length) {
  if (address == nullptr) return "no address";
  if (address->sa_family == AF_INET && length >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(address);
    return V4Reason(ntohl(in->sin_addr.s_addr));
  }
  if (address->sa_family == AF_INET6 && length >= static_cast<socklen_t>(sizeof(sockaddr_in6))) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(address);
    return V6Reason(in6->sin6_addr.s6_addr);
  }
  return absl::StrCat("not an IP address (address family ", address->sa_family, ")");
}

std::string AddressText(const sockaddr* address, socklen_t length) {
  char text[INET6_ADDRSTRLEN] = {0};
  if (address == nullptr) return "";
  if (address->sa_family == AF_INET && length >= static_cast<socklen_t>(sizeof(sockaddr_in))) {
    const auto* in = reinterpret_cast<const sockaddr_in*>(address);
    if (inet_ntop(AF_INET, &in->sin_addr, text, sizeof(text)) != nullptr) return text;
  } else if (address->sa_family == AF_INET6 &&
             length >= static_cast<socklen_t>(sizeof(sockaddr_in6))) {
    const auto* in6 = reinterpret_cast<const sockaddr_in6*>(address);
    if (inet_ntop(AF_INET6, &in6->sin6_addr, text, sizeof(text)) != nullptr) return text;
  }
  return "";
}

}  // namespace raw::http
