#include "daemon/app/listen_fds.h"

#include <stdlib.h>
#include <unistd.h>

#include <string>

#include "gtest/gtest.h"

namespace raw::app {
namespace {

void SetProtocol(const std::string& pid, const std::string& fds, const char* names = nullptr) {
  setenv("LISTEN_PID", pid.c_str(), 1);
  setenv("LISTEN_FDS", fds.c_str(), 1);
  if (names != nullptr) setenv("LISTEN_FDNAMES", names, 1);
}

bool ProtocolCleared() {
  return getenv("LISTEN_PID") == nullptr && getenv("LISTEN_FDS") == nullptr &&
         getenv("LISTEN_FDNAMES") == nullptr;
}

TEST(ListenFdsTest, NothingIsPassedWithoutTheVariables) {
  unsetenv("LISTEN_PID");
  unsetenv("LISTEN_FDS");
  auto taken = TakeListenSocket();
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_FALSE(taken->has_value());
}

TEST(ListenFdsTest, SocketsMeantForAnotherProcessAreIgnoredAndTheVariablesCleared) {
  SetProtocol(std::to_string(getpid() + 1), "1", "rawd.socket");
  auto taken = TakeListenSocket();
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_FALSE(taken->has_value());
  // A tool command started later must not take them for its own.
  EXPECT_TRUE(ProtocolCleared());
}

TEST(ListenFdsTest, ZeroSocketsIsNone) {
  SetProtocol(std::to_string(getpid()), "0");
  auto taken = TakeListenSocket();
  ASSERT_TRUE(taken.ok()) << taken.status();
  EXPECT_FALSE(taken->has_value());
  EXPECT_TRUE(ProtocolCleared());
}

TEST(ListenFdsTest, MalformedValuesAreErrorsNamingTheVariable) {
  SetProtocol("twelve", "1");
  auto taken = TakeListenSocket();
  ASSERT_FALSE(taken.ok());
  EXPECT_NE(std::string(taken.status().message()).find("LISTEN_PID"), std::string::npos);
  EXPECT_TRUE(ProtocolCleared());

  SetProtocol(std::to_string(getpid()), "-1");
  taken = TakeListenSocket();
  ASSERT_FALSE(taken.ok());
  EXPECT_NE(std::string(taken.status().message()).find("LISTEN_FDS"), std::string::npos);
  EXPECT_TRUE(ProtocolCleared());
}

TEST(ListenFdsTest, MoreThanOneSocketIsRefused) {
  // Descriptors 3 and 4 must be open for the protocol to name them.
  int first = dup(STDIN_FILENO);
  int second = dup(STDIN_FILENO);
  ASSERT_GE(first, 0);
  ASSERT_GE(second, 0);
  const bool fits = first == kListenFdsStart && second == kListenFdsStart + 1;
  SetProtocol(std::to_string(getpid()), "2", "a.socket:b.socket");
  auto taken = TakeListenSocket();
  close(first);
  close(second);
  ASSERT_FALSE(taken.ok());
  if (fits) {
    EXPECT_NE(std::string(taken.status().message()).find("exactly one"), std::string::npos)
        << taken.status();
  }
  EXPECT_TRUE(ProtocolCleared());
}

}  // namespace
}  // namespace raw::app
