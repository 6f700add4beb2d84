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
// Tool results are shortened to a few lines. Single-threaded.
#pragma once

#include <ostream>
#include <string>

#include "raw/v1/event.pb.h"

namespace raw::cli {

class HistoryPrinter {
 public:
  explicit HistoryPrinter(std::ostream& out);

  void Print(const v1::Event& event);

 private:
  void PrintUser(const v1::Event& event, const std::string& text);

  std::ostream& out_;
  // The turn whose user text was printed (from TurnStarted), so that a
  // UserMessage repeating it is not printed twice.
  std::string user_turn_id_;
  std::string user_text_;
  bool first_turn_ = true;
};

}  // namespace raw::cli
