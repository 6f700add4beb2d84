// A Source check, whatever a verifier reports in it, is recorded so that
// the Task state reads back equal: server bytes in its text, and a clock
// that steps back between checks.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "daemon/raven/codec.h"
#include "daemon/raven/engine.h"
#include "tests/daemon/raven/raven_test_support.h"

namespace raw::raven {
namespace {

using testing::ClaimArg;
using ::testing::HasSubstr;
using testing::IssueLines;
using testing::RavenSession;
using testing::SourceArg;

class CheckRecordTest : public ::testing::Test {
 protected:
  // A Task with a published Checkpoint citing "a" and "b", both verified.
  std::string TaskCitingTwoSources() {
    auto start = s.Call(
        {{"action", "start"}, {"outcome", "research"}, {"request", "How do X and Y differ?"}});
    EXPECT_TRUE(start.ok()) << start.status();
    const std::string id = start->state.task_id;
    s.verifier.Reachable("a");
    s.verifier.Reachable("b");
    auto cp = s.Call({{"action", "checkpoint"},
                      {"taskId", id},
                      {"stage", "draft"},
                      {"summary", "A draft."},
                      {"artifact", kArtifact},
                      {"sources", Json::array({SourceArg("a", "https://a.test/"),
                                               SourceArg("b", "https://b.test/")})},
                      {"claims", Json::array({ClaimArg("c1", {"a"}), ClaimArg("c2", {"b"})})}});
    EXPECT_TRUE(cp.ok()) << cp.status();
    EXPECT_EQ(cp->status, "active") << IssueLines(*cp);
    return id;
  }
  absl::StatusOr<ActionResult> Complete(const std::string& id) {
    return s.Call({{"action", "complete"}, {"taskId", id}, {"artifact", kArtifact}});
  }
  // The state as the record of it decodes.
  static TaskState ReadBack(const ActionResult& r) {
    absl::StatusOr<Record> back = DecodeRecord(EncodeRecord(r.state, r.current_task_id));
    EXPECT_TRUE(back.ok()) << back.status();
    return back.ok() ? back->state : TaskState{};
  }

  static constexpr char kArtifact[] = "X differs from Y [@a]. Y is older [@b].";
  RavenSession s;
};

// Server bytes reach a check's detail (a Content-Type) and resolved URL
// (a same-host redirect's Location), and a long detail is cut: each is
// stored as valid UTF-8, cut on a character boundary.
TEST_F(CheckRecordTest, ServerBytesInACheckReadBackEqual) {
  const std::string id = TaskCitingTwoSources();
  s.verifier.Set("a", {"a", CheckStatus::kUnavailable, 0, std::nullopt, std::nullopt,
                       "the Source is application/x-\xff, which has no text to match the "
                       "excerpt against",
                       CheckOutcome::kUnchecked});
  // The 4,000th byte is the first of "é".
  std::string long_detail(Limits::kLimitationDetailChars - 1, 'x');
  long_detail += "\u00E9 and more";
  s.verifier.Set("b", {"b", CheckStatus::kFailed, 0, 404, "https://b.test/caf\xe9", long_detail,
                       CheckOutcome::kUnreachable});
  auto done = Complete(id);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->status, "needs-revision") << IssueLines(*done);
  const TaskState back = ReadBack(*done);
  EXPECT_EQ(StateDifference(done->state, back), "");
  EXPECT_TRUE(back == done->state);
  EXPECT_TRUE(s.Replayed(id) == done->state);

  const SourceCheck& a = done->state.FindSource("a")->check;
  EXPECT_THAT(a.detail, ::testing::Optional(HasSubstr("application/x-\uFFFD,")));
  const SourceCheck& b = done->state.FindSource("b")->check;
  ASSERT_TRUE(b.detail.has_value());
  EXPECT_TRUE(*b.detail == std::string(Limits::kLimitationDetailChars - 1, 'x') + "\u00E9")
      << "a detail of " << b.detail->size() << " bytes";
  EXPECT_EQ(b.resolved_url, "https://b.test/caf\uFFFD");
}

// The wall clock steps back after a Source verified: the failed check is
// dated no earlier than the verification it carries over, so the state
// still reads back.
TEST_F(CheckRecordTest, AFailedCheckAfterTheClockSteppedBackReadsBack) {
  const std::string id = TaskCitingTwoSources();
  const int64_t verified_at = s.now_ms;
  s.now_ms -= 60'000;
  s.verifier.Failed("a", "HTTP 404");
  auto done = Complete(id);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->status, "needs-revision") << IssueLines(*done);
  const SourceCheck& a = done->state.FindSource("a")->check;
  EXPECT_EQ(a.status, CheckStatus::kFailed);
  EXPECT_EQ(a.last_verified_at, verified_at);
  EXPECT_EQ(a.checked_at, verified_at);
  EXPECT_EQ(StateDifference(done->state, ReadBack(*done)), "");
  EXPECT_TRUE(s.Replayed(id) == done->state);
}

// What would not read back is named down to its field.
TEST_F(CheckRecordTest, TheDifferenceThatWouldNotReadBackIsNamed) {
  const std::string id = TaskCitingTwoSources();
  TaskState state = s.Replayed(id);
  state.sources[1].check.detail = "cut in the middle of \xc3";
  absl::StatusOr<Record> back = DecodeRecord(EncodeRecord(state, id));
  ASSERT_TRUE(back.ok()) << back.status();
  EXPECT_EQ(StateDifference(state, back->state), "sources[b].check.detail");
  EXPECT_EQ(StateDifference(state, state), "");
}

}  // namespace
}  // namespace raw::raven
