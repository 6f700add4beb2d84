// Prompts with images through a dashboard tab's WebSocket: the gateway
// decodes the page's base64 into StartTurnRequest.images, refuses what it
// cannot decode before anything starts, and takes a message as large as a
// prompt with the most images rawd allows.
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "tests/e2e/dashboard/dashboard_fixture.h"
#include "tests/support/test_images.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using ::testing::HasSubstr;

class DashboardImagesTest : public DashboardTest {
 protected:
  std::string ModelExtra() const override { return R"("images": true)"; }

  // A tab holding the lease of a new session.
  std::unique_ptr<web::testing::WsTestClient> WritingTab() {
    auto ws = OpenLive(CreateSessionOverHttp());
    if (ws == nullptr) return nullptr;
    Json acquired = Command(*ws, "acquire_lease");
    EXPECT_EQ(acquired["ok"], true) << acquired.dump();
    return ws;
  }

  // Reads up to the turn's end; how many turns started on the way.
  int TurnsStartedUntilTheEnd(web::testing::WsTestClient& ws) {
    int started = 0;
    ReadUntil(ws, [&](const Json& f) {
      if (IsEvent(f, "turnStarted")) ++started;
      return IsEvent(f, "turnEnded");
    });
    return started;
  }
};

Json Image(const std::string& mime_type, const std::string& data) {
  return Json{{"mimeType", mime_type}, {"data", data}};
}

TEST_F(DashboardImagesTest, ABadImageIsAClearErrorAndStartsNoTurn) {
  auto ws = WritingTab();
  ASSERT_NE(ws, nullptr);
  const std::string png = absl::Base64Escape(test_images::PngBytes(2, 3));
  Json bad =
      Command(*ws, "prompt",
              {{"text", "look"},
               {"images",
                Json::array({Image("image/png", png), Image("image/png", "%%% not base64 %%%")})}});
  EXPECT_EQ(bad["ok"], false);
  EXPECT_EQ(bad["error"]["code"], "INVALID_ARGUMENT");
  EXPECT_THAT(bad["error"]["message"].get<std::string>(),
              HasSubstr("images[1].data is not an image in base64"));
  Json empty =
      Command(*ws, "prompt", {{"text", "look"}, {"images", Json::array({Image("image/png", "")})}});
  EXPECT_THAT(empty["error"]["message"].get<std::string>(), HasSubstr("images[0].data"));
  Json not_array = Command(*ws, "prompt", {{"text", "look"}, {"images", png}});
  EXPECT_THAT(not_array["error"]["message"].get<std::string>(),
              HasSubstr("\"images\" must be an array"));
  Json not_object = Command(*ws, "prompt", {{"text", "look"}, {"images", Json::array({png})}});
  EXPECT_THAT(not_object["error"]["message"].get<std::string>(),
              HasSubstr("images[0] must be an object"));
  Json bad_type =
      Command(*ws, "prompt",
              {{"text", "look"}, {"images", Json::array({{{"mimeType", 5}, {"data", png}}})}});
  EXPECT_THAT(bad_type["error"]["message"].get<std::string>(),
              HasSubstr("images[0]: \"mimeType\" must be a string"));
  Json bad_name =
      Command(*ws, "prompt",
              {{"text", "look"},
               {"images", Json::array({{{"mimeType", "image/png"}, {"data", png}, {"name", 7}}})}});
  EXPECT_THAT(bad_name["error"]["message"].get<std::string>(),
              HasSubstr("images[0].name must be a string"));
  // Bytes that decode but are no image are rawd's to refuse.
  Json not_image =
      Command(*ws, "prompt",
              {{"text", "look"},
               {"images", Json::array({Image("image/png", absl::Base64Escape("plain text"))})}});
  EXPECT_EQ(not_image["error"]["code"], "INVALID_ARGUMENT");
  EXPECT_THAT(not_image["error"]["message"].get<std::string>(),
              HasSubstr("image 1 is not an image"));

  // None of them started a turn: the next prompt's turn is the first, and
  // the model is asked once.
  fake_.Enqueue(chat::TextAnswer("Two by three."));
  Json named = Image("image/png", png);
  named["name"] = "shot.png";
  Json started =
      Command(*ws, "prompt", {{"text", "look"}, {"images", Json::array({std::move(named)})}});
  ASSERT_EQ(started["ok"], true) << started.dump();
  // The image keeps its name in the session's events.
  int started_turns = 0;
  bool was_named = false;
  ReadUntil(*ws, [&](const Json& f) {
    if (IsEvent(f, "turnStarted")) ++started_turns;
    if (IsEvent(f, "userMessage")) {
      was_named = f.dump().find("\"name\":\"shot.png\"") != std::string::npos;
    }
    return IsEvent(f, "turnEnded");
  });
  EXPECT_EQ(started_turns, 1);
  EXPECT_TRUE(was_named);
  ASSERT_EQ(fake_.requests().size(), 1u);
  EXPECT_THAT(fake_.requests()[0].body, HasSubstr(absl::StrCat("data:image/png;base64,", png)));
}

// 10 images of 1 MiB, the most rawd takes, without text: 13.4 MiB of JSON,
// over LocalServer's default 4 MiB message cap and under the dashboard's
// 16 MiB. A larger message closes the socket (1009) before any of it is
// read as a command.
TEST_F(DashboardImagesTest, TheLargestPromptFitsAndALargerMessageClosesTheSocket) {
  auto ws = WritingTab();
  ASSERT_NE(ws, nullptr);
  const std::string png = test_images::PngBytes(1, 1, 1024 * 1024 - 33);
  ASSERT_EQ(png.size(), 1024u * 1024u);
  Json images = Json::array();
  for (int i = 0; i < 10; ++i) images.push_back(Image("image/png", absl::Base64Escape(png)));
  fake_.Enqueue(chat::TextAnswer("Ten pictures."));
  Json started = Command(*ws, "prompt", {{"text", ""}, {"images", images}});
  ASSERT_EQ(started["ok"], true) << started["error"].dump();
  Json user = ReadUntil(*ws, [](const Json& f) { return IsEvent(f, "userMessage"); });
  EXPECT_EQ(user["event"]["userMessage"]["images"].size(), 10u);
  ReadUntil(*ws, [](const Json& f) { return IsEvent(f, "turnEnded"); });
  ASSERT_EQ(fake_.requests().size(), 1u);

  Json huge = {{"id", 99}, {"op", "prompt"}, {"text", std::string(17 * 1024 * 1024, 'x')}};
  (void)ws->SendText(huge.dump());  // the server may stop reading part-way
  absl::StatusOr<std::string> next = ws->Read();
  while (next.ok()) next = ws->Read();  // frames sent before the close
  EXPECT_EQ(ws->close_code(), 1009);
  EXPECT_EQ(fake_.requests().size(), 1u);
}

}  // namespace
}  // namespace raw::e2e
