#include "daemon/app/state_lock.h"

#include <fcntl.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <memory>
#include <string>
#include <thread>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/notification.h"
#include "absl/time/time.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::app {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// A fresh state directory, removed with its contents at the end of the test.
class TempStateDir {
 public:
  TempStateDir() {
    std::string pattern = (std::filesystem::temp_directory_path() / "raw-app-XXXXXX").string();
    EXPECT_NE(mkdtemp(pattern.data()), nullptr) << "mkdtemp " << pattern;
    path_ = pattern;
  }
  ~TempStateDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  TempStateDir(const TempStateDir&) = delete;
  TempStateDir& operator=(const TempStateDir&) = delete;

  const std::string& path() const { return path_; }
  std::string lock_path() const { return path_ + "/rawd.lock"; }

 private:
  std::string path_;
};

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
}

// Reads `fd` until end of file.
std::string ReadAll(int fd) {
  std::string out;
  char buf[256];
  for (;;) {
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return out;
    out.append(buf, static_cast<size_t>(n));
  }
}

void WriteAll(int fd, const std::string& data) {
  size_t done = 0;
  while (done < data.size()) {
    ssize_t n = write(fd, data.data() + done, data.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

// A child process that takes the lock and holds it until told to let go.
// It reports "locked" or "failed: <message>" on a pipe, so the parent waits
// for the event rather than for time.
class LockHolder {
 public:
  LockHolder(const std::string& lock_path, const std::string& state_dir) {
    int report[2];
    int release[2];
    if (pipe2(report, O_CLOEXEC) != 0 || pipe2(release, O_CLOEXEC) != 0) {
      ADD_FAILURE() << "pipe2: " << std::strerror(errno);
      return;
    }
    pid_ = fork();
    if (pid_ == 0) {
      // Child: only async-signal-safe-enough work, then _exit so that no
      // gtest state is torn down here.
      close(report[0]);
      close(release[1]);
      absl::StatusOr<std::unique_ptr<StateLock>> lock = StateLock::Acquire(lock_path, state_dir);
      WriteAll(report[1], lock.ok() ? std::string("locked")
                                    : absl::StrCat("failed: ", lock.status().message()));
      close(report[1]);
      char byte;
      while (read(release[0], &byte, 1) < 0 && errno == EINTR) {
      }
      if (lock.ok()) lock->reset();
      _exit(0);
    }
    close(report[1]);
    close(release[0]);
    if (pid_ < 0) {
      ADD_FAILURE() << "fork: " << std::strerror(errno);
      close(report[0]);
      close(release[1]);
      return;
    }
    report_ = ReadAll(report[0]);
    close(report[0]);
    release_fd_ = release[1];
  }
  ~LockHolder() { Release(); }
  LockHolder(const LockHolder&) = delete;
  LockHolder& operator=(const LockHolder&) = delete;

  pid_t pid() const { return pid_; }
  // What the child said once it had tried: "locked" or "failed: ...".
  const std::string& report() const { return report_; }

  // Lets the child release the lock and exit; returns once it has exited.
  void Release() {
    if (release_fd_ >= 0) {
      close(release_fd_);
      release_fd_ = -1;
    }
    Reap();
  }

  // Kills the child while it holds the lock, as a crash would.
  void Kill() {
    if (pid_ > 0) kill(pid_, SIGKILL);
    Release();
  }

 private:
  void Reap() {
    if (pid_ <= 0) return;
    int status = 0;
    while (waitpid(pid_, &status, 0) < 0 && errno == EINTR) {
    }
    pid_ = -1;
  }

  pid_t pid_ = -1;
  int release_fd_ = -1;
  std::string report_;
};

TEST(StateLockTest, AcquireWritesThePidIntoTheLockFile) {
  TempStateDir dir;
  absl::StatusOr<std::unique_ptr<StateLock>> lock =
      StateLock::Acquire(dir.lock_path(), dir.path());
  ASSERT_TRUE(lock.ok()) << lock.status();
  EXPECT_EQ(ReadFile(dir.lock_path()), absl::StrCat(getpid(), "\n"));
  struct stat st;
  ASSERT_EQ(stat(dir.lock_path().c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

// Another user who can write the state directory plants rawd.lock as a
// link to a file of this user's: the lock refuses it, and the file is
// neither truncated nor written.
TEST(StateLockTest, APlantedSymlinkOrHardLinkIsRefusedAndItsTargetKept) {
  TempStateDir dir;
  const std::string victim = dir.path() + "/bashrc";
  std::ofstream(victim) << "keep me\n";
  ASSERT_EQ(symlink(victim.c_str(), dir.lock_path().c_str()), 0);
  absl::StatusOr<std::unique_ptr<StateLock>> lock = StateLock::Acquire(dir.lock_path(), dir.path());
  ASSERT_FALSE(lock.ok());
  EXPECT_THAT(std::string(lock.status().message()), HasSubstr("is a symbolic link"));
  EXPECT_EQ(ReadFile(victim), "keep me\n");

  ASSERT_EQ(unlink(dir.lock_path().c_str()), 0);
  ASSERT_EQ(link(victim.c_str(), dir.lock_path().c_str()), 0);
  lock = StateLock::Acquire(dir.lock_path(), dir.path());
  ASSERT_FALSE(lock.ok());
  EXPECT_THAT(std::string(lock.status().message()), HasSubstr("one name"));
  EXPECT_EQ(ReadFile(victim), "keep me\n");
}

TEST(StateLockTest, SecondLockFromAnotherProcessNamesTheHolderAndTheDirectory) {
  TempStateDir dir;
  LockHolder holder(dir.lock_path(), dir.path());
  ASSERT_EQ(holder.report(), "locked");

  absl::StatusOr<std::unique_ptr<StateLock>> second =
      StateLock::Acquire(dir.lock_path(), dir.path());
  ASSERT_FALSE(second.ok());
  EXPECT_EQ(second.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(second.status().message(),
            absl::StrCat("another rawd (pid ", holder.pid(),
                         ") is already running for state directory ", dir.path()));
  // The failed attempt leaves the holder's pid in place.
  EXPECT_EQ(ReadFile(dir.lock_path()), absl::StrCat(holder.pid(), "\n"));
}

TEST(StateLockTest, AnotherProcessIsRefusedWhileThisOneHoldsTheLock) {
  TempStateDir dir;
  absl::StatusOr<std::unique_ptr<StateLock>> lock =
      StateLock::Acquire(dir.lock_path(), dir.path());
  ASSERT_TRUE(lock.ok()) << lock.status();

  LockHolder other(dir.lock_path(), dir.path());
  EXPECT_EQ(other.report(), absl::StrCat("failed: another rawd (pid ", getpid(),
                                         ") is already running for state directory ", dir.path()));
}

// A daemon that is stopping keeps the lock until it has closed everything:
// a new start waits for it instead of failing, and fails only when it does
// not let go within the wait.
TEST(StateLockTest, AStartWaitsForADaemonThatIsStopping) {
  TempStateDir dir;
  absl::StatusOr<std::unique_ptr<StateLock>> stopping =
      StateLock::Acquire(dir.lock_path(), dir.path());
  ASSERT_TRUE(stopping.ok()) << stopping.status();
  (*stopping)->MarkStopping();
  EXPECT_EQ(ReadFile(dir.lock_path()), absl::StrCat(getpid(), " stopping\n"));

  absl::StatusOr<std::unique_ptr<StateLock>> impatient =
      StateLock::Acquire(dir.lock_path(), dir.path(), absl::ZeroDuration());
  ASSERT_FALSE(impatient.ok());
  EXPECT_THAT(impatient.status().message(),
              HasSubstr(absl::StrCat("another rawd (pid ", getpid(), ") is still stopping")));

  absl::Notification waiting;
  long waited_for = 0;
  absl::StatusOr<std::unique_ptr<StateLock>> next = absl::UnknownError("not tried");
  std::thread start([&] {
    next = StateLock::Acquire(dir.lock_path(), dir.path(), absl::Seconds(20), [&](long pid) {
      waited_for = pid;
      waiting.Notify();
    });
  });
  ASSERT_TRUE(waiting.WaitForNotificationWithTimeout(absl::Seconds(20)));
  stopping->reset();  // the stopping daemon exits
  start.join();
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(waited_for, getpid());
  EXPECT_EQ(ReadFile(dir.lock_path()), absl::StrCat(getpid(), "\n"));
}

TEST(StateLockTest, LockIsFreeOnceTheHolderExits) {
  TempStateDir dir;
  LockHolder holder(dir.lock_path(), dir.path());
  ASSERT_EQ(holder.report(), "locked");
  ASSERT_FALSE(StateLock::Acquire(dir.lock_path(), dir.path()).ok());

  holder.Release();
  // The holder's destructor emptied the file on the way out.
  EXPECT_EQ(ReadFile(dir.lock_path()), "");
  absl::StatusOr<std::unique_ptr<StateLock>> lock =
      StateLock::Acquire(dir.lock_path(), dir.path());
  ASSERT_TRUE(lock.ok()) << lock.status();
  EXPECT_EQ(ReadFile(dir.lock_path()), absl::StrCat(getpid(), "\n"));
}

TEST(StateLockTest, KilledHolderLeavesNoStaleLock) {
  TempStateDir dir;
  LockHolder holder(dir.lock_path(), dir.path());
  ASSERT_EQ(holder.report(), "locked");
  pid_t dead = holder.pid();

  holder.Kill();
  EXPECT_EQ(ReadFile(dir.lock_path()), absl::StrCat(dead, "\n"));  // the stale pid stays
  absl::StatusOr<std::unique_ptr<StateLock>> lock =
      StateLock::Acquire(dir.lock_path(), dir.path());
  ASSERT_TRUE(lock.ok()) << lock.status();
  EXPECT_EQ(ReadFile(dir.lock_path()), absl::StrCat(getpid(), "\n"));
}

TEST(StateLockTest, ReleaseEmptiesTheFileAndFreesTheLock) {
  TempStateDir dir;
  {
    absl::StatusOr<std::unique_ptr<StateLock>> lock =
        StateLock::Acquire(dir.lock_path(), dir.path());
    ASSERT_TRUE(lock.ok()) << lock.status();
  }
  EXPECT_TRUE(std::filesystem::exists(dir.lock_path()));  // the file stays
  EXPECT_EQ(ReadFile(dir.lock_path()), "");
  LockHolder other(dir.lock_path(), dir.path());
  EXPECT_EQ(other.report(), "locked");
}

TEST(StateLockTest, LongerStalePidIsOverwrittenCompletely) {
  TempStateDir dir;
  std::ofstream(dir.lock_path()) << "123456789012345678\n";
  absl::StatusOr<std::unique_ptr<StateLock>> lock =
      StateLock::Acquire(dir.lock_path(), dir.path());
  ASSERT_TRUE(lock.ok()) << lock.status();
  EXPECT_EQ(ReadFile(dir.lock_path()), absl::StrCat(getpid(), "\n"));
}

TEST(StateLockTest, HolderThatHasNotWrittenItsPidYetIsReportedWithoutOne) {
  TempStateDir dir;
  // A holder between taking the lock and writing its pid: locked, empty.
  int fd = open(dir.lock_path().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);

  absl::StatusOr<std::unique_ptr<StateLock>> lock =
      StateLock::Acquire(dir.lock_path(), dir.path());
  close(fd);
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(lock.status().message(),
            absl::StrCat("another rawd is already running for state directory ", dir.path()));
}

TEST(StateLockTest, GarbageInALockedFileIsNotReportedAsAPid) {
  TempStateDir dir;
  int fd = open(dir.lock_path().c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  ASSERT_GE(fd, 0);
  ASSERT_EQ(flock(fd, LOCK_EX | LOCK_NB), 0);
  ASSERT_EQ(write(fd, "not a pid\n", 10), 10);

  absl::StatusOr<std::unique_ptr<StateLock>> lock =
      StateLock::Acquire(dir.lock_path(), dir.path());
  close(fd);
  ASSERT_FALSE(lock.ok());
  EXPECT_THAT(std::string(lock.status().message()), Not(HasSubstr("pid")));
  EXPECT_THAT(std::string(lock.status().message()), HasSubstr(dir.path()));
}

TEST(StateLockTest, UnopenableLockFileNamesThePathAndTheReason) {
  TempStateDir dir;
  std::string missing = dir.path() + "/no/such/dir/rawd.lock";
  absl::StatusOr<std::unique_ptr<StateLock>> lock = StateLock::Acquire(missing, dir.path());
  ASSERT_FALSE(lock.ok());
  EXPECT_EQ(lock.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_EQ(lock.status().message(),
            absl::StrCat("cannot open the lock file ", missing, ": No such file or directory"));
}

TEST(StateLockTest, LockDescriptorIsNotInheritedAcrossExec) {
  TempStateDir dir;
  absl::StatusOr<std::unique_ptr<StateLock>> lock =
      StateLock::Acquire(dir.lock_path(), dir.path());
  ASSERT_TRUE(lock.ok()) << lock.status();

  // Find this process's descriptor on the lock file; a tool process started
  // by the daemon must not keep the lock alive after the daemon is gone.
  std::string target = std::filesystem::canonical(dir.lock_path()).string();
  int found = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    std::error_code ec;
    std::filesystem::path link = std::filesystem::read_symlink(entry.path(), ec);
    if (ec || link.string() != target) continue;
    int fd = std::stoi(entry.path().filename().string());
    int flags = fcntl(fd, F_GETFD);
    ASSERT_GE(flags, 0);
    EXPECT_TRUE(flags & FD_CLOEXEC) << "fd " << fd;
    ++found;
  }
  EXPECT_EQ(found, 1);
}

}  // namespace
}  // namespace raw::app
