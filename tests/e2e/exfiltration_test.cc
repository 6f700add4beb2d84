// No exfiltration without a question, through a real rawd: web_fetch asks
// unless a url rule allows it, never reaches this machine or its private
// networks unless the agent allows private addresses, and the file tools
// are denied the user's secret stores (HOME is the test daemon's own).
#include <filesystem>
#include <string>

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
