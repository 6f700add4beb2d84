#include <sys/stat.h>

#include <string>

#include "daemon/tools/builtin/builtin_tools.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/tools/tool_test_support.h"

namespace raw::tools {
namespace {

using ::testing::EndsWith;
using ::testing::HasSubstr;
using ::testing::StartsWith;
using testing::Call;
using testing::TempDir;
using testing::WriteText;

class ReadFileTest : public ::testing::Test {
 protected:
  ToolOutput Read(const Json& args, const config::ToolSettings& settings = {}) {
    return Call(spec_, args, dir_.path(), settings);
  }
  // "line1\n" ... "lineN\n".
  std::string Lines(int n) {
    std::string text;
    for (int i = 1; i <= n; ++i) text += "line" + std::to_string(i) + "\n";
    return text;
  }

  TempDir dir_;
  ToolSpec spec_ = builtin::MakeReadFileTool();
};

TEST_F(ReadFileTest, ReadsRelativePathsAgainstTheWorkingDirectory) {
  WriteText(dir_.Join("sub/notes.txt"), "hello\nworld\n");
  ToolOutput out = Read({{"path", "sub/notes.txt"}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_EQ(out.content, "hello\nworld\n");
  // "." and ".." are resolved too.
  EXPECT_EQ(Read({{"path", "./sub/../sub/notes.txt"}}).content, "hello\nworld\n");
}

// Scanning to a far offset reads the whole file before it; an interrupt
// stops the scan instead of waiting for it.
TEST_F(ReadFileTest, ACancelledReadStopsScanning) {
  WriteText(dir_.Join("big.log"), Lines(400000));  // about 4 MiB, many chunks
  CancelToken cancel;
  cancel.Cancel();
  config::ToolSettings settings;
  ToolOutput out =
      Call(spec_, {{"path", "big.log"}, {"offset", 100000000}}, dir_.path(), settings, cancel);
  EXPECT_EQ(out.status, events::ToolStatus::kCancelled) << out.content;
  EXPECT_THAT(out.content, HasSubstr("cancelled"));
}

TEST_F(ReadFileTest, ReadsAbsolutePathsOutsideTheWorkingDirectory) {
  TempDir other;
  WriteText(other.Join("far.txt"), "far away");
  ToolOutput out = Read({{"path", other.Join("far.txt")}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_EQ(out.content, "far away");
}

TEST_F(ReadFileTest, OffsetAndLimitSelectLines) {
  WriteText(dir_.Join("ten.txt"), Lines(10));
  ToolOutput window = Read({{"path", "ten.txt"}, {"offset", 3}, {"limit", 2}});
  EXPECT_EQ(window.status, events::ToolStatus::kOk);
  EXPECT_EQ(window.content,
            "line3\nline4\n[showed lines 3-4; the file continues: read on with offset=5]");

  ToolOutput to_end = Read({{"path", "ten.txt"}, {"offset", 9}});
  EXPECT_EQ(to_end.content, "line9\nline10\n[showed lines 9-10; end of file]");

  // A limit that reaches exactly the last line leaves nothing to continue.
  ToolOutput exact = Read({{"path", "ten.txt"}, {"offset", 1}, {"limit", 10}});
  EXPECT_EQ(exact.content, Lines(10));

  // Integral floats are accepted as integers.
  ToolOutput as_float = Read({{"path", "ten.txt"}, {"offset", 10.0}});
  EXPECT_EQ(as_float.content, "line10\n[showed lines 10-10; end of file]");
}

TEST_F(ReadFileTest, LastLineWithoutNewline) {
  WriteText(dir_.Join("f.txt"), "a\nb");
  EXPECT_EQ(Read({{"path", "f.txt"}, {"offset", 2}}).content, "b\n[showed lines 2-2; end of file]");
  ToolOutput past = Read({{"path", "f.txt"}, {"offset", 3}});
  EXPECT_EQ(past.status, events::ToolStatus::kError);
  EXPECT_THAT(past.content, HasSubstr("(it has 2 lines)"));
}

TEST_F(ReadFileTest, OffsetPastTheEndIsAnError) {
  WriteText(dir_.Join("ten.txt"), Lines(10));
  ToolOutput out = Read({{"path", "ten.txt"}, {"offset", 11}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_EQ(out.content,
            "offset 11 is past the end of " + dir_.Join("ten.txt") + " (it has 10 lines)");
}

TEST_F(ReadFileTest, CapsOutputOnALineBoundaryAndSaysHowToContinue) {
  WriteText(dir_.Join("ten.txt"), Lines(10));  // "lineN\n" is 6 bytes for N < 10
  config::ToolSettings settings;
  settings.files.max_read_bytes = 20;
  ToolOutput first = Read({{"path", "ten.txt"}}, settings);
  EXPECT_EQ(first.status, events::ToolStatus::kOk);
  EXPECT_THAT(first.content, StartsWith("line1\nline2\nline3\n[output truncated at 20 bytes"));
  EXPECT_THAT(first.content, HasSubstr("tools.files.max_read_bytes"));
  EXPECT_THAT(first.content, EndsWith("showed lines 1-3; read on with offset=4]"));

  ToolOutput next = Read({{"path", "ten.txt"}, {"offset", 4}}, settings);
  EXPECT_THAT(next.content, StartsWith("line4\nline5\nline6\n[output truncated"));
  EXPECT_THAT(next.content, EndsWith("showed lines 4-6; read on with offset=7]"));
}

TEST_F(ReadFileTest, CapsALineLongerThanTheLimit) {
  WriteText(dir_.Join("long.txt"), std::string(100, 'x') + "\nshort\n");
  config::ToolSettings settings;
  settings.files.max_read_bytes = 10;
  ToolOutput out = Read({{"path", "long.txt"}}, settings);
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_THAT(out.content, StartsWith("xxxxxxxxxx\n[output truncated at 10 bytes"));
  EXPECT_THAT(out.content, HasSubstr("line 1 alone is longer; showed its first 10 bytes"));
  EXPECT_THAT(out.content, EndsWith("the next line starts at offset=2]"));
}

TEST_F(ReadFileTest, CapNeverSplitsAUtf8Character) {
  // 'é' is two bytes; a 5-byte cap falls inside the third one.
  WriteText(dir_.Join("accents.txt"), "ééééé");
  config::ToolSettings settings;
  settings.files.max_read_bytes = 5;
  ToolOutput out = Read({{"path", "accents.txt"}}, settings);
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_THAT(out.content, StartsWith("éé\n[output truncated"));
}

TEST_F(ReadFileTest, LargeFilesAreStreamed) {
  // Several read chunks; the window is in the middle.
  WriteText(dir_.Join("big.txt"), Lines(50000));
  ToolOutput out = Read({{"path", "big.txt"}, {"offset", 40000}, {"limit", 1}});
  EXPECT_EQ(out.content, "line40000\n[showed lines 40000-40000; the file continues: read on "
                         "with offset=40001]");
}

TEST_F(ReadFileTest, RefusesDirectories) {
  ToolOutput out = Read({{"path", "."}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, StartsWith(dir_.path() + " is a directory"));
}

TEST_F(ReadFileTest, MissingFileNamesTheResolvedPath) {
  ToolOutput out = Read({{"path", "nope/missing.txt"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_EQ(out.content, "file not found: " + dir_.Join("nope/missing.txt"));
}

TEST_F(ReadFileTest, RefusesBinaryFiles) {
  WriteText(dir_.Join("blob.bin"), std::string("PK\x03\x04\x00\x00data", 10));
  ToolOutput out = Read({{"path", "blob.bin"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("binary file"));
  EXPECT_THAT(out.content, HasSubstr(dir_.Join("blob.bin")));
}

TEST_F(ReadFileTest, RefusesInvalidUtf8) {
  WriteText(dir_.Join("latin1.txt"), "ok\ncaf\xe9\n");
  ToolOutput out = Read({{"path", "latin1.txt"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("is not UTF-8 text (invalid byte on line 2)"));
}

TEST_F(ReadFileTest, RefusesFifos) {
  std::string fifo = dir_.Join("pipe");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  ToolOutput out = Read({{"path", "pipe"}});
  EXPECT_EQ(out.status, events::ToolStatus::kError);
  EXPECT_THAT(out.content, HasSubstr("is not a regular file"));
}

TEST_F(ReadFileTest, EmptyFile) {
  WriteText(dir_.Join("empty.txt"), "");
  ToolOutput out = Read({{"path", "empty.txt"}});
  EXPECT_EQ(out.status, events::ToolStatus::kOk);
  EXPECT_EQ(out.content, "(" + dir_.Join("empty.txt") + " is empty)");
}

TEST_F(ReadFileTest, BadArgumentsGetClearErrors) {
  WriteText(dir_.Join("f.txt"), "x\n");
  EXPECT_EQ(Read(Json::array()).content, "arguments must be a JSON object, got array");
  EXPECT_EQ(Read(Json::object()).content, "missing required argument \"path\"");
  EXPECT_EQ(Read({{"path", 7}}).content, "argument \"path\" must be a string, got number");
  EXPECT_EQ(Read({{"path", ""}}).content, "argument \"path\" is empty");
  EXPECT_EQ(Read({{"path", "f.txt"}, {"offset", 0}}).content,
            "argument \"offset\" must be at least 1, got 0");
  EXPECT_EQ(Read({{"path", "f.txt"}, {"limit", 1.5}}).content,
            "argument \"limit\" must be an integer, got 1.5");
  EXPECT_EQ(Read({{"path", "f.txt"}, {"offset", "2"}}).content,
            "argument \"offset\" must be an integer, got string");
  EXPECT_EQ(Read({{"path", "f.txt"}, {"lines", 2}}).content, "unknown argument \"lines\"");
  EXPECT_THAT(Read({{"path", "~/f.txt"}}).content, HasSubstr("'~', which is not expanded"));
  EXPECT_EQ(Read({{"path", "f.txt"}, {"offset", 0}}).status, events::ToolStatus::kError);
}

}  // namespace
}  // namespace raw::tools
