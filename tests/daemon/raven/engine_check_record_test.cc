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

// The time for the whole check ran out before the verifier reached "b":
// nothing was observed of it, so its verification at the Checkpoint stands
// (its Claim is not deferred, the Completion is not refused), and the
// result and the receipt say it was not re-checked.
SourceObservation NotReached(const std::string& id) {
  SourceObservation o{id,
                      CheckStatus::kUnavailable,
                      0,
                      std::nullopt,
                      std::nullopt,
                      "the verification deadline of 60000 ms ran out before this "
                      "Source was reopened",
                      CheckOutcome::kUnchecked};
  o.not_reached = true;
  return o;
}

TEST_F(CheckRecordTest, ASourceTheCheckDidNotReachKeepsItsVerification) {
  const std::string id = TaskCitingTwoSources();
  const SourceCheck verified = s.Replayed(id).FindSource("b")->check;
  s.now_ms += 60'000;
  s.verifier.Set("b", NotReached("b"));
  auto done = Complete(id);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->status, "completed") << IssueLines(*done) << done->message;
  EXPECT_TRUE(done->state.FindSource("b")->check == verified);
  EXPECT_EQ(done->state.FindSource("a")->check.checked_at, s.now_ms);
  for (const Claim& c : done->state.claims) EXPECT_EQ(c.disposition, Disposition::kSupported);
  EXPECT_TRUE(done->state.limitations.empty());
  EXPECT_THAT(done->message, HasSubstr("Not re-checked this time"));
  EXPECT_THAT(done->message, HasSubstr(": b."));
  ASSERT_TRUE(done->state.verification.has_value());
  EXPECT_EQ(done->state.verification->checked, 1);
  EXPECT_EQ(done->state.verification->not_rechecked, 1);
  EXPECT_TRUE(s.Replayed(id) == done->state);
}

// A Source never verified and not reached is not published as verified.
TEST_F(CheckRecordTest, ANewSourceTheCheckDidNotReachIsNotPublished) {
  const std::string id = TaskCitingTwoSources();
  s.verifier.Set("n", NotReached("n"));
  auto cp = s.Call({{"action", "checkpoint"},
                    {"taskId", id},
                    {"stage", "draft"},
                    {"summary", "More."},
                    {"artifact", std::string(kArtifact) + " Z too [@n]."},
                    {"sources", Json::array({SourceArg("n", "https://n.test/")})},
                    {"claims", Json::array({ClaimArg("c3", {"n"})})}});
  ASSERT_TRUE(cp.ok()) << cp.status();
  EXPECT_EQ(cp->status, "needs-revision");
  EXPECT_THAT(IssueLines(*cp), HasSubstr("not re-checked"));
  EXPECT_EQ(cp->state.checkpoints.size(), 1u);
  EXPECT_EQ(cp->state.FindSource("a")->check.status, CheckStatus::kReachable);
}

// A verifier may not claim to have not reached a Source it judged.
TEST_F(CheckRecordTest, NotReachedWithAnotherStatusBreaksTheProtocol) {
  const std::string id = TaskCitingTwoSources();
  SourceObservation o = NotReached("b");
  o.status = CheckStatus::kFailed;
  s.verifier.Set("b", o);
  auto done = Complete(id);
  ASSERT_TRUE(done.ok()) << done.status();
  EXPECT_EQ(done->status, "needs-revision");
  EXPECT_THAT(done->state.FindSource("b")->check.detail,
              ::testing::Optional(HasSubstr("source verifier protocol error: not reached")));
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
