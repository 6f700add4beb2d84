#include "daemon/api/convert/session_to_proto.h"

#include <google/protobuf/text_format.h>
#include <google/protobuf/util/message_differencer.h>

#include "gtest/gtest.h"

namespace raw::api::convert {
namespace {

loop::SessionInfo SampleInfo() {
  loop::SessionInfo info;
  info.record.id = "01hx";
  info.record.agent = "coder";
  info.record.cwd = "/home/u/src";
  info.record.created_at_unix_ms = 1000;
  info.record.last_activity_unix_ms = 2000;
  info.record.title = "fix the build";
  info.record.last_seq = 17;
  info.record.usage.input_tokens = 5000;
  info.record.usage.cache_read_tokens = 4000;
  info.record.usage_requests = 3;
  info.model = "fast";
  info.model_id = "gpt-test";
  return info;
}

TEST(SessionToProtoTest, EveryFieldIsCopied) {
  loop::SessionInfo info = SampleInfo();
  info.running = true;
  raw::v1::Session expected;
  ASSERT_TRUE(google::protobuf::TextFormat::ParseFromString(R"(
      id: "01hx" agent: "coder" cwd: "/home/u/src" model: "fast" model_id: "gpt-test"
      created_at_unix_ms: 1000 last_activity_unix_ms: 2000 turn_state: TURN_STATE_RUNNING
      last_seq: 17 title: "fix the build"
      usage { input_tokens: 5000 cache_read_tokens: 4000 }
      requests: 3)",
                                                            &expected));
  raw::v1::Session actual = ToProto(info);
  EXPECT_TRUE(google::protobuf::util::MessageDifferencer::Equals(actual, expected))
      << actual.DebugString();
}

TEST(SessionToProtoTest, AnIdleSessionSaysIdle) {
  EXPECT_EQ(ToProto(SampleInfo()).turn_state(), raw::v1::TURN_STATE_IDLE);
}

TEST(SessionToProtoTest, UnreportedUsageStaysAbsent) {
  raw::v1::Session out = ToProto(SampleInfo());
  EXPECT_TRUE(out.usage().has_input_tokens());
  EXPECT_FALSE(out.usage().has_output_tokens());
  EXPECT_FALSE(out.usage().has_cache_write_tokens());
  EXPECT_FALSE(out.usage().has_reasoning_tokens());
}

TEST(SessionToProtoTest, UnresolvedModelIsEmpty) {
  loop::SessionInfo info = SampleInfo();
  info.model.clear();
  info.model_id.clear();
  raw::v1::Session out = ToProto(info);
  EXPECT_EQ(out.model(), "");
  EXPECT_EQ(out.model_id(), "");
}

}  // namespace
}  // namespace raw::api::convert
