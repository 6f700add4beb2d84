// LineFramer: cuts a newline-delimited JSON-RPC byte stream into messages,
// one per line: what an editor writes to raw-acp, what an MCP server writes
// to its standard output.
//
// Bytes come in chunks cut anywhere; each '\n' ends a line. A trailing '\r'
// is dropped and lines of only spaces and tabs are skipped. A line longer
// than the limit is not kept: the rest of it is skipped and it is reported
// once, with how many bytes it had, when its '\n' arrives. The result does
// not depend on where the chunks were cut.
//
// Not thread-safe; one reader feeds it.
#pragma once

#include <cstddef>
#include <functional>
#include <string>
#include <string_view>

namespace raw {

class LineFramer {
 public:
  explicit LineFramer(size_t max_line_bytes) : max_line_bytes_(max_line_bytes) {}

  // Calls on_line(message) for each whole line, and on_overlong(bytes) for
  // each line over the limit, in order. Either may return false to stop:
  // Feed then returns false and drops the rest of the chunk.
  bool Feed(std::string_view chunk, const std::function<bool(std::string)>& on_line,
            const std::function<bool(size_t)>& on_overlong);

  // Whether the unfinished line is already over the limit (and being
  // skipped). A reader that gives up on an overlong message can stop here,
  // without waiting for a newline that may never come.
  bool skipping() const { return skipping_; }

 private:
  const size_t max_line_bytes_;
  std::string line_;
  bool skipping_ = false;  // inside a line over the limit
  size_t skipped_ = 0;
};

}  // namespace raw
