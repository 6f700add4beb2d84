#include <sys/stat.h>

#include <filesystem>
#include <string>

#include "daemon/tools/builtin/builtin_tools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools {
namespace {

namespace fs = std::filesystem;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::Call;
using testing::ReadText;
using testing::TempDir;
using testing::WriteText;

class EditFileTest : public ::testing::Test {
 protected:
  ToolOutput Edit(const Json& args) { return Call(spec_, args, dir_.path()); }

  TempDir dir_;
  ToolSpec spec_ = builtin::MakeEditFileTool();
};

TEST_F(EditFileTest, SpecIsAPathRuledWriteTool) {
  EXPECT_EQ(spec_.qualified_name, "builtin/edit_file");
  EXPECT_EQ(spec_.model_name, "edit_file");
  EXPECT_FALSE(spec_.read_only);
  EXPECT_EQ(spec_.rule_subject, RuleSubject::kPath);
  EXPECT_EQ(spec_.rule_argument, "path");
  EXPECT_EQ(spec_.input_schema["required"], OrderedJson({"path", "old_string", "new_string"}));
  EXPECT_EQ(spec_.input_schema["additionalProperties"], false);
}

TEST_F(EditFileTest, ReplacesAUniqueStringAndShowsTheDiff) {
  std::string path = dir_.Join("src/a.cc");
  WriteText(path, "int main() {\n  return 0;\n}\n");
  ToolOutput out = Edit({{"path", "src/a.cc"}, {"old_string", "return 0;"},
                         {"new_string", "return 1;"}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_EQ(out.content, "Replaced 1 occurrence in src/a.cc");
  EXPECT_EQ(ReadText(path), "int main() {\n  return 1;\n}\n");
  EXPECT_EQ(out.display,
            "--- src/a.cc\n"
            "+++ src/a.cc\n"
            "@@ -1,3 +1,3 @@\n"
            " int main() {\n"
            "-  return 0;\n"
            "+  return 1;\n"
            " }\n");
}

TEST_F(EditFileTest, MultiLineReplacementWithContextInTheDiff) {
  std::string text;
  for (int i = 1; i <= 12; ++i) text += "line " + std::to_string(i) + "\n";
  WriteText(dir_.Join("f.txt"), text);
  ToolOutput out = Edit({{"path", dir_.Join("f.txt")}, {"old_string", "line 6\nline 7\n"},
                         {"new_string", "six\n"}});
  ASSERT_EQ(out.status, events::ToolStatus::kOk) << out.content;
  EXPECT_EQ(out.display,
            "--- f.txt\n+++ f.txt\n@@ -3,8 +3,7 @@\n line 3\n line 4\n line 5\n-line 6\n"
            "-line 7\n+six\n line 8\n line 9\n line 10\n");
}

TEST_F(EditFileTest, ReplaceAllReplacesEveryOccurrence) {
  WriteText(dir_.Join("f.txt"), "foo bar foo\nfoo\n");
  ToolOutput out = Edit({{"path", "f.txt"}, {"old_string", "foo"}, {"new_string", "baz"},
                         {"replace_all", true}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_EQ(out.content, "Replaced 3 occurrences in f.txt");
  EXPECT_EQ(ReadText(dir_.Join("f.txt")), "baz bar baz\nbaz\n");
}

TEST_F(EditFileTest, AnEditThatWouldGrowTheFileOverTheLimitIsRefused) {
  // 1 MiB of one-byte matches, each replaced by 32 bytes: 32 MiB, twice the
  // size edit_file reads.
  const std::string text(1024 * 1024, 'a');
  WriteText(dir_.Join("f.txt"), text);
  ToolOutput out = Edit({{"path", "f.txt"},
                         {"old_string", "a"},
                         {"new_string", std::string(32, 'b')},
                         {"replace_all", true}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("16 MiB"));
  EXPECT_THAT(out.content, HasSubstr("f.txt"));
  EXPECT_EQ(ReadText(dir_.Join("f.txt")), text);

  // Right at the limit is still an edit.
  ToolOutput fits = Edit({{"path", "f.txt"},
                          {"old_string", "a"},
                          {"new_string", std::string(16, 'b')},
                          {"replace_all", true}});
  EXPECT_EQ(fits.status, events::ToolStatus::kOk) << fits.content;
  EXPECT_EQ(ReadText(dir_.Join("f.txt")).size(), 16u * 1024 * 1024);

  // A single replacement is bounded the same way.
  WriteText(dir_.Join("g.txt"), "x\n");
  ToolOutput single = Edit(
      {{"path", "g.txt"}, {"old_string", "x"}, {"new_string", std::string(16 * 1024 * 1024, 'y')}});
  EXPECT_EQ(single.status, events::ToolStatus::kError);
  EXPECT_EQ(ReadText(dir_.Join("g.txt")), "x\n");
}

TEST_F(EditFileTest, SeveralMatchesWithoutReplaceAllIsAnErrorAndChangesNothing) {
  WriteText(dir_.Join("f.txt"), "x = 1;\nx = 1;\n");
  ToolOutput out = Edit({{"path", "f.txt"}, {"old_string", "x = 1;"}, {"new_string", "x = 2;"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, StartsWith("old_string occurs 2 times in f.txt;"));
  EXPECT_THAT(out.content, HasSubstr("replace_all"));
  EXPECT_EQ(ReadText(dir_.Join("f.txt")), "x = 1;\nx = 1;\n");
}

TEST_F(EditFileTest, NoMatchIsAnErrorWithAHint) {
  WriteText(dir_.Join("f.txt"), "alpha\n");
  ToolOutput out = Edit({{"path", "f.txt"}, {"old_string", "beta"}, {"new_string", "gamma"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, StartsWith("old_string was not found in f.txt."));
  EXPECT_THAT(out.content, HasSubstr("read the file again"));
  EXPECT_EQ(ReadText(dir_.Join("f.txt")), "alpha\n");
}

TEST_F(EditFileTest, NoMatchInACrlfFileMentionsTheLineEndings) {
  WriteText(dir_.Join("dos.txt"), "one\r\ntwo\r\n");
  ToolOutput out = Edit({{"path", "dos.txt"}, {"old_string", "one\ntwo"}, {"new_string", "x"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("CRLF"));
}

TEST_F(EditFileTest, IdenticalStringsAndEmptyOldStringAreErrors) {
  WriteText(dir_.Join("f.txt"), "same\n");
  ToolOutput same = Edit({{"path", "f.txt"}, {"old_string", "same"}, {"new_string", "same"}});
  EXPECT_EQ(same.status, events::ToolStatus::kError);
  EXPECT_THAT(same.content, HasSubstr("identical"));
  ToolOutput empty = Edit({{"path", "f.txt"}, {"old_string", ""}, {"new_string", "x"}});
  EXPECT_EQ(empty.status, events::ToolStatus::kError);
  EXPECT_THAT(empty.content, HasSubstr("write_file"));
}

TEST_F(EditFileTest, MissingFileDirectoryAndBinaryFilesAreRefused) {
  ToolOutput missing = Edit({{"path", "nope.txt"}, {"old_string", "a"}, {"new_string", "b"}});
  EXPECT_EQ(missing.status, events::ToolStatus::kError);
  EXPECT_THAT(missing.content, StartsWith("file not found: nope.txt"));
  EXPECT_FALSE(fs::exists(dir_.Join("nope.txt")));

  fs::create_directory(dir_.Join("d"));
  ToolOutput dir = Edit({{"path", "d"}, {"old_string", "a"}, {"new_string", "b"}});
  EXPECT_EQ(dir.content, "d is a directory; edit_file edits files");

  WriteText(dir_.Join("blob.bin"), std::string("ab\0cd", 5));
  ToolOutput binary = Edit({{"path", "blob.bin"}, {"old_string", "ab"}, {"new_string", "x"}});
  EXPECT_EQ(binary.status, events::ToolStatus::kError);
  EXPECT_THAT(binary.content, HasSubstr("binary"));
  EXPECT_EQ(ReadText(dir_.Join("blob.bin")), std::string("ab\0cd", 5));

  WriteText(dir_.Join("latin1.txt"), "caf\xe9\n");
  ToolOutput latin1 = Edit({{"path", "latin1.txt"}, {"old_string", "caf"}, {"new_string", "x"}});
  EXPECT_EQ(latin1.status, events::ToolStatus::kError);
  EXPECT_THAT(latin1.content, HasSubstr("not UTF-8"));
}

TEST_F(EditFileTest, KeepsTheModeWritesAtomicallyAndFollowsSymlinks) {
  std::string path = dir_.Join("run.sh");
  WriteText(path, "echo old\n");
  ASSERT_EQ(chmod(path.c_str(), 0750), 0);
  fs::create_symlink("run.sh", dir_.Join("link.sh"));
  struct stat before;
  ASSERT_EQ(stat(path.c_str(), &before), 0);
  ToolOutput out = Edit({{"path", "link.sh"}, {"old_string", "old"}, {"new_string", "new"}});
  ASSERT_EQ(out.status, events::ToolStatus::kOk) << out.content;
  EXPECT_EQ(out.content, "Replaced 1 occurrence in run.sh");
  EXPECT_TRUE(fs::is_symlink(dir_.Join("link.sh")));
  EXPECT_EQ(ReadText(path), "echo new\n");
  struct stat after;
  ASSERT_EQ(stat(path.c_str(), &after), 0);
  EXPECT_EQ(after.st_mode & 07777, 0750u);
  EXPECT_NE(before.st_ino, after.st_ino);  // a new inode renamed into place
  int entries = 0;
  for ([[maybe_unused]] const auto& e : fs::directory_iterator(dir_.path())) ++entries;
  EXPECT_EQ(entries, 2);  // no temporary file left behind
}

TEST_F(EditFileTest, PathsOutsideTheWorkingDirectoryStayAbsolute) {
  TempDir other;
  WriteText(other.Join("far.txt"), "a\n");
  ToolOutput out = Edit({{"path", other.Join("far.txt")}, {"old_string", "a"},
                         {"new_string", "b"}});
  EXPECT_EQ(out.content, "Replaced 1 occurrence in " + other.Join("far.txt"));
  EXPECT_THAT(out.display, StartsWith("--- " + other.Join("far.txt") + "\n"));
}

TEST_F(EditFileTest, BadArgumentsGetClearErrors) {
  EXPECT_EQ(Edit({{"path", "f"}, {"old_string", "a"}}).content,
            "missing required argument \"new_string\"");
  EXPECT_EQ(Edit({{"path", "f"}, {"old_string", "a"}, {"new_string", "b"}, {"replace_all", 1}})
                .content,
            "argument \"replace_all\" must be a boolean, got number");
  EXPECT_EQ(Edit({{"path", "f"}, {"old_string", "a"}, {"new_string", "b"}, {"mode", 1}}).content,
            "unknown argument \"mode\"");
}

}  // namespace
}  // namespace raw::tools
