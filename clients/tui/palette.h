// Palette: how each Role looks on the terminal at hand.
//
// Colour depth comes from the terminal (256, 16 or 8 colours) and can be
// turned off: NO_COLOR set to anything (https://no-color.org) keeps the
// attributes (bold, underline, reverse) but drops every colour; plain mode
// (--plain) drops colours too and goes with ASCII glyphs. Roles that lose
// their colour fall back to attributes, so that code, links and diffs stay
// distinguishable.
//
// Pure mapping; the curses colour pairs are created by the screen once.
#pragma once

#include <array>
#include <cstdint>

#include "clients/tui/styled_line.h"

namespace raw::tui {

enum class ColorDepth { kNone, k8, k16, k256 };

// A colour: -1 is the terminal's default, 0..255 an indexed colour.
struct RoleLook {
  int fg = -1;
  int bg = -1;
  uint8_t attrs = kAttrNone;  // added to the span's own
  bool dim = false;           // A_DIM
};

class Palette {
 public:
  // `colors` as the terminal reports them (COLORS).
  static ColorDepth DepthFor(int colors, bool no_color, bool plain);
  explicit Palette(ColorDepth depth);

  ColorDepth depth() const { return depth_; }
  const RoleLook& Look(Role role) const { return looks_[static_cast<size_t>(role)]; }

 private:
  ColorDepth depth_;
  std::array<RoleLook, static_cast<size_t>(Role::kCount)> looks_;
};

}  // namespace raw::tui
