// The soak: one rawd serves 8 sessions, each followed by 3 subscribers, for
// RAW_SOAK_SECONDS (default 60; the documented long run is 1800). Rounds of
// concurrent turns (tool calls and streamed answers) with a /compact of every
// session every third round, and one subscriber of each session replaced each
// round. At the end of each round, with every turn ended, it samples rawd's
// resident memory, open descriptors and threads, and checks that none of
// them grows: the largest value of the last quarter of the rounds is at most
// the largest of the first half, plus a small allowance. The workers of the
// daemon's elastic pools, told apart by their threads' names, follow the
// load rather than time, and are checked against a bound instead.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/crash/crash_client.h"
#include "tests/crash/crash_model.h"
#include "tests/fakes/fake_provider_server.h"
#include "tests/support/test_daemon.h"

namespace raw::crash {
namespace {

constexpr int kSessions = 8;
constexpr int kSubscribers = 3;

struct Sample {
  long rss_kb = 0;
  int fds = 0;
  int threads = 0;  // all of rawd's threads
  int workers = 0;  // of them, the workers of its elastic pools (common/worker_pool.h)
};

// The names rawd's worker pools give their threads.
bool IsPoolWorker(const std::string& name) {
  return name == "rawd-sessions" || name == "rawd-streams";
}

long StatusField(pid_t pid, const std::string& field) {
  std::ifstream in(absl::StrCat("/proc/", pid, "/status"));
  std::string line;
  while (std::getline(in, line)) {
    if (line.rfind(field, 0) == 0) {
      long value = 0;
      std::string rest = line.substr(field.size());
      rest.erase(0, rest.find_first_not_of(" \t"));
      rest = rest.substr(0, rest.find(' '));
      if (absl::SimpleAtoi(rest, &value)) return value;
    }
  }
  return -1;
}

Sample Take(pid_t pid) {
  Sample s;
  s.rss_kb = StatusField(pid, "VmRSS:");
  for ([[maybe_unused]] const auto& e :
       std::filesystem::directory_iterator(absl::StrCat("/proc/", pid, "/fd"))) {
    ++s.fds;
  }
  // Threads and pool workers from one listing, so that the two counts
  // agree; a thread that ended between the listing and the read of its name
  // is not counted.
  std::error_code ec;
  for (const auto& task :
       std::filesystem::directory_iterator(absl::StrCat("/proc/", pid, "/task"), ec)) {
    std::ifstream comm(task.path() / "comm");
    std::string name;
    if (!std::getline(comm, name)) continue;
    ++s.threads;
    if (IsPoolWorker(name)) ++s.workers;
  }
  return s;
}

int SoakSeconds() {
  int seconds = 0;
  const char* text = std::getenv("RAW_SOAK_SECONDS");
  return text != nullptr && absl::SimpleAtoi(text, &seconds) && seconds > 0 ? seconds : 60;
}

TEST(Soak, MemoryDescriptorsAndThreadsStayFlat) {
  testing::FakeProviderServer fake;
  ASSERT_TRUE(fake.status().ok()) << fake.status();
  fake.SetResponder(Respond);
  e2e::TestDaemon daemon(HarnessConfig(fake.base_url()));
  // Under AddressSanitizer freed memory waits in a quarantine (256 MB by
  // default) before it is reused, so resident memory grows until that is
  // full whatever the daemon does, and more slowly on a loaded machine: the
  // soak's daemon gets a small one. Other builds ignore the variable.
  daemon.SetEnv("ASAN_OPTIONS", "quarantine_size_mb=8");
  ASSERT_TRUE(daemon.Start().ok()) << daemon.ReadStderr();
  std::vector<std::string> sessions;
  for (int i = 0; i < kSessions; ++i) sessions.push_back(daemon.CreateSession());

  // The driving client of each session holds its lease; the others watch.
  std::vector<std::unique_ptr<CrashClient>> drivers;
  std::vector<std::vector<std::unique_ptr<e2e::EventStream>>> watchers(kSessions);
  for (int i = 0; i < kSessions; ++i) {
    drivers.push_back(std::make_unique<CrashClient>(daemon.stub(), sessions[i], 0));
    ASSERT_TRUE(drivers.back()->ready());
    for (int w = 0; w < kSubscribers - 1; ++w) {
      watchers[i].push_back(std::make_unique<e2e::EventStream>(daemon.stub(), sessions[i]));
    }
  }

  const int seconds = SoakSeconds();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(seconds);
  std::vector<Sample> samples;
  int op = 0;
  for (int round = 0; std::chrono::steady_clock::now() < deadline || round < 8; ++round) {
    std::vector<std::thread> turns;
    std::vector<int> ok(kSessions, 0);
    for (int i = 0; i < kSessions; ++i) {
      const int this_op = ++op;
      turns.emplace_back([&, i, this_op, round] {
        bool alive = drivers[i]->ToolTurn(this_op, 1 + (round + i) % 2, (round + i) % 5 == 0);
        if (alive && round % 3 == 2) alive = drivers[i]->Compact();
        ok[i] = alive ? 1 : 0;
      });
    }
    for (auto& t : turns) t.join();
    for (int i = 0; i < kSessions; ++i) ASSERT_TRUE(ok[i]) << "session " << i << ", round " << round;
    // A watcher leaves and a new one joins, as clients come and go.
    for (int i = 0; i < kSessions; ++i) {
      watchers[i].erase(watchers[i].begin());
      watchers[i].push_back(std::make_unique<e2e::EventStream>(daemon.stub(), sessions[i]));
    }
    samples.push_back(Take(daemon.pid()));
  }

  const size_t n = samples.size();
  auto max_of = [&](size_t from, size_t to, auto field) {
    decltype(field(samples[0])) best = 0;
    for (size_t i = from; i < to; ++i) best = std::max(best, field(samples[i]));
    return best;
  };
  auto rss = [](const Sample& s) { return s.rss_kb; };
  auto fds = [](const Sample& s) { return s.fds; };
  auto others = [](const Sample& s) { return s.threads - s.workers; };
  auto workers = [](const Sample& s) { return s.workers; };
  const long rss_early = max_of(0, n / 2, rss), rss_late = max_of(n - n / 4, n, rss);
  const int fds_early = max_of(0, n / 2, fds), fds_late = max_of(n - n / 4, n, fds);
  const int others_early = max_of(0, n / 2, others), others_late = max_of(n - n / 4, n, others);
  const int workers_early = max_of(0, n / 2, workers), workers_most = max_of(0, n, workers);
  std::printf(
      "[soak] %d s, %zu rounds of %d sessions with %d subscribers each: RSS %ld -> %ld kB "
      "(first sample %ld), descriptors %d -> %d, threads other than pool workers %d -> %d "
      "(largest of the first half -> largest of the last quarter); pool workers %d -> %d at most\n",
      seconds, n, kSessions, kSubscribers, rss_early, rss_late, samples.front().rss_kb, fds_early,
      fds_late, others_early, others_late, workers_early, workers_most);
  EXPECT_LE(rss_late, rss_early + rss_early / 10) << "resident memory grows";
  EXPECT_LE(fds_late, fds_early + 2) << "descriptors leak";
  EXPECT_LE(others_late, others_early + 2) << "threads leak";
  // The worker pools are elastic: each holds as many threads as tasks ran
  // at once in the last 30 s, which follows the machine's load, so their
  // size moves between samples; a worker that never exits is the pool's
  // own tests' concern (tests/common/worker_pool_test.cc). Here they must
  // stay within what the load can ask for: per session a turn, its tool
  // calls and a compaction, and per subscriber a stream's task.
  EXPECT_LE(workers_most, kSessions * (kSubscribers + 4)) << "pool workers beyond the load";
}

}  // namespace
}  // namespace raw::crash
