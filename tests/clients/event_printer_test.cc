#include "clients/cli/event_printer.h"

#include <sstream>

#include "absl/strings/str_split.h"
#include "common/json.h"
#include "gtest/gtest.h"

namespace raw::cli {
namespace {

v1::Event Ev(uint64_t seq) {
  v1::Event e;
  e.set_session_id("s1");
  e.set_turn_id("t1");
  e.set_seq(seq);
  return e;
}

// One turn: text streamed over two deltas, a tool call that succeeds, one
// that fails, a notice, a second step's text, the end.
std::vector<v1::Event> TurnEvents() {
  std::vector<v1::Event> events;
  v1::Event e = Ev(1);
  e.mutable_turn_started()->set_user_text("fix it");
  events.push_back(e);
  e = Ev(2);
  e.mutable_text_delta()->set_text("Let me ");
  events.push_back(e);
  e = Ev(3);
  e.mutable_text_delta()->set_text("look.");
  events.push_back(e);
  e = Ev(4);
  e.mutable_assistant_message()->set_text("Let me look.");
  e.mutable_assistant_message()->set_step(1);
  events.push_back(e);
  e = Ev(5);
  auto* call = e.mutable_tool_call_batch()->add_calls();
  call->set_call_id("c1");
  call->set_name("read_file");
  call->set_arguments(R"({"limit":10,"path":"src/main.cc"})");
  call = e.mutable_tool_call_batch()->add_calls();
  call->set_call_id("c2");
  call->set_name("bash");
  call->set_arguments(R"({"command":"make\ntest"})");
  events.push_back(e);
  e = Ev(6);
  e.mutable_tool_started()->set_call_id("c1");
  e.mutable_tool_started()->set_name("read_file");
  events.push_back(e);
  e = Ev(7);
  e.mutable_tool_result()->set_call_id("c1");
  e.mutable_tool_result()->set_name("read_file");
  e.mutable_tool_result()->set_status(v1::TOOL_RESULT_STATUS_OK);
  e.mutable_tool_result()->set_content("int main() {}");
  e.mutable_tool_result()->set_duration_ms(12);
  events.push_back(e);
  e = Ev(8);
  e.mutable_tool_started()->set_call_id("c2");
  e.mutable_tool_started()->set_name("bash");
  events.push_back(e);
  e = Ev(9);
  e.mutable_tool_result()->set_call_id("c2");
  e.mutable_tool_result()->set_name("bash");
  e.mutable_tool_result()->set_status(v1::TOOL_RESULT_STATUS_ERROR);
  e.mutable_tool_result()->set_content("\nmake: *** No rule to make target\nmore output");
  e.mutable_tool_result()->set_duration_ms(1500);
  events.push_back(e);
  e = Ev(10);
  e.mutable_usage()->mutable_usage()->set_input_tokens(100);
  events.push_back(e);
  e = Ev(11);
  e.mutable_notice()->set_level(v1::NOTICE_LEVEL_WARNING);
  e.mutable_notice()->set_text("context is 90% full");
  events.push_back(e);
  e = Ev(12);
  e.mutable_text_delta()->set_text("Done.\n");
  events.push_back(e);
  e = Ev(13);
  e.mutable_assistant_message()->set_text("Done.\n");
  events.push_back(e);
  e = Ev(14);
  e.mutable_turn_ended()->set_reason(v1::TURN_END_REASON_COMPLETED);
  events.push_back(e);
  return events;
}

TEST(EventPrinterTest, TextSeparatesTheAnswerFromToolActivity) {
  std::ostringstream out, err;
  EventPrinter printer(OutputFormat::kText, out, err);
  for (const auto& e : TurnEvents()) printer.Print(e);
  EXPECT_EQ(out.str(), "Let me look.\nDone.\n");
  EXPECT_EQ(err.str(),
            "-> read_file src/main.cc\n"
            "<- read_file ok (12 ms)\n"
            "-> bash make test\n"
            "<- bash error (1.5 s): make: *** No rule to make target ...\n"
            "[warning] context is 90% full\n");
}

// A tool name is the provider's text: its line breaks show as markers, so
// that it cannot start a line that reads like one of the printer's own.
TEST(EventPrinterTest, AToolNamesLineBreaksCannotStartLinesOfTheirOwn) {
  std::ostringstream out, err;
  EventPrinter printer(OutputFormat::kText, out, err);
  v1::Event e = Ev(1);
  e.mutable_tool_started()->set_call_id("c1");
  e.mutable_tool_started()->set_name("bash\n<- bash ok (1 ms)");
  printer.Print(e);
  e = Ev(2);
  e.mutable_tool_result()->set_call_id("c1");
  e.mutable_tool_result()->set_name("bash\n<- bash ok (1 ms)");
  e.mutable_tool_result()->set_status(v1::TOOL_RESULT_STATUS_ERROR);
  e.mutable_tool_result()->set_content("unknown tool");
  printer.Print(e);
  EXPECT_EQ(err.str().find("\n<- bash ok"), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("-> bash\u27E8U+000A\u27E9<- bash ok (1 ms)\n"), std::string::npos)
      << err.str();
}

TEST(EventPrinterTest, CommittedMessageIsPrintedWhenNothingStreamed) {
  std::ostringstream out, err;
  EventPrinter printer(OutputFormat::kText, out, err);
  v1::Event e = Ev(1);
  e.mutable_assistant_message()->set_text("whole answer");
  printer.Print(e);
  EXPECT_EQ(out.str(), "whole answer\n");
}

TEST(EventPrinterTest, StreamResetIsAnnouncedAndTheRetryPrinted) {
  std::ostringstream out, err;
  EventPrinter printer(OutputFormat::kText, out, err);
  v1::Event e = Ev(1);
  e.mutable_text_delta()->set_text("Partial");
  printer.Print(e);
  e = Ev(2);
  e.mutable_stream_reset()->set_reason("connection reset");
  printer.Print(e);
  e = Ev(3);
  e.mutable_text_delta()->set_text("Full answer");
  printer.Print(e);
  e = Ev(4);
  e.mutable_assistant_message()->set_text("Full answer");
  printer.Print(e);
  EXPECT_EQ(out.str(), "Partial\nFull answer\n");
  EXPECT_EQ(err.str(),
            "[the response restarted (connection reset); the partial text above is discarded]\n");
}

TEST(EventPrinterTest, AfterAResyncTheCommittedMessageIsPrintedWhole) {
  std::ostringstream out, err;
  EventPrinter printer(OutputFormat::kText, out, err);
  v1::Event e = Ev(1);
  e.mutable_text_delta()->set_text("The ans");
  printer.Print(e);
  v1::Event resync;
  resync.mutable_resync()->set_last_delivered_seq(1);
  printer.Print(resync);
  e = Ev(2);
  e.mutable_assistant_message()->set_text("The answer.");
  printer.Print(e);
  EXPECT_EQ(out.str(), "The ans\nThe answer.\n");
  EXPECT_NE(err.str().find("fell behind"), std::string::npos);
}

// Without streaming (stdout is a pipe or a file a script reads), `out` gets
// each committed message once: neither text a restarted stream discarded
// nor a message a resync made print twice.
TEST(EventPrinterTest, WithoutStreamingOutHoldsOnlyTheCommittedMessages) {
  std::ostringstream out, err;
  EventPrinter printer(OutputFormat::kText, out, err, /*stream_text=*/false);
  v1::Event e = Ev(1);
  e.mutable_text_delta()->set_text("PARTIAL-DISCARDED ");
  printer.Print(e);
  e = Ev(2);
  e.mutable_stream_reset()->set_reason("connection reset");
  printer.Print(e);
  e = Ev(3);
  e.mutable_text_delta()->set_text("The ans");
  printer.Print(e);
  v1::Event resync;
  resync.mutable_resync()->set_last_delivered_seq(3);
  printer.Print(resync);
  e = Ev(4);
  e.mutable_assistant_message()->set_text("The answer.");
  printer.Print(e);
  e = Ev(5);
  e.mutable_tool_started()->set_name("read_file");
  printer.Print(e);
  e = Ev(6);
  e.mutable_text_delta()->set_text("Done");
  printer.Print(e);
  e = Ev(7);
  e.mutable_assistant_message()->set_text("Done");
  printer.Print(e);
  EXPECT_EQ(out.str(), "The answer.\nDone\n");
  EXPECT_NE(err.str().find("[the response restarted (connection reset)]\n"), std::string::npos)
      << err.str();
  EXPECT_EQ(err.str().find("partial text"), std::string::npos) << err.str();
}

TEST(EventPrinterTest, AnInterruptedMessageIsMarkedAsOutsideTheModelContext) {
  std::ostringstream out, err;
  EventPrinter printer(OutputFormat::kText, out, err);
  v1::Event e = Ev(1);
  e.mutable_text_delta()->set_text("Half an ans");
  printer.Print(e);
  e = Ev(2);
  e.mutable_assistant_message()->set_text("Half an ans");
  e.mutable_assistant_message()->set_interrupted(true);
  printer.Print(e);
  EXPECT_EQ(out.str(), "Half an ans\n");
  EXPECT_EQ(err.str(),
            "[interrupted: this partial answer is kept in the history but is not part of the "
            "model's context]\n");
}

TEST(EventPrinterTest, TextShowsCompactionStartChunksAndResult) {
  std::ostringstream out, err;
  EventPrinter printer(OutputFormat::kText, out, err);
  v1::Event e = Ev(1);
  e.mutable_text_delta()->set_text("Working");
  printer.Print(e);
  e = Ev(2);
  e.mutable_compaction_started()->set_trigger(v1::COMPACTION_TRIGGER_AUTOMATIC);
  e.mutable_compaction_started()->set_tokens_before(48200);
  e.mutable_compaction_started()->set_chunks(2);
  printer.Print(e);
  for (int chunk = 1; chunk <= 2; ++chunk) {
    e = Ev(2 + chunk);
    e.mutable_compaction_progress()->set_chunk(chunk);
    e.mutable_compaction_progress()->set_chunks(2);
    printer.Print(e);
  }
  e = Ev(5);
  e.mutable_compaction_ended()->set_outcome(v1::COMPACTION_OUTCOME_ACCEPTED);
  e.mutable_compaction_ended()->set_tokens_before(48200);
  e.mutable_compaction_ended()->set_tokens_after(6100);
  printer.Print(e);
  e = Ev(6);
  e.mutable_compaction_ended()->set_outcome(v1::COMPACTION_OUTCOME_REJECTED);
  e.mutable_compaction_ended()->set_message("the summary was empty");
  printer.Print(e);
  // The open line of text is ended first, so progress never splits it.
  EXPECT_EQ(out.str(), "Working\n");
  EXPECT_EQ(err.str(),
            "[compacting the context automatically (~48.2k tokens, 2 summaries)]\n"
            "[compacting: summary 1 of 2]\n"
            "[compacting: summary 2 of 2]\n"
            "[context compacted: ~48.2k → ~6.1k tokens]\n"
            "[compaction summary rejected; context unchanged (the summary was empty)]\n");
}

TEST(EventPrinterTest, JsonPrintsEveryEventAsOneLineAndNothingElse) {
  std::ostringstream out, err;
  EventPrinter printer(OutputFormat::kJson, out, err);
  auto events = TurnEvents();
  for (const auto& e : events) printer.Print(e);
  printer.EndText();
  EXPECT_EQ(err.str(), "");
  std::vector<std::string> lines = absl::StrSplit(out.str(), '\n', absl::SkipEmpty());
  ASSERT_EQ(lines.size(), events.size());
  for (size_t i = 0; i < lines.size(); ++i) {
    auto json = ParseJson(lines[i]);
    ASSERT_TRUE(json.ok()) << lines[i];
    EXPECT_EQ((*json)["session_id"], "s1");
    EXPECT_EQ((*json)["seq"], std::to_string(i + 1)) << "uint64 is a string in proto JSON";
  }
  auto delta = ParseJson(lines[1]);
  EXPECT_EQ((*delta)["text_delta"]["text"], "Let me ");
  auto batch = ParseJson(lines[4]);
  EXPECT_EQ((*batch)["tool_call_batch"]["calls"][0]["call_id"], "c1");
  auto result = ParseJson(lines[8]);
  EXPECT_EQ((*result)["tool_result"]["status"], "TOOL_RESULT_STATUS_ERROR");
  EXPECT_EQ((*result)["tool_result"]["duration_ms"], "1500");
  auto ended = ParseJson(lines.back());
  EXPECT_EQ((*ended)["turn_ended"]["reason"], "TURN_END_REASON_COMPLETED");
}


// Nothing from the model, a tool, a hook or an MCP server reaches the
// terminal as an escape sequence; a character split between two deltas is
// kept whole.
TEST(EventPrinterTest, TextStripsControlSequencesFromEverythingItPrints) {
  std::ostringstream out, err;
  EventPrinter printer(OutputFormat::kText, out, err);
  const std::string esc = "\x1b[1A\x1b[2K";
  const std::string replaced = "\xEF\xBF\xBD[1A\xEF\xBF\xBD[2K";
  v1::Event e = Ev(1);
  e.mutable_text_delta()->set_text("caf\xC3");  // "café" split inside the é
  printer.Print(e);
  e = Ev(2);
  e.mutable_text_delta()->set_text("\xA9 " + esc + "\tend");
  printer.Print(e);
  e = Ev(3);
  e.mutable_tool_result()->set_name("bash" + esc);
  e.mutable_tool_result()->set_status(v1::TOOL_RESULT_STATUS_ERROR);
  e.mutable_tool_result()->set_content("boom" + esc + "\n");
  printer.Print(e);
  e = Ev(4);
  e.mutable_notice()->set_text("hook says " + esc);
  printer.Print(e);
  e = Ev(5);
  auto* call = e.mutable_approval_requested()->add_calls();
  call->set_tool("mcp/x/y");
  call->set_arguments(R"({"a":"\u001b[1A"})");
  call->set_state(v1::APPROVAL_STATE_PENDING);
  call->set_reason("because " + esc);
  printer.Print(e);
  printer.EndText();
  EXPECT_EQ(out.str(), "caf\xC3\xA9 " + replaced + "\tend\n");
  EXPECT_EQ(err.str().find('\x1b'), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("bash" + replaced), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("boom" + replaced), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("hook says " + replaced), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("because " + replaced), std::string::npos) << err.str();
  EXPECT_NE(err.str().find("a: \xEF\xBF\xBD[1A"), std::string::npos) << err.str();
}

}  // namespace
}  // namespace raw::cli
