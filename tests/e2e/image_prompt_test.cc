// Prompts with images end to end: real rawd, real gRPC, real libcurl against
// the fake provider, real SQLite. What reaches the provider, what the
// display history keeps, and what is refused before anything is recorded.
#include <algorithm>
#include <fstream>

#include "absl/strings/escaping.h"
#include "absl/strings/str_replace.h"
#include "gmock/gmock.h"
#include "tests/e2e/e2e_fixture.h"
#include "tests/support/test_images.h"

namespace raw::e2e {
namespace {

namespace chat = testing::chat;
using raw::test_images::GifBytes;
using raw::test_images::PngBytes;
using ::testing::HasSubstr;

// The test config with `"images": true` on the model, or as it is; /compact
// summarizes every turn.
std::string ImageConfig(const std::string& base_url, bool images) {
  std::string config = absl::StrReplaceAll(
      TestConfig(base_url),
      {{R"("model": "fake",)", R"("model": "fake", "compact": {"keep_recent_turns": 0},)"}});
  if (images) {
    config = absl::StrReplaceAll(
        config, {{R"("model_id": "gpt-test",)", R"("model_id": "gpt-test", "images": true,)"}});
  }
  return config;
}

class ImagePromptTest : public ::testing::Test {
 protected:
  void Start(bool images) {
    ASSERT_TRUE(fake_.status().ok()) << fake_.status();
    daemon_ = std::make_unique<TestDaemon>(ImageConfig(fake_.base_url(), images));
    ASSERT_TRUE(daemon_->Start().ok());
  }

  grpc::Status Prompt(const std::string& session, const std::string& text,
                      const std::vector<std::pair<std::string, std::string>>& images,
                      std::string* turn_id = nullptr) {
    raw::v1::StartTurnRequest request;
    request.set_session_id(session);
    request.set_text(text);
    request.set_lease_id(LeaseFor(daemon_->stub(), session));
    for (const auto& [mime, bytes] : images) {
      raw::v1::Image* image = request.add_images();
      image->set_mime_type(mime);
      image->set_data(bytes);
    }
    grpc::ClientContext ctx;
    raw::v1::StartTurnResponse response;
    grpc::Status status = daemon_->stub().StartTurn(&ctx, request, &response);
    if (turn_id != nullptr) *turn_id = response.turn_id();
    return status;
  }

  std::vector<raw::v1::Event> History(const std::string& session) {
    grpc::ClientContext ctx;
    raw::v1::GetHistoryRequest request;
    request.set_session_id(session);
    request.set_limit(1000);
    raw::v1::GetHistoryResponse response;
    EXPECT_TRUE(daemon_->stub().GetHistory(&ctx, request, &response).ok());
    return {response.events().begin(), response.events().end()};
  }

  // The user messages of request `i` to the fake provider.
  std::vector<Json> UserMessages(size_t i) {
    absl::StatusOr<Json> body = fake_.requests().at(i).BodyJson();
    EXPECT_TRUE(body.ok());
    std::vector<Json> out;
    for (const Json& m : (*body)["messages"]) {
      if (m["role"] == "user") out.push_back(m);
    }
    return out;
  }

  testing::FakeProviderServer fake_;
  std::unique_ptr<TestDaemon> daemon_;
};

TEST_F(ImagePromptTest, ImagesReachTheModelAndStayInTheSessionAcrossARestart) {
  Start(/*images=*/true);
  const std::string png = PngBytes(640, 480);
  const std::string gif = GifBytes(16, 16);
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::TextAnswer("A chart and an icon."));
  std::string turn;
  {
    EventStream stream(daemon_->stub(), session);
    ASSERT_TRUE(Prompt(session, "what are these?", {{"image/png", png}, {"", gif}}, &turn).ok());
    ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
    // Subscribers get the images with the user message.
    std::vector<raw::v1::Event> events = stream.TurnEvents(turn);
    auto user = std::find_if(events.begin(), events.end(),
                             [](const raw::v1::Event& e) { return e.has_user_message(); });
    ASSERT_NE(user, events.end());
    ASSERT_EQ(user->user_message().images_size(), 2);
    EXPECT_EQ(user->user_message().images(0).data(), png);
    EXPECT_EQ(user->user_message().images(0).width(), 640);
    EXPECT_EQ(user->user_message().images(1).mime_type(), "image/gif");
  }
  const Json expected = Json::parse(absl::StrCat(
      R"({"role":"user","content":[{"type":"text","text":"what are these?"},)",
      R"({"type":"image_url","image_url":{"url":"data:image/png;base64,)", absl::Base64Escape(png),
      R"("}},{"type":"image_url","image_url":{"url":"data:image/gif;base64,)",
      absl::Base64Escape(gif), R"("}}]})"));
  ASSERT_EQ(fake_.requests().size(), 1u);
  EXPECT_EQ(UserMessages(0).back(), expected);

  // The model context is read back from the store after a restart: the
  // next request carries the images again, byte for byte.
  ASSERT_EQ(daemon_->Stop(), 0);
  ASSERT_TRUE(daemon_->Start().ok());
  fake_.Enqueue(chat::TextAnswer("Yes."));
  {
    EventStream stream(daemon_->stub(), session);
    ASSERT_TRUE(Prompt(session, "sure?", {}, &turn).ok());
    ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  }
  ASSERT_EQ(fake_.requests().size(), 2u);
  std::vector<Json> users = UserMessages(1);
  ASSERT_EQ(users.size(), 2u);
  EXPECT_EQ(users[0], expected);
  EXPECT_EQ(users[1]["content"], "sure?");

  // The display history keeps them too (what raw, the dashboard and an
  // editor replay).
  int with_images = 0;
  for (const raw::v1::Event& e : History(session)) {
    if (e.has_user_message() && e.user_message().images_size() == 2) {
      ++with_images;
      EXPECT_EQ(e.user_message().images(1).data(), gif);
    }
  }
  EXPECT_EQ(with_images, 1);
}

TEST_F(ImagePromptTest, ImagesAloneMakeAPrompt) {
  Start(/*images=*/true);
  std::string session = daemon_->CreateSession();
  fake_.Enqueue(chat::TextAnswer("A square."));
  EventStream stream(daemon_->stub(), session);
  std::string turn;
  ASSERT_TRUE(Prompt(session, " ", {{"", PngBytes(8, 8)}}, &turn).ok());
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  const Json content = UserMessages(0).back()["content"];
  ASSERT_EQ(content.size(), 1u);
  EXPECT_EQ(content[0]["type"], "image_url");
  // The session is named for what it has.
  grpc::ClientContext ctx;
  raw::v1::GetSessionRequest get;
  get.set_session_id(session);
  raw::v1::GetSessionResponse got;
  ASSERT_TRUE(daemon_->stub().GetSession(&ctx, get, &got).ok());
  EXPECT_EQ(got.session().title(), "(image)");
}

// Each refusal comes before anything is recorded or sent.
TEST_F(ImagePromptTest, RefusedImagesLeaveNoTrace) {
  Start(/*images=*/true);
  std::string session = daemon_->CreateSession();
  grpc::Status svg = Prompt(session, "look", {{"image/svg+xml", "<svg onload=\"x()\"/>"}});
  EXPECT_EQ(svg.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(svg.error_message(), HasSubstr("image 1 is not an image Raw can send"));
  grpc::Status mislabelled = Prompt(session, "look", {{"image/jpeg", PngBytes(1, 1)}});
  EXPECT_EQ(mislabelled.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(mislabelled.error_message(), HasSubstr("declared \"image/jpeg\""));
  grpc::Status large = Prompt(session, "look", {{"", PngBytes(1, 1, 5 * 1024 * 1024)}});
  EXPECT_EQ(large.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(large.error_message(), HasSubstr("an image may have at most"));
  std::vector<std::pair<std::string, std::string>> eleven(11, {"", PngBytes(1, 1)});
  EXPECT_EQ(Prompt(session, "look", eleven).error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_TRUE(History(session).empty());
  EXPECT_TRUE(fake_.requests().empty());
}

// Every request sends the context's images again: past 20 MiB of them a
// prompt with more is refused until /compact or /clear.
TEST_F(ImagePromptTest, TheContextHoldsAtMost20MiBOfImages) {
  Start(/*images=*/true);
  std::string session = daemon_->CreateSession();
  const std::string big = PngBytes(1, 1, 4 * 1024 * 1024 + 512 * 1024);  // 4.5 MiB
  EventStream stream(daemon_->stub(), session);
  for (int i = 0; i < 2; ++i) {
    fake_.Enqueue(chat::TextAnswer("seen"));
    std::string turn;
    ASSERT_TRUE(Prompt(session, "two more", {{"", big}, {"", big}}, &turn).ok());
    ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
  }
  grpc::Status full = Prompt(session, "one more", {{"", big}});
  EXPECT_EQ(full.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(full.error_message(), HasSubstr("use /compact or /clear first"));
  EXPECT_EQ(fake_.requests().size(), 2u);
  {
    grpc::ClientContext ctx;
    raw::v1::ClearContextRequest clear;
    clear.set_session_id(session);
    clear.set_lease_id(LeaseFor(daemon_->stub(), session));
    raw::v1::ClearContextResponse cleared;
    ASSERT_TRUE(daemon_->stub().ClearContext(&ctx, clear, &cleared).ok());
  }
  fake_.Enqueue(chat::TextAnswer("seen"));
  std::string turn;
  ASSERT_TRUE(Prompt(session, "one more", {{"", big}}, &turn).ok());
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
}

TEST_F(ImagePromptTest, AModelNotConfiguredForImagesRefusesThem) {
  Start(/*images=*/false);
  std::string session = daemon_->CreateSession();
  grpc::Status refused = Prompt(session, "look", {{"", PngBytes(4, 4)}});
  EXPECT_EQ(refused.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  EXPECT_THAT(refused.error_message(), HasSubstr("\"fake\" (gpt-test) is not configured to take "
                                                 "images; set \"images\": true"));
  EXPECT_TRUE(History(session).empty());
  EXPECT_TRUE(fake_.requests().empty());
  // The session is still free for a prompt without images.
  fake_.Enqueue(chat::TextAnswer("ok"));
  EventStream stream(daemon_->stub(), session);
  std::string turn;
  ASSERT_TRUE(Prompt(session, "no picture then", {}, &turn).ok());
  ASSERT_TRUE(stream.WaitForTurnEnd(turn).has_value());
}

// A model without images refuses the prompt: the session `raw run` made for
// it is removed again, while a session it was given stays as it was.
TEST_F(ImagePromptTest, ARefusedImagePromptLeavesNoSessionBehind) {
  Start(/*images=*/false);
  const std::string shot = daemon_->workdir() + "/shot.png";
  {
    std::ofstream out(shot, std::ios::binary);
    out << PngBytes(8, 8);
  }
  auto count_sessions = [&] {
    raw::v1::ListSessionsResponse sessions;
    grpc::ClientContext ctx;
    EXPECT_TRUE(daemon_->stub().ListSessions(&ctx, raw::v1::ListSessionsRequest(), &sessions).ok());
    return sessions.sessions_size();
  };
  CommandResult run = daemon_->RunRaw({"run", "--image", shot, "what is this?"});
  EXPECT_EQ(run.exit_code, 2) << run.err;
  EXPECT_THAT(run.err, HasSubstr("cannot start the turn"));
  EXPECT_EQ(count_sessions(), 0);

  const std::string session = daemon_->CreateSession();
  CommandResult again = daemon_->RunRaw({"run", "--session", session, "--image", shot, "and?"});
  EXPECT_EQ(again.exit_code, 2) << again.err;
  EXPECT_EQ(count_sessions(), 1);
  EXPECT_TRUE(fake_.requests().empty());
}

TEST_F(ImagePromptTest, RawRunSendsImageFiles) {
  Start(/*images=*/true);
  const std::string png = PngBytes(32, 32);
  {
    std::ofstream out(daemon_->workdir() + "/shot.png", std::ios::binary);
    out << png;
  }
  fake_.Enqueue(chat::TextAnswer("A screenshot."));
  CommandResult run = daemon_->RunRaw({"run", "--cwd", daemon_->workdir(), "--image",
                                       daemon_->workdir() + "/shot.png", "what is this?"});
  EXPECT_EQ(run.exit_code, 0) << run.err;
  EXPECT_THAT(run.out, HasSubstr("A screenshot."));
  ASSERT_EQ(fake_.requests().size(), 1u);
  const Json content = UserMessages(0).back()["content"];
  ASSERT_EQ(content.size(), 2u);
  EXPECT_EQ(content[1]["image_url"]["url"],
            absl::StrCat("data:image/png;base64,", absl::Base64Escape(png)));

  // The image keeps the file's path as its name, and a summary's
  // transcript describes it by that path, its type and size, never by its
  // data.
  raw::v1::ListSessionsResponse sessions;
  {
    grpc::ClientContext ctx;
    ASSERT_TRUE(daemon_->stub().ListSessions(&ctx, raw::v1::ListSessionsRequest(), &sessions).ok());
  }
  ASSERT_EQ(sessions.sessions_size(), 1);
  const std::string session = sessions.sessions(0).id();
  const std::string shot = daemon_->workdir() + "/shot.png";
  bool named = false;
  for (const raw::v1::Event& e : History(session)) {
    if (e.has_user_message() && e.user_message().images_size() == 1) {
      named = e.user_message().images(0).name() == shot;
    }
  }
  EXPECT_TRUE(named);
  // The first prompt is the task, which compaction keeps as it is; a later
  // one is summarized.
  fake_.Enqueue(chat::TextAnswer("The same screenshot."));
  CommandResult again =
      daemon_->RunRaw({"run", "--session", session, "--image", shot, "and this one?"});
  ASSERT_EQ(again.exit_code, 0) << again.err;
  fake_.Enqueue(chat::TextAnswer("The user showed a 32x32 screenshot twice."));
  EventStream stream(daemon_->stub(), session);
  // `raw run` has exited, but rawd may not have seen its lease's stream
  // close yet: the test asks for the lease as a handover, granted at once
  // when it is free and otherwise when that stream's end is seen.
  grpc::ClientContext lease_ctx;
  raw::v1::AcquireLeaseRequest acquire;
  acquire.set_session_id(session);
  acquire.set_client_name("image test");
  acquire.set_request_handover(true);
  auto lease = daemon_->stub().AcquireLease(&lease_ctx, acquire);
  raw::v1::LeaseEvent granted;
  while (lease->Read(&granted) && !granted.has_granted()) {
  }
  ASSERT_TRUE(granted.has_granted());
  raw::v1::CompactRequest compact;
  compact.set_session_id(session);
  compact.set_lease_id(granted.granted().lease_id());
  raw::v1::CompactResponse compacting;
  grpc::ClientContext compact_ctx;
  ASSERT_TRUE(daemon_->stub().Compact(&compact_ctx, compact, &compacting).ok());
  ASSERT_TRUE(stream.WaitFor([](const raw::v1::Event& e) { return e.has_compaction_ended(); }));
  lease_ctx.TryCancel();
  (void)lease->Finish();
  ASSERT_EQ(fake_.requests().size(), 3u);
  const std::string summary_request = fake_.requests()[2].body;
  EXPECT_THAT(summary_request, HasSubstr(absl::StrCat("[image image/png, 32x32, ", png.size(),
                                                      " bytes, path ", shot, "; data left out]")));
  EXPECT_EQ(summary_request.find(absl::Base64Escape(png)), std::string::npos);

  // A file that is no image is refused before anything is sent.
  {
    std::ofstream out(daemon_->workdir() + "/notes.txt");
    out << "just text";
  }
  CommandResult refused =
      daemon_->RunRaw({"run", "--image", daemon_->workdir() + "/notes.txt", "what is this?"});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_THAT(refused.err, HasSubstr("notes.txt is not an image Raw can send"));
  CommandResult missing =
      daemon_->RunRaw({"run", "--image", daemon_->workdir() + "/gone.png", "what is this?"});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_THAT(missing.err, HasSubstr("gone.png: cannot open it"));
  EXPECT_EQ(fake_.requests().size(), 3u);
}

}  // namespace
}  // namespace raw::e2e
