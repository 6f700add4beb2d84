// Redact: known secret values hidden in stored text.
#include "daemon/vars/redact.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace raw::vars {
namespace {

TEST(RedactTest, ReplacesEveryOccurrence) {
  EXPECT_EQ(Redact("key=sk-123 again sk-123.", {"sk-123"}), "key=[redacted] again [redacted].");
  EXPECT_EQ(Redact("a TOKEN b SECRET", {"TOKEN", "SECRET"}), "a [redacted] b [redacted]");
}

TEST(RedactTest, LongestSecretWinsWhereSeveralMatch) {
  // "sk-12" is a prefix of "sk-12345": the whole longer secret is hidden,
  // whatever the order they are given in.
  EXPECT_EQ(Redact("x sk-12345 y sk-12 z", {"sk-12", "sk-12345"}), "x [redacted] y [redacted] z");
  EXPECT_EQ(Redact("x sk-12345 y", {"sk-12345", "sk-12"}), "x [redacted] y");
}

TEST(RedactTest, ReplacedTextIsNotScannedAgain) {
  EXPECT_EQ(Redact("my-redacted-value", {"my-redacted-value", "redacted"}), "[redacted]");
  EXPECT_EQ(Redact("aaaa", {"aa"}), "[redacted][redacted]");
}

TEST(RedactTest, NothingToHide) {
  EXPECT_EQ(Redact("plain text", {}), "plain text");
  EXPECT_EQ(Redact("plain text", {""}), "plain text");
  EXPECT_EQ(Redact("", {"secret"}), "");
  std::string binary("a\0secret\0b", 10);
  EXPECT_EQ(Redact(binary, {"secret"}), std::string("a\0[redacted]\0b", 14));
}

}  // namespace
}  // namespace raw::vars
