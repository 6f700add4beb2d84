// The terminal client's session commands end to end: /new, /sessions,
// /resume (with the picker and with an id), /help and /quit.
#include <fstream>
#include <vector>

#include "absl/strings/escaping.h"
#include "clients/present/usage_text.h"
#include "tests/support/test_images.h"
#include "tests/tui/tui_e2e_fixture.h"

namespace raw::tui::testing {
namespace {

namespace chat = raw::testing::chat;

// /image attaches a file to the next message; the daemon gets it with the
// text, and the transcript labels it.
TEST_F(TuiE2eTest, ImageCommandAttachesAnImageToTheNextMessage) {
  StartDaemon();
  const std::string png = raw::test_images::PngBytes(64, 48);
  std::ofstream(daemon_->workdir() + "/shot.png", std::ios::binary) << png;
  std::ofstream(daemon_->workdir() + "/notes.txt") << "text";
  fake_.Enqueue(chat::TextAnswer("A tiny picture."));
  StartRaw("a", {"--cwd", daemon_->workdir()});
  Send("a", "/image " + daemon_->workdir() + "/notes.txt");
  ASSERT_TRUE(tmux_.WaitForText("a", "is not an image Raw can send")) << tmux_.Capture("a");
  Send("a", "/image " + daemon_->workdir() + "/shot.png");
  ASSERT_TRUE(tmux_.WaitForText("a", "Attached [image: PNG, 64x48")) << tmux_.Capture("a");
  Send("a", "what is this?");
  std::string screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("A tiny picture.") != std::string::npos &&
           s.find("[image: PNG, 64x48, ") != std::string::npos;
  });
  ASSERT_NE(screen.find("A tiny picture."), std::string::npos) << screen;
  EXPECT_NE(screen.find("[image: PNG, 64x48, "), std::string::npos) << screen;
  ASSERT_EQ(fake_.requests().size(), 1u);
  absl::StatusOr<Json> body = fake_.requests()[0].BodyJson();
  ASSERT_TRUE(body.ok());
  const Json& content = (*body)["messages"].back()["content"];
  ASSERT_EQ(content.size(), 2u) << body->dump();
  EXPECT_EQ(content[1]["image_url"]["url"], "data:image/png;base64," + absl::Base64Escape(png));

  // Sent once: the next message goes without it.
  fake_.Enqueue(chat::TextAnswer("Plain."));
  Send("a", "and now?");
  ASSERT_TRUE(tmux_.WaitForText("a", "Plain.")) << tmux_.Capture("a");
  ASSERT_EQ(fake_.requests().size(), 2u);
  body = fake_.requests()[1].BodyJson();
  ASSERT_TRUE(body.ok());
  EXPECT_EQ((*body)["messages"].back()["content"], "and now?");
}

TEST_F(TuiE2eTest, SessionCommandsCreateListAndSwitchSessions) {
  StartDaemon();
  fake_.Enqueue(chat::TextAnswer("Hello from the first session."));
  StartRaw("a", {"--cwd", daemon_->workdir()});
  Send("a", "first session message");
  ASSERT_TRUE(tmux_.WaitForText("a", "Hello from the first session.")) << tmux_.Capture("a");

  // /new: an empty session with the same agent.
  Send("a", "/new");
  std::string screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("new session") != std::string::npos &&
           s.find("Hello from the first session.") == std::string::npos &&
           s.find("agent coder") != std::string::npos && s.find("· idle") != std::string::npos;
  });
  EXPECT_EQ(screen.find("Hello from the first session."), std::string::npos) << screen;
  EXPECT_NE(screen.find("agent coder"), std::string::npos) << screen;

  // The sessions in the order the picker lists them; the first has a title.
  std::vector<std::string> ids;
  std::string first, second;
  int first_index = 0;
  {
    grpc::ClientContext ctx;
    raw::v1::ListSessionsResponse response;
    ASSERT_TRUE(daemon_->stub().ListSessions(&ctx, raw::v1::ListSessionsRequest(), &response).ok());
    for (const auto& s : response.sessions()) {
      if (s.title().empty()) {
        second = s.id();
      } else {
        first = s.id();
        first_index = static_cast<int>(ids.size());
      }
      ids.push_back(s.id());
    }
  }
  ASSERT_EQ(ids.size(), 2u);
  ASSERT_FALSE(first.empty());
  ASSERT_FALSE(second.empty());
  // Its whole id: tmux may show a frame it has only partly read.
  screen = tmux_.WaitFor(
      "a", [&second](const std::string& s) { return s.find(second) != std::string::npos; });
  EXPECT_NE(screen.find(second), std::string::npos) << screen;

  // /sessions lists both.
  Send("a", "/sessions");
  // The whole list, not the first capture with its title: tmux may show a
  // frame it has only partly read.
  screen = tmux_.WaitFor("a", [&first, &second](const std::string& s) {
    return s.find("Sessions, most recently active first") != std::string::npos &&
           s.find("  " + first + "  coder") != std::string::npos &&
           s.find("  " + second + "  coder") != std::string::npos &&
           s.find("first session message") != std::string::npos;
  });
  EXPECT_NE(screen.find("  " + first + "  coder"), std::string::npos) << screen;
  EXPECT_NE(screen.find("  " + second + "  coder"), std::string::npos) << screen;
  EXPECT_NE(screen.find("first session message"), std::string::npos) << "its title\n" << screen;

  // /resume without an id: the picker.
  Send("a", "/resume");
  ASSERT_TRUE(tmux_.WaitForText("a", "Resume a session")) << tmux_.Capture("a");
  for (int i = 0; i < first_index; ++i) tmux_.SendKeys("a", {"Down"});
  ASSERT_TRUE(tmux_.WaitForText("a", "› " + present::ShortSessionId(first))) << tmux_.Capture("a");
  tmux_.SendKeys("a", {"Enter"});
  screen = tmux_.WaitFor("a", [&first](const std::string& s) {
    return s.find("Hello from the first session.") != std::string::npos &&
           s.find("› first session message") != std::string::npos &&
           s.find("session " + first) != std::string::npos && s.find("· idle") != std::string::npos;
  });
  EXPECT_NE(screen.find("› first session message"), std::string::npos) << screen;
  EXPECT_NE(screen.find("session " + first), std::string::npos) << screen;

  // /resume ID opens that session directly.
  Send("a", "/resume " + second);
  screen = tmux_.WaitFor("a", [&second](const std::string& s) {
    return s.find("session " + second) != std::string::npos &&
           s.find("Hello from the first session.") == std::string::npos;
  });
  EXPECT_NE(screen.find("session " + second), std::string::npos) << screen;

  // /help lists keys and commands.
  Send("a", "/help");
  // The whole list: its last line is /quit's (typing "/help" alone shows
  // commands in the completion list before Enter is read).
  screen = tmux_.WaitFor("a", [](const std::string& s) {
    return s.find("Ctrl-T") != std::string::npos && s.find("/agent [NAME]") != std::string::npos &&
           s.find("/quit") != std::string::npos &&
           s.find("leave raw (the session stays)") != std::string::npos;
  });
  EXPECT_NE(screen.find("Ctrl-T"), std::string::npos) << screen;
  EXPECT_NE(screen.find("/agent [NAME]"), std::string::npos) << screen;
  EXPECT_NE(screen.find("/quit"), std::string::npos) << screen;

  // /quit leaves, naming the open session.
  Send("a", "/quit");
  EXPECT_EQ(tmux_.WaitForExit("a"), 0) << tmux_.Capture("a");
  EXPECT_TRUE(tmux_.WaitForOutputText("a", "resume it with: raw resume " + second));
}

}  // namespace
}  // namespace raw::tui::testing
