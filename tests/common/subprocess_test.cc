#include "common/subprocess.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include "common/child_env.h"
#include "gtest/gtest.h"

namespace raw {
namespace {

class TempDir {
 public:
  TempDir() {
    std::string tmpl =
        (std::filesystem::temp_directory_path() / "raw-subprocess-test-XXXXXX").string();
    if (mkdtemp(tmpl.data()) != nullptr) path_ = std::filesystem::canonical(tmpl).string();
  }
  ~TempDir() {
    std::error_code ec;
    if (!path_.empty()) std::filesystem::remove_all(path_, ec);
  }
  const std::string& path() const { return path_; }
  std::string Join(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

std::string ReadText(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

SubprocessOptions Command(std::vector<std::string> argv) {
  SubprocessOptions options;
  options.argv = std::move(argv);
  return options;
}

class SubprocessTest : public ::testing::Test {
 protected:
  // Writes an executable /bin/sh script and returns its path.
  std::string Script(const std::string& name, const std::string& body) {
    std::string path = dir_.Join(name);
    std::filesystem::create_directories(std::filesystem::path(path).parent_path());
    {
      std::ofstream out(path, std::ios::binary | std::ios::trunc);
      out << "#!/bin/sh\n" << body << "\n";
    }
    chmod(path.c_str(), 0755);
    return path;
  }

  SubprocessResult Run(SubprocessOptions options) {
    CancelToken cancel;
    absl::StatusOr<SubprocessResult> result = RunSubprocess(options, cancel);
    EXPECT_TRUE(result.ok()) << result.status();
    return result.ok() ? *result : SubprocessResult{};
  }

  // True once process `pid` has ended (waits up to 10 s for it).
  static bool ProcessEnds(pid_t pid) {
    int fd = static_cast<int>(syscall(SYS_pidfd_open, pid, 0));
    if (fd < 0) return errno == ESRCH;
    pollfd p{fd, POLLIN, 0};
    int rc = poll(&p, 1, 10000);
    close(fd);
    return rc == 1;
  }

  TempDir dir_;
};

TEST_F(SubprocessTest, ReportsExitCode) {
  SubprocessResult r = Run(Command({Script("exit3.sh", "exit 3")}));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_FALSE(r.term_signal.has_value());
  EXPECT_FALSE(r.timed_out);
  EXPECT_FALSE(r.cancelled);

  r = Run(Command({Script("ok.sh", "true")}));
  EXPECT_EQ(r.exit_code, 0);
}

TEST_F(SubprocessTest, ReportsTerminatingSignal) {
  SubprocessResult r = Run(Command({Script("segv.sh", "kill -SEGV $$")}));
  EXPECT_FALSE(r.exit_code.has_value());
  EXPECT_EQ(r.term_signal, SIGSEGV);
}

TEST_F(SubprocessTest, KeepsStdoutAndStderrApart) {
  SubprocessResult r =
      Run(Command({Script("both.sh", "echo out1; echo err1 >&2; echo out2; echo err2 >&2")}));
  EXPECT_EQ(r.stdout_data, "out1\nout2\n");
  EXPECT_EQ(r.stderr_data, "err1\nerr2\n");
}

TEST_F(SubprocessTest, PassesArguments) {
  SubprocessResult r = Run(Command({Script("args.sh", "printf '[%s]' \"$@\""), "a b", "", "c"}));
  EXPECT_EQ(r.stdout_data, "[a b][][c]");
}

TEST_F(SubprocessTest, LargeStdinAndOutputTogetherDoNotDeadlock) {
  // The child writes 1 MiB to stderr before it reads any stdin, then echoes
  // 4 MiB of stdin: a runner that wrote all stdin first, or read one stream
  // at a time, would block forever on full pipes.
  std::string input;
  for (int i = 0; input.size() < (4u << 20); ++i) input += "line " + std::to_string(i) + "\n";
  SubprocessOptions options = Command({Script("echo.sh", "head -c 1048576 /dev/zero >&2; cat")});
  options.stdin_data = input;
  options.max_output_bytes = 8 << 20;
  SubprocessResult r = Run(options);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stderr_data.size(), 1u << 20);
  EXPECT_EQ(r.stdout_data.size(), input.size());
  EXPECT_TRUE(r.stdout_data == input);
  EXPECT_FALSE(r.stdout_truncated);
}

TEST_F(SubprocessTest, ChildThatStopsReadingStdinIsNoError) {
  // The rest of the input meets a closed pipe (EPIPE, never SIGPIPE here).
  std::string input(4 << 20, 'x');
  SubprocessOptions options = Command({Script("head.sh", "head -c 10; echo; echo done")});
  options.stdin_data = input;
  SubprocessResult r = Run(options);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stdout_data, "xxxxxxxxxx\ndone\n");
}

TEST_F(SubprocessTest, CapsEachStreamAndKeepsTheChildRunning) {
  SubprocessOptions options =
      Command({Script("big.sh", "head -c 300000 /dev/zero; echo done >&2")});
  options.max_output_bytes = 1000;
  SubprocessResult r = Run(options);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.stdout_data.size(), 1000u);
  EXPECT_TRUE(r.stdout_truncated);
  EXPECT_EQ(r.stderr_data, "done\n");
  EXPECT_FALSE(r.stderr_truncated);
}

TEST_F(SubprocessTest, TimeoutKillsTheWholeGroupIncludingAGrandchild) {
  // The grandchild ignores SIGTERM and holds the stdout pipe open, so only
  // the SIGKILL after the grace ends it.
  std::string pid_file = dir_.Join("grandchild.pid");
  std::string script = Script("hang.sh", "(trap '' TERM; exec sleep 1000) &\n"
                                         "echo $! > '" + pid_file + "'\n"
                                         "echo started\n"
                                         "wait\n");
  SubprocessOptions options = Command({script});
  options.timeout_ms = 1000;
  options.kill_grace_ms = 100;
  SubprocessResult r = Run(options);
  EXPECT_TRUE(r.timed_out);
  EXPECT_FALSE(r.cancelled);
  EXPECT_FALSE(r.exit_code.has_value());
  EXPECT_EQ(r.term_signal, SIGTERM);
  EXPECT_EQ(r.stdout_data, "started\n");
  std::string pid_text = ReadText(pid_file);
  ASSERT_FALSE(pid_text.empty());
  EXPECT_TRUE(ProcessEnds(static_cast<pid_t>(std::stol(pid_text))));
}

TEST_F(SubprocessTest, CancelStopsTheChild) {
  std::string fifo = dir_.Join("ready.fifo");
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  std::string script = Script("wait.sh", "echo ready > '" + fifo + "'\nexec sleep 1000");
  CancelToken cancel;
  absl::StatusOr<SubprocessResult> result;
  std::thread runner([&] { result = RunSubprocess(Command({script}), cancel); });
  {
    // Opening the FIFO waits for the script to open it: the child is running.
    std::ifstream ready(fifo);
    std::string line;
    std::getline(ready, line);
    EXPECT_EQ(line, "ready");
  }
  cancel.Cancel("test");
  runner.join();
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_TRUE(result->cancelled);
  EXPECT_FALSE(result->timed_out);
  EXPECT_EQ(result->term_signal, SIGTERM);
}

TEST_F(SubprocessTest, AlreadyCancelledTokenStartsNothing) {
  std::string marker = dir_.Join("ran");
  CancelToken cancel;
  cancel.Cancel();
  absl::StatusOr<SubprocessResult> r =
      RunSubprocess(Command({Script("mark.sh", "touch '" + marker + "'")}), cancel);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_TRUE(r->cancelled);
  EXPECT_FALSE(std::filesystem::exists(marker));
}

TEST_F(SubprocessTest, MissingProgramIsNotFoundNamingIt) {
  CancelToken cancel;
  absl::StatusOr<SubprocessResult> r =
      RunSubprocess(Command({"raw-no-such-program-4711"}), cancel);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("raw-no-such-program-4711"), std::string::npos);
  EXPECT_NE(r.status().message().find("PATH"), std::string::npos);

  SubprocessOptions in_dir = Command({"./missing.sh"});
  in_dir.cwd = dir_.path();
  r = RunSubprocess(in_dir, cancel);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("./missing.sh"), std::string::npos);
}

TEST_F(SubprocessTest, NonExecutableProgramIsPermissionDenied) {
  std::string path = Script("plain.sh", "true");
  chmod(path.c_str(), 0644);
  CancelToken cancel;
  absl::StatusOr<SubprocessResult> r = RunSubprocess(Command({path}), cancel);
  ASSERT_EQ(r.status().code(), absl::StatusCode::kPermissionDenied);
  EXPECT_NE(r.status().message().find("not executable"), std::string::npos);
}

TEST_F(SubprocessTest, RejectsBadRequests) {
  CancelToken cancel;
  EXPECT_EQ(RunSubprocess({}, cancel).status().code(), absl::StatusCode::kInvalidArgument);
  SubprocessOptions options = Command({"/bin/true"});
  options.cwd = dir_.Join("no-such-dir");
  absl::StatusOr<SubprocessResult> r = RunSubprocess(options, cancel);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kNotFound);
  EXPECT_NE(r.status().message().find("no-such-dir"), std::string::npos);
  options = Command({"/bin/true"});
  options.env = {{"A=B", "x"}};
  r = RunSubprocess(options, cancel);
  EXPECT_EQ(r.status().code(), absl::StatusCode::kInvalidArgument);
}

TEST_F(SubprocessTest, AddsAndOverridesEnvironment) {
  SubprocessOptions options =
      Command({Script("env.sh", "printf '%s|%s|%s' \"$RAW_SUBPROCESS_TEST\" \"$HOME\" "
                                "\"${PATH:+has-path}\"")});
  options.env = {{"RAW_SUBPROCESS_TEST", "value 1"}, {"HOME", "/overridden"}};
  SubprocessResult r = Run(options);
  EXPECT_EQ(r.stdout_data, "value 1|/overridden|has-path");
}

TEST_F(SubprocessTest, LooksProgramsUpOnTheOverriddenPath) {
  Script("bin/raw-test-tool", "echo from-tool");
  SubprocessOptions options = Command({"raw-test-tool"});
  options.env = {{"PATH", dir_.Join("bin") + ":/usr/bin:/bin"}};
  SubprocessResult r = Run(options);
  EXPECT_EQ(r.stdout_data, "from-tool\n");
}

// A PATH entry that is empty or relative would find a program under the
// directory the child runs in: a project a repository fills.
TEST_F(SubprocessTest, EmptyAndRelativePathEntriesAreNotSearched) {
  std::filesystem::create_directories(dir_.Join("work"));
  Script("work/bin/raw-test-tool", "echo shipped-by-the-project");
  Script("work/raw-test-tool", "echo shipped-by-the-project");
  Script("safe/raw-test-tool", "echo from-the-absolute-entry");
  SubprocessOptions options = Command({"raw-test-tool"});
  options.cwd = dir_.Join("work");
  options.env = {{"PATH", "bin::.:" + dir_.Join("safe")}};
  SubprocessResult r = Run(options);
  EXPECT_EQ(r.stdout_data, "from-the-absolute-entry\n");
  EXPECT_EQ(FindProgram("raw-test-tool", "bin::.", dir_.Join("work")).status().code(),
            absl::StatusCode::kNotFound);
}

// Nor does a program the child runs in turn (a hook script calling `jq`):
// the child's PATH keeps only the absolute entries.
TEST_F(SubprocessTest, TheChildsPathHoldsNoEmptyOrRelativeEntries) {
  std::filesystem::create_directories(dir_.Join("work"));
  Script("work/bin/raw-test-tool", "echo shipped-by-the-project");
  Script("safe/raw-test-tool", "echo from-the-absolute-entry");
  SubprocessOptions options = Command({"/bin/sh", "-c", "echo \"$PATH\"; raw-test-tool"});
  options.cwd = dir_.Join("work");
  options.env = {{"PATH", "bin::.:" + dir_.Join("safe") + ":/usr/bin:/bin"}};
  SubprocessResult r = Run(options);
  EXPECT_EQ(r.stdout_data, dir_.Join("safe") + ":/usr/bin:/bin\nfrom-the-absolute-entry\n");
  // Nothing absolute at all: the default search path.
  EXPECT_EQ(AbsolutePathEntries("bin:.:"), "/bin:/usr/bin");
}

TEST_F(SubprocessTest, RunsInTheGivenDirectory) {
  std::filesystem::create_directories(dir_.Join("work"));
  Script("work/here.sh", "pwd");
  SubprocessOptions options = Command({"./here.sh"});
  options.cwd = dir_.Join("work");
  SubprocessResult r = Run(options);
  EXPECT_EQ(r.stdout_data, dir_.Join("work") + "\n");
}

TEST_F(SubprocessTest, LeavesNoDescriptorsOpen) {
  auto open_fds = [] {
    int n = 0;
    for ([[maybe_unused]] const auto& e : std::filesystem::directory_iterator("/proc/self/fd")) ++n;
    return n;
  };
  std::string script = Script("fds.sh", "cat; echo err >&2");
  const int before = open_fds();
  SubprocessOptions options = Command({script});
  options.stdin_data = "input";
  Run(options);
  options.timeout_ms = 1;
  options.argv = {Script("hang.sh", "exec sleep 100")};
  EXPECT_TRUE(Run(options).timed_out);
  {
    CancelToken cancel;
    EXPECT_FALSE(RunSubprocess(Command({"raw-no-such-program-4711"}), cancel).ok());
  }
  EXPECT_EQ(open_fds(), before);
}

TEST_F(SubprocessTest, ChildLeadsItsOwnProcessGroup) {
  SubprocessResult r =
      Run(Command({Script("pgid.sh", "cut -d' ' -f5 /proc/$$/stat; echo $$")}));
  std::istringstream lines(r.stdout_data);
  long pgid = 0, pid = 0;
  lines >> pgid >> pid;
  EXPECT_EQ(pgid, pid) << r.stdout_data << "/" << r.stderr_data;
  EXPECT_NE(pgid, static_cast<long>(getpgrp()));
}

}  // namespace
}  // namespace raw
