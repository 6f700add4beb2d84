// session/cancel while rawd still prepares the turn (here: the agent's
// model needs a variable whose command takes 5 s): the interrupt reaches
// rawd at once, the turn never starts, and the prompt answers `cancelled`.
#include "absl/strings/str_replace.h"
#include "tests/e2e/acp/acp_fixture.h"

namespace raw::e2e {
namespace {

// kAcpConfig with a model whose header comes from that slow variable, and
// the default agent on it.
class AcpSlowPreparationTest : public AcpTest {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fake_.status().ok()) << fake_.status();
    std::string config = absl::StrReplaceAll(
        kAcpConfig,
        {{"${BASE_URL}", fake_.base_url()},
         {R"("default_agent": "coder",)",
          R"("default_agent": "slow",
             "variables": {"SLOW_KEY": {"command": ["sh", "-c", "sleep 5; echo k"]}},)"},
         {R"("agents": {)",
          R"("agents": {
             "slow": {"model": "slowkey", "system_prompt": "Your key is slow.", "max_steps": 2},)"},
         {R"("models": {)", absl::StrCat(R"("models": {
             "slowkey": {"provider": "openai", "method": "openai-chat-completions",
                         "model_id": "gpt-test", "base_url": ")",
                                         fake_.base_url(), R"(", "api_key_env": "RAW_TEST_KEY",
                         "headers": {"X-Slow": "${SLOW_KEY}"}},)")}});
    daemon_ = std::make_unique<TestDaemon>(config);
    absl::Status s = daemon_->Start();
    ASSERT_TRUE(s.ok()) << s;
  }
};

TEST_F(AcpSlowPreparationTest, CancelDuringTheTurnsPreparationEndsItBeforeItStarts) {
  Json r = Drive("stdio_driver.mjs", "cancel_preparing");
  EXPECT_EQ(r["response"]["stopReason"], "cancelled") << r.dump();
  // Not after the variable's 5 s.
  EXPECT_LT(r["ms"].get<int>(), 3000) << r.dump();
  EXPECT_TRUE(fake_.requests().empty());
  for (const raw::v1::Event& e : History(r["sessionId"])) {
    EXPECT_FALSE(e.has_turn_started()) << e.DebugString();
  }
}

}  // namespace
}  // namespace raw::e2e
