// web_fetch through a real rawd against a site whose redirect carries
// credentials: neither the result the clients see nor the next request to
// the model repeats them.
#include <string>

#include "gmock/gmock.h"
#include "tests/e2e/contract_fixture.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;
using ::testing::Not;

TEST_F(ContractTest, WebFetchRedirectDropsTheTargetsCredentials) {
  StartDaemon(R"("approval_mode": "allow_all", "allow_private_addresses": true)");
  testing::FakeProviderServer site;
  ASSERT_TRUE(site.status().ok()) << site.status();
  const std::string base = "http://127.0.0.1:" + std::to_string(site.port());
  testing::ScriptedResponse moved;
  moved.status = 302;
  moved.headers = {{"Content-Type", "text/plain"},
                   {"Location", "http://deploy:tok-7f3a9c@127.0.0.1:" +
                                    std::to_string(site.port()) + "/private"}};
  site.Enqueue(moved);

  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::ToolCallsAnswer({{"f1", "web_fetch", R"({"url":")" + base + R"(/old"})"}}));
  fake_.Enqueue(chat::TextAnswer("done"));
  EventStream stream(stub(), session);
  std::string turn = StartTurn(stub(), session, "fetch it");
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());

  auto results = Results(stream.TurnEvents(turn));
  ASSERT_EQ(results.size(), 1u);
  EXPECT_EQ(results[0].status(), raw::v1::TOOL_RESULT_STATUS_ERROR);
  EXPECT_THAT(results[0].content(), HasSubstr("redirect from " + base + "/old to " + base +
                                              "/private (the redirect carried credentials"));
  EXPECT_THAT(results[0].content(), Not(HasSubstr("tok-7f3a9c")));
  EXPECT_THAT(results[0].content(), Not(HasSubstr("deploy")));
  EXPECT_EQ(site.requests().size(), 1u);  // the redirect was not followed

  const std::string sent = fake_.requests().back().body;
  EXPECT_THAT(sent, HasSubstr("/private (the redirect carried credentials"));
  EXPECT_THAT(sent, Not(HasSubstr("tok-7f3a9c")));
  EXPECT_THAT(sent, Not(HasSubstr("deploy")));
}

}  // namespace
}  // namespace raw::e2e
