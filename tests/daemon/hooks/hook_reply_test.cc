#include "daemon/hooks/hook_reply.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::hooks {
namespace {

using ::testing::HasSubstr;

TEST(HookReplyTest, EmptyOrBlankStdoutIsNoObjection) {
  for (const char* text : {"", "  \n\t\n"}) {
    absl::StatusOr<HookReply> reply = ParseHookReply(text);
    ASSERT_TRUE(reply.ok()) << reply.status();
    EXPECT_FALSE(reply->decision.has_value());
    EXPECT_EQ(reply->reason, "");
    EXPECT_EQ(reply->additional_context, "");
  }
}

TEST(HookReplyTest, ReadsDecisionReasonAndContext) {
  absl::StatusOr<HookReply> reply = ParseHookReply(
      R"({"decision": "ask", "reason": " check it \n", "additional_context": "ctx",
          "extra": {"ignored": true}})");
  ASSERT_TRUE(reply.ok()) << reply.status();
  EXPECT_EQ(reply->decision, HookDecision::kAsk);
  EXPECT_EQ(reply->reason, "check it");
  EXPECT_EQ(reply->additional_context, "ctx");

  EXPECT_EQ(ParseHookReply(R"({"decision": "allow"})")->decision, HookDecision::kAllow);
  EXPECT_EQ(ParseHookReply(R"({"decision": "deny"})")->decision, HookDecision::kDeny);
  EXPECT_EQ(ParseHookReply(R"({"decision": "block"})")->decision, HookDecision::kDeny);
  EXPECT_FALSE(ParseHookReply(R"({"decision": null, "reason": null})")->decision.has_value());
}

TEST(HookReplyTest, MalformedOutputSaysWhatIsWrong) {
  struct Case {
    std::string text;
    std::string expected;
  };
  const Case cases[] = {
      {"ok\n", "stdout is not JSON: \"ok\""},
      {"{\"decision\": ", "stdout is not JSON: \"{\\\"decision\\\":\""},
      {"[1, 2]", "stdout is JSON but not an object (got an array)"},
      {"\"deny\"", "stdout is JSON but not an object (got a string)"},
      {R"({"decision": 1})", "stdout field \"decision\" must be a string, got a number"},
      {R"({"reason": ["a"]})", "stdout field \"reason\" must be a string, got an array"},
      {R"({"additional_context": {}})",
       "stdout field \"additional_context\" must be a string, got an object"},
      {R"({"decision": true})", "stdout field \"decision\" must be a string, got a boolean"},
      {R"({"decision": "maybe"})",
       "stdout field \"decision\" is \"maybe\"; expected \"allow\", \"deny\", \"ask\" or "
       "\"block\""},
  };
  for (const Case& c : cases) {
    absl::StatusOr<HookReply> reply = ParseHookReply(c.text);
    ASSERT_FALSE(reply.ok()) << c.text;
    EXPECT_THAT(std::string(reply.status().message()), HasSubstr(c.expected)) << c.text;
  }
}

TEST(HookReplyTest, QuotesAtMostEightyBytesOfGarbage) {
  std::string garbage(200, 'g');
  absl::StatusOr<HookReply> reply = ParseHookReply(garbage + "\x01");
  ASSERT_FALSE(reply.ok());
  EXPECT_EQ(std::string(reply.status().message()),
            "stdout is not JSON: \"" + std::string(80, 'g') + "...\"");
  EXPECT_EQ(QuoteSnippet("a\nb\x01", 80), "\"a\\nb\\x01\"");
}

}  // namespace
}  // namespace raw::hooks
