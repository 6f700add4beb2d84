#include "clients/present/tool_text.h"

#include "gtest/gtest.h"

namespace raw::present {
namespace {

TEST(KeyArgumentTest, PicksTheIdentifyingField) {
  EXPECT_EQ(KeyArgument(R"({"limit":5,"path":"a/b.cc"})"), "a/b.cc");
  EXPECT_EQ(KeyArgument(R"({"timeout":5,"command":"ls -la"})"), "ls -la");
  EXPECT_EQ(KeyArgument(R"({"n":1,"whatever":"first string"})"), "first string");
  EXPECT_EQ(KeyArgument(R"({"n":1})"), "");
  EXPECT_EQ(KeyArgument("not json"), "");
  EXPECT_EQ(KeyArgument(R"(["path"])"), "");
  std::string long_command(200, 'x');
  EXPECT_EQ(KeyArgument(R"({"command":")" + long_command + "\"}"), std::string(80, 'x') + "...");
}
TEST(ArgumentLinesTest, OneLinePerField) {
  EXPECT_EQ(ArgumentLines(R"({"path":"a.cc","limit":5})"),
            (std::vector<std::string>{"limit: 5", "path: a.cc"}));
  EXPECT_TRUE(ArgumentLines("{}").empty());
  EXPECT_EQ(ArgumentLines("raw text"), (std::vector<std::string>{"raw text"}));
}

TEST(ToolStatusNameTest, NamesEveryStatus) {
  EXPECT_EQ(ToolStatusName(v1::TOOL_RESULT_STATUS_OK), "ok");
  EXPECT_EQ(ToolStatusName(v1::TOOL_RESULT_STATUS_SKIPPED), "skipped");
  EXPECT_EQ(NoticeLevelName(v1::NOTICE_LEVEL_WARNING), "warning");
}

TEST(ResultSummaryTest, FirstLineAndLineCount) {
  EXPECT_EQ(ResultSummary("builtin/read_file", "one\ntwo\nthree\n", "…"), "one … (3 lines)");
  EXPECT_EQ(ResultSummary("builtin/read_file", "  only  \n", "…"), "only");
  EXPECT_EQ(ResultSummary("builtin/read_file", "", "..."), "(no output)");
}

TEST(ResultSummaryTest, ABashRunWithoutOutputShowsItsExitStatus) {
  EXPECT_EQ(ResultSummary("builtin/bash", "(no output)\n[exit code 0]", "…"), "(no output, exit 0)");
  EXPECT_EQ(ResultSummary("bash", "(no output)\n[exit code 3]\n", "…"), "(no output, exit 3)");
  EXPECT_EQ(ResultSummary("builtin/bash", "(no output)\n[killed by signal 9 (SIGKILL)]", "…"),
            "(no output, killed by signal 9 (SIGKILL))");
  // The bash tool's shape under another name (an alias the model was given)
  // is read the same way, never as two lines.
  EXPECT_EQ(ResultSummary("shell", "(no output)\n[exit code 0]", "…"), "(no output, exit 0)");
  // Output and a successful exit: the output only.
  EXPECT_EQ(ResultSummary("builtin/bash", "hello\n[exit code 0]", "…"), "hello");
  // A failed exit is shown after the output.
  EXPECT_EQ(ResultSummary("builtin/bash", "make: error\nstop\n[exit code 2]", "…"),
            "make: error … (2 lines) · exit code 2");
  // Other tools keep a bracketed last line as output.
  EXPECT_EQ(ResultSummary("builtin/read_file", "[x]", "…"), "[x]");
}

TEST(ResultSummaryTest, DiffsAreCounted) {
  EXPECT_EQ(ResultSummary("builtin/edit_file",
                          "--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n-old\n+new\n+more\n ctx\n", "…"),
            "diff: +2 -1");
}

}  // namespace
}  // namespace raw::present
