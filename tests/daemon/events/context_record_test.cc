#include "daemon/events/context_record.h"

#include <set>
#include <string>
#include <vector>

#include "common/utf8.h"
#include "daemon/events/event_codec.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::events {
namespace {

using ::testing::HasSubstr;

UserText WithImages() {
  UserText text{"what is in these?", UserTextKind::kPrompt, "turn_01jd9a"};
  text.images = {{"image/png", "iVBORw0KGgo=", 800, 600}, {"image/webp", "UklGRg==", 0, 0}};
  return text;
}

UserText WithNamedImages() {
  UserText text = WithImages();
  text.images[0].name = "shots/screen \u00e9.png";
  return text;
}

std::vector<ContextItem> EveryShape() {
  return {
      WithImages(),
      WithNamedImages(),
      UserText{"please\tlist files"},
      UserText{"summary of turns 1-3", UserTextKind::kSummary, ""},
      UserText{"task", UserTextKind::kPrompt, "turn_01jd8w"},
      UserText{""},
      AssistantTurn{"text",
                    "reasoning",
                    {{"call_1", "ls", R"({"dir":"."})"}, {"call_2", "x", ""}},
                    {{"anthropic", "thinking_signature", "sig_1", "c2lnbmF0dXJl"}}},
      AssistantTurn{},
      AssistantTurn{"", "", {{"c", "n", "{}"}}, {}},
      AssistantTurn{"",
                    "thought",
                    {},
                    {{"google", "thought_signature", "thought", "c2ln"}},
                    "gemini-2.5-pro"},
      ToolOutcome{"call_1", "ls", "a\nb", false},
      ToolOutcome{"call_2", "x", "unknown tool", true},
      // Text of every width, a NUL byte, and a string long enough that its
      // length takes three varint bytes.
      ToolOutcome{"c", "read_file",
                  std::string("caf\xC3\xA9 \xE2\x82\xAC \xF0\x9F\x98\x80 a\0b", 18), false},
      ToolOutcome{"c", "read_file", std::string(70000, 'x'), false},
  };
}

TEST(ContextRecordTest, EveryItemRoundTrips) {
  std::set<size_t> covered;
  for (const ContextItem& item : EveryShape()) {
    covered.insert(item.index());
    const std::string record = EncodeContextRecord(item);
    EXPECT_EQ(record[0], '\x01');
    absl::StatusOr<ContextItem> decoded = DecodeContextRecord(record);
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, item);
  }
  EXPECT_EQ(covered.size(), std::variant_size_v<ContextItem>);
}

TEST(ContextRecordTest, TheJsonOfEarlierRowsStillDecodes) {
  for (const ContextItem& item : EveryShape()) {
    absl::StatusOr<ContextItem> decoded = DecodeContextRecord(EncodeContextItem(item));
    ASSERT_TRUE(decoded.ok()) << decoded.status();
    EXPECT_EQ(*decoded, item);
  }
  // As a person repairing a row might write it.
  absl::StatusOr<ContextItem> by_hand =
      DecodeContextRecord(" \n{\"kind\": \"user_text\", \"text\": \"fixed\"}");
  ASSERT_TRUE(by_hand.ok()) << by_hand.status();
  EXPECT_EQ(std::get<UserText>(*by_hand).text, "fixed");
  absl::StatusOr<ContextItem> broken = DecodeContextRecord("{\"text\": 3");
  EXPECT_FALSE(broken.ok());
}

TEST(ContextRecordTest, TextThatIsNotUtf8IsStoredWithReplacementCharacters) {
  const ContextItem item = ToolOutcome{"c", "cat", "ok \xFF\xFE end", false};
  absl::StatusOr<ContextItem> decoded = DecodeContextRecord(EncodeContextRecord(item));
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  const std::string& content = std::get<ToolOutcome>(*decoded).content;
  EXPECT_EQ(ValidUtf8Prefix(content), content.size());
  EXPECT_EQ(content, "ok \xEF\xBF\xBD\xEF\xBF\xBD end");
}

TEST(ContextRecordTest, ARecordWithoutImagesIsAsBeforeImagesExisted) {
  // The role byte stays 0 or 1 and nothing follows the turn id.
  EXPECT_EQ(EncodeContextRecord(UserText{"hi", UserTextKind::kPrompt, "t"}),
            std::string("\x01\x01\x00\x02hi\x01t", 8));
  const std::string with = EncodeContextRecord(WithImages());
  EXPECT_EQ(with[2], '\x02');  // the images flag
  // Names add a flag of their own; a record of unnamed images has none.
  const std::string named = EncodeContextRecord(WithNamedImages());
  EXPECT_EQ(named[2], '\x06');
  absl::StatusOr<ContextItem> decoded = DecodeContextRecord(named);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(std::get<UserText>(*decoded), WithNamedImages());
  std::string unknown_role = with;
  unknown_role[2] = '\x04';  // names without images
  EXPECT_THAT(DecodeContextRecord(unknown_role).status().message(), HasSubstr("unknown role"));
}

TEST(ContextRecordTest, TheModelOfAnItemsStateIsKeptAndOlderRecordsHaveNone) {
  AssistantTurn turn{"hello", "why", {}, {{"p", "k", "i", "d"}}};
  const std::string old_form = EncodeContextRecord(turn);
  EXPECT_EQ(old_form[1], '\x02');  // as written before the model was kept
  absl::StatusOr<ContextItem> decoded = DecodeContextRecord(old_form);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(std::get<AssistantTurn>(*decoded).model, "");
  turn.model = "claude-sonnet-4-5";
  const std::string record = EncodeContextRecord(turn);
  EXPECT_EQ(record[1], '\x04');
  decoded = DecodeContextRecord(record);
  ASSERT_TRUE(decoded.ok()) << decoded.status();
  EXPECT_EQ(std::get<AssistantTurn>(*decoded), turn);
  EXPECT_THAT(DecodeContextRecord(record.substr(0, record.size() - 1)).status().message(),
              HasSubstr("field \"model\""));
}

TEST(ContextRecordTest, EveryCutOfARecordIsAnErrorNamingWhereItEnds) {
  const std::string record = EncodeContextRecord(
      AssistantTurn{"hello", "why", {{"call_1", "ls", "{}"}}, {{"p", "k", "i", "d"}}, "model-a"});
  for (size_t size = 0; size < record.size(); ++size) {
    absl::StatusOr<ContextItem> decoded = DecodeContextRecord(record.substr(0, size));
    ASSERT_FALSE(decoded.ok()) << "cut at " << size;
    EXPECT_EQ(decoded.status().code(), absl::StatusCode::kInvalidArgument);
  }
  absl::StatusOr<ContextItem> cut = DecodeContextRecord(record.substr(0, 4));
  EXPECT_THAT(cut.status().message(), HasSubstr("field \"text\""));
}

TEST(ContextRecordTest, DamagedRecordsAreRefusedWithWhatIsWrong) {
  const std::string good = EncodeContextRecord(ToolOutcome{"c", "ls", "out", false});
  struct Case {
    std::string bytes;
    std::string says;
  };
  std::vector<Case> cases = {
      {"", "empty"},
      {"\x02\x01", "unknown format 0x02"},
      {std::string("\x01\x07", 2), "unknown kind 0x07"},
      {good + "x", "1 bytes follow its last field"},
      // is_error must be 0 or 1.
      {std::string("\x01\x03\x02", 3) + good.substr(3), "0x02 is neither 0 nor 1"},
      // A user text's role must be known.
      {std::string("\x01\x01\x05\x00\x00", 5), "unknown role 0x05"},
      // A length longer than what follows.
      {std::string("\x01\x01\x00\x7f", 4), "it says 127 bytes but 0 remain"},
      // A length that never ends.
      {std::string("\x01\x01\x00", 3) + std::string(12, '\xff'), "its length does not end"},
      // Invalid UTF-8 inside a string.
      {std::string("\x01\x01\x00\x02\xC3\x28\x00", 7), "byte 0 is not valid UTF-8"},
      // More tool calls than the bytes left could hold: refused before any
      // vector is sized by it.
      {std::string("\x01\x02\x00\x00\xff\xff\xff\xff\x0f", 9), "entries but only 0 bytes remain"},
  };
  for (const Case& c : cases) {
    absl::StatusOr<ContextItem> decoded = DecodeContextRecord(c.bytes);
    ASSERT_FALSE(decoded.ok()) << c.says;
    EXPECT_THAT(decoded.status().message(), HasSubstr(c.says));
    const std::string message(decoded.status().message());
    EXPECT_EQ(ValidUtf8Prefix(message), message.size());
  }
}

}  // namespace
}  // namespace raw::events
