// The official reference server @modelcontextprotocol/server-everything
// over stdio, through McpManager: one server process for the whole suite.
#include <memory>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp_test_support.h"

namespace raw::mcp {
namespace {

using ::testing::Contains;
using ::testing::Each;
using testing::FindSpec;
using ::testing::HasSubstr;
using testing::ManagerHarness;
using ::testing::Not;
using testing::QualifiedNames;
using ::testing::StartsWith;
using testing::TestContext;

class EverythingStdioTest : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    if (!testing::ReferenceServersInstalled(&skip_reason_)) return;
    harness_ = new ManagerHarness();
    all_ = harness_->Select({"mcp/everything/*"}, {testing::EverythingStdio()});
  }
  static void TearDownTestSuite() {
    delete harness_;
    harness_ = nullptr;
  }
  void SetUp() override {
    if (harness_ == nullptr) GTEST_SKIP() << skip_reason_;
    ASSERT_FALSE(all_.tools.empty()) << absl::StrJoin(all_.notices, "\n");
  }

  const tools::ToolSpec& Tool(const std::string& name) {
    const tools::ToolSpec* spec = FindSpec(all_.tools, "mcp/everything/" + name);
    EXPECT_NE(spec, nullptr) << name;
    static const tools::ToolSpec kMissing;
    return spec != nullptr ? *spec : kMissing;
  }
  tools::ToolOutput Call(const std::string& name, const Json& arguments,
                         TestContext* context = nullptr) {
    const tools::ToolSpec& spec = Tool(name);
    if (!spec.handler) return tools::ToolOutput::Error("missing tool");
    TestContext local;
    return spec.handler(arguments, (context != nullptr ? context : &local)->Get());
  }

  static inline std::string skip_reason_;
  static inline ManagerHarness* harness_ = nullptr;
  static inline McpSelection all_;
};

TEST_F(EverythingStdioTest, ListsTheReferenceTools) {
  std::vector<McpServerStatus> status = harness_->manager().Status();
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0].state, ServerState::kReady);
  EXPECT_EQ(status[0].protocol_version, "2025-11-25");
  std::vector<std::string> names = QualifiedNames(all_.tools);
  for (const char* tool : {"echo", "get-sum", "get-tiny-image", "get-resource-links",
                           "get-structured-content", "trigger-long-running-operation"}) {
    EXPECT_THAT(names, Contains(std::string("mcp/everything/") + tool));
  }
  // Task-only tools are left out: Raw does not implement tasks.
  EXPECT_THAT(names, Not(Contains("mcp/everything/simulate-research-query")));
  EXPECT_EQ(Tool("get-sum").model_name, "mcp__everything__get-sum");
  EXPECT_TRUE(Tool("echo").read_only);
  EXPECT_FALSE(Tool("toggle-simulated-logging").read_only);
  EXPECT_EQ(Tool("echo").input_schema["required"][0], "message");
}

TEST_F(EverythingStdioTest, SelectsOnlyTheMatchingTools) {
  McpSelection some = harness_->Select({"mcp/everything/get-*", "mcp/everything/echo"},
                                       {testing::EverythingStdio()});
  std::vector<std::string> names = QualifiedNames(some.tools);
  EXPECT_THAT(names, Contains("mcp/everything/echo"));
  EXPECT_THAT(names, Contains("mcp/everything/get-sum"));
  EXPECT_THAT(names, Not(Contains("mcp/everything/trigger-long-running-operation")));
  names.erase(std::remove(names.begin(), names.end(), "mcp/everything/echo"), names.end());
  EXPECT_THAT(names, Each(StartsWith("mcp/everything/get-")));
  EXPECT_EQ(harness_->manager().Status().size(), 1u) << "the same connection";
}

TEST_F(EverythingStdioTest, CallsATool) {
  tools::ToolOutput echo = Call("echo", {{"message", "hello from raw"}});
  EXPECT_EQ(echo.status, events::ToolStatus::kOk);
  EXPECT_EQ(echo.content, "Echo: hello from raw");
  EXPECT_EQ(Call("get-sum", {{"a", 2}, {"b", 40}}).content, "The sum of 2 and 40 is 42.");
}

TEST_F(EverythingStdioTest, AToolErrorIsAnErrorResult) {
  tools::ToolOutput bad = Call("get-sum", {{"a", "two"}, {"b", 1}});
  EXPECT_EQ(bad.status, events::ToolStatus::kError);
  EXPECT_THAT(bad.content, HasSubstr("Input validation error"));
}

TEST_F(EverythingStdioTest, RendersEveryContentType) {
  tools::ToolOutput image = Call("get-tiny-image", Json::object());
  EXPECT_THAT(image.content, HasSubstr("[image (image/png, "));
  EXPECT_THAT(image.content, Not(HasSubstr("iVBORw0KGgo")));

  tools::ToolOutput resource =
      Call("get-resource-reference", {{"resourceType", "Text"}, {"resourceId", 1}});
  EXPECT_THAT(resource.content,
              HasSubstr("[resource demo://resource/dynamic/text/1 (text/plain)]\nResource 1"));
  tools::ToolOutput blob =
      Call("get-resource-reference", {{"resourceType", "Blob"}, {"resourceId", 1}});
  EXPECT_THAT(blob.content,
              HasSubstr("[resource demo://resource/dynamic/blob/1 (text/plain)]\nResource 1"));

  tools::ToolOutput links = Call("get-resource-links", {{"count", 2}});
  EXPECT_THAT(links.content, HasSubstr("[resource link: "));
  EXPECT_THAT(links.content, HasSubstr("<demo://resource/"));

  // The same JSON as text and as structuredContent: given once.
  tools::ToolOutput weather = Call("get-structured-content", {{"location", "Chicago"}});
  absl::StatusOr<Json> parsed = ParseJson(weather.content);
  ASSERT_TRUE(parsed.ok()) << weather.content;
  EXPECT_TRUE(parsed->contains("temperature"));
}

TEST_F(EverythingStdioTest, RefreshesTheToolListOnListChanged) {
  // server-everything registers more tools once initialized and says so
  // with notifications/tools/list_changed: the list is fetched again.
  std::shared_ptr<ManagedServer> server = harness_->manager().FindServer("everything");
  ASSERT_NE(server, nullptr);
  EXPECT_TRUE(server->WaitForToolsGeneration(2, 20000)) << server->tools_generation();
}

TEST_F(EverythingStdioTest, ReportsProgress) {
  TestContext context;
  tools::ToolOutput done =
      Call("trigger-long-running-operation", {{"duration", 1}, {"steps", 4}}, &context);
  EXPECT_EQ(done.status, events::ToolStatus::kOk);
  EXPECT_THAT(done.content, HasSubstr("Long running operation completed"));
  absl::MutexLock lock(&context.mu);
  ASSERT_EQ(context.progress.size(), 4u);
  for (int i = 0; i < 4; ++i) {
    EXPECT_EQ(context.progress[i].progress, i + 1);
    EXPECT_EQ(context.progress[i].total, 4);
  }
}

TEST_F(EverythingStdioTest, CancelsAnInFlightCall) {
  const tools::ToolSpec& spec = Tool("trigger-long-running-operation");
  ASSERT_TRUE(spec.handler);
  TestContext context;
  // An hour-long operation, a step a second: the call returns at all only
  // by its cancellation.
  tools::ToolOutput cancelled = spec.handler(
      {{"duration", 3600}, {"steps", 3600}},
      context.Get([&](const tools::ToolProgress&) { context.cancel.Cancel("interrupted"); }));
  EXPECT_EQ(cancelled.status, events::ToolStatus::kCancelled);
  // The connection keeps working; late progress of the cancelled call is
  // dropped.
  EXPECT_EQ(Call("echo", {{"message", "still here"}}).content, "Echo: still here");
  absl::MutexLock lock(&context.mu);
  EXPECT_EQ(context.progress.size(), 1u);
}

}  // namespace
}  // namespace raw::mcp
