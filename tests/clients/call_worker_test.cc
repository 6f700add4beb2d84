#include "clients/lib/call_worker.h"

#include <functional>
#include <memory>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"
#include "gtest/gtest.h"

namespace raw::client {
namespace {

// The owner's thread: posted tasks wait here until the test runs them.
struct Posted {
  CallWorker::Executor executor() {
    return [this](std::function<void()> task) {
      absl::MutexLock lock(&mu);
      tasks.push_back(std::move(task));
    };
  }
  size_t size() {
    absl::MutexLock lock(&mu);
    return tasks.size();
  }
  void RunAll() {
    std::vector<std::function<void()>> run;
    {
      absl::MutexLock lock(&mu);
      run.swap(tasks);
    }
    for (const auto& task : run) task();
  }

  absl::Mutex mu;
  std::vector<std::function<void()>> tasks ABSL_GUARDED_BY(mu);
};

TEST(CallWorkerTest, RunsTasksInOrderAndPostsTheirResults) {
  Posted posted;
  std::vector<int> seen;
  {
    CallWorker worker(posted.executor());
    absl::Notification second_done;
    for (int i = 0; i < 2; ++i) {
      worker.Run([i, post = worker.poster(), &seen, &second_done] {
        post([i, &seen] { seen.push_back(i); });
        if (i == 1) second_done.Notify();
      });
    }
    second_done.WaitForNotification();
    posted.RunAll();
  }
  EXPECT_EQ(seen, (std::vector<int>{0, 1}));
}

// The destructor returns while a task still runs: the task finishes on its
// own thread afterwards, posts nothing, and later tasks never run.
TEST(CallWorkerTest, DestructionDoesNotWaitForTheRunningTask) {
  Posted posted;
  absl::Notification started, release, finished;
  bool later_ran = false;
  auto worker = std::make_unique<CallWorker>(posted.executor());
  worker->Run([post = worker->poster(), &started, &release, &finished] {
    started.Notify();
    release.WaitForNotification();
    post([] { ADD_FAILURE() << "posted after the worker was destroyed"; });
    finished.Notify();
  });
  worker->Run([&later_ran] { later_ran = true; });
  started.WaitForNotification();
  worker.reset();  // returns with the task blocked
  EXPECT_FALSE(finished.HasBeenNotified());
  release.Notify();
  EXPECT_TRUE(CallWorker::WaitForDetached(absl::Seconds(10)));
  EXPECT_TRUE(finished.HasBeenNotified());
  EXPECT_EQ(posted.size(), 0u);
  EXPECT_FALSE(later_ran);
}

// A result posted before the destructor but not yet run on the owner's
// thread is dropped.
TEST(CallWorkerTest, APostedResultDoesNotRunAfterDestruction) {
  Posted posted;
  bool ran = false;
  auto worker = std::make_unique<CallWorker>(posted.executor());
  absl::Notification done;
  worker->Run([post = worker->poster(), &ran, &done] {
    post([&ran] { ran = true; });
    done.Notify();
  });
  done.WaitForNotification();
  worker.reset();
  ASSERT_EQ(posted.size(), 1u);
  posted.RunAll();
  EXPECT_FALSE(ran);
}

}  // namespace
}  // namespace raw::client
