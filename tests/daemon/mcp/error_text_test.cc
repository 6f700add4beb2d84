// What a server's stderr can put into Raw's own text (the last error of
// ListMcpServers, notices, call errors) is valid UTF-8 and carries no known
// secret value.
#include <string>
#include <vector>

#include "absl/strings/escaping.h"
#include "absl/strings/str_join.h"
#include "common/utf8.h"
#include "daemon/vars/redact.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp_test_support.h"

namespace raw::mcp {
namespace {

using testing::FakeServer;
using testing::ManagerHarness;
using testing::TestEnv;
using ::testing::HasSubstr;
using ::testing::Not;

constexpr char kSecret[] = "s3cr3t-value";
// A stderr line with the secret, two bytes that are never UTF-8 and a
// sequence cut short.
const std::string kNoisyLine = std::string("token=") + kSecret + " bad:\xff\xfe cut:\xe2\x82";

// Each ill-formed byte becomes one U+FFFD.
const std::string kTwoReplacements = "\xef\xbf\xbd\xef\xbf\xbd";

RedactFn KnownSecrets() {
  return [](const std::string& text) { return vars::Redact(text, {kSecret}); };
}

// Asserts `text` is clean: valid UTF-8, the secret hidden, the ill-formed
// bytes replaced, the rest of the line kept.
void ExpectClean(const std::string& text) {
  EXPECT_EQ(ValidUtf8Prefix(text), text.size()) << text;
  EXPECT_THAT(text, Not(HasSubstr(kSecret)));
  EXPECT_THAT(text, HasSubstr("token=[redacted] bad:" + kTwoReplacements + " cut:" +
                              kTwoReplacements));
}

TEST(ErrorTextTest, AFailedStartReportsCleanText) {
  ManagerHarness harness(TestEnv(), nullptr, KnownSecrets());
  auto server = FakeServer("bad", {"--stderr-hex", absl::BytesToHexString(kNoisyLine),
                                   "--exit-at-start", "1"});

  McpSelection first = harness.Select({"mcp/bad/*"}, {server});
  std::string notices = absl::StrJoin(first.notices, "\n");
  EXPECT_THAT(notices, HasSubstr("refusing to start"));  // the stderr tail is there
  ExpectClean(notices);

  std::vector<McpServerStatus> status = harness.manager().StatusOf({{"bad", server}});
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0].state, ServerState::kFailed);
  EXPECT_THAT(status[0].last_error, HasSubstr("exited with code 1"));
  ExpectClean(status[0].last_error);
  ExpectClean(harness.manager().Status()[0].last_error);

  // Retried at once, then backing off: that error quotes the last one.
  harness.Select({"mcp/bad/*"}, {server});
  McpSelection waiting = harness.Select({"mcp/bad/*"}, {server});
  std::string waiting_notices = absl::StrJoin(waiting.notices, "\n");
  EXPECT_THAT(waiting_notices, HasSubstr("next attempt in"));
  ExpectClean(waiting_notices);
}

TEST(ErrorTextTest, ACrashReportsCleanTextInTheResultTheNoticeAndTheStatus) {
  ManagerHarness harness(TestEnv(), nullptr, KnownSecrets());
  auto server = FakeServer("fake", {"--stderr-hex", absl::BytesToHexString(kNoisyLine)});

  tools::ToolOutput crashed = harness.Call(server, "crash", Json::object());
  EXPECT_EQ(crashed.status, events::ToolStatus::kError);
  EXPECT_THAT(crashed.content, HasSubstr("crashing on purpose"));
  ExpectClean(crashed.content);

  McpSelection after = harness.Select({"mcp/fake/echo"}, {server});
  std::string notices = absl::StrJoin(after.notices, "\n");
  EXPECT_THAT(notices, HasSubstr("stopped unexpectedly"));
  ExpectClean(notices);
  ExpectClean(harness.manager().Status()[0].last_error);
}

// A crashed server's last stderr lines reach the tool result the model
// reads and every front end shows: no escape sequence (here one that would
// set a terminal's title) or bell survives in it.
TEST(ErrorTextTest, ACrashedServersStderrInTheResultIsSafeToShow) {
  ManagerHarness harness;
  auto server = FakeServer("fake", {"--stderr-hex", absl::BytesToHexString("title:\x1b]0;evil\x07 "
                                                                           "rlo:\u202e end")});
  tools::ToolOutput crashed = harness.Call(server, "crash", Json::object());
  EXPECT_EQ(crashed.status, events::ToolStatus::kError);
  EXPECT_THAT(crashed.content, HasSubstr("crashing on purpose"));
  const std::string kReplacement = "\xef\xbf\xbd";
  EXPECT_THAT(crashed.content, HasSubstr("title:" + kReplacement + "]0;evil" + kReplacement +
                                         " rlo:" + kReplacement + " end"));
  EXPECT_THAT(crashed.content, Not(HasSubstr("\x1b")));
  EXPECT_THAT(crashed.content, Not(HasSubstr("\x07")));
}

TEST(ErrorTextTest, WithoutARedactorTextIsStillValidUtf8) {
  ManagerHarness harness;
  auto server = FakeServer("bad", {"--stderr-hex", absl::BytesToHexString(kNoisyLine),
                                   "--exit-at-start", "1"});
  harness.Select({"mcp/bad/*"}, {server});
  std::string error = harness.manager().Status()[0].last_error;
  EXPECT_EQ(ValidUtf8Prefix(error), error.size()) << error;
  EXPECT_THAT(error, HasSubstr("bad:" + kTwoReplacements + " cut:" + kTwoReplacements));
}

}  // namespace
}  // namespace raw::mcp
