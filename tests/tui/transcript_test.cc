#include "clients/tui/transcript.h"

#include "gtest/gtest.h"
#include "tests/tui/event_builders.h"

namespace raw::tui {
namespace {

using namespace testing;  // NOLINT: event builders

std::vector<CellKind> Kinds(const Transcript& t) {
  std::vector<CellKind> kinds;
  for (const Cell& c : t.cells()) kinds.push_back(c.kind);
  return kinds;
}

TEST(TranscriptTest, StreamedTextIsReplacedByTheCommittedMessage) {
  Transcript t;
  t.Apply(TurnStarted(1, "hi"));
  EXPECT_TRUE(t.turn_running());
  t.Apply(TextDelta(2, "Hel"));
  t.Apply(TextDelta(3, "lo"));
  ASSERT_EQ(t.cells().size(), 2u);
  EXPECT_EQ(t.cells()[1].text, "Hello");
  EXPECT_TRUE(t.cells()[1].streaming);
  t.Apply(Assistant(4, "Hello!"));
  EXPECT_EQ(t.cells()[1].text, "Hello!");
  EXPECT_FALSE(t.cells()[1].streaming);
  t.Apply(Ended(5, v1::TURN_END_REASON_COMPLETED));
  EXPECT_FALSE(t.turn_running());
  EXPECT_EQ(Kinds(t), (std::vector<CellKind>{CellKind::kUser, CellKind::kAssistant}));
}

TEST(TranscriptTest, APromptsImagesAreLabelledInItsCell) {
  Transcript t;
  t.Apply(TurnStarted(1, "look"));
  v1::Event user = Ev(2);
  user.mutable_user_message()->set_text("look");
  v1::Image* image = user.mutable_user_message()->add_images();
  image->set_mime_type("image/jpeg");
  image->set_data(std::string(2 * 1024 * 1024 + 100 * 1024, 'x'));
  t.Apply(user);
  ASSERT_EQ(t.cells().size(), 1u);
  EXPECT_EQ(t.cells()[0].text, "look\n[image: JPEG, 2.1 MB]");
  // A prompt of images alone gets a cell of its own.
  Transcript alone;
  v1::Event only = Ev(1, "t2");
  image = only.mutable_user_message()->add_images();
  image->set_mime_type("image/gif");
  image->set_data("GIF89a");
  alone.Apply(only);
  ASSERT_EQ(alone.cells().size(), 1u);
  EXPECT_EQ(alone.cells()[0].text, "[image: GIF, 6 B]");
}

TEST(TranscriptTest, ReplayedDuplicatesAreIgnored) {
  Transcript t;
  t.Apply(TurnStarted(1, "hi"));
  t.Apply(TurnStarted(1, "hi"));
  EXPECT_EQ(t.cells().size(), 1u);
  EXPECT_EQ(t.last_seq(), 1u);
}

TEST(TranscriptTest, AStreamResetDiscardsThePartialText) {
  Transcript t;
  t.Apply(TurnStarted(1, "hi"));
  t.Apply(TextDelta(2, "partial"));
  v1::Event reset = Ev(3);
  reset.mutable_stream_reset()->set_reason("retrying");
  t.Apply(reset);
  t.Apply(TextDelta(4, "whole"));
  t.Apply(Assistant(5, "whole"));
  std::vector<std::string> texts;
  for (const Cell& c : t.cells()) texts.push_back(c.text);
  EXPECT_EQ(texts[1].find("restarted (retrying)") != std::string::npos, true);
  EXPECT_EQ(texts.back(), "whole");
  for (const Cell& c : t.cells()) EXPECT_NE(c.text, "partial");
}

TEST(TranscriptTest, ReasoningComesBeforeTheText) {
  Transcript t;
  t.Apply(TurnStarted(1, "hi"));
  t.Apply(TextDelta(2, "answer"));
  t.Apply(Assistant(3, "answer", "thinking it over"));
  EXPECT_EQ(Kinds(t), (std::vector<CellKind>{CellKind::kUser, CellKind::kReasoning,
                                             CellKind::kAssistant}));
  EXPECT_EQ(t.cells()[1].text, "thinking it over");
}

TEST(TranscriptTest, ToolCardsFollowTheirCallThroughApproval) {
  Transcript t;
  t.Apply(TurnStarted(1, "run"));
  t.Apply(Batch(2, "c1", "bash", R"({"command":"ls"})"));
  v1::Event ask = Ev(3);
  v1::ApprovalCall* call = ask.mutable_approval_requested()->add_calls();
  call->set_call_id("c1");
  call->set_state(v1::APPROVAL_STATE_PENDING);
  ask.mutable_approval_requested()->set_request_id("r1");
  t.Apply(ask);
  ASSERT_TRUE(t.pending_approval().has_value());
  EXPECT_EQ(t.cells()[1].call.status, ToolStatus::kWaitingApproval);

  v1::Event resolved = Ev(4);
  resolved.mutable_approval_resolved()->set_request_id("r1");
  resolved.mutable_approval_resolved()->set_resolution(v1::APPROVAL_RESOLUTION_ANSWERED);
  v1::ApprovalAnswer* answer = resolved.mutable_approval_resolved()->add_answers();
  answer->set_call_id("c1");
  answer->set_decision(v1::APPROVAL_DECISION_ALLOW_ONCE);
  t.Apply(resolved);
  EXPECT_FALSE(t.pending_approval().has_value());
  EXPECT_EQ(t.cells()[1].call.approval_note, "allowed once");

  t.Apply(Started(5, "c1", "bash"));
  EXPECT_EQ(t.cells()[1].call.status, ToolStatus::kRunning);
  EXPECT_TRUE(t.HasRunningTools());
  v1::Event progress = Ev(0);  // live: no seq
  progress.mutable_tool_progress()->set_call_id("c1");
  progress.mutable_tool_progress()->set_progress(2);
  progress.mutable_tool_progress()->set_total(3);
  progress.mutable_tool_progress()->set_message("step 2");
  t.Apply(progress);
  EXPECT_EQ(t.cells()[1].call.progress, "2/3 step 2");
  progress.mutable_tool_progress()->clear_total();
  progress.mutable_tool_progress()->set_progress(0.5);
  progress.mutable_tool_progress()->clear_message();
  t.Apply(progress);
  EXPECT_EQ(t.cells()[1].call.progress, "0.5");
  t.Apply(Result(6, "c1", "bash", v1::TOOL_RESULT_STATUS_OK, "a\nb\n"));
  EXPECT_EQ(t.cells()[1].call.status, ToolStatus::kDone);
  EXPECT_EQ(t.cells()[1].call.content, "a\nb\n");
  EXPECT_FALSE(t.HasRunningTools());
}

TEST(TranscriptTest, OlderHistoryMergesSplitToolCards) {
  Transcript t;
  // The newer page starts with the result of a call made in the older one.
  t.Apply(Result(10, "c1", "read_file", v1::TOOL_RESULT_STATUS_OK, "contents"));
  t.Apply(Ended(11, v1::TURN_END_REASON_COMPLETED));
  ASSERT_EQ(t.cells().size(), 1u);
  t.PrependHistory({TurnStarted(7, "read it"), Batch(8, "c1", "read_file", R"({"path":"a.txt"})"),
                    Started(9, "c1", "read_file")});
  ASSERT_EQ(Kinds(t), (std::vector<CellKind>{CellKind::kUser, CellKind::kTool}));
  EXPECT_EQ(t.cells()[1].call.arguments, R"({"path":"a.txt"})");
  EXPECT_EQ(t.cells()[1].call.status, ToolStatus::kDone);
  EXPECT_EQ(t.cells()[1].call.content, "contents");
  EXPECT_EQ(t.first_seq(), 7u);
  EXPECT_EQ(t.last_seq(), 11u);
  EXPECT_FALSE(t.turn_running());
}

TEST(TranscriptTest, TurnEndingsOtherThanCompletionAreShown) {
  Transcript t;
  t.Apply(TurnStarted(1, "x"));
  t.Apply(TextDelta(2, "half"));
  t.Apply(Ended(3, v1::TURN_END_REASON_CANCELLED));
  EXPECT_EQ(t.cells().back().kind, CellKind::kTurnEnd);
  EXPECT_EQ(t.cells().back().text, "Turn cancelled");
  for (const Cell& c : t.cells()) EXPECT_NE(c.text, "half");  // never committed
}

TEST(TranscriptTest, CompactionProgressAndOutcome) {
  Transcript t;
  v1::Event started = Ev(1, "op1");
  started.mutable_compaction_started()->set_trigger(v1::COMPACTION_TRIGGER_MANUAL);
  started.mutable_compaction_started()->set_tokens_before(40000);
  started.mutable_compaction_started()->set_chunks(2);
  t.Apply(started);
  EXPECT_TRUE(t.compacting());
  v1::Event progress = Ev(2, "op1");
  progress.mutable_compaction_progress()->set_chunk(2);
  progress.mutable_compaction_progress()->set_chunks(2);
  t.Apply(progress);
  EXPECT_EQ(t.cells().back().compaction.chunk, 2);
  v1::Event ended = Ev(3, "op1");
  ended.mutable_compaction_ended()->set_outcome(v1::COMPACTION_OUTCOME_ACCEPTED);
  ended.mutable_compaction_ended()->set_tokens_before(40000);
  ended.mutable_compaction_ended()->set_tokens_after(3000);
  t.Apply(ended);
  EXPECT_FALSE(t.compacting());
  ASSERT_EQ(t.cells().size(), 1u);
  EXPECT_TRUE(t.cells()[0].compaction.accepted);
  EXPECT_EQ(t.cells()[0].compaction.tokens_after, 3000);
}

// A compaction the daemon no longer runs (it restarted during it) stops
// showing as running.
TEST(TranscriptTest, AnAbandonedCompactionIsNoLongerShownRunning) {
  Transcript t;
  v1::Event started = Ev(1, "compact_1");
  started.mutable_compaction_started()->set_tokens_before(40000);
  t.Apply(started);
  ASSERT_TRUE(t.cells().back().compaction.running);
  t.AbandonOpenTurn();
  EXPECT_FALSE(t.compacting());
  ASSERT_EQ(t.cells().size(), 1u);
  EXPECT_FALSE(t.cells()[0].compaction.running);
  EXPECT_FALSE(t.cells()[0].compaction.accepted);
  EXPECT_EQ(t.cells()[0].compaction.outcome, "interrupted by a daemon restart; context unchanged");
}

}  // namespace
}  // namespace raw::tui
