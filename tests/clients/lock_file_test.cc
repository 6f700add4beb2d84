#include "clients/lib/lock_file.h"

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <thread>

#include "gtest/gtest.h"
#include "tests/clients/temp_dir.h"

namespace raw::client {
namespace {

using ::raw::testing::TempDir;

TEST(LockFileTest, SecondHolderIsRefusedUntilTheFirstReleases) {
  TempDir dir;
  const std::string path = dir.File("rawd.sock.lock");
  auto first = LockFile::Acquire(path);
  ASSERT_TRUE(first.ok()) << first.status();

  auto second = LockFile::TryAcquire(path);
  EXPECT_TRUE(absl::IsUnavailable(second.status())) << second.status();
  EXPECT_NE(second.status().message().find(path), std::string::npos);

  { LockFile released = *std::move(first); }
  auto third = LockFile::TryAcquire(path);
  EXPECT_TRUE(third.ok()) << third.status();
}

TEST(LockFileTest, CreatesAPrivateFile) {
  TempDir dir;
  const std::string path = dir.File("x.lock");
  auto lock = LockFile::Acquire(path);
  ASSERT_TRUE(lock.ok()) << lock.status();
  struct stat st;
  ASSERT_EQ(stat(path.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
}

TEST(LockFileTest, BlockingAcquireWaitsForTheHolder) {
  TempDir dir;
  const std::string path = dir.File("x.lock");
  auto held = std::make_unique<absl::StatusOr<LockFile>>(LockFile::Acquire(path));
  ASSERT_TRUE(held->ok());

  std::atomic<bool> released{false};
  std::atomic<bool> acquired_after_release{false};
  std::thread waiter([&] {
    auto lock = LockFile::Acquire(path);
    EXPECT_TRUE(lock.ok()) << lock.status();
    acquired_after_release = released.load();
  });
  released = true;
  held.reset();
  waiter.join();
  EXPECT_TRUE(acquired_after_release);
}

TEST(LockFileTest, MoveTransfersTheLock) {
  TempDir dir;
  const std::string path = dir.File("x.lock");
  auto lock = LockFile::Acquire(path);
  ASSERT_TRUE(lock.ok());
  LockFile moved = *std::move(lock);
  EXPECT_EQ(moved.path(), path);
  EXPECT_TRUE(absl::IsUnavailable(LockFile::TryAcquire(path).status()));
}

TEST(LockFileTest, ChildProcessesDoNotInheritTheLock) {
  TempDir dir;
  const std::string path = dir.File("x.lock");
  auto lock = LockFile::Acquire(path);
  ASSERT_TRUE(lock.ok());
  // A child that execs keeps running; if it had inherited the descriptor the
  // lock would outlive our release. The child blocks on a pipe until told.
  int gate[2];
  int exec_done[2];
  ASSERT_EQ(pipe2(gate, O_CLOEXEC), 0);
  ASSERT_EQ(pipe2(exec_done, O_CLOEXEC), 0);
  pid_t pid = fork();
  if (pid == 0) {
    dup2(gate[0], 0);
    execl("/bin/cat", "cat", static_cast<char*>(nullptr));
    _exit(127);
  }
  close(gate[0]);
  // Until its exec the child holds copies of every descriptor; EOF on a
  // close-on-exec pipe says the exec happened.
  close(exec_done[1]);
  char byte;
  ASSERT_EQ(read(exec_done[0], &byte, 1), 0);
  close(exec_done[0]);
  { LockFile released = *std::move(lock); }
  EXPECT_TRUE(LockFile::TryAcquire(path).ok());
  close(gate[1]);
  int status = 0;
  waitpid(pid, &status, 0);
}

TEST(LockFileTest, UnopenableFileIsAClearError) {
  auto lock = LockFile::Acquire("/nonexistent-dir/raw/x.lock");
  ASSERT_FALSE(lock.ok());
  EXPECT_NE(lock.status().message().find("/nonexistent-dir/raw/x.lock"), std::string::npos);
}

}  // namespace
}  // namespace raw::client
