// The plain text of rendered lines, each followed by a newline: what the
// renderer tests compare.
#pragma once

#include <string>

#include "clients/tui/styled_line.h"

namespace raw::tui {

inline std::string LinesText(const Lines& lines) {
  std::string out;
  for (const auto& l : lines) out += l.PlainText() + "\n";
  return out;
}

}  // namespace raw::tui
