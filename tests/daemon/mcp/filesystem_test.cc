// The official reference server @modelcontextprotocol/server-filesystem over
// stdio: tools restricted to one temporary directory.
#include "absl/strings/str_join.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "mcp_test_support.h"

namespace raw::mcp {
namespace {

using ::testing::Contains;
using ::testing::Each;
using testing::FindSpec;
using ::testing::HasSubstr;
using testing::ManagerHarness;
using testing::QualifiedNames;
using ::testing::StartsWith;
using testing::TempDir;
using testing::TestContext;

TEST(FilesystemTest, ReadsInsideTheRootAndRefusesOutside) {
  std::string why;
  if (!testing::ReferenceServersInstalled(&why)) GTEST_SKIP() << why;
  TempDir root;
  testing::WriteFile(root.Join("hello.txt"), "line one\nline two\n");
  ManagerHarness harness;
  config::McpServerConfig server = testing::FilesystemStdio(root.path());

  McpSelection all = harness.Select({"mcp/fs/*"}, {server});
  ASSERT_FALSE(all.tools.empty()) << absl::StrJoin(all.notices, "\n");
  const tools::ToolSpec* read = FindSpec(all.tools, "mcp/fs/read_text_file");
  const tools::ToolSpec* write = FindSpec(all.tools, "mcp/fs/write_file");
  ASSERT_NE(read, nullptr);
  ASSERT_NE(write, nullptr);
  EXPECT_TRUE(read->read_only);
  EXPECT_FALSE(write->read_only);
  EXPECT_EQ(read->model_name, "mcp__fs__read_text_file");

  // Only the read tools.
  McpSelection reads = harness.Select({"mcp/fs/read_*"}, {server});
  EXPECT_THAT(QualifiedNames(reads.tools), Each(StartsWith("mcp/fs/read_")));
  EXPECT_THAT(QualifiedNames(reads.tools), Contains("mcp/fs/read_text_file"));

  TestContext context;
  tools::ToolOutput text = read->handler({{"path", root.Join("hello.txt")}}, context.Get());
  EXPECT_EQ(text.status, events::ToolStatus::kOk);
  // The text and its structuredContent copy are given once.
  EXPECT_EQ(text.content, "line one\nline two\n");

  tools::ToolOutput denied = read->handler({{"path", "/etc/hostname"}}, context.Get());
  EXPECT_EQ(denied.status, events::ToolStatus::kError);
  EXPECT_THAT(denied.content, HasSubstr("Access denied"));

  tools::ToolOutput written = write->handler(
      {{"path", root.Join("new.txt")}, {"content", "written by raw"}}, context.Get());
  EXPECT_EQ(written.status, events::ToolStatus::kOk) << written.content;
  EXPECT_EQ(testing::ReadFile(root.Join("new.txt")), "written by raw");
}

}  // namespace
}  // namespace raw::mcp
