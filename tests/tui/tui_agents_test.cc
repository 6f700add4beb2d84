// The terminal client end to end with two agents in the daemon's config:
// `raw --agent NAME`, and /agent listing the agents, completing their names
// and starting a new session with the one picked.
#include "absl/strings/str_split.h"
#include "tests/tui/tui_e2e_fixture.h"

namespace raw::tui::testing {
namespace {

namespace chat = raw::testing::chat;

// The first line of `screen` that contains `text` ("" when none).
std::string LineWith(const std::string& screen, const std::string& text) {
  for (absl::string_view line : absl::StrSplit(screen, '\n')) {
    if (line.find(text) != absl::string_view::npos) return std::string(line);
  }
  return "";
}

TEST_F(TuiE2eTest, AgentCommandListsTheAgentsAndStartsASessionWithThePickedOne) {
  StartDaemon();
  StartRaw("a", {"--cwd", daemon_->workdir()});
  std::string screen = tmux_.WaitFor(
      "a", [](const std::string& s) { return s.find("coder · gpt-test") != std::string::npos; });
  EXPECT_NE(screen.find("coder · gpt-test"), std::string::npos) << screen;

  // Completion: the popup lists the matching agents, Tab completes the name.
  tmux_.SendText("a", "/agent r");
  // The popup for the whole text typed, not one for "/agent " alone (which
  // lists coder too).
  screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("reviewer  model fake") != std::string::npos &&
           s.find("› /agent r\n") != std::string::npos;
  });
  EXPECT_NE(screen.find("reviewer  model fake"), std::string::npos) << screen;
  EXPECT_EQ(screen.find("coder  model fake"), std::string::npos) << "coder does not match r";
  tmux_.SendKeys("a", {"Tab"});
  ASSERT_TRUE(tmux_.WaitForText("a", "› /agent reviewer")) << tmux_.Capture("a");
  tmux_.SendKeys("a", {"C-u"});

  // /agent alone: the list, with the default and the current agent marked.
  Send("a", "/agent");
  screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("Start a new session with an agent") != std::string::npos &&
           LineWith(s, "coder ").find("tools builtin/*") != std::string::npos &&
           LineWith(s, "reviewer ").find("tools builtin/read_file") != std::string::npos;
  });
  std::string coder = LineWith(screen, "coder ");
  std::string reviewer = LineWith(screen, "reviewer ");
  EXPECT_NE(coder.find("› coder"), std::string::npos) << "the current agent is selected\n" << screen;
  EXPECT_NE(coder.find("default · current"), std::string::npos) << screen;
  EXPECT_NE(coder.find("tools builtin/*"), std::string::npos) << screen;
  EXPECT_EQ(reviewer.find("default"), std::string::npos) << screen;
  EXPECT_EQ(reviewer.find("current"), std::string::npos) << screen;
  EXPECT_NE(reviewer.find("model fake"), std::string::npos) << screen;
  EXPECT_NE(reviewer.find("tools builtin/read_file"), std::string::npos) << screen;

  // Picking one opens a new session with that agent.
  tmux_.SendKeys("a", {"Down"});
  ASSERT_TRUE(tmux_.WaitForText("a", "› reviewer")) << tmux_.Capture("a");
  tmux_.SendKeys("a", {"Enter"});
  screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("agent reviewer, model fake") != std::string::npos &&
           s.find("reviewer · gpt-test") != std::string::npos &&
           s.find("· idle") != std::string::npos;
  });
  EXPECT_NE(screen.find("agent reviewer, model fake"), std::string::npos) << screen;
  EXPECT_NE(screen.find("reviewer · gpt-test"), std::string::npos) << screen;
  fake_.Enqueue(chat::TextAnswer("Looks fine to me."));
  Send("a", "review this");
  ASSERT_TRUE(tmux_.WaitForText("a", "Looks fine to me.")) << tmux_.Capture("a");
  ASSERT_EQ(fake_.requests().size(), 1u);
  EXPECT_NE(fake_.requests()[0].body.find("You are the reviewer."), std::string::npos);

  // The list now marks the reviewer as current; Esc leaves it unchanged.
  // The whole list, not the first capture with its title: tmux may show a
  // frame it has only partly read.
  Send("a", "/agent");
  screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("Start a new session with an agent") != std::string::npos &&
           LineWith(s, "› reviewer").find("current") != std::string::npos &&
           LineWith(s, "coder ").find("default") != std::string::npos;
  });
  EXPECT_NE(LineWith(screen, "› reviewer").find("current"), std::string::npos) << screen;
  EXPECT_EQ(LineWith(screen, "coder ").find("current"), std::string::npos) << screen;
  EXPECT_NE(LineWith(screen, "coder ").find("default"), std::string::npos) << screen;
  tmux_.SendKeys("a", {"Escape"});
  // The whole frame, not the first capture without the list's title: tmux
  // may show a frame it has only partly read.
  screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("Start a new session with an agent") == std::string::npos &&
           s.find("Looks fine to me.") != std::string::npos;
  });
  EXPECT_NE(screen.find("Looks fine to me."), std::string::npos) << screen;
  EXPECT_NE(screen.find("reviewer · gpt-test"), std::string::npos) << screen;

  // /agent NAME goes straight to a session with NAME; an unknown one is an error.
  Send("a", "/agent nobody");
  EXPECT_TRUE(tmux_.WaitForText("a", "Cannot create a session")) << tmux_.Capture("a");
  Send("a", "/agent coder");
  EXPECT_TRUE(tmux_.WaitForText("a", "agent coder, model fake")) << tmux_.Capture("a");
}

TEST_F(TuiE2eTest, NoArgumentsOpensTheDefaultAgentAndAgentOptionAnother) {
  StartDaemon();
  StartRaw("a", {"--agent", "reviewer", "--cwd", daemon_->workdir()});
  // The whole first screen, not the first capture with the footer's state:
  // tmux may show a frame it has only partly read.
  std::string screen = tmux_.WaitFor("a", [this](const std::string& s) {
    return s.find("agent reviewer, model fake") != std::string::npos &&
           s.find("reviewer · gpt-test") != std::string::npos &&
           s.find(daemon_->workdir()) != std::string::npos;
  });
  EXPECT_NE(screen.find("agent reviewer, model fake"), std::string::npos) << screen;
  EXPECT_NE(screen.find("reviewer · gpt-test"), std::string::npos) << screen;
  EXPECT_NE(screen.find(daemon_->workdir()), std::string::npos) << "--cwd: " << screen;
  // Without arguments: a new session with the default agent.
  StartRaw("b", {});
  screen = tmux_.WaitFor("b", [](const std::string& s) {
    return s.find("new session") != std::string::npos &&
           s.find("agent coder, model fake") != std::string::npos &&
           s.find("coder · gpt-test") != std::string::npos;
  });
  EXPECT_NE(screen.find("new session"), std::string::npos) << screen;
  EXPECT_NE(screen.find("agent coder, model fake"), std::string::npos) << screen;
  EXPECT_NE(screen.find("coder · gpt-test"), std::string::npos) << screen;
}

}  // namespace
}  // namespace raw::tui::testing
