#include "clients/tui/palette.h"

#include "gtest/gtest.h"

namespace raw::tui {
namespace {

TEST(PaletteTest, DepthFollowsTheTerminalUnlessColoursAreOff) {
  EXPECT_EQ(Palette::DepthFor(256, /*no_color=*/false, /*plain=*/false), ColorDepth::k256);
  EXPECT_EQ(Palette::DepthFor(88, false, false), ColorDepth::k16);
  EXPECT_EQ(Palette::DepthFor(16, false, false), ColorDepth::k16);
  EXPECT_EQ(Palette::DepthFor(8, false, false), ColorDepth::k8);
  EXPECT_EQ(Palette::DepthFor(2, false, false), ColorDepth::kNone);
  EXPECT_EQ(Palette::DepthFor(256, /*no_color=*/true, false), ColorDepth::kNone);
  EXPECT_EQ(Palette::DepthFor(256, false, /*plain=*/true), ColorDepth::kNone);
}

TEST(PaletteTest, WithoutColoursEveryRoleKeepsADistinctAttributeButNoColour) {
  Palette none(ColorDepth::kNone);
  for (int r = 0; r < static_cast<int>(Role::kCount); ++r) {
    const RoleLook& look = none.Look(static_cast<Role>(r));
    EXPECT_EQ(look.fg, -1) << "role " << r;
    EXPECT_EQ(look.bg, -1) << "role " << r;
  }
  EXPECT_TRUE(none.Look(Role::kLink).attrs & kAttrUnderline);
  EXPECT_TRUE(none.Look(Role::kFooter).attrs & kAttrReverse);
  EXPECT_TRUE(none.Look(Role::kDiffAdd).attrs & kAttrBold);
  EXPECT_TRUE(none.Look(Role::kDim).dim);
}

TEST(PaletteTest, SixteenAndEightColourTerminalsGetOnlyBasicColours) {
  for (ColorDepth depth : {ColorDepth::k8, ColorDepth::k16}) {
    Palette palette(depth);
    int limit = depth == ColorDepth::k8 ? 8 : 16;
    for (int r = 0; r < static_cast<int>(Role::kCount); ++r) {
      const RoleLook& look = palette.Look(static_cast<Role>(r));
      EXPECT_LT(look.fg, limit) << "role " << r;
      EXPECT_LT(look.bg, limit) << "role " << r;
    }
  }
  EXPECT_EQ(Palette(ColorDepth::k8).Look(Role::kCode).fg, 3);
  EXPECT_EQ(Palette(ColorDepth::k16).Look(Role::kCode).fg, 11);
  EXPECT_EQ(Palette(ColorDepth::k256).Look(Role::kCode).fg, 180);
}

}  // namespace
}  // namespace raw::tui
