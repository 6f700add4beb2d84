// Holds the source tree to the layers contract of docs/architecture.md: every
// #include of every .h and .cc under common/, daemon/ and clients/.
#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "gtest/gtest.h"
#include "tests/layers/layer_contract.h"

namespace raw::layers {
namespace {

namespace fs = std::filesystem;

const fs::path kRoot = RAW_SOURCE_DIR;

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

Contract RealContract() {
  absl::StatusOr<Contract> contract = ParseContract(ReadFile(kRoot / "docs/architecture.md"));
  EXPECT_TRUE(contract.ok()) << contract.status();
  return contract.ok() ? *std::move(contract) : Contract{};
}

// Source files below `dir`, relative to the root, in a stable order.
std::vector<std::string> SourcesUnder(const std::string& dir) {
  std::vector<std::string> files;
  for (const fs::directory_entry& entry : fs::recursive_directory_iterator(kRoot / dir)) {
    const std::string ext = entry.path().extension().string();
    if (entry.is_regular_file() && (ext == ".h" || ext == ".cc")) {
      files.push_back(entry.path().lexically_relative(kRoot).generic_string());
    }
  }
  std::sort(files.begin(), files.end());
  return files;
}

TEST(SourceTreeTest, EveryIncludeKeepsToTheLayersContract) {
  const Contract contract = RealContract();
  ASSERT_FALSE(contract.named.empty());
  std::vector<std::string> violations;
  size_t checked = 0;
  for (const char* dir : {"common", "daemon", "clients"}) {
    for (const std::string& file : SourcesUnder(dir)) {
      ++checked;
      for (const Violation& v : CheckFile(contract, file, ReadFile(kRoot / file))) {
        violations.push_back(v.ToString());
      }
    }
  }
  EXPECT_GT(checked, 100u);
  EXPECT_TRUE(violations.empty())
      << violations.size() << " includes break the layers contract of docs/architecture.md:\n"
      << absl::StrJoin(violations, "\n");
}

TEST(SourceTreeTest, EveryModuleOfTheContractExists) {
  for (const auto& [module, named] : RealContract().named) {
    const fs::path path = kRoot / module;
    EXPECT_TRUE(fs::is_directory(path) || fs::exists(path.string() + ".h") ||
                fs::exists(path.string() + ".cc"))
        << "docs/architecture.md names " << module << ", which is no folder or file";
  }
}

}  // namespace
}  // namespace raw::layers
