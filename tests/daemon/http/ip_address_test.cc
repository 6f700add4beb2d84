#include "daemon/http/ip_address.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/un.h>

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::http {
namespace {

using ::testing::HasSubstr;
using ::testing::Optional;

// The classifier's answer for the numeric address `text` (v4 or v6).
std::optional<std::string> Reason(const std::string& text) {
  sockaddr_in v4{};
  if (inet_pton(AF_INET, text.c_str(), &v4.sin_addr) == 1) {
    v4.sin_family = AF_INET;
    return NonPublicAddressReason(reinterpret_cast<const sockaddr*>(&v4), sizeof(v4));
  }
  sockaddr_in6 v6{};
  EXPECT_EQ(inet_pton(AF_INET6, text.c_str(), &v6.sin6_addr), 1) << text;
  v6.sin6_family = AF_INET6;
  return NonPublicAddressReason(reinterpret_cast<const sockaddr*>(&v6), sizeof(v6));
}

TEST(IpAddressTest, RefusesEveryNonPublicIpv4Block) {
  EXPECT_THAT(Reason("127.0.0.1"), Optional(HasSubstr("loopback")));
  EXPECT_THAT(Reason("127.255.255.254"), Optional(HasSubstr("loopback")));
  EXPECT_THAT(Reason("0.0.0.0"), Optional(HasSubstr("unspecified")));
  EXPECT_THAT(Reason("0.1.2.3"), Optional(HasSubstr("unspecified")));
  EXPECT_THAT(Reason("10.0.0.1"), Optional(HasSubstr("private address (10.0.0.0/8)")));
  EXPECT_THAT(Reason("172.16.0.1"), Optional(HasSubstr("private address (172.16.0.0/12)")));
  EXPECT_THAT(Reason("172.31.255.255"), Optional(HasSubstr("private")));
  EXPECT_THAT(Reason("192.168.1.1"), Optional(HasSubstr("private address (192.168.0.0/16)")));
  EXPECT_THAT(Reason("100.64.0.1"), Optional(HasSubstr("carrier-grade NAT")));
  EXPECT_THAT(Reason("100.127.255.255"), Optional(HasSubstr("carrier-grade NAT")));
  EXPECT_THAT(Reason("169.254.169.254"), Optional(HasSubstr("cloud metadata")));
  EXPECT_THAT(Reason("169.254.1.1"), Optional(HasSubstr("link-local")));
  EXPECT_THAT(Reason("224.0.0.1"), Optional(HasSubstr("multicast")));
  EXPECT_THAT(Reason("239.255.255.250"), Optional(HasSubstr("multicast")));
  EXPECT_THAT(Reason("255.255.255.255"), Optional(HasSubstr("broadcast")));
  EXPECT_THAT(Reason("240.0.0.1"), Optional(HasSubstr("reserved")));
  EXPECT_THAT(Reason("192.0.2.1"), Optional(HasSubstr("documentation")));
  EXPECT_THAT(Reason("198.18.0.1"), Optional(HasSubstr("benchmarking")));
}

TEST(IpAddressTest, AllowsPublicIpv4IncludingTheNeighboursOfPrivateBlocks) {
  for (const char* text : {"8.8.8.8", "1.1.1.1", "93.184.216.34", "172.15.255.255",
                           "172.32.0.1", "100.63.255.255", "100.128.0.1", "169.253.255.255",
                           "192.167.1.1", "11.0.0.1", "126.255.255.255", "128.0.0.1",
                           "223.255.255.255"}) {
    EXPECT_EQ(Reason(text), std::nullopt) << text;
  }
}

TEST(IpAddressTest, RefusesEveryNonPublicIpv6Block) {
  EXPECT_THAT(Reason("::1"), Optional(HasSubstr("loopback")));
  EXPECT_THAT(Reason("::"), Optional(HasSubstr("unspecified")));
  EXPECT_THAT(Reason("fc00::1"), Optional(HasSubstr("unique local")));
  EXPECT_THAT(Reason("fd12:3456::1"), Optional(HasSubstr("unique local")));
  EXPECT_THAT(Reason("fe80::1"), Optional(HasSubstr("link-local")));
  EXPECT_THAT(Reason("febf::1"), Optional(HasSubstr("link-local")));
  EXPECT_THAT(Reason("fec0::1"), Optional(HasSubstr("site-local")));
  EXPECT_THAT(Reason("ff02::1"), Optional(HasSubstr("multicast")));
  EXPECT_THAT(Reason("2001:db8::1"), Optional(HasSubstr("documentation")));
  EXPECT_THAT(Reason("64:ff9b:1::a00:1"), Optional(HasSubstr("local-use NAT64")));
  EXPECT_THAT(Reason("64:ff9b:1:ffff::1"), Optional(HasSubstr("local-use NAT64")));
  EXPECT_THAT(Reason("2001:0:4136:e378:8000:63bf:3fff:fdd2"), Optional(HasSubstr("Teredo")));
  EXPECT_THAT(Reason("100::1"), Optional(HasSubstr("discard-only")));
  EXPECT_THAT(Reason("2001:2::1"), Optional(HasSubstr("benchmarking")));
}

TEST(IpAddressTest, JudgesIpv6FormsThatCarryAnIpv4AddressByThatAddress) {
  EXPECT_THAT(Reason("::ffff:127.0.0.1"), Optional(HasSubstr("loopback address (127.0.0.0/8) "
                                                              "in IPv4-mapped form")));
  EXPECT_THAT(Reason("::ffff:169.254.169.254"), Optional(HasSubstr("cloud metadata")));
  EXPECT_THAT(Reason("::ffff:10.1.2.3"), Optional(HasSubstr("IPv4-mapped")));
  EXPECT_THAT(Reason("::ffff:0.0.0.0"), Optional(HasSubstr("unspecified")));
  EXPECT_THAT(Reason("::127.0.0.1"), Optional(HasSubstr("IPv4-compatible")));
  EXPECT_THAT(Reason("::192.168.0.1"), Optional(HasSubstr("IPv4-compatible")));
  EXPECT_THAT(Reason("64:ff9b::a00:1"), Optional(HasSubstr("NAT64")));  // 10.0.0.1
  EXPECT_THAT(Reason("2002:7f00:1::1"), Optional(HasSubstr("6to4")));   // 127.0.0.1
  EXPECT_EQ(Reason("::ffff:8.8.8.8"), std::nullopt);
  EXPECT_EQ(Reason("::8.8.8.8"), std::nullopt);
  EXPECT_EQ(Reason("64:ff9b::808:808"), std::nullopt);
  EXPECT_EQ(Reason("2002:808:808::1"), std::nullopt);
}

TEST(IpAddressTest, AllowsPublicIpv6) {
  for (const char* text :
       {"2606:4700:4700::1111", "2001:4860:4860::8888", "2a00:1450::1", "fbff::1", "fe7f::1",
        "64:ff9b:2::1", "2001:1:0::1", "100:0:0:1::1", "2001:3::1"}) {
    EXPECT_EQ(Reason(text), std::nullopt) << text;
  }
}

TEST(IpAddressTest, RefusesOtherFamiliesAndShortAddresses) {
  sockaddr_un unix_address{};
  unix_address.sun_family = AF_UNIX;
  EXPECT_THAT(NonPublicAddressReason(reinterpret_cast<const sockaddr*>(&unix_address),
                                     sizeof(unix_address)),
              Optional(HasSubstr("not an IP address")));
  sockaddr_in6 v6{};
  v6.sin6_family = AF_INET6;
  EXPECT_TRUE(
      NonPublicAddressReason(reinterpret_cast<const sockaddr*>(&v6), sizeof(sockaddr_in))
          .has_value());
  EXPECT_TRUE(NonPublicAddressReason(nullptr, 0).has_value());
}

TEST(IpAddressTest, ShowsAddressesAsNumbers) {
  sockaddr_in v4{};
  v4.sin_family = AF_INET;
  inet_pton(AF_INET, "169.254.169.254", &v4.sin_addr);
  EXPECT_EQ(AddressText(reinterpret_cast<const sockaddr*>(&v4), sizeof(v4)), "169.254.169.254");
  sockaddr_in6 v6{};
  v6.sin6_family = AF_INET6;
  inet_pton(AF_INET6, "::ffff:127.0.0.1", &v6.sin6_addr);
  EXPECT_EQ(AddressText(reinterpret_cast<const sockaddr*>(&v6), sizeof(v6)), "::ffff:127.0.0.1");
}

}  // namespace
}  // namespace raw::http
