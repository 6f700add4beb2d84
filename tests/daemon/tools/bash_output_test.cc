#include "daemon/tools/builtin/bash_output.h"

#include <string>
#include <vector>

#include "daemon/vars/redact.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::tools::builtin {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::Not;
using ::testing::StartsWith;

void Add(BashOutput& out, const std::string& text) { out.Append(text.data(), text.size()); }

TEST(BashOutputTest, KeepsEverythingUpToTheCap) {
  BashOutput out(10);
  Add(out, "12345");
  Add(out, "67890");
  EXPECT_FALSE(out.truncated());
  EXPECT_EQ(out.Render(), "1234567890");
}

TEST(BashOutputTest, KeepsHeadAndTailAcrossManySmallWrites) {
  BashOutput out(10);
  for (char c = 'a'; c <= 'z'; ++c) Add(out, std::string(1, c));
  EXPECT_TRUE(out.truncated());
  EXPECT_EQ(out.total_bytes(), 26u);
  EXPECT_EQ(out.Render(),
            "abcde\n[... 16 bytes omitted: the output was 26 bytes, over the 10-byte limit "
            "(tools.bash.max_output_bytes); showing the first 5 and the last 5 bytes ...]\n"
            "vwxyz");
}

// The store hides secrets after the cut: a cut through one would keep its
// first or last bytes. The cuts move to either side of it.
TEST(BashOutputTest, CutsNeverSplitAKnownSecret) {
  const std::vector<std::string> secrets = {"SECRETVALUE-0123456789"};
  BashOutput out(1000);
  // The head's cut (500 bytes) falls 10 bytes into the first occurrence,
  // the tail's 6 bytes before the end of the second.
  Add(out, std::string(490, '0') + secrets[0] + std::string(5000, '1') + secrets[0] +
               std::string(494, '2'));
  const std::string text =
      out.Render({[&](std::string_view t) { return vars::SafeRedactionCut(t, secrets); },
                  [&](std::string_view t, size_t start) {
                    return vars::SafeRedactionStart(t, start, secrets);
                  }});
  EXPECT_THAT(text, StartsWith(std::string(490, '0') + "\n[... "));
  EXPECT_THAT(text, EndsWith("bytes ...]\n" + std::string(494, '2')));
  for (size_t n = 4; n <= secrets[0].size(); ++n) {
    EXPECT_THAT(text, Not(HasSubstr(secrets[0].substr(0, n))));
    EXPECT_THAT(text, Not(HasSubstr(secrets[0].substr(secrets[0].size() - n))));
  }
  // Without secrets the cuts stay at the halves.
  EXPECT_THAT(out.Render(), HasSubstr("SECRETVALU\n[... "));
}

TEST(BashOutputTest, OneLargeWrite) {
  BashOutput out(6);
  Add(out, std::string(1000, 'x') + "END");
  std::string text = out.Render();
  EXPECT_THAT(text, StartsWith("xxx\n[... 997 bytes omitted"));
  EXPECT_THAT(text, EndsWith("...]\nEND"));
}

TEST(BashOutputTest, NeverSplitsUtf8Characters) {
  // Each "é" is two bytes; with a 4-byte head and a 5-byte tail both cut
  // points fall inside one.
  BashOutput out(9);
  std::string text;
  for (int i = 0; i < 20; ++i) text += "é";
  Add(out, "a" + text);
  std::string rendered = out.Render();
  EXPECT_THAT(rendered, StartsWith("aé\n[... "));
  EXPECT_THAT(rendered, EndsWith("...]\néé"));
  EXPECT_THAT(rendered, HasSubstr("showing the first 3 and the last 4 bytes"));
  EXPECT_THAT(rendered, HasSubstr("[... 34 bytes omitted: the output was 41 bytes"));
}

}  // namespace
}  // namespace raw::tools::builtin
