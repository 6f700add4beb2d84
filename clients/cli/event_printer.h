// EventPrinter: renders the live event stream of one turn for `raw run`.
//
// Text format: the assistant's text goes to `out` as it streams (flushed
// after every piece, and ended with a newline once each message is
// committed), or, without `stream_text` (`out` is not a terminal but a pipe
// or a file a script reads), each message whole once it is committed, so
// that text a restarted stream discarded never reaches `out`; tool activity
// and notices go to `err`, one line each:
//   -> read_file src/main.cc                  (a tool started, key argument)
//   <- read_file ok (12 ms)                   (its result)
//   <- bash error (1.2 s): command not found  (first line of a failure)
//   [warning] ...                             (a notice)
// Everything from the model, a tool, a hook or an MCP server passes through
// present::SanitizeForTerminal (tabs kept): no escape sequence or control
// character in it reaches the terminal.
// JSON format: every event is one JSON object on its own line of `out`
// (JSON Lines, proto field names) and nothing else is written to `out`.
//
// Single-threaded: one printer is fed by the thread reading the stream.
#pragma once

#include <map>
#include <ostream>
#include <string>

#include "raw/v1/event.pb.h"

namespace raw::cli {

enum class OutputFormat { kText, kJson };

class EventPrinter {
 public:
  EventPrinter(OutputFormat format, std::ostream& out, std::ostream& err, bool stream_text = true);

  void Print(const v1::Event& event);

  // Ends an unterminated line of assistant text on `out` (text format), so
  // that what follows starts on a line of its own.
  void EndText();

  OutputFormat format() const { return format_; }

 private:
  void PrintJson(const v1::Event& event);
  void WriteText(const std::string& text);
  void PrintToolStarted(const v1::ToolStarted& started);
  void PrintToolResult(const v1::ToolResult& result);
  // "[text]" on its own line of `err`, after any open line of text.
  void PrintStatus(const std::string& text);

  OutputFormat format_;
  bool stream_text_;
  std::ostream& out_;
  std::ostream& err_;
  // Arguments of announced tool calls, by call id, to name the key argument
  // when the call starts.
  std::map<std::string, std::string> call_arguments_;
  // Text deltas of the current step were written to `out`.
  bool step_streamed_ = false;
  // The last character written to `out` was not a newline.
  bool line_open_ = false;
  // The start of a UTF-8 character whose last bytes are in the next delta.
  std::string held_utf8_;
  // Deltas may have been missed (resync): print committed messages whole.
  bool missed_deltas_ = false;
};

}  // namespace raw::cli
