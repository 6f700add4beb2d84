// UsePollEngine chooses gRPC's `poll` engine unless the environment has
// chosen one already. (It is read when gRPC starts: the test puts the
// variable back as it found it before any gRPC object could see it.)
#include "clients/lib/poll_engine.h"

#include <stdlib.h>

#include <optional>
#include <string>

#include "gtest/gtest.h"

namespace raw::client {
namespace {

class PollEngineTest : public ::testing::Test {
 protected:
  void SetUp() override {
    if (const char* v = getenv("GRPC_POLL_STRATEGY")) saved_ = v;
  }
  void TearDown() override {
    if (saved_) {
      setenv("GRPC_POLL_STRATEGY", saved_->c_str(), 1);
    } else {
      unsetenv("GRPC_POLL_STRATEGY");
    }
  }
  static std::string Strategy() {
    const char* v = getenv("GRPC_POLL_STRATEGY");
    return v == nullptr ? "<unset>" : v;
  }
  std::optional<std::string> saved_;
};

TEST_F(PollEngineTest, ChoosesPollWhenNothingIsChosen) {
  unsetenv("GRPC_POLL_STRATEGY");
  UsePollEngine();
  EXPECT_EQ(Strategy(), "poll");
}

TEST_F(PollEngineTest, KeepsTheEngineTheUserChose) {
  setenv("GRPC_POLL_STRATEGY", "epoll1", 1);
  UsePollEngine();
  EXPECT_EQ(Strategy(), "epoll1");
}

}  // namespace
}  // namespace raw::client
