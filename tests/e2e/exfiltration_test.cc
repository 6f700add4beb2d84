// No exfiltration without a question, through a real rawd: web_fetch asks
// unless a url rule allows it, never reaches this machine or its private
// networks unless the agent allows private addresses, and the file tools
// are denied the user's secret stores (HOME is the test daemon's own).
#include <unistd.h>

#include <filesystem>
#include <string>

#include "common/json.h"
#include "daemon/raven/domain.h"
#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::AllOf;
using ::testing::HasSubstr;
using ::testing::Not;

class ExfiltrationTest : public ContractTest {
 protected:
  std::string Home() const {
    return std::filesystem::path(daemon_->workdir()).parent_path().string() + "/home";
  }
};

TEST_F(ExfiltrationTest, WebFetchAsksUnlessAUrlRuleAllowsIt) {
  testing::FakeProviderServer site;
  ASSERT_TRUE(site.status().ok()) << site.status();
  const std::string port = std::to_string(site.port());
  StartDaemon(R"("allow_private_addresses": true,
                 "rules": [{"allow": "builtin/web_fetch", "url": "http://127.0.0.1:*/docs/*"}])");
  testing::ScriptedResponse page;
  page.headers = {{"Content-Type", "text/plain"}};
  page.chunks = {"the docs"};
  site.Enqueue(page);

  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"f1", "web_fetch", R"({"url":"http://127.0.0.1:)" + port + R"(/docs/a"})"},
       {"f2", "web_fetch", R"({"url":"http://127.0.0.1:)" + port + R"(/upload?data=secret"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "fetch");
  auto request = stream.WaitFor(IsApprovalRequest);
  ASSERT_TRUE(request.has_value());
  const auto& calls = request->approval_requested().calls();
  ASSERT_EQ(calls.size(), 2);
  EXPECT_EQ(calls[0].state(), raw::v1::APPROVAL_STATE_ALLOWED);
  EXPECT_THAT(calls[0].reason(), HasSubstr("url \"http://127.0.0.1:*/docs/*\""));
  EXPECT_EQ(calls[1].state(), raw::v1::APPROVAL_STATE_PENDING);
  EXPECT_EQ(calls[1].reason(), "builtin/web_fetch is not read-only; no rule matched for "
                               "http://127.0.0.1:" + port + "/upload?data=secret");
  ASSERT_TRUE(Respond(session, request->approval_requested().request_id(),
                      raw::v1::APPROVAL_DECISION_DENY)
                  .ok());
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK) << results[0].content();
  EXPECT_THAT(results[0].content(), HasSubstr("the docs"));
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  ASSERT_EQ(site.requests().size(), 1u);  // the unasked-for URL never left
  EXPECT_EQ(site.requests()[0].path, "/docs/a");
}

// raven_task reopens the URLs of the Sources it registers: a url rule
// written for web_fetch holds for them, and one "allow for this session"
// adds no rule under which later calls (and their URLs) go unasked. Calls
// that only keep the Task record (start) run unasked.
TEST_F(ExfiltrationTest, RavenSourcesMeetTheUrlRulesAndNoSessionRuleCoversRaven) {
  testing::FakeProviderServer site;
  ASSERT_TRUE(site.status().ok()) << site.status();
  testing::ScriptedResponse page;
  page.headers = {{"Content-Type", "text/html; charset=utf-8"}};
  page.chunks = {"<html><body><p>The reef lost 14 % of its coral cover in 2024.</p></body></html>"};
  site.Enqueue(page);
  const std::string base = "http://127.0.0.1:" + std::to_string(site.port());
  const std::string upload = base + "/upload?d=secret";
  StartDaemon(R"("allow_private_addresses": true,
                 "rules": [{"deny": "builtin/web_fetch", "url": "http://127.0.0.1:*/upload*"}])");
  auto checkpoint = [](const std::string& task, const std::string& url,
                       const std::string& excerpt) {
    return Json{{"action", "checkpoint"},
                {"taskId", task},
                {"stage", "draft"},
                {"summary", "s"},
                {"artifact", "A finding [@src]."},
                {"sources", Json::array({Json{{"sourceId", "src"},
                                              {"url", url},
                                              {"title", "t"},
                                              {"locator", "l"},
                                              {"excerpt", excerpt}}})}}
        .dump();
  };
  std::string session = daemon_->CreateSession();
  const std::string task = raven::MakeTaskId(session, 1);
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"r1", "raven_task", R"({"action":"start","outcome":"research","request":"Reefs"})"},
       {"r2", "raven_task",
        checkpoint(task, upload, "an excerpt long enough to be a real passage")}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "research");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  std::vector<raw::v1::Event> events = stream.TurnEvents(turn);
  EXPECT_FALSE(std::any_of(events.begin(), events.end(), IsApprovalRequest));
  auto results = Results(events);
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK) << results[0].content();
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_DENIED);
  EXPECT_THAT(results[1].content(), HasSubstr("agents.coder.rules[0] (deny builtin/web_fetch url "
                                              "\"http://127.0.0.1:*/upload*\") for " +
                                              upload));
  EXPECT_TRUE(site.requests().empty());

  // A checkpoint citing a page asks, and offers no rule for the session.
  const std::string reef = base + "/reef";
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"r3", "raven_task",
        checkpoint(task, reef, "The reef lost 14 % of its coral cover in 2024.")}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  std::string second = StartTurn(stub(), session, "checkpoint");
  auto request = stream.WaitFor(IsApprovalRequest);
  ASSERT_TRUE(request.has_value());
  ASSERT_EQ(request->approval_requested().calls_size(), 1);
  EXPECT_EQ(request->approval_requested().calls(0).state(), raw::v1::APPROVAL_STATE_PENDING);
  EXPECT_EQ(request->approval_requested().calls(0).session_rules_size(), 0);
  ASSERT_TRUE(Respond(session, request->approval_requested().request_id(),
                      raw::v1::APPROVAL_DECISION_ALLOW_SESSION)
                  .ok());
  ASSERT_TRUE(stream.WaitForTurnEnd(second).has_value());
  results = Results(stream.TurnEvents(second));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_THAT(results[0].content(), HasSubstr("Published Checkpoint"));
  EXPECT_EQ(site.requests().size(), 1u);

  // The next call that reaches the network asks again.
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"r4", "raven_task",
        Json({{"action", "complete"}, {"taskId", task}, {"artifact", "A finding [@src]."}})
            .dump()}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  std::string third = StartTurn(stub(), session, "complete it");
  auto again = stream.WaitFor([](const raw::v1::Event& e) {
    return e.has_approval_requested() && e.approval_requested().calls_size() == 1 &&
           e.approval_requested().calls(0).call_id() == "r4";
  });
  ASSERT_TRUE(again.has_value());
  EXPECT_EQ(again->approval_requested().calls(0).state(), raw::v1::APPROVAL_STATE_PENDING);
  ASSERT_TRUE(
      Respond(session, again->approval_requested().request_id(), raw::v1::APPROVAL_DECISION_DENY)
          .ok());
  ASSERT_TRUE(stream.WaitForTurnEnd(third).has_value());
  EXPECT_EQ(site.requests().size(), 1u);
}

// A Source registered while the rules allowed it is reopened at completion
// only if they still do: a deny url rule added since keeps the request from
// leaving, and the Source is recorded as not checked, naming the rule.
TEST_F(ExfiltrationTest, RavenNeverRequestsAUrlADenyRuleNamesWhenItReopensASource) {
  testing::FakeProviderServer site;
  ASSERT_TRUE(site.status().ok()) << site.status();
  testing::ScriptedResponse page;
  page.headers = {{"Content-Type", "text/html; charset=utf-8"}};
  page.chunks = {"<html><body><p>The reef lost 14 % of its coral cover in 2024.</p></body></html>"};
  site.Enqueue(page);
  const std::string url = "http://127.0.0.1:" + std::to_string(site.port()) + "/reef";
  const std::string agent = R"("approval_mode": "allow_all", "allow_private_addresses": true)";
  StartDaemon(agent);
  std::string session = daemon_->CreateSession();
  std::string task = raven::MakeTaskId(session, 1);
  const Json checkpoint = {
      {"action", "checkpoint"},
      {"taskId", task},
      {"stage", "draft"},
      {"summary", "Finding."},
      {"artifact", "The reef lost coral [@reef]."},
      {"sources",
       Json::array({Json{{"sourceId", "reef"},
                         {"url", url},
                         {"title", "Reef report"},
                         {"locator", "Summary"},
                         {"excerpt", "The reef lost 14 % of its coral cover in 2024."}}})},
      {"claims", Json::array({Json{{"claimId", "c1"},
                                   {"text", "The reef lost coral."},
                                   {"kind", "external"},
                                   {"importance", "material"},
                                   {"disposition", "supported"},
                                   {"sourceIds", Json::array({"reef"})}}})}};
  fake_.Enqueue(chat::ToolCallsAnswer(
      {{"r1", "raven_task", R"({"action":"start","outcome":"research","request":"Reefs"})"},
       {"r2", "raven_task", checkpoint.dump()}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "research");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 2u);
  EXPECT_THAT(results[1].content(), HasSubstr("Published Checkpoint"));
  ASSERT_EQ(site.requests().size(), 1u);

  // The user now denies the site; the daemon reads the config at the turn.
  WriteFile(
      daemon_->config_path(),
      Config(
          agent + R"(, "rules": [{"deny": "builtin/web_fetch", "url": "http://127.0.0.1:*/reef"}])",
          "", R"(["builtin/*"])", ""));
  fake_.Enqueue(chat::ToolCallsAnswer({{"r3", "raven_task",
                                        Json({{"action", "complete"},
                                              {"taskId", task},
                                              {"artifact", "The reef lost coral [@reef]."}})
                                            .dump()}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  std::string second = StartTurn(stub(), session, "complete it");
  ASSERT_TRUE(stream.WaitForTurnEnd(second).has_value());
  results = Results(stream.TurnEvents(second));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_THAT(results[0].content(), HasSubstr("not requested: the agent's rules deny " + url));
  EXPECT_THAT(results[0].content(), HasSubstr("deny builtin/web_fetch url"));
  EXPECT_EQ(site.requests().size(), 1u);  // the reopening never left
}

TEST_F(ExfiltrationTest, WebFetchNeverReachesThisMachineByDefault) {
  testing::FakeProviderServer site;
  ASSERT_TRUE(site.status().ok()) << site.status();
  const std::string port = std::to_string(site.port());
  // A page that redirects to the loopback site: web_fetch names the target
  // and does not follow it; fetching the target is refused like any other.
  testing::ScriptedResponse moved;
  moved.status = 302;
  moved.headers = {{"Location", "http://127.0.0.1:" + port + "/admin"}};
  site.Enqueue(moved);
  StartDaemon(R"("approval_mode": "allow_all")");
  auto results = RunBatch({
      {"f1", "web_fetch", R"({"url":"http://127.0.0.1:)" + port + R"(/admin"})"},
      {"f2", "web_fetch", R"({"url":"http://localhost:)" + port + R"(/admin"})"},
      {"f3", "web_fetch", R"({"url":"http://[::ffff:127.0.0.1]:)" + port + R"(/admin"})"},
      {"f4", "web_fetch", R"({"url":"http://169.254.169.254/latest/meta-data/"})"},
      {"f5", "web_fetch", R"({"url":"http://0.0.0.0:)" + port + R"(/admin"})"},
  });
  ASSERT_EQ(results.size(), 5u);
  for (const auto& result : results) {
    EXPECT_EQ(result.status(), raw::v1::TOOL_RESULT_STATUS_ERROR) << result.content();
    EXPECT_THAT(result.content(),
                AllOf(HasSubstr("was refused: refused to connect to"),
                      HasSubstr("\"allow_private_addresses\": true")));
  }
  EXPECT_THAT(results[0].content(), HasSubstr("at 127.0.0.1 (a loopback address (127.0.0.0/8))"));
  EXPECT_THAT(results[1].content(), HasSubstr("(a loopback address"));
  EXPECT_THAT(results[2].content(), HasSubstr("in IPv4-mapped form"));
  EXPECT_THAT(results[3].content(),
              HasSubstr("at 169.254.169.254 (the link-local cloud metadata address)"));
  EXPECT_THAT(results[4].content(), HasSubstr("(an unspecified address"));
  EXPECT_TRUE(site.requests().empty());
}

TEST_F(ExfiltrationTest, FileToolsAreDeniedSecretStoresEvenUnderAllowAll) {
  StartDaemon(R"("approval_mode": "allow_all",
                 "rules": [{"allow": "builtin/*"}])");
  const std::string home = Home();
  WriteFile(home + "/.ssh/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n");
  WriteFile(home + "/.aws/credentials", "[default]\naws_secret_access_key = AKIAXX\n");
  WriteFile(home + "/notes.txt", "PRIVATE KEY talk\n");
  auto results = RunBatch({
      {"r1", "read_file", R"({"path":")" + home + R"(/.ssh/id_ed25519"})"},
      {"r2", "read_file", R"({"path":")" + home + R"(/.ssh/../.aws/credentials"})"},
      {"w1", "write_file", R"({"path":")" + home + R"(/.ssh/authorized_keys","content":"k"})"},
      {"e1", "edit_file", R"({"path":")" + home +
                              R"(/.aws/credentials","old_string":"AKIAXX","new_string":"x"})"},
      {"l1", "list_dir", R"({"path":")" + home + R"(/.ssh"})"},
      {"g1", "grep", R"({"pattern":"PRIVATE KEY","path":")" + home + R"("})"},
      {"g2", "glob", R"({"pattern":"**/*","path":")" + home + R"("})"},
  });
  ASSERT_EQ(results.size(), 7u);
  for (size_t i = 0; i < 5; ++i) {
    EXPECT_EQ(results[i].status(), raw::v1::TOOL_RESULT_STATUS_DENIED) << results[i].content();
    EXPECT_THAT(results[i].content(), HasSubstr("protected path ~/."));
  }
  EXPECT_THAT(results[0].content(),
              HasSubstr("an agent lifts it with \"allow_protected_paths\": [\"~/.ssh\"]"));
  EXPECT_FALSE(std::filesystem::exists(home + "/.ssh/authorized_keys"));
  // Walks from HOME skip the protected directories.
  EXPECT_THAT(results[5].content(), HasSubstr("notes.txt"));
  EXPECT_THAT(results[5].content(), Not(HasSubstr("id_ed25519")));
  EXPECT_THAT(results[6].content(), Not(HasSubstr("credentials")));
  EXPECT_THAT(results[6].content(), Not(HasSubstr("id_ed25519")));
}

// Rules compare paths, not files: another name (a hard link) of a secret is
// denied like the secret, and left out of walks; so is one that a bash call
// of the same batch makes after the batch was judged.
TEST_F(ExfiltrationTest, HardLinksOfSecretStoresAreDeniedToo) {
  StartDaemon(R"("approval_mode": "allow_all",
                 "rules": [{"allow": "builtin/*"}])");
  const std::string home = Home();
  WriteFile(home + "/.ssh/id_ed25519", "-----BEGIN OPENSSH PRIVATE KEY-----\n");
  WriteFile(home + "/project/plain.txt", "PRIVATE KEY talk\n");
  ASSERT_EQ(link((home + "/.ssh/id_ed25519").c_str(), (home + "/project/notes.txt").c_str()), 0);
  auto results = RunBatch({
      {"r1", "read_file", R"({"path":")" + home + R"(/project/notes.txt"})"},
      {"g1", "grep", R"({"pattern":"PRIVATE KEY","path":")" + home + R"(/project"})"},
      {"b1", "bash",
       R"({"command":"ln )" + home + "/.ssh/id_ed25519 " + home + R"(/project/later.txt"})"},
      {"r2", "read_file", R"({"path":")" + home + R"(/project/later.txt"})"},
  });
  ASSERT_EQ(results.size(), 4u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_DENIED) << results[0].content();
  EXPECT_THAT(results[0].content(),
              AllOf(HasSubstr("protected path ~/.ssh; an agent lifts it with"),
                    HasSubstr("a hard link of " + home + "/.ssh/id_ed25519")));
  EXPECT_THAT(results[1].content(), HasSubstr("plain.txt"));
  EXPECT_THAT(results[1].content(), Not(HasSubstr("notes.txt")));
  EXPECT_EQ(results[2].status(), raw::v1::TOOL_RESULT_STATUS_OK) << results[2].content();
  ASSERT_TRUE(std::filesystem::exists(home + "/project/later.txt"));
  EXPECT_NE(results[3].status(), raw::v1::TOOL_RESULT_STATUS_OK) << results[3].content();
  EXPECT_THAT(results[3].content(), HasSubstr("a hard link of " + home + "/.ssh/id_ed25519"));
  EXPECT_THAT(results[3].content(), Not(HasSubstr("OPENSSH")));
}

TEST_F(ExfiltrationTest, AnAgentLiftsAProtectedPathOnlyByNamingIt) {
  StartDaemon(R"("approval_mode": "allow_all", "allow_protected_paths": ["~/.kube/config"])");
  const std::string home = Home();
  WriteFile(home + "/.kube/config", "clusters: []\n");
  WriteFile(home + "/.ssh/id_ed25519", "key\n");
  auto results = RunBatch({
      {"r1", "read_file", R"({"path":")" + home + R"(/.kube/config"})"},
      {"r2", "read_file", R"({"path":")" + home + R"(/.ssh/id_ed25519"})"},
  });
  ASSERT_EQ(results.size(), 2u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_OK) << results[0].content();
  EXPECT_THAT(results[0].content(), HasSubstr("clusters"));
  EXPECT_EQ(results[1].status(), raw::v1::TOOL_RESULT_STATUS_DENIED) << results[1].content();
}

}  // namespace
}  // namespace raw::e2e
