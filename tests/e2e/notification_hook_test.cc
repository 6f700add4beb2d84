// Notification hooks and the order of hook and rule decisions, end to end:
// a real rawd runs the agent's notification hook when a call waits for
// approval and when a turn shows a warning, with the stdin document
// docs/hooks.md describes; and a deny rule wins over a pre_tool_use hook
// that allows.
#include <filesystem>
#include <sstream>
#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "common/json.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

// A hook that appends its stdin document (one line) to `log`.
std::string NotificationRecorder(const std::string& log) {
  return absl::StrCat("tr -d '\\n' >> ", log, "; echo >> ", log);
}

std::string HookEntry(const std::string& event, const std::string& script,
                      const std::string& extra = "") {
  return absl::StrCat(R"({"event": ")", event, R"(", "command": [")", script, R"("])",
                      extra.empty() ? "" : ", ", extra, "}");
}

// The documents recorded in `log`, one per line.
std::vector<Json> Documents(const std::string& text) {
  std::vector<Json> docs;
  std::istringstream lines(text);
  for (std::string line; std::getline(lines, line);) {
    absl::StatusOr<Json> doc = ParseJson(line);
    EXPECT_TRUE(doc.ok()) << line;
    if (doc.ok()) docs.push_back(*doc);
  }
  return docs;
}

TEST_F(ContractTest, NotificationHookRunsWhenACallWaitsForApproval) {
  std::string log = scratch_ + "/notifications.log";
  std::string rec = Script("record.sh", NotificationRecorder(log));
  StartDaemon(R"("hooks": ["note"])",
              absl::StrCat(R"("hooks": {"note": )", HookEntry("notification", rec), "}"));
  std::string session = daemon_->CreateSession();
  // write_file asks by default; read_file does not.
  WriteFile(daemon_->workdir() + "/r.txt", "read me");
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "read_file", R"({"path":"r.txt"})"},
                                       {"c2", "write_file", R"({"path":"w.txt","content":"1"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "write it");

  auto request = stream.WaitFor([](const raw::v1::Event& e) { return e.has_approval_requested(); });
  ASSERT_TRUE(request.has_value());
  // The hook runs after the request is recorded, in line with the turn,
  // before the turn waits for the answer; an answer given meanwhile counts.
  // Once the turn has ended, the hook has run.
  ASSERT_TRUE(Respond(session, request->approval_requested().request_id(),
                      raw::v1::APPROVAL_DECISION_ALLOW_ONCE)
                  .ok());
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());

  std::vector<Json> docs = Documents(ReadFile(log));
  ASSERT_EQ(docs.size(), 1u) << ReadFile(log);
  const Json& doc = docs[0];
  EXPECT_EQ(doc["event"], "notification");
  EXPECT_EQ(doc["hook"], "note");
  EXPECT_EQ(doc["session_id"], session);
  EXPECT_EQ(doc["cwd"], daemon_->workdir());
  EXPECT_EQ(doc["level"], "info");
  // One of the two calls waits: the allowed read_file is not counted.
  EXPECT_EQ(doc["message"], "Raw is waiting for approval of 1 tool call");
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_EQ(ReadFile(daemon_->workdir() + "/w.txt"), "1");

  // A turn that needs no approval and shows no warning notifies nothing.
  fake_.Enqueue(chat::TextAnswer("plain"));
  std::string quiet = StartTurn(stub(), session, "just talk");
  ASSERT_TRUE(stream.WaitForTurnEnd(quiet).has_value());
  EXPECT_EQ(Documents(ReadFile(log)).size(), 1u);
}

TEST_F(ContractTest, NotificationHookHearsATurnsWarnings) {
  std::string log = scratch_ + "/notifications.log";
  std::string rec = Script("record.sh", NotificationRecorder(log));
  StartDaemon(R"("hooks": ["note"])",
              absl::StrCat(R"("hooks": {"note": )", HookEntry("notification", rec), "}"));
  std::string session = daemon_->CreateSession();
  // The answer stops at the model's output limit.
  fake_.Enqueue(chat::Stream({chat::RoleChunk(), chat::TextChunk("a long ans"),
                              chat::FinishChunk("length"), chat::UsageChunk(10, 4),
                              chat::Done()}));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "explain everything");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());

  std::vector<Json> docs = Documents(ReadFile(log));
  ASSERT_EQ(docs.size(), 1u) << ReadFile(log);
  EXPECT_EQ(docs[0]["event"], "notification");
  EXPECT_EQ(docs[0]["session_id"], session);
  EXPECT_EQ(docs[0]["cwd"], daemon_->workdir());
  EXPECT_EQ(docs[0]["level"], "warning");
  EXPECT_EQ(docs[0]["message"], "The answer was cut off at the model's output limit.");
}

TEST_F(ContractTest, DenyRuleWinsOverAPreToolUseHookThatAllows) {
  std::string log = scratch_ + "/pre.log";
  std::string allow =
      Script("allow.sh", absl::StrCat(NotificationRecorder(log),
                                      "\necho '{\"decision\": \"allow\", \"reason\": "
                                      "\"hook says fine\"}'"));
  StartDaemon(R"("rules": [{"deny": "builtin/bash", "command": "rm *"}], "hooks": ["allow"])",
              absl::StrCat(R"("hooks": {"allow": )",
                           HookEntry("pre_tool_use", allow, R"("matcher": "builtin/bash")"), "}"));
  WriteFile(daemon_->workdir() + "/f1", "keep me");
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"c1", "bash", R"({"command":"rm f1"})"},
                                       {"c2", "bash", R"({"command":"echo kept"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "clean up");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());

  // The hook was asked about both calls and allowed both.
  std::vector<Json> docs = Documents(ReadFile(log));
  ASSERT_EQ(docs.size(), 2u) << ReadFile(log);
  EXPECT_EQ(docs[0]["tool_input"]["command"], "rm f1");
  EXPECT_EQ(docs[1]["tool_input"]["command"], "echo kept");

  auto events = stream.TurnEvents(turn);
  // Nobody is asked: the rule denies one call, the hook allows the other
  // (bash would ask without it).
  EXPECT_FALSE(Has(events, raw::v1::Event::kApprovalRequested));
  auto results = Results(events);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  EXPECT_THAT(results[0].content(), HasSubstr("deny builtin/bash command \"rm *\""));
  EXPECT_THAT(results[0].content(), ::testing::Not(HasSubstr("hook says fine")));
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_OK);
  EXPECT_THAT(results[1].content(), HasSubstr("kept"));
  EXPECT_EQ(ReadFile(daemon_->workdir() + "/f1"), "keep me");
  // The model reads the rule's denial.
  EXPECT_THAT(fake_.requests().back().body, HasSubstr("deny builtin/bash command"));
}

}  // namespace
}  // namespace raw::e2e
