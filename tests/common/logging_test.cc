#include "common/logging.h"

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <string>

#include "absl/strings/str_replace.h"
#include "gtest/gtest.h"

namespace raw {
namespace {

std::string ReadAll(const std::string& path) {
  std::ifstream in(path);
  return std::string(std::istreambuf_iterator<char>(in), {});
}

TEST(LoggingTest, AFilterSeesEveryMessageBeforeItIsWrittenUntilItIsRemoved) {
  char tmpl[] = "/tmp/raw-logging-test-XXXXXX";
  int fd = mkstemp(tmpl);
  ASSERT_GE(fd, 0);
  close(fd);
  const std::string path = tmpl;
  ASSERT_TRUE(SetLogFile(path, /*also_stderr=*/false));

  SetLogFilter([](const std::string& text) {
    return absl::StrReplaceAll(text, {{"hunter2", "[redacted]"}});
  });
  RAW_LOG(Warning) << "the server said: password hunter2 rejected";
  SetLogFilter(nullptr);
  RAW_LOG(Info) << "unfiltered hunter2";

  std::string text = ReadAll(path);
  EXPECT_NE(text.find("the server said: password [redacted] rejected"), std::string::npos) << text;
  EXPECT_EQ(text.find("password hunter2"), std::string::npos) << text;
  EXPECT_NE(text.find("unfiltered hunter2"), std::string::npos) << text;
  // Back to stderr for the rest of the test binary.
  ASSERT_FALSE(SetLogFile("/nonexistent-dir/raw.log", true));
  unlink(path.c_str());
}

}  // namespace
}  // namespace raw
