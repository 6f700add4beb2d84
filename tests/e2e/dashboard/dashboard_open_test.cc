// `raw-dashboard --open` with a stand-in xdg-open that reports the command
// line it was given: the command line (which any local user can read in
// /proc) names a private file, never the token; the file leads to the
// tokened address and is gone once the browser has logged in with it, or
// at the latest once the gateway exits.
#include <fcntl.h>
#include <poll.h>
#include <sys/stat.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "absl/strings/match.h"
#include "absl/strings/str_join.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "gmock/gmock.h"
#include "tests/e2e/dashboard/dashboard_fixture.h"

namespace raw::e2e {
namespace {

using ::testing::HasSubstr;
using ::testing::Not;

// The lines a writer puts into the FIFO at `path` up to "END", or what came
// before `timeout`. The reader holds a writer of its own, so the FIFO never
// reads as closed while it waits.
std::vector<std::string> ReadFifoLines(const std::string& path, int read_fd,
                                       absl::Duration timeout) {
  const int keep_open = open(path.c_str(), O_WRONLY | O_NONBLOCK | O_CLOEXEC);
  std::string text;
  const absl::Time deadline = absl::Now() + timeout;
  while (!absl::StrContains(text, "END\n") && absl::Now() < deadline) {
    pollfd p{read_fd, POLLIN, 0};
    if (poll(&p, 1, static_cast<int>(absl::ToInt64Milliseconds(deadline - absl::Now()))) <= 0)
      break;
    char buf[4096];
    const ssize_t n = read(read_fd, buf, sizeof(buf));
    if (n > 0) text.append(buf, static_cast<size_t>(n));
  }
  if (keep_open >= 0) close(keep_open);
  std::vector<std::string> lines = absl::StrSplit(text, '\n', absl::SkipEmpty());
  return lines;
}

class DashboardOpenTest : public DashboardTest {
 protected:
  // Starts `opened` with --open and a stand-in xdg-open (in its own
  // `tag` directories) that reports its command line, and returns that
  // command line once xdg-open ran (the page is written by then).
  std::vector<std::string> StartOpened(const std::string& tag, DashboardProcess& opened) {
    const std::string root = daemon_->root();
    const std::string bin = root + "/fakebin-" + tag;
    const std::string fifo = root + "/xdg-open-argv-" + tag;
    runtime_ = root + "/open-runtime-" + tag;
    std::filesystem::create_directories(bin);
    {
      std::ofstream script(bin + "/xdg-open");
      script << "#!/bin/sh\nprintf '%s\\n' \"$@\" END > \"$XDG_OPEN_ARGV\"\n";
    }
    EXPECT_EQ(chmod((bin + "/xdg-open").c_str(), 0755), 0);
    EXPECT_EQ(mkfifo(fifo.c_str(), 0600), 0);
    const int fifo_fd = open(fifo.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
    EXPECT_GE(fifo_fd, 0);

    std::vector<std::string> env;
    for (const std::string& entry : GatewayEnv()) {
      if (absl::StartsWith(entry, "PATH=")) {
        env.push_back(absl::StrCat("PATH=", bin, ":", entry.substr(5)));
      } else if (!absl::StartsWith(entry, "XDG_RUNTIME_DIR=")) {
        env.push_back(entry);
      }
    }
    env.push_back("XDG_RUNTIME_DIR=" + runtime_);
    env.push_back("XDG_OPEN_ARGV=" + fifo);
    EXPECT_TRUE(opened.Start(daemon_->socket_path(), {"--open"}, env).ok());
    std::vector<std::string> argv = ReadFifoLines(fifo, fifo_fd, absl::Seconds(30));
    close(fifo_fd);
    return argv;
  }
  std::string PageOf(const DashboardProcess& opened) const {
    return absl::StrCat(runtime_, "/raw/dashboard-", opened.port(), ".html");
  }

  std::string runtime_;
};

TEST_F(DashboardOpenTest, OpenGivesTheBrowserAPrivateFileNotTheToken) {
  DashboardProcess opened;
  const std::vector<std::string> argv = StartOpened("login", opened);
  ASSERT_EQ(argv.size(), 2u) << absl::StrJoin(argv, " | ");
  EXPECT_EQ(argv[1], "END");
  EXPECT_THAT(argv[0], Not(HasSubstr(opened.token())));
  const std::string page = PageOf(opened);
  EXPECT_EQ(argv[0], "file://" + page);

  // The file: the user's alone, and it leads to the tokened address.
  struct stat st {};
  ASSERT_EQ(stat(page.c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0600u);
  ASSERT_EQ(stat((runtime_ + "/raw").c_str(), &st), 0);
  EXPECT_EQ(st.st_mode & 0777, 0700u);
  std::ifstream in(page);
  const std::string html((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
  EXPECT_THAT(html, HasSubstr(absl::StrCat("content=\"0;url=http://127.0.0.1:", opened.port(),
                                           "/#token=", opened.token(), "\"")));

  // A wrong token leaves it; the first login with the token (the page the
  // file leads to makes one) removes it while the gateway runs on.
  DashboardProcess::Call login;
  login.method = "POST";
  login.target = "/api/login";
  login.with_token = false;
  login.headers = {"Authorization: Bearer wrong"};
  EXPECT_EQ(opened.Send(login).status, 401);
  EXPECT_TRUE(std::filesystem::exists(page));
  login.with_token = true;
  login.headers.clear();
  EXPECT_EQ(opened.Send(login).status, 204);
  EXPECT_FALSE(std::filesystem::exists(page));
  EXPECT_EQ(opened.Get("/api/info").status, 200);  // still serving

  const int status = opened.Stop();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
}

// Without a login the page stays while the gateway runs, and goes with it.
TEST_F(DashboardOpenTest, ThePageIsGoneOnceTheGatewayExits) {
  DashboardProcess opened;
  ASSERT_EQ(StartOpened("exit", opened).size(), 2u);
  const std::string page = PageOf(opened);
  EXPECT_TRUE(std::filesystem::exists(page));
  const int status = opened.Stop();
  EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
  EXPECT_FALSE(std::filesystem::exists(page));
}

}  // namespace
}  // namespace raw::e2e
