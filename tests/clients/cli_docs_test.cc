// docs/cli.md against the CLI itself: the options of `raw run` and the line
// that marks the systemd units Raw writes.
#include <fstream>
#include <sstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "clients/cli/run_command.h"
#include "clients/cli/service_units.h"
#include "gtest/gtest.h"

namespace raw::cli {
namespace {

std::string CliDoc() {
  std::ifstream in(RAW_SOURCE_DIR "/docs/cli.md");
  EXPECT_TRUE(in.good());
  std::stringstream text;
  text << in.rdbuf();
  return text.str();
}

TEST(CliDocsTest, RawRunListsEveryOptionInItsSynopsisAndTable) {
  const std::string doc = CliDoc();
  const size_t synopsis = doc.find("\nraw run [");
  ASSERT_NE(synopsis, std::string::npos);
  const std::string synopsis_line =
      doc.substr(synopsis + 1, doc.find('\n', synopsis + 1) - synopsis);
  for (const OptionSpec& spec : RunOptionSpecs()) {
    if (spec.name == "--help") continue;
    EXPECT_NE(synopsis_line.find("[" + spec.name), std::string::npos) << spec.name;
    // --socket is the global option, described once above.
    if (spec.name == "--socket") continue;
    EXPECT_NE(doc.find(absl::StrCat("| `", spec.name), synopsis), std::string::npos)
        << spec.name << " has no row in the option table";
  }
}

TEST(CliDocsTest, TheUnitMarkerIsQuotedAsWritten) {
  EXPECT_NE(CliDoc().find(absl::StrCat("``", kUnitMarker, "``")), std::string::npos);
}

}  // namespace
}  // namespace raw::cli
