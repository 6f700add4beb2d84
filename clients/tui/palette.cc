#include "clients/tui/palette.h"

namespace raw::tui {
namespace {

void Set(std::array<RoleLook, static_cast<size_t>(Role::kCount)>& looks, Role role, RoleLook look) {
  looks[static_cast<size_t>(role)] = look;
}

}  // namespace

ColorDepth Palette::DepthFor(int colors, bool no_color, bool plain) {
  if (no_color || plain || colors < 8) return ColorDepth::kNone;
  if (colors >= 256) return ColorDepth::k256;
  if (colors >= 16) return ColorDepth::k16;
  return ColorDepth::k8;
}

Palette::Palette(ColorDepth depth) : depth_(depth) {
  auto& l = looks_;
  switch (depth) {
    case ColorDepth::kNone:
      // Attributes only.
      Set(l, Role::kDim, {.dim = true});
      Set(l, Role::kAccent, {.attrs = kAttrBold});
      Set(l, Role::kUser, {.attrs = kAttrBold});
      Set(l, Role::kLink, {.attrs = kAttrUnderline});
      Set(l, Role::kQuote, {.dim = true});
      Set(l, Role::kBorder, {.dim = true});
      Set(l, Role::kError, {.attrs = kAttrBold});
      Set(l, Role::kWarning, {.attrs = kAttrBold});
      Set(l, Role::kDiffHunk, {.dim = true});
      Set(l, Role::kDiffAdd, {.attrs = kAttrBold});
      Set(l, Role::kFooter, {.attrs = kAttrReverse});
      Set(l, Role::kSelected, {.attrs = kAttrReverse});
      break;
    case ColorDepth::k8:
    case ColorDepth::k16: {
      bool bright = depth == ColorDepth::k16;
      Set(l, Role::kDim, {.dim = true});
      Set(l, Role::kAccent, {.fg = bright ? 14 : 6, .attrs = kAttrBold});
      Set(l, Role::kUser, {.fg = bright ? 15 : 7, .attrs = kAttrBold});
      Set(l, Role::kCode, {.fg = bright ? 11 : 3});
      Set(l, Role::kLink, {.fg = bright ? 12 : 4, .attrs = kAttrUnderline});
      Set(l, Role::kQuote, {.fg = 2});
      Set(l, Role::kBorder, {.dim = true});
      Set(l, Role::kOk, {.fg = 2});
      Set(l, Role::kRunning, {.fg = bright ? 14 : 6});
      Set(l, Role::kWaiting, {.fg = 3, .attrs = kAttrBold});
      Set(l, Role::kError, {.fg = 1});
      Set(l, Role::kWarning, {.fg = 3});
      Set(l, Role::kDiffAdd, {.fg = 2});
      Set(l, Role::kDiffDel, {.fg = 1});
      Set(l, Role::kDiffHunk, {.fg = 6});
      Set(l, Role::kFooter, {.fg = 0, .bg = 7});
      Set(l, Role::kSelected, {.attrs = kAttrReverse});
      break;
    }
    case ColorDepth::k256:
      Set(l, Role::kDim, {.fg = 245});
      Set(l, Role::kAccent, {.fg = 81, .attrs = kAttrBold});
      Set(l, Role::kUser, {.fg = 255, .bg = 236});
      Set(l, Role::kCode, {.fg = 180, .bg = 235});
      Set(l, Role::kLink, {.fg = 75, .attrs = kAttrUnderline});
      Set(l, Role::kQuote, {.fg = 108});
      Set(l, Role::kBorder, {.fg = 240});
      Set(l, Role::kOk, {.fg = 114});
      Set(l, Role::kRunning, {.fg = 81});
      Set(l, Role::kWaiting, {.fg = 221, .attrs = kAttrBold});
      Set(l, Role::kError, {.fg = 203});
      Set(l, Role::kWarning, {.fg = 221});
      Set(l, Role::kDiffAdd, {.fg = 114, .bg = 22});
      Set(l, Role::kDiffDel, {.fg = 210, .bg = 52});
      Set(l, Role::kDiffHunk, {.fg = 74});
      Set(l, Role::kFooter, {.fg = 252, .bg = 237});
      Set(l, Role::kSelected, {.fg = 255, .bg = 24});
      break;
  }
}

}  // namespace raw::tui
