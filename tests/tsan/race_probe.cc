// The ThreadSanitizer stage's check of itself (scripts/tsan.sh): with
// "guarded", two threads hand a counter back and forth through every
// Abseil primitive the interposer announces (Mutex, Await, LockWhen,
// CondVar, Notification) and a std::future, and no race may be reported;
// with "racy", one more write goes unguarded, and the race must be
// reported. Together they show that the annotations make Abseil's edges
// visible without hiding a real race.
#include <atomic>
#include <cstdio>
#include <cstring>
#include <future>
#include <thread>

#include "absl/synchronization/mutex.h"
#include "absl/synchronization/notification.h"

int main(int argc, char** argv) {
  const bool racy = argc > 1 && std::strcmp(argv[1], "racy") == 0;
  absl::Mutex mu;
  absl::CondVar cv;
  int counter = 0;
  int turn = 0;
  // The racy run's pair: a write and a read with no edge between them. The
  // relaxed flag only orders them in time (so the read always finds the
  // write in ThreadSanitizer's history); it synchronizes nothing. The value
  // lives apart from `turn`: ThreadSanitizer reports one race per 8-byte
  // cell, and the suppressed report of a Condition reading `turn` would
  // otherwise take the cell.
  alignas(64) static int unguarded = 0;
  std::atomic<bool> written{false};
  absl::Notification done;
  std::promise<int> result;
  std::thread worker([&] {
    {
      absl::MutexLock lock(&mu);
      auto mine = [&turn] { return turn == 1; };
      mu.Await(absl::Condition(&mine));
      ++counter;
      turn = 2;
      cv.Signal();
    }
    mu.LockWhen(absl::Condition(+[](int* t) { return *t == 3; }, &turn));
    ++counter;
    mu.Unlock();
    if (racy) {
      unguarded = 1;
      written.store(true, std::memory_order_relaxed);
    }
    done.Notify();
    result.set_value(counter);
  });
  {
    absl::MutexLock lock(&mu);
    ++counter;
    turn = 1;
    while (turn != 2) cv.Wait(&mu);
    ++counter;
    turn = 3;
  }
  if (racy) {
    while (!written.load(std::memory_order_relaxed)) {
    }
    std::printf("unguarded %d\n", unguarded);  // the race
  }
  done.WaitForNotification();
  const int final_count = result.get_future().get();
  worker.join();
  std::printf("counter %d\n", final_count);
  return 0;
}
