// The dashboard's prompts in a real browser (see dashboard_browser_test.cc):
// what an approval prompt offers for each call of a batch, a handover
// request arriving while the user types, and a prompt whose turn is still
// being prepared.
#include "absl/strings/str_cat.h"
#include "gmock/gmock.h"
#include "tests/e2e/dashboard_browser/browser_fixture.h"

namespace raw::e2e {
namespace {

using ::testing::HasSubstr;

// Another tab asks to write while the writer types in the message box: the
// focus stays there, the typed keys land in the box, nothing hands over.
TEST_F(DashboardBrowserTest, AHandoverRequestLeavesTheTypingInTheMessageBox) {
  StartAll();
  if (IsSkipped()) return;
  Json r = Drive("handover");
  EXPECT_EQ(r.value("focusedOnRequest", ""), "compose");
  EXPECT_EQ(r.value("focused", ""), "compose");
  EXPECT_EQ(r.value("compose", ""), "fix the tests more");
  EXPECT_EQ(r.value("lease", ""), "holding");
  EXPECT_EQ(r.value("releases", -1), 0);
  EXPECT_EQ(r.value("otherAfterDecline", ""), "follower");
}

}  // namespace
}  // namespace raw::e2e
