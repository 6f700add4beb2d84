// PromptOf's size check: a prompt whose assembled text and images would
// make a request larger than rawd takes is refused before it is sent.
#include "clients/acp/prompt_text.h"

#include <string>

#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "raw/v1/raw_service.pb.h"

namespace raw::acp {
namespace {

using ::testing::HasSubstr;

// A prompt of one embedded resource whose text is `body`.
Json EmbeddedResourcePrompt(const std::string& body) {
  return Json::array(
      {{{"type", "text"}, {"text", "see "}},
       {{"type", "resource"}, {"resource", {{"uri", "file:///w/big.txt"}, {"text", body}}}}});
}

// The StartTurnRequest rawd would get for `prompt`, without its ids.
size_t EncodedRequestBytes(const AcpPrompt& prompt) {
  v1::StartTurnRequest request;
  request.set_text(prompt.text);
  for (const v1::Image& image : prompt.images) *request.add_images() = image;
  return request.ByteSizeLong();
}

TEST(PromptSizeTest, RequestBytesAreWhatProtobufEncodes) {
  // Lengths on both sides of each varint width, with and without images.
  for (size_t length : {size_t{0}, size_t{1}, size_t{127}, size_t{128}, size_t{16383},
                        size_t{16384}, size_t{2097151}, size_t{2097152}}) {
    AcpPrompt prompt;
    prompt.text.assign(length, 'x');
    EXPECT_EQ(PromptRequestBytes(prompt), EncodedRequestBytes(prompt)) << length;
    v1::Image image;
    image.set_mime_type("image/png");
    image.set_name("file:///w/shot.png");
    image.set_data(std::string(length, '\x89'));
    prompt.images.push_back(image);
    prompt.images.push_back(image);
    EXPECT_EQ(PromptRequestBytes(prompt), EncodedRequestBytes(prompt)) << length;
  }
}

TEST(PromptSizeTest, TheLimitHoldsTheIdsReserveBesideThePrompt) {
  AcpPrompt prompt;
  prompt.text.assign(1000, 'x');
  const size_t bytes = PromptRequestBytes(prompt);
  EXPECT_TRUE(CheckPromptFits(prompt, bytes + kRequestIdsReserve).ok());
  absl::Status refused = CheckPromptFits(prompt, bytes + kRequestIdsReserve - 1);
  EXPECT_EQ(refused.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.message(), HasSubstr(absl::StrCat("the prompt is ", bytes, " bytes")));
  EXPECT_THAT(refused.message(), HasSubstr(absl::StrCat(bytes + kRequestIdsReserve - 1)));
}

// The fence around an embedded resource is longer than the longest
// backtick run in it: a resource of backticks assembles to three times its
// size, though the message that carried it was within the limit.
TEST(PromptSizeTest, AnEmbeddedResourceThatGrowsPastTheLimitIsRefused) {
  const std::string backticks(3000, '`');
  const Json blocks = EmbeddedResourcePrompt(backticks);
  ASSERT_LT(DumpJson(blocks).size(), size_t{4096});
  absl::StatusOr<AcpPrompt> refused = PromptOf(blocks, 4096);
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr("4096"));
  // The same text without fences fits.
  EXPECT_TRUE(PromptOf(Json::array({{{"type", "text"}, {"text", backticks}}}), 4096).ok());
}

TEST(PromptSizeTest, ByDefaultTheLimitIsWhatRawdTakes) {
  // 6 MiB of backticks, in a message of about 6 MiB, assemble to 18 MiB.
  const std::string backticks(6u << 20, '`');
  absl::StatusOr<AcpPrompt> refused = PromptOf(EmbeddedResourcePrompt(backticks));
  EXPECT_EQ(refused.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(refused.status().message(), HasSubstr(absl::StrCat(kMaxRequestBytes)));
  // 6 MiB of plain text is a prompt like any other.
  absl::StatusOr<AcpPrompt> plain = PromptOf(EmbeddedResourcePrompt(std::string(6u << 20, 'x')));
  ASSERT_TRUE(plain.ok()) << plain.status();
  EXPECT_GT(plain->text.size(), size_t{6u << 20});
}

}  // namespace
}  // namespace raw::acp
