// A server that sends fields of unexpected types (the fake server of
// tests/daemon/mcp with flags that choose the bad shape): the daemon keeps
// running, the server either works or is marked failed with a clear error,
// and the JSON-RPC peer's backstop turns a slip in a handler into a logged
// drop or an error answer instead of an exception on a transport thread.
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "absl/synchronization/mutex.h"
#include "daemon/mcp/json_rpc.h"
#include "daemon/mcp/json_rpc_peer.h"
#include "daemon/tools/schema_validator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp_test_support.h"

namespace raw::mcp {
namespace {

using testing::FakeServer;
using ::testing::HasSubstr;
using testing::ManagerHarness;

std::string HostileNotices(const McpSelection& selection) {
  return absl::StrJoin(selection.notices, "\n");
}

// A -32602 refusal whose "data" is not an object with a "supported" array:
// the version cannot be negotiated, so the start fails with the server's
// own error.
TEST(HostileServerTest, ARefusalWithOddDataFailsTheStartClearly) {
  for (const char* data :
       {R"("2024-11-05")", R"([1, 2])", R"({"supported": "2025-06-18"})", R"({"supported": 7})"}) {
    ManagerHarness harness;
    auto server = FakeServer("odd", {"--want-version", "2024-11-05", "--error-data", data});
    McpSelection selection = harness.Select({"mcp/odd/*"}, {server});
    EXPECT_TRUE(selection.tools.empty()) << data;
    EXPECT_THAT(HostileNotices(selection),
                HasSubstr("failed to start: initialize failed: the server answered with error "
                          "-32602: Unsupported protocol version"))
        << data;
    std::vector<McpServerStatus> status = harness.manager().Status();
    ASSERT_EQ(status.size(), 1u);
    EXPECT_EQ(status[0].state, ServerState::kFailed) << data;
    EXPECT_THAT(status[0].last_error, HasSubstr("-32602")) << data;
  }
}

TEST(HostileServerTest, ServerInfoOfOtherTypesIsIgnored) {
  for (const char* info : {R"({"name": 1, "version": 2})", R"({"name": ["x"]})", R"("fake")"}) {
    ManagerHarness harness;
    auto server = FakeServer("info", {"--server-info", info});
    tools::ToolOutput echoed = harness.Call(server, "echo", {{"text", "hi"}});
    EXPECT_EQ(echoed.status, events::ToolStatus::kOk) << info << ": " << echoed.content;
    EXPECT_EQ(echoed.content, "echo: hi") << info;
    EXPECT_EQ(harness.manager().Status()[0].state, ServerState::kReady) << info;
  }
}

// The log message comes before the answer to initialize, on the same
// stream: it has been handled by the time the start is over.
TEST(HostileServerTest, ALogMessageWithALevelOfAnotherTypeIsLogged) {
  for (const char* level : {"3", R"({"level": "info"})", "null"}) {
    ManagerHarness harness;
    auto server = FakeServer("log", {"--log-level", level});
    tools::ToolOutput echoed = harness.Call(server, "echo", {{"text", "hi"}});
    EXPECT_EQ(echoed.status, events::ToolStatus::kOk) << level << ": " << echoed.content;
    EXPECT_EQ(harness.manager().Status()[0].state, ServerState::kReady) << level;
  }
}

// A tool list past 8 MiB in all (here 17 tools of 600 kB each, in 5 pages
// of less than the 64 MiB a message may have) fails the start.
TEST(HostileServerTest, AToolListPastItsBoundFailsTheStart) {
  ManagerHarness harness;
  auto server = FakeServer("wordy", {"--description-bytes", "600000", "--pages", "5"});
  McpSelection selection = harness.Select({"mcp/wordy/*"}, {server});
  EXPECT_TRUE(selection.tools.empty());
  EXPECT_THAT(HostileNotices(selection),
              HasSubstr("failed to start: tools/list failed: the server's tools take more than "
                        "8388608 bytes"));
  EXPECT_EQ(harness.manager().Status()[0].state, ServerState::kFailed);

  ManagerHarness within;
  auto smaller = FakeServer("wordy", {"--description-bytes", "400000", "--pages", "5"});
  EXPECT_EQ(within.Call(smaller, "echo", {{"text", "hi"}}).content, "echo: hi");
}

// Input schemas whose "$ref"s loop without moving into the arguments, on
// which valijson would recurse until the stack overflowed: when the tools
// are listed (a chain of references) or when a call's arguments are checked
// (anyOf). The tools are kept, their arguments checked only as an object,
// and the server checks them itself.
TEST(HostileServerTest, ToolSchemasWithReferenceLoopsAreCheckedOnlyAsObjects) {
  Json extra = Json::array({
      {{"name", "self"}, {"inputSchema", {{"type", "object"}, {"$ref", "#"}}}},
      {{"name", "pair"},
       {"inputSchema",
        {{"definitions",
          {{"a", {{"$ref", "#/definitions/b"}}}, {"b", {{"$ref", "#/definitions/a"}}}}},
         {"$ref", "#/definitions/a"}}}},
      {{"name", "any"},
       {"inputSchema",
        {{"type", "object"},
         {"definitions",
          {{"a", {{"anyOf", Json::array({{{"$ref", "#/definitions/a"}}, {{"type", "string"}}})}}}}},
         {"properties", {{"x", {{"$ref", "#/definitions/a"}}}}}}}},
  });
  ManagerHarness harness;
  auto server = FakeServer("loops", {"--extra-tools", DumpJson(extra)});
  McpSelection selection = harness.Select({"mcp/loops/*"}, {server});
  for (const char* name : {"self", "pair", "any"}) {
    const tools::ToolSpec* spec =
        testing::FindSpec(selection.tools, std::string("mcp/loops/") + name);
    ASSERT_NE(spec, nullptr) << name;
    ASSERT_NE(spec->validator, nullptr) << name;
    EXPECT_TRUE(spec->validator->Validate(Json{{"x", 1}}, spec->model_name).ok()) << name;
    EXPECT_FALSE(spec->validator->Validate(Json::array(), spec->model_name).ok()) << name;
  }
  tools::ToolOutput called = harness.Call(server, "any", {{"x", 1}});
  EXPECT_EQ(called.status, events::ToolStatus::kOk) << called.content;
  EXPECT_EQ(called.content, R"({"x": 1})");
  EXPECT_EQ(harness.manager().Status()[0].state, ServerState::kReady);
}

// Tool names are what rules match: a name a rule could not name exactly
// (here one with a newline, which a "re:" rule's `.` stops at) would slip
// past it. Such tools are left out, each with a notice naming the server
// and the escaped name; the others are offered as usual.
TEST(HostileServerTest, ToolsWhoseNamesRulesCannotMatchAreLeftOut) {
  const std::vector<std::pair<std::string, std::string>> bad = {
      {"delete\nall", "\"delete\\nall\" of server \"names\" is left out: its name has whitespace"},
      {"rm *", "\"rm *\" of server \"names\" is left out: its name has whitespace"},
      {"rm*", "\"rm*\" of server \"names\" is left out: its name has '*'"},
      {"what?", "\"what?\" of server \"names\" is left out: its name has '?'"},
      {"back\\slash", "\"back\\\\slash\" of server \"names\" is left out: its name has '\\'"},
      {"esc\x1b]0;evil\x07",
       "\"esc\\x1B]0;evil\\x07\" of server \"names\" is left out: its "
       "name has a control character"},
      {"rev\u202Eesrever",
       "\"rev\\u202Eesrever\" of server \"names\" is left out: its name "
       "has a bidirectional formatting character"},
      {"zero\u200Bwidth",
       "\"zero\\u200Bwidth\" of server \"names\" is left out: its name has "
       "whitespace or an invisible character"},
  };
  Json extra = Json::array({{{"name", "fine.name-1/ü"}, {"inputSchema", {{"type", "object"}}}}});
  for (const auto& [name, notice] : bad) {
    extra.push_back({{"name", name}, {"inputSchema", {{"type", "object"}}}});
  }
  ManagerHarness harness;
  auto server = FakeServer("names", {"--extra-tools", DumpJson(extra)});
  McpSelection selection = harness.Select({"mcp/names/*"}, {server});
  std::vector<std::string> names = testing::QualifiedNames(selection.tools);
  EXPECT_THAT(names, ::testing::Contains("mcp/names/fine.name-1/ü"));
  EXPECT_THAT(names, ::testing::Contains("mcp/names/echo"));
  for (const auto& [name, notice] : bad) {
    EXPECT_THAT(names, ::testing::Not(::testing::Contains("mcp/names/" + name)));
    EXPECT_THAT(HostileNotices(selection), HasSubstr("MCP tool " + notice)) << name;
  }
  std::vector<McpServerStatus> status = harness.manager().Status();
  ASSERT_EQ(status.size(), 1u);
  EXPECT_EQ(status[0].tools.size(), 18u);  // the fake's 17 and the fine one
  // Patterns that cover none of them: no notice.
  McpSelection echo_only = harness.Select({"mcp/names/echo"}, {server});
  EXPECT_TRUE(echo_only.notices.empty()) << HostileNotices(echo_only);
}

// Records what the peer sends; the test plays the server through the
// callbacks Start received.
class InMemoryTransport : public McpTransport {
 public:
  absl::Status Start(TransportCallbacks callbacks) override {
    callbacks_ = std::move(callbacks);
    return absl::OkStatus();
  }
  absl::Status Send(const Json& message) override {
    absl::MutexLock lock(&mu_);
    sent_.push_back(message);
    return absl::OkStatus();
  }
  void Close() override {}
  std::string Describe() const override { return "memory"; }

  void Receive(const Json& message) { callbacks_.on_message(message); }
  std::vector<Json> sent() const {
    absl::MutexLock lock(&mu_);
    return sent_;
  }

 private:
  TransportCallbacks callbacks_;
  mutable absl::Mutex mu_;
  std::vector<Json> sent_;
};

// A handler that reads a field as the wrong type throws; the peer drops the
// notification and answers the request with -32603, and goes on working.
TEST(HostileServerTest, APeerHandlerThatThrowsNeverEndsTheProcess) {
  InMemoryTransport transport;
  auto misread = [](const Json& params) { return params.value("level", std::string("info")); };
  JsonRpcPeer peer(
      "memory", transport, [&](const Message& message) { misread(message.params); },
      [&](const std::string&, const Json& params) -> std::optional<Json> {
        return Json(misread(params));
      });
  ASSERT_TRUE(transport.Start(peer.Callbacks(nullptr)).ok());

  EXPECT_NO_THROW(transport.Receive(
      {{"jsonrpc", "2.0"}, {"method", "notifications/message"}, {"params", {{"level", 3}}}}));
  EXPECT_NO_THROW(transport.Receive(
      {{"jsonrpc", "2.0"}, {"id", 5}, {"method", "roots/list"}, {"params", {{"level", 3}}}}));
  std::vector<Json> sent = transport.sent();
  ASSERT_EQ(sent.size(), 1u);
  EXPECT_EQ(sent[0]["id"], 5);
  EXPECT_EQ(sent[0]["error"]["code"], -32603);
  EXPECT_THAT(sent[0]["error"]["message"].get<std::string>(),
              HasSubstr("the client could not handle this request"));

  // A ping is still answered.
  transport.Receive({{"jsonrpc", "2.0"}, {"id", 6}, {"method", "ping"}});
  sent = transport.sent();
  ASSERT_EQ(sent.size(), 2u);
  EXPECT_EQ(sent[1], MakeResult(6, Json::object()));
}

// A server sending a flood of messages that cannot be handled (here
// 100,000; a batch line of `[{},{},...]` holds a million) does not write a
// log line for each: the burst, then a summary of what was dropped.
TEST(HostileServerTest, AFloodOfInvalidMessagesIsRateLimitedInTheLog) {
  testing::CapturedLog captured;
  ASSERT_TRUE(captured.ok());
  {
    InMemoryTransport transport;
    JsonRpcPeer peer(
        "flood", transport, [](const Message&) {}, nullptr);
    ASSERT_TRUE(transport.Start(peer.Callbacks(nullptr)).ok());
    for (int i = 0; i < 100000; ++i) transport.Receive(Json::object());
  }
  const std::string log = captured.Stop();
  const int logged = testing::CountLinesWith(log, "ignoring an invalid JSON-RPC message");
  EXPECT_GE(logged, 1);
  EXPECT_LE(logged, 1000);
  EXPECT_THAT(testing::LastLineWith(log, "suppressed"),
              HasSubstr("messages mcp server flood sent that could not be handled"));
}

}  // namespace
}  // namespace raw::mcp
