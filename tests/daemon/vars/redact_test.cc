// Redact: known secret values hidden in stored text.
#include "daemon/vars/redact.h"

#include <string>
#include <vector>

#include "common/json.h"
#include "common/utf8.h"
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

// What the store keeps: valid UTF-8, then redacted, the same as
// Redact(SanitizeUtf8(text)) for text that needs either, valid text
// without a secret left as it was.
TEST(RedactTest, SanitizeAndRedactIsRedactOfTheSanitizedText) {
  const std::vector<std::vector<std::string>> secret_sets = {
      {}, {""}, {"sk-123"}, {"sk-12", "sk-12345"}, {"\xc3\xa9t\xc3\xa9"}, {"aa"}};
  const std::vector<std::string> texts = {
      "",
      "plain text",
      "key=sk-123 and sk-12345",
      "caf\xc3\xa9 \xc3\xa9t\xc3\xa9",
      "broken \xc3 sk-123 \xff",
      "sk-1\xff"
      "23",
      std::string("a\0sk-123\0b", 10),
      "aaaaa",
  };
  for (const auto& secrets : secret_sets) {
    for (const std::string& text : texts) {
      std::string kept = text;
      SanitizeAndRedact(kept, secrets);
      EXPECT_EQ(kept, Redact(SanitizeUtf8(text), secrets)) << text;
    }
  }
  // Nothing to change: the same buffer.
  std::string clean = "nothing secret here, and long enough not to fit in place";
  const char* before = clean.data();
  SanitizeAndRedact(clean, {"sk-123"});
  EXPECT_EQ(clean.data(), before);
}

TEST(RedactTest, SafeCutHoldsBackWhatMayBecomeASecret) {
  const std::vector<std::string> secrets = {"sk-12345"};
  // Nothing of a secret at the end: all of it may be shown.
  EXPECT_EQ(SafeRedactionCut("plain text", secrets), 10u);
  // A complete secret does not span the end either.
  EXPECT_EQ(SafeRedactionCut("key sk-12345", secrets), 12u);
  // The start of a secret at the end is held back.
  EXPECT_EQ(SafeRedactionCut("key sk-12", secrets), 4u);
  EXPECT_EQ(SafeRedactionCut("key s", secrets), 4u);
  EXPECT_EQ(SafeRedactionCut("", secrets), 0u);
  // Holding back one secret's start must not cut through another secret.
  EXPECT_EQ(SafeRedactionCut("x abcdef", {"abcdef", "defgh"}), 2u);
  // Without secrets nothing is held back.
  EXPECT_EQ(SafeRedactionCut("sk-12", {}), 5u);
}

TEST(RedactTest, PiecesShownAtTheirSafeCutsNeverShowASecret) {
  const std::vector<std::string> secrets = {"sk-12345", "45-tail"};
  const std::string whole = "a sk-12345 b sk-1234 c sk-12345-tail d";
  std::string shown;  // what a client assembled from the pieces
  std::string published;
  for (size_t n = 1; n <= whole.size(); ++n) {
    std::string text = whole.substr(0, n);
    std::string safe = Redact(text.substr(0, SafeRedactionCut(text, secrets)), secrets);
    ASSERT_EQ(safe.compare(0, published.size(), published), 0) << "at " << n;
    shown += safe.substr(published.size());
    published = safe;
    EXPECT_EQ(shown.find("sk-12345"), std::string::npos) << shown;
  }
  shown += Redact(whole, secrets).substr(published.size());
  EXPECT_EQ(shown, Redact(whole, secrets));
}

TEST(RedactTest, SafeStartSkipsWhatMayBeTheEndOfASecret) {
  const std::vector<std::string> secrets = {"sk-12345"};
  // From `start` on, nothing of a secret: kept.
  EXPECT_EQ(SafeRedactionStart("plain text", 3, secrets), 3u);
  // A whole secret after the start does not span it.
  EXPECT_EQ(SafeRedactionStart("ab sk-12345", 3, secrets), 3u);
  // An occurrence across the start: the start moves past it.
  EXPECT_EQ(SafeRedactionStart("key sk-12345 end", 6, secrets), 12u);
  // The end of a secret that began before the text (cut off in front).
  EXPECT_EQ(SafeRedactionStart("2345 end", 0, secrets), 4u);
  // Bytes before the start that are no part of the secret: no occurrence.
  EXPECT_EQ(SafeRedactionStart("xx345 end", 2, secrets), 2u);
  // Moving past one secret's end must not stop inside another.
  EXPECT_EQ(SafeRedactionStart("defgh tail", 0, {"abcdef", "fgh tai"}), 9u);
  // All of it may be a secret's end: nothing is shown.
  EXPECT_EQ(SafeRedactionStart("12345", 0, secrets), 5u);
  EXPECT_EQ(SafeRedactionStart("", 0, secrets), 0u);
  EXPECT_EQ(SafeRedactionStart("2345", 0, {}), 0u);
}

// Text cut off in front (the tail of a long output), shown from its safe
// start and redacted, shows what the redaction of the whole output shows
// there: nothing of a secret that the whole output's redaction hides.
TEST(RedactTest, EverySuffixShownFromItsSafeStartIsTheEndOfTheWholeRedacted) {
  const std::vector<std::string> secrets = {"sk-12345", "45-tail"};
  const std::string whole = "a sk-12345 b sk-1234 c sk-12345-tail d 45-tail";
  const std::string redacted = Redact(whole, secrets);
  for (size_t front = 0; front <= whole.size(); ++front) {
    const std::string text = whole.substr(front);
    for (size_t start = 0; start <= text.size(); ++start) {
      const std::string shown =
          Redact(text.substr(SafeRedactionStart(text, start, secrets)), secrets);
      ASSERT_LE(shown.size(), redacted.size());
      EXPECT_EQ(redacted.substr(redacted.size() - shown.size()), shown)
          << "front " << front << " start " << start;
    }
  }
}

TEST(RedactTest, JsonEscapedFormIsWhatAJsonStringHolds) {
  const std::string secret =
      "PW\"Q\\Z\n\x01"
      "end";
  EXPECT_EQ(JsonEscapedForm(secret), "PW\\\"Q\\\\Z\\n\\u0001end");
  // It is what a JSON writer puts between the quotes.
  const std::string dumped = Json(secret).dump();
  EXPECT_EQ(dumped.substr(1, dumped.size() - 2), JsonEscapedForm(secret));
  EXPECT_EQ(JsonEscapedForm("plain-key-1"), "plain-key-1");
}

}  // namespace
}  // namespace raw::vars
