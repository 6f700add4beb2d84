#include "daemon/api/uds_listener.h"

#include <poll.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/un.h>
#include <unistd.h>

#include <cstring>
#include <fstream>
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/api/api_test_support.h"

namespace raw::api {
namespace {

using ::testing::HasSubstr;
using testing::CallGetDaemonInfo;
using testing::InfoOnlyService;
using testing::TestDir;
using testing::TestServer;

// A raw AF_UNIX client connection, or -1.
int ConnectRaw(const std::string& path) {
  int fd = socket(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  sockaddr_un addr{};
  addr.sun_family = AF_UNIX;
  std::strncpy(addr.sun_path, path.c_str(), sizeof(addr.sun_path) - 1);
  if (connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) != 0) {
    close(fd);
    return -1;
  }
  return fd;
}

// Reads until the peer closes the connection; true when it did within the
// bound (which only limits a failing test).
bool WaitForPeerClose(int fd) {
  char buf[256];
  for (;;) {
    pollfd p{fd, POLLIN, 0};
    if (poll(&p, 1, 10000) <= 0) return false;
    ssize_t n = read(fd, buf, sizeof(buf));
    if (n == 0) return true;
    if (n < 0) return errno == ECONNRESET;
  }
}

class UdsListenerTest : public ::testing::Test {
 protected:
  TestDir dir_;
  InfoOnlyService service_;
  std::string socket_ = dir_.File("rawd.sock");
};

TEST_F(UdsListenerTest, ServesAClientOfTheAllowedUid) {
  TestServer server(&service_, socket_, getuid());
  ASSERT_TRUE(server.status().ok()) << server.status();
  raw::v1::GetDaemonInfoResponse info;
  grpc::Status s = CallGetDaemonInfo(*server.NewStub(), &info);
  ASSERT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(info.pid(), 4242);
}

TEST_F(UdsListenerTest, SocketFileIsOwnerOnly) {
  TestServer server(&service_, socket_, getuid());
  ASSERT_TRUE(server.status().ok()) << server.status();
  struct stat st;
  ASSERT_EQ(lstat(socket_.c_str(), &st), 0);
  EXPECT_TRUE(S_ISSOCK(st.st_mode));
  EXPECT_EQ(st.st_mode & 07777, 0600u);
  EXPECT_EQ(st.st_uid, getuid());
}

TEST_F(UdsListenerTest, ConnectionFromAnotherUidIsClosed) {
  TestServer server(&service_, socket_, getuid() + 12345);
  ASSERT_TRUE(server.status().ok()) << server.status();

  int fd = ConnectRaw(socket_);
  ASSERT_GE(fd, 0) << std::strerror(errno);
  EXPECT_TRUE(WaitForPeerClose(fd)) << "the listener must close a stranger's connection";
  close(fd);

  grpc::Status s = CallGetDaemonInfo(*server.NewStub());
  EXPECT_EQ(s.error_code(), grpc::StatusCode::UNAVAILABLE) << s.error_message();
}

TEST_F(UdsListenerTest, GarbageOnTheSocketDoesNotStopServing) {
  TestServer server(&service_, socket_, getuid());
  ASSERT_TRUE(server.status().ok()) << server.status();

  int garbage = ConnectRaw(socket_);
  ASSERT_GE(garbage, 0);
  const char junk[] = "GET / HTTP/1.1\r\nHost: x\r\n\r\n\x00\xff\xfe garbage \x01\x02";
  ASSERT_EQ(write(garbage, junk, sizeof(junk)), static_cast<ssize_t>(sizeof(junk)));
  EXPECT_TRUE(WaitForPeerClose(garbage)) << "the server should drop a non-HTTP/2 peer";
  close(garbage);

  // A silent connection that stays open does not block others either.
  int silent = ConnectRaw(socket_);
  ASSERT_GE(silent, 0);
  raw::v1::GetDaemonInfoResponse info;
  grpc::Status s = CallGetDaemonInfo(*server.NewStub(), &info);
  EXPECT_TRUE(s.ok()) << s.error_message();
  EXPECT_EQ(info.pid(), 4242);
  close(silent);
}

TEST_F(UdsListenerTest, StaleSocketIsReplaced) {
  {
    // A socket file nobody listens on, as a killed daemon leaves behind.
    int fd = socket(AF_UNIX, SOCK_STREAM, 0);
    sockaddr_un addr{};
    addr.sun_family = AF_UNIX;
    std::strncpy(addr.sun_path, socket_.c_str(), sizeof(addr.sun_path) - 1);
    ASSERT_EQ(bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
    close(fd);
  }
  TestServer server(&service_, socket_, getuid());
  ASSERT_TRUE(server.status().ok()) << server.status();
  EXPECT_TRUE(CallGetDaemonInfo(*server.NewStub()).ok());
}

TEST_F(UdsListenerTest, LiveSocketIsNotTakenOver) {
  TestServer first(&service_, socket_, getuid());
  ASSERT_TRUE(first.status().ok()) << first.status();

  UdsListener second(socket_, getuid());
  absl::Status s = second.Listen();
  EXPECT_EQ(s.code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(std::string(s.message()), HasSubstr("already serving on " + socket_));
  second.Stop();

  EXPECT_TRUE(CallGetDaemonInfo(*first.NewStub()).ok()) << "the first listener must keep serving";
}

TEST_F(UdsListenerTest, NonSocketFileIsLeftAlone) {
  std::ofstream(socket_) << "precious";
  UdsListener listener(socket_, getuid());
  absl::Status s = listener.Listen();
  EXPECT_THAT(std::string(s.message()), HasSubstr("is not a socket"));
  listener.Stop();
  std::ifstream in(socket_);
  std::string content;
  in >> content;
  EXPECT_EQ(content, "precious");
}

TEST_F(UdsListenerTest, TooLongPathIsRefusedWithAHint) {
  UdsListener listener(dir_.File(std::string(120, 'x')), getuid());
  absl::Status s = listener.Listen();
  EXPECT_EQ(s.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(s.message()), HasSubstr("RAW_SOCKET"));
}

TEST_F(UdsListenerTest, StopRemovesTheSocketAndRefusesNewConnections) {
  TestServer server(&service_, socket_, getuid());
  ASSERT_TRUE(server.status().ok()) << server.status();
  server.listener().Stop();
  struct stat st;
  EXPECT_NE(lstat(socket_.c_str(), &st), 0);
  EXPECT_LT(ConnectRaw(socket_), 0);
}

TEST_F(UdsListenerTest, StopLeavesAReplacedFileAlone) {
  UdsListener listener(socket_, getuid());
  ASSERT_TRUE(listener.Listen().ok());
  ASSERT_EQ(unlink(socket_.c_str()), 0);
  std::ofstream(socket_) << "someone else's";
  listener.Stop();
  struct stat st;
  EXPECT_EQ(lstat(socket_.c_str(), &st), 0) << "Stop must only remove its own socket";
}

}  // namespace
}  // namespace raw::api
