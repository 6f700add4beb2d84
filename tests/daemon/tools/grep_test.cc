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
using testing::TempDir;
using testing::WriteText;

class GrepTest : public ::testing::Test {
 protected:
  ToolOutput Grep(const Json& args, const config::ToolSettings& settings = {}) {
    return Call(spec_, args, dir_.path(), settings);
  }

  TempDir dir_;
  ToolSpec spec_ = builtin::MakeGrepTool();
};

TEST_F(GrepTest, SpecIsReadOnlyAndRuledByPath) {
  EXPECT_EQ(spec_.model_name, "grep");
  EXPECT_TRUE(spec_.read_only);
  EXPECT_EQ(spec_.rule_subject, RuleSubject::kPath);
  EXPECT_EQ(spec_.rule_argument, "path");
}

TEST_F(GrepTest, PrintsMatchingLinesWithFileAndLineNumber) {
  WriteText(dir_.Join("a.cc"), "int x;\nvoid Foo() {}\nint y;\n");
  WriteText(dir_.Join("src/b.cc"), "// Foo and foo\nvoid Foo2();\n");
  ToolOutput out = Grep({{"pattern", "void \\w+\\("}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_EQ(out.content, "a.cc:2: void Foo() {}\nsrc/b.cc:2: void Foo2();");
}

TEST_F(GrepTest, CaseInsensitiveAndSingleFilePaths) {
  WriteText(dir_.Join("notes.txt"), "TODO one\ntodo two\nnothing\n");
  EXPECT_EQ(Grep({{"pattern", "todo"}, {"path", "notes.txt"}}).content, "notes.txt:2: todo two");
  EXPECT_EQ(Grep({{"pattern", "todo"}, {"path", "notes.txt"}, {"case_insensitive", true}})
                .content,
            "notes.txt:1: TODO one\nnotes.txt:2: todo two");
}

TEST_F(GrepTest, InvalidRegexQuotesRe2) {
  ToolOutput out = Grep({{"pattern", "foo(bar"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, StartsWith("invalid regular expression \"foo(bar\": missing )"));
  // RE2 has no backreferences.
  EXPECT_EQ(Grep({{"pattern", "(a)\\1"}}).status, events::ToolStatus::kError);
}

TEST_F(GrepTest, SkipsBinaryFilesGitAndIgnoredFiles) {
  WriteText(dir_.Join("text.txt"), "needle\n");
  WriteText(dir_.Join("blob.bin"), std::string("needle\0\x01", 8));
  WriteText(dir_.Join(".git/HEAD"), "needle\n");
  WriteText(dir_.Join(".gitignore"), "ignored/\n*.gen\n");
  WriteText(dir_.Join("ignored/x.txt"), "needle\n");
  WriteText(dir_.Join("out.gen"), "needle\n");
  fs::create_symlink("text.txt", dir_.Join("link.txt"));
  EXPECT_EQ(Grep({{"pattern", "needle"}}).content, "text.txt:1: needle");
  // Named explicitly, an ignored file is searched; a binary one is refused.
  EXPECT_EQ(Grep({{"pattern", "needle"}, {"path", "out.gen"}}).content, "out.gen:1: needle");
  ToolOutput binary = Grep({{"pattern", "needle"}, {"path", "blob.bin"}});
  EXPECT_EQ(binary.status, events::ToolStatus::kError);
  EXPECT_THAT(binary.content, HasSubstr("binary"));
}

TEST_F(GrepTest, GlobFiltersFileNamesOrPaths) {
  WriteText(dir_.Join("a.py"), "hit\n");
  WriteText(dir_.Join("b.ts"), "hit\n");
  WriteText(dir_.Join("c.tsx"), "hit\n");
  WriteText(dir_.Join("lib/d.py"), "hit\n");
  EXPECT_EQ(Grep({{"pattern", "hit"}, {"glob", "*.py"}}).content, "a.py:1: hit\nlib/d.py:1: hit");
  EXPECT_EQ(Grep({{"pattern", "hit"}, {"glob", "*.{ts,tsx}"}}).content,
            "b.ts:1: hit\nc.tsx:1: hit");
  EXPECT_EQ(Grep({{"pattern", "hit"}, {"glob", "lib/*.py"}}).content, "lib/d.py:1: hit");
  ToolOutput none = Grep({{"pattern", "hit"}, {"glob", "*.rs"}});
  EXPECT_EQ(none.status, events::ToolStatus::kOk);
  EXPECT_EQ(none.content, "No matches for /hit/ in . (files matching \"*.rs\")");
}

TEST_F(GrepTest, ContextLinesAndGroupSeparators) {
  std::string text;
  for (int i = 1; i <= 20; ++i) text += (i == 5 || i == 7 || i == 15 ? "MATCH " : "line ") +
                                        std::to_string(i) + "\n";
  WriteText(dir_.Join("f.txt"), text);
  EXPECT_EQ(Grep({{"pattern", "MATCH"}, {"context", 1}}).content,
            "f.txt-4- line 4\n"
            "f.txt:5: MATCH 5\n"
            "f.txt-6- line 6\n"
            "f.txt:7: MATCH 7\n"
            "f.txt-8- line 8\n"
            "--\n"
            "f.txt-14- line 14\n"
            "f.txt:15: MATCH 15\n"
            "f.txt-16- line 16");
  ToolOutput wide = Grep({{"pattern", "MATCH 15"}, {"context", 10}});
  EXPECT_THAT(wide.content, StartsWith("f.txt-5- MATCH 5\n"));
  EXPECT_EQ(Grep({{"pattern", "x"}, {"context", 11}}).status, events::ToolStatus::kError);
}

TEST_F(GrepTest, FilesWithMatchesAndCountModes) {
  WriteText(dir_.Join("a.txt"), "x\nx\ny\n");
  WriteText(dir_.Join("b.txt"), "y\n");
  WriteText(dir_.Join("c.txt"), "x\n");
  EXPECT_EQ(Grep({{"pattern", "x"}, {"output_mode", "files_with_matches"}}).content,
            "a.txt\nc.txt");
  EXPECT_EQ(Grep({{"pattern", "x"}, {"output_mode", "count"}}).content, "a.txt:2\nc.txt:1");
  ToolOutput bad = Grep({{"pattern", "x"}, {"output_mode", "lines"}});
  EXPECT_EQ(bad.status, events::ToolStatus::kError);
  EXPECT_THAT(bad.content, HasSubstr("\"content\", \"files_with_matches\" or \"count\""));
}

TEST_F(GrepTest, OutputIsCappedAndLongLinesAreCut) {
  std::string text;
  for (int i = 0; i < 10; ++i) text += "hit " + std::to_string(i) + "\n";
  text += "hit " + std::string(2000, 'z') + "\n";
  WriteText(dir_.Join("f.txt"), text);
  config::ToolSettings settings;
  settings.files.max_results = 3;
  ToolOutput capped = Grep({{"pattern", "hit"}}, settings);
  EXPECT_EQ(capped.status, events::ToolStatus::kOk);
  EXPECT_EQ(capped.content,
            "f.txt:1: hit 0\nf.txt:2: hit 1\nf.txt:3: hit 2\n[output cut at 3 lines "
            "(tools.files.max_results); there are more results: narrow the search with path, "
            "glob or a more specific pattern]");
  ToolOutput long_line = Grep({{"pattern", "zzz"}});
  EXPECT_EQ(long_line.content, "f.txt:11: hit " + std::string(496, 'z') + " [... line cut]");
}

TEST_F(GrepTest, NoMatchesAndMissingPaths) {
  WriteText(dir_.Join("a.txt"), "abc\n");
  ToolOutput none = Grep({{"pattern", "xyz"}});
  EXPECT_EQ(none.status, events::ToolStatus::kOk);
  EXPECT_EQ(none.content, "No matches for /xyz/ in .");
  ToolOutput missing = Grep({{"pattern", "x"}, {"path", "nope"}});
  EXPECT_EQ(missing.status, events::ToolStatus::kError);
  EXPECT_EQ(missing.content, "path not found: nope");
}

TEST_F(GrepTest, CancelledSearchReportsCancelled) {
  WriteText(dir_.Join("a.txt"), "x\n");
  CancelToken cancel;
  cancel.Cancel();
  config::ToolSettings settings;
  EXPECT_EQ(Call(spec_, {{"pattern", "x"}}, dir_.path(), settings, cancel).status,
            events::ToolStatus::kCancelled);
}

}  // namespace
}  // namespace raw::tools
