// HistoryPrinter: renders a session's stored display history (GetHistory
// pages, oldest first) as a readable transcript for `raw sessions show`:
//
//   [2024-05-01 14:03] you: fix the failing test
//   I will look at the test first.
//     -> read_file {"path":"tests/a_test.cc"}
//     <- read_file ok (3 ms)
//        #include "a.h"
//        ...
//     [warning] ...
//   -- turn completed (2 steps)
//
// Tool results are shortened to a few lines, except a result's card (a
// `display` that is not a diff, e.g. a raven_task result), which is shown
// whole; with `full_results` every result is printed whole, its display
// first (the whole Raven Artifact is the content). Everything from the
// daemon passes SanitizeForStream: a model, a tool or a file cannot send
// control sequences to the terminal. Single-threaded.
#pragma once

#include <ostream>
#include <string>

#include "raw/v1/event.pb.h"

namespace raw::cli {

class HistoryPrinter {
 public:
  explicit HistoryPrinter(std::ostream& out, bool full_results = false);

  void Print(const v1::Event& event);

 private:
  void PrintUser(const v1::Event& event, const std::string& text);
  void PrintToolResult(const v1::ToolResult& result);
  // Each line of `text`, sanitized, after `indent`.
  void PrintIndented(const std::string& text, const char* indent);

  std::ostream& out_;
  bool full_results_;
  // The turn whose user text was printed (from TurnStarted), so that a
  // UserMessage repeating it is not printed twice.
  std::string user_turn_id_;
  std::string user_text_;
  bool first_turn_ = true;
};

}  // namespace raw::cli
