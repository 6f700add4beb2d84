// EventLoop: a task that throws (a JSON type error that slipped through)
// is logged, and the loop runs the next task.
#include "clients/acp/event_loop.h"

#include "common/json.h"
#include "gtest/gtest.h"

namespace raw::acp {
namespace {

TEST(EventLoopTest, AThrowingTaskDoesNotEndTheLoop) {
  EventLoop loop;
  bool ran_after = false;
  loop.Post([] {
    Json value = {{"code", "not a number"}};
    (void)value.value("code", 0);  // throws type_error
  });
  loop.Post([&] {
    ran_after = true;
    loop.Quit();
  });
  EXPECT_NO_THROW(loop.Run());
  EXPECT_TRUE(ran_after);
}

}  // namespace
}  // namespace raw::acp
