#include "clients/cli/history_printer.h"

#include <sstream>

#include "gtest/gtest.h"

namespace raw::cli {
namespace {

v1::Event Ev(const std::string& turn) {
  v1::Event e;
  e.set_turn_id(turn);
  return e;
}

TEST(HistoryPrinterTest, PrintsATranscript) {
  std::vector<v1::Event> events;
  v1::Event e = Ev("t1");
  e.mutable_turn_started()->set_user_text("fix the test");
  events.push_back(e);
  e = Ev("t1");
  e.mutable_user_message()->set_text("fix the test");  // same text: not repeated
  events.push_back(e);
  e = Ev("t1");
  e.mutable_assistant_message()->set_text("Looking.\n\n");
  events.push_back(e);
  e = Ev("t1");
  auto* call = e.mutable_tool_call_batch()->add_calls();
  call->set_name("read_file");
  call->set_arguments("{\"path\":\n\"a.cc\"}");
  events.push_back(e);
  e = Ev("t1");
  e.mutable_tool_result()->set_name("read_file");
  e.mutable_tool_result()->set_status(v1::TOOL_RESULT_STATUS_OK);
  e.mutable_tool_result()->set_duration_ms(3);
  e.mutable_tool_result()->set_content("l1\nl2\nl3\nl4\nl5\nl6\n");
  events.push_back(e);
  e = Ev("t1");
  e.mutable_text_delta()->set_text("never stored, never shown");
  events.push_back(e);
  e = Ev("t1");
  e.mutable_notice()->set_level(v1::NOTICE_LEVEL_ERROR);
  e.mutable_notice()->set_text("provider said no");
  events.push_back(e);
  e = Ev("t1");
  e.mutable_turn_ended()->set_reason(v1::TURN_END_REASON_ERROR);
  e.mutable_turn_ended()->set_steps(2);
  e.mutable_turn_ended()->set_message("HTTP 500\nbody");
  events.push_back(e);
  e = Ev("t2");
  e.mutable_turn_started()->set_user_text("again");
  events.push_back(e);
  e = Ev("t2");
  e.mutable_turn_ended()->set_reason(v1::TURN_END_REASON_COMPLETED);
  e.mutable_turn_ended()->set_steps(1);
  events.push_back(e);

  std::ostringstream out;
  HistoryPrinter printer(out);
  for (const auto& ev : events) printer.Print(ev);
  EXPECT_EQ(out.str(),
            "[-] you: fix the test\n"
            "Looking.\n"
            "  -> read_file {\"path\": \"a.cc\"}\n"
            "  <- read_file ok (3 ms)\n"
            "     l1\n"
            "     l2\n"
            "     l3\n"
            "     l4\n"
            "     ...\n"
            "  [error] provider said no\n"
            "-- turn failed (2 steps): HTTP 500 body\n"
            "\n"
            "[-] you: again\n"
            "-- turn completed (1 step)\n");
}

TEST(HistoryPrinterTest, APromptsImagesAreListedUnderItsText) {
  std::ostringstream out;
  HistoryPrinter printer(out);
  v1::Event e = Ev("t1");
  e.mutable_turn_started()->set_user_text("what is this?");
  printer.Print(e);
  e = Ev("t1");
  e.mutable_user_message()->set_text("what is this?");
  v1::Image* image = e.mutable_user_message()->add_images();
  image->set_mime_type("image/png");
  image->set_data(std::string(34 * 1024, 'x'));
  image->set_width(800);
  image->set_height(600);
  printer.Print(e);
  EXPECT_EQ(out.str(), "[-] you: what is this?\n[image: PNG, 800x600, 34 KB]\n");
}

v1::Event RavenResult() {
  v1::Event e = Ev("t1");
  auto* r = e.mutable_tool_result();
  r->set_name("raven_task");
  r->set_status(v1::TOOL_RESULT_STATUS_OK);
  r->set_duration_ms(2);
  r->set_display("Raven rvn-0123456789ab-1 · active\nSources 3 · Claims 2 · Limitations 1\n");
  r->set_content("# Artifact\nl1\nl2\nl3\nl4\nl5\nthe last line of the artifact\n");
  return e;
}

TEST(HistoryPrinterTest, AResultWithACardShowsTheCard) {
  std::ostringstream out;
  HistoryPrinter printer(out);
  printer.Print(RavenResult());
  EXPECT_EQ(out.str(),
            "  <- raven_task ok (2 ms)\n"
            "     Raven rvn-0123456789ab-1 · active\n"
            "     Sources 3 · Claims 2 · Limitations 1\n");
}

TEST(HistoryPrinterTest, FullPrintsTheCardThenTheWholeResult) {
  std::ostringstream out;
  HistoryPrinter printer(out, /*full_results=*/true);
  printer.Print(RavenResult());
  std::string text = out.str();
  EXPECT_NE(text.find("     Sources 3 · Claims 2 · Limitations 1\n     --\n     # Artifact\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("     the last line of the artifact\n"), std::string::npos) << text;
}

TEST(HistoryPrinterTest, TextFromTheDaemonCannotDriveTheTerminal) {
  std::vector<v1::Event> events;
  v1::Event e = Ev("t1");
  e.mutable_turn_started()->set_user_text("hi \x1b[31m");
  events.push_back(e);
  e = Ev("t1");
  e.mutable_assistant_message()->set_text("answer \x1b]52;c;aGk=\x07");
  events.push_back(e);
  e = Ev("t1");
  auto* call = e.mutable_tool_call_batch()->add_calls();
  call->set_name("bash\x1b[2J");
  call->set_arguments("{\"command\":\"\x1b[1A\"}");
  events.push_back(e);
  e = Ev("t1");
  e.mutable_tool_result()->set_name("bash");
  e.mutable_tool_result()->set_content("out \x1b[2J\n");
  events.push_back(e);
  e = Ev("t1");
  e.mutable_notice()->set_text("notice \x1b[H");
  events.push_back(e);
  for (bool full : {false, true}) {
    std::ostringstream out;
    HistoryPrinter printer(out, full);
    for (const auto& ev : events) printer.Print(ev);
    EXPECT_EQ(out.str().find('\x1b'), std::string::npos) << out.str();
    EXPECT_EQ(out.str().find('\x07'), std::string::npos) << out.str();
    EXPECT_NE(out.str().find("answer "), std::string::npos) << out.str();
  }
}

}  // namespace
}  // namespace raw::cli
