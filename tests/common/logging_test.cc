#include "common/logging.h"

#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
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

// A long-running daemon's log stays bounded: past its size the file moves
// to ".1" (replacing the one before) and a new one starts; no message is
// lost from the newest two files.
TEST(LoggingTest, AFullLogMovesAsideAndANewOneStarts) {
  char tmpl[] = "/tmp/raw-logging-rotate-XXXXXX";
  ASSERT_NE(mkdtemp(tmpl), nullptr);
  const std::string dir = tmpl;
  const std::string path = dir + "/rawd.log";
  const std::string old = path + ".1";
  ASSERT_TRUE(SetLogFile(path, /*also_stderr=*/false, /*max_bytes=*/2000));
  for (int i = 0; i < 60; ++i) RAW_LOG(Info) << "message " << i << " " << std::string(40, 'x');
  ASSERT_FALSE(SetLogFile("/nonexistent-dir/raw.log", true));

  struct stat current;
  struct stat moved;
  ASSERT_EQ(stat(path.c_str(), &current), 0);
  ASSERT_EQ(stat(old.c_str(), &moved), 0);
  EXPECT_LE(current.st_size, 2000);
  EXPECT_LE(moved.st_size, 2000);
  EXPECT_EQ(current.st_mode & 0777, 0600u);
  // The newest message is in the current file, the ones just before it in
  // the moved one; the oldest went with an earlier rotation.
  const std::string text = ReadAll(path);
  const std::string before = ReadAll(old);
  EXPECT_NE(text.find("message 59 "), std::string::npos) << text;
  EXPECT_EQ(before.find("message 0 "), std::string::npos) << before;
  const std::string both = before + text;
  size_t first = 60;
  for (int i = 0; i < 60; ++i) {
    if (both.find("message " + std::to_string(i) + " ") != std::string::npos) {
      first = std::min<size_t>(first, static_cast<size_t>(i));
    }
  }
  ASSERT_LT(first, 59u);
  for (int i = static_cast<int>(first); i < 60; ++i) {
    EXPECT_NE(both.find("message " + std::to_string(i) + " "), std::string::npos) << i;
  }
  unlink(path.c_str());
  unlink(old.c_str());
  rmdir(dir.c_str());
}

TEST(LoggingTest, TheLogIsCreatedPrivateAndNeverThroughASymlinkOrIntoAFifo) {
  char dir_template[] = "/tmp/raw-logging-test-XXXXXX";
  ASSERT_NE(mkdtemp(dir_template), nullptr);
  const std::string dir = dir_template;
  const std::string log = dir + "/rawd.log";
  mode_t old_mask = umask(0);
  bool opened = SetLogFile(log, /*also_stderr=*/false);
  umask(old_mask);
  ASSERT_TRUE(opened);
  struct stat info;
  ASSERT_EQ(stat(log.c_str(), &info), 0);
  EXPECT_EQ(info.st_mode & 07777, 0600u);

  // A symlink at the log's path is refused: the target stays untouched.
  const std::string target = dir + "/elsewhere";
  { std::ofstream(target) << "precious\n"; }
  const std::string link = dir + "/linked.log";
  ASSERT_EQ(symlink(target.c_str(), link.c_str()), 0);
  EXPECT_FALSE(SetLogFile(link, /*also_stderr=*/true));
  RAW_LOG(Warning) << "must not reach the symlink's target";
  EXPECT_EQ(ReadAll(target), "precious\n");

  // A FIFO is refused at once instead of blocking the daemon.
  const std::string fifo = dir + "/fifo.log";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  EXPECT_FALSE(SetLogFile(fifo, /*also_stderr=*/true));

  for (const std::string& path : {log, target, link, fifo}) unlink(path.c_str());
  rmdir(dir.c_str());
}

TEST(LoggingTest, LinesToTheJournalCarryTheirPriority) {
  testing::internal::CaptureStderr();
  SetStderrPriorityPrefixes(true);
  RAW_LOG(Error) << "first";
  RAW_LOG(Warning) << "second";
  RAW_LOG(Info) << "third";
  SetStderrPriorityPrefixes(false);
  RAW_LOG(Info) << "fourth";
  const std::string text = testing::internal::GetCapturedStderr();
  EXPECT_EQ(text.rfind("<3>", 0), 0u) << text;
  EXPECT_NE(text.find("\n<4>"), std::string::npos) << text;
  EXPECT_NE(text.find("\n<6>"), std::string::npos) << text;
  const size_t fourth = text.find("fourth");
  ASSERT_NE(fourth, std::string::npos);
  const size_t line_start = text.rfind('\n', fourth) + 1;
  EXPECT_NE(text[line_start], '<') << text;
}

TEST(LoggingTest, StderrIsTheJournalOnlyWhenJournalStreamNamesIt) {
  struct stat info;
  ASSERT_EQ(fstat(STDERR_FILENO, &info), 0);
  const std::string mine = std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino);
  const std::string other = std::to_string(info.st_dev) + ":" + std::to_string(info.st_ino + 1);
  setenv("JOURNAL_STREAM", mine.c_str(), 1);
  EXPECT_TRUE(StderrIsJournal());
  // Inherited from a parent whose stderr was the journal, but redirected.
  setenv("JOURNAL_STREAM", other.c_str(), 1);
  EXPECT_FALSE(StderrIsJournal());
  setenv("JOURNAL_STREAM", "garbage", 1);
  EXPECT_FALSE(StderrIsJournal());
  unsetenv("JOURNAL_STREAM");
  EXPECT_FALSE(StderrIsJournal());
}

}  // namespace
}  // namespace raw
