// McpManager against the fake stdio server: selection, names, annotations,
// calls, progress, cancellation, list_changed, sharing, idle stops,
// environment and version negotiation.
#include <thread>

#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "daemon/tools/schema_validator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp_test_support.h"

namespace raw::mcp {
namespace {

using testing::CountLines;
using ::testing::ElementsAre;
using testing::FakeServer;
using testing::FindSpec;
using ::testing::HasSubstr;
using testing::ManagerHarness;
using testing::QualifiedNames;
using testing::TempDir;
using testing::TestContext;

TEST(ManagerTest, SelectsOnlyMatchingToolsAcrossPages) {
  ManagerHarness harness;
  auto server = FakeServer("fake", {"--pages", "3"});
  McpSelection selection = harness.Select({"mcp/fake/echo", "mcp/fake/e*"}, {server});
  EXPECT_TRUE(selection.notices.empty()) << absl::StrJoin(selection.notices, "\n");
  EXPECT_THAT(QualifiedNames(selection.tools), ElementsAre("mcp/fake/echo", "mcp/fake/env"));

  std::vector<McpServerStatus> status = harness.manager().Status();
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0].state, ServerState::kReady);
  EXPECT_EQ(status[0].transport, "stdio");
  EXPECT_EQ(status[0].protocol_version, "2025-11-25");
  // Three pages, every tool but the one that needs tasks.
  EXPECT_EQ(status[0].tools.size(), 17u);
  EXPECT_THAT(status[0].tools, ::testing::Not(::testing::Contains("tasks_only")));
  EXPECT_THAT(status[0].tools, ::testing::Contains("weird.name/with:colons"));
}

TEST(ManagerTest, ServersNoPatternCoversAreNeverStarted) {
  TempDir dir;
  ManagerHarness harness;
  auto server = FakeServer("fake", {"--start-log", dir.Join("starts")});
  McpSelection selection = harness.Select({"builtin/*", "mcp/other/*"}, {server});
  EXPECT_TRUE(selection.tools.empty());
  EXPECT_THAT(selection.notices, ElementsAre("tools.use: \"mcp/other/*\" matches no MCP tool"));
  EXPECT_EQ(harness.manager().FindServer("fake"), nullptr);
  EXPECT_EQ(CountLines(dir.Join("starts")), 0);
}

TEST(ManagerTest, ASelectionWithoutStartingUsesOnlyServersThatListedTheirTools) {
  TempDir dir;
  ManagerHarness harness;
  auto server = FakeServer("fake", {"--start-log", dir.Join("starts")});
  std::map<std::string, config::McpServerConfig> servers = {{"fake", server}};
  auto expand = [](const std::string& text) { return absl::StatusOr<std::string>(text); };
  McpSelection before = harness.manager().Select({"mcp/fake/echo"}, servers, expand, "",
                                                 /*start=*/false);
  EXPECT_TRUE(before.tools.empty());
  EXPECT_TRUE(before.notices.empty());
  EXPECT_TRUE(before.unknown_tools) << "the tools it lacks are said to be unknown";
  EXPECT_EQ(CountLines(dir.Join("starts")), 0);
  EXPECT_EQ(harness.manager().StatusOf(servers)[0].state, ServerState::kStopped);

  ASSERT_EQ(harness.Select({"mcp/fake/echo"}, {server}).tools.size(), 1u);
  McpSelection after = harness.manager().Select({"mcp/fake/echo"}, servers, expand, "",
                                                /*start=*/false);
  ASSERT_EQ(after.tools.size(), 1u);
  EXPECT_EQ(after.tools[0].qualified_name, "mcp/fake/echo");
  EXPECT_FALSE(after.unknown_tools);
  EXPECT_EQ(CountLines(dir.Join("starts")), 1);
}

// A turn interrupted while a server starts stops waiting at once; the start
// goes on, and Shutdown cuts it short instead of waiting for a server that
// never answers (this one sleeps ten minutes before reading anything).
TEST(ManagerTest, ACancelledWaitReturnsAtOnceAndShutdownEndsTheStart) {
  ManagerHarness harness;
  config::McpServerConfig server = FakeServer("slow", {"--slow-start", "600000"});
  server.startup_timeout_ms = 600000;
  std::map<std::string, config::McpServerConfig> servers = {{"slow", server}};
  auto expand = [](const std::string& text) { return absl::StatusOr<std::string>(text); };
  CancelToken cancel;
  cancel.Cancel("interrupted");
  McpSelection selection =
      harness.manager().Select({"mcp/slow/*"}, servers, expand, "", /*start=*/true, &cancel);
  EXPECT_TRUE(selection.cancelled);
  EXPECT_TRUE(selection.tools.empty());
  ASSERT_EQ(harness.manager().Status().size(), 1u);
  harness.manager().Shutdown();  // returns: the start was cancelled
  EXPECT_NE(harness.manager().Status()[0].state, ServerState::kReady);
}

TEST(ManagerTest, BuildsModelReadyToolSpecs) {
  ManagerHarness harness;
  McpSelection selection = harness.Select({"mcp/fake/*"}, {FakeServer("fake")});
  const tools::ToolSpec* echo = FindSpec(selection.tools, "mcp/fake/echo");
  ASSERT_NE(echo, nullptr);
  EXPECT_EQ(echo->model_name, "mcp__fake__echo");
  EXPECT_EQ(echo->description, "Echoes text.");
  EXPECT_EQ(echo->input_schema["required"][0], "text");
  EXPECT_TRUE(echo->read_only);
  ASSERT_NE(echo->validator, nullptr);
  EXPECT_FALSE(echo->validator->Validate(Json::object(), echo->model_name).ok());
  EXPECT_TRUE(echo->validator->Validate({{"text", "x"}}, echo->model_name).ok());

  // readOnlyHint with destructiveHint is not read-only, nor without
  // openWorldHint false (a read-only tool that reaches the outside carries
  // its arguments there); no hints is not.
  EXPECT_FALSE(FindSpec(selection.tools, "mcp/fake/destroy")->read_only);
  EXPECT_FALSE(FindSpec(selection.tools, "mcp/fake/lookup")->read_only);
  EXPECT_FALSE(FindSpec(selection.tools, "mcp/fake/crash")->read_only);

  const tools::ToolSpec* weird = FindSpec(selection.tools, "mcp/fake/weird.name/with:colons");
  ASSERT_NE(weird, nullptr);
  EXPECT_THAT(weird->model_name,
              ::testing::MatchesRegex("mcp__fake__weird_name_with_colons_[0-9a-f]{8}"));
  EXPECT_EQ(FindSpec(selection.tools, "mcp/fake/tasks_only"), nullptr);
  // Ordered by qualified name.
  std::vector<std::string> names = QualifiedNames(selection.tools);
  EXPECT_TRUE(std::is_sorted(names.begin(), names.end()));
}

TEST(ManagerTest, CallsToolsAndMapsToolErrors) {
  ManagerHarness harness;
  auto server = FakeServer("fake");
  tools::ToolOutput echo = harness.Call(server, "echo", {{"text", "hi"}});
  EXPECT_EQ(echo.status, events::ToolStatus::kOk);
  EXPECT_EQ(echo.content, "echo: hi");
  tools::ToolOutput fail = harness.Call(server, "fail", Json::object());
  EXPECT_EQ(fail.status, events::ToolStatus::kError);
  EXPECT_EQ(fail.content, "it failed on purpose");
  tools::ToolOutput mixed = harness.Call(server, "mixed", Json::object());
  EXPECT_EQ(
      mixed.content,
      "first\n[image (image/png, 8 bytes) not shown]\n[audio (audio/wav, 4 bytes) not shown]\n"
      "[resource link: a.txt <file:///tmp/a.txt> (text/plain, 12 bytes)] a file\n"
      "[resource mem://note (text/plain)]\nnote body\n"
      "[resource mem://bin (application/octet-stream, 4 bytes of binary data, not shown)]\n"
      "{\"answer\":42}");
}

TEST(ManagerTest, AnswersPingAndRefusesUnadvertisedRequests) {
  ManagerHarness harness;
  tools::ToolOutput asked = harness.Call(FakeServer("fake"), "ask_client", Json::object());
  ASSERT_EQ(asked.status, events::ToolStatus::kOk) << asked.content;
  absl::StatusOr<Json> answers = ParseJson(asked.content);
  ASSERT_TRUE(answers.ok()) << asked.content;
  EXPECT_EQ((*answers)["ping"], Json::object());
  EXPECT_EQ((*answers)["sampling/createMessage"]["code"], -32601);
}

TEST(ManagerTest, ReportsProgressOnTheCallingThread) {
  ManagerHarness harness;
  auto server = FakeServer("fake");
  McpSelection selection = harness.Select({"mcp/fake/progress"}, {server});
  ASSERT_EQ(selection.tools.size(), 1u);
  TestContext context;
  std::vector<std::thread::id> threads;
  tools::ToolOutput done =
      selection.tools[0].handler({{"steps", 3}}, context.Get([&](const tools::ToolProgress&) {
        threads.push_back(std::this_thread::get_id());
      }));
  EXPECT_EQ(done.content, "done after 3 steps");
  absl::MutexLock lock(&context.mu);
  ASSERT_EQ(context.progress.size(), 3u);
  EXPECT_EQ(context.progress[1].progress, 2);
  EXPECT_EQ(context.progress[1].total, 3);
  EXPECT_EQ(context.progress[1].message, "step 2");
  EXPECT_THAT(threads, ::testing::Each(std::this_thread::get_id()));
}

TEST(ManagerTest, CancellingAToolCallNotifiesTheServer) {
  ManagerHarness harness;
  auto server = FakeServer("fake");
  McpSelection selection = harness.Select({"mcp/fake/*"}, {server});
  const tools::ToolSpec* wait = FindSpec(selection.tools, "mcp/fake/wait_cancel");
  ASSERT_NE(wait, nullptr);
  TestContext context;
  std::thread::id caller = std::this_thread::get_id();
  std::thread::id progress_thread;
  // The server reports progress once it waits; the turn is interrupted then.
  tools::ToolOutput cancelled =
      wait->handler(Json::object(), context.Get([&](const tools::ToolProgress&) {
        progress_thread = std::this_thread::get_id();
        context.cancel.Cancel("interrupted");
      }));
  EXPECT_EQ(cancelled.status, events::ToolStatus::kCancelled);
  EXPECT_EQ(progress_thread, caller) << "progress is reported on the calling thread";
  // The server saw notifications/cancelled for that request, and the
  // connection still works.
  tools::ToolOutput ids = harness.Call(server, "cancelled_ids", Json::object());
  absl::StatusOr<Json> parsed = ParseJson(ids.content);
  ASSERT_TRUE(parsed.ok()) << ids.content;
  EXPECT_EQ(parsed->size(), 1u) << ids.content;
}

TEST(ManagerTest, RefreshesToolsOnListChanged) {
  ManagerHarness harness;
  auto server = FakeServer("fake");
  EXPECT_TRUE(harness.Select({"mcp/fake/late"}, {server}).tools.empty());
  std::shared_ptr<ManagedServer> managed = harness.manager().FindServer("fake");
  uint64_t generation = managed->tools_generation();
  EXPECT_EQ(harness.Call(server, "add_tool", {{"name", "late"}}).content, "added");
  ASSERT_TRUE(managed->WaitForToolsGeneration(generation + 1, 10000));
  McpSelection selection = harness.Select({"mcp/fake/late"}, {server});
  EXPECT_THAT(QualifiedNames(selection.tools), ElementsAre("mcp/fake/late"));
  EXPECT_TRUE(selection.notices.empty());
}

TEST(ManagerTest, SharesOneConnectionPerDefinition) {
  ManagerHarness harness;
  auto server = FakeServer("fake");
  harness.Select({"mcp/fake/echo"}, {server});
  std::shared_ptr<ManagedServer> first = harness.manager().FindServer("fake");
  int pid = first->pid();
  harness.Select({"mcp/fake/*"}, {server});
  EXPECT_EQ(harness.manager().FindServer("fake"), first);
  EXPECT_EQ(first->pid(), pid);

  auto changed = server;
  changed.call_timeout_ms = 5000;
  harness.Select({"mcp/fake/echo"}, {changed});
  std::shared_ptr<ManagedServer> second = harness.manager().FindServer("fake");
  EXPECT_NE(second, first);
  EXPECT_NE(second->pid(), pid);
}

TEST(ManagerTest, StopsIdleServersAndRestartsThemOnUse) {
  TempDir dir;
  ManagerHarness harness;
  auto server = FakeServer("fake", {"--start-log", dir.Join("starts")});
  server.idle_timeout_ms = 1000;
  EXPECT_EQ(harness.Call(server, "echo", {{"text", "1"}}).content, "echo: 1");
  harness.clock().Advance(999);
  EXPECT_EQ(harness.manager().StopIdleServers(), 0);
  harness.clock().Advance(1);
  EXPECT_EQ(harness.manager().StopIdleServers(), 1);
  EXPECT_EQ(harness.manager().Status()[0].state, ServerState::kStopped);

  // Still selectable without starting; the call starts it.
  McpSelection selection = harness.Select({"mcp/fake/echo"}, {server});
  EXPECT_EQ(selection.tools.size(), 1u);
  EXPECT_EQ(harness.manager().Status()[0].state, ServerState::kStopped);
  EXPECT_EQ(CountLines(dir.Join("starts")), 1);
  EXPECT_EQ(harness.Call(server, "echo", {{"text", "2"}}).content, "echo: 2");
  EXPECT_EQ(CountLines(dir.Join("starts")), 2);
}

TEST(ManagerTest, IdleThreadStopsUnusedServers) {
  absl::Mutex mu;
  int changes = 0;
  McpManagerOptions options;
  options.env = testing::TestEnv();
  options.on_status_change = [&] {
    absl::MutexLock lock(&mu);
    ++changes;
  };
  McpManager manager(std::move(options));
  auto server = FakeServer("fake");
  server.idle_timeout_ms = 100;
  manager.Select({"mcp/fake/*"}, {{"fake", server}}, nullptr);
  auto stopped = [&] { return manager.Status()[0].state == ServerState::kStopped; };
  absl::MutexLock lock(&mu);
  // Every state change releases `mu`, which re-evaluates the condition.
  bool done = mu.AwaitWithTimeout(absl::Condition(&stopped), absl::Seconds(20));
  EXPECT_TRUE(done);
  EXPECT_GT(changes, 0);
}

TEST(ManagerTest, PassesConfiguredEnvironmentButNotTheDaemons) {
  ManagerHarness harness([](const std::string& name) -> std::optional<std::string> {
    if (name == "RAW_TEST_SECRET") return "daemon secret";
    return testing::TestEnv()(name);
  });
  harness.vars["WORD"] = "hello";
  auto server = FakeServer("fake");
  server.env = {{"GREETING", "${WORD} there"}};
  EXPECT_EQ(harness.Call(server, "env", {{"name", "GREETING"}}).content, "hello there");
  EXPECT_EQ(harness.Call(server, "env", {{"name", "RAW_TEST_SECRET"}}).content, "<unset>");
}

// A variable whose definition changed (a fixed token) is read again: the
// server's next start gets the new value.
TEST(ManagerTest, ARestartTakesTheVariablesLatestValue) {
  ManagerHarness harness;
  harness.vars["WORD"] = "hello";
  auto server = FakeServer("fake");
  server.env = {{"GREETING", "${WORD} there"}};
  EXPECT_EQ(harness.Call(server, "env", {{"name", "GREETING"}}).content, "hello there");
  EXPECT_EQ(harness.Call(server, "crash", Json::object()).status, events::ToolStatus::kError);
  harness.vars["WORD"] = "bonjour";
  EXPECT_EQ(harness.Call(server, "env", {{"name", "GREETING"}}).content, "bonjour there");
}

TEST(ManagerTest, AnUnresolvableVariableIsANotice) {
  ManagerHarness harness;
  auto server = FakeServer("fake");
  server.env = {{"TOKEN", "${MISSING}"}};
  McpSelection selection = harness.Select({"mcp/fake/*"}, {server});
  EXPECT_TRUE(selection.tools.empty());
  EXPECT_THAT(absl::StrJoin(selection.notices, "\n"),
              HasSubstr("mcp_servers.fake.env.TOKEN: variable MISSING is not defined"));
}

TEST(ManagerTest, NegotiatesAnOlderRevisionAndRefusesUnknownOnes) {
  ManagerHarness harness;
  harness.Select({"mcp/old/*"}, {FakeServer("old", {"--want-version", "2025-06-18"})});
  EXPECT_EQ(harness.manager().FindServer("old")->Status().protocol_version, "2025-06-18");

  McpSelection refused = harness.Select(
      {"mcp/ancient/*"}, {FakeServer("ancient", {"--answer-version", "2024-11-05"})});
  EXPECT_THAT(absl::StrJoin(refused.notices, "\n"),
              HasSubstr("speaks MCP revision 2024-11-05, which Raw does not support"));
}

}  // namespace
}  // namespace raw::mcp
