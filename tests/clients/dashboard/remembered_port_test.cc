#include "clients/dashboard/remembered_port.h"

#include <stdlib.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"

namespace raw::dashboard {
namespace {

class RememberedPortTest : public ::testing::Test {
 protected:
  void SetUp() override {
    char tmpl[] = "/tmp/raw_port_XXXXXX";
    base_ = mkdtemp(tmpl);
    path_ = RememberedPortPath(base_ + "/state/raw");
  }
  void TearDown() override { std::filesystem::remove_all(base_); }
  void Write(const std::string& text) {
    std::filesystem::create_directories(base_ + "/state/raw");
    std::ofstream(path_) << text;
  }
  std::string base_;
  std::string path_;
};

TEST_F(RememberedPortTest, WrittenThenReadBack) {
  EXPECT_EQ(path_, base_ + "/state/raw/dashboard-port");
  EXPECT_EQ(ReadRememberedPort(path_), std::nullopt);  // no file yet
  ASSERT_TRUE(RememberPort(path_, 40123).ok());        // creates the directory
  EXPECT_EQ(ReadRememberedPort(path_), std::optional<uint16_t>(40123));
  ASSERT_TRUE(RememberPort(path_, 40124).ok());
  EXPECT_EQ(ReadRememberedPort(path_), std::optional<uint16_t>(40124));
  EXPECT_FALSE(std::filesystem::exists(path_ + ".tmp"));
}

TEST_F(RememberedPortTest, OnlyAPortNumberCounts) {
  for (const char* bad : {"", "0", "65536", "-1", "80a", "12 34", "999999", "0x50"}) {
    Write(bad);
    EXPECT_EQ(ReadRememberedPort(path_), std::nullopt) << bad;
  }
  Write(" 8080\n");
  EXPECT_EQ(ReadRememberedPort(path_), std::optional<uint16_t>(8080));
}

}  // namespace
}  // namespace raw::dashboard
