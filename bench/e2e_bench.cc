// End-to-end harness: a real rawd against the fake provider with zero
// scripted latency, driven by the real `raw run`. Reports
// - per-step orchestration overhead inside the daemon: (TurnEnded time -
//   TurnStarted time - time spent in tools) / steps, from event timestamps;
// - wall time of a whole `raw run` (process start, connect, turn, exit), and
//   the time from its start to the provider's receipt of its first request;
// - rawd's own step timeline (GetStats' overhead, daemon/loop/step_timeline.h):
//   p50 and p99 of every step's total, and the median of each phase;
// - rawd's CPU time per model request: the scheduler time of all its threads
//   during a run (serving `raw run`, its session and subscription, the turn
//   and its read_file calls), divided by the run's requests, median of runs,
//   and how many times its threads were put on a processor meanwhile;
// - rawd's resident memory when idle, after start-up and after the runs, its
//   peak (VmHWM), and the peak of the largest `raw run` (getrusage, through
//   bench/child_peak.cc so that the harness's own memory is not counted).
//
// With HISTORY > 0 every run continues one session whose model context
// already holds HISTORY items (written into the store before rawd starts),
// to show how each phase grows with the history.
//
// usage: e2e_bench [RUNS] [TOOL_STEPS] [HISTORY]   (defaults 20, 3 and 0)
// Each variable RAW_BENCH_RAWD_<NAME> of the bench's environment is given to
// rawd as <NAME>, and only to rawd: for trying an allocator
// (RAW_BENCH_RAWD_LD_PRELOAD=libjemalloc.so.2) or its settings
// (RAW_BENCH_RAWD_MALLOC_ARENA_MAX=2).
// RAW_BENCH_DAEMON_LAUNCHER and RAW_BENCH_CLIENT_LAUNCHER, words separated by
// spaces, are put before rawd's and `raw run`'s command lines: for running
// them under a profiler (scripts/hot-text.sh). RAW_BENCH_SMAPS=FILE copies
// rawd's /proc/PID/smaps into FILE after the runs, for a mapping-by-mapping
// account of its memory. The fake provider keeps each connection open for
// the next request, as a provider's API does; RAW_BENCH_CLOSE_CONNECTIONS=1
// makes it close each one after its answer instead. RAW_BENCH_PACE_US=N
// makes it pause N microseconds before each chunk of an answer after the
// first, as a provider streams (about six chunks an answer), so that rawd's
// threads and processors go idle between requests as they do against a
// real API. RAW_BENCH_ITEM_BYTES=N makes each item of a HISTORY about N
// bytes (300 by default).
// Figures and the command line are recorded in docs/performance.md.
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <numeric>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "absl/time/clock.h"
#include "bench/process_stats.h"
#include "daemon/store/database_files.h"
#include "daemon/store/session_store.h"
#include "tests/fakes/fake_provider_server.h"
#include "tests/fakes/sse_builders.h"
#include "tests/support/seeded_session.h"
#include "tests/support/test_daemon.h"

namespace {

namespace chat = raw::testing::chat;

constexpr char kConfig[] = R"({
  "default_agent": "bench",
  "models": {"fake": {"provider": "openai", "method": "openai-chat-completions",
    "model_id": "bench", "base_url": "${BASE_URL}", "api_key_env": "RAW_TEST_KEY"}},
  "agents": {"bench": {"model": "fake", "max_steps": 50,
    "tools": {"use": ["builtin/read_file"]}}}
})";

// RAW_BENCH_RAWD_<NAME>=<VALUE> of `environ`, as {NAME, VALUE}.
std::vector<std::pair<std::string, std::string>> RawdEnvironment() {
  constexpr std::string_view kPrefix = "RAW_BENCH_RAWD_";
  std::vector<std::pair<std::string, std::string>> found;
  for (char** entry = environ; *entry != nullptr; ++entry) {
    std::string_view text(*entry);
    const size_t equals = text.find('=');
    if (text.substr(0, kPrefix.size()) != kPrefix || equals == std::string_view::npos) continue;
    found.emplace_back(std::string(text.substr(kPrefix.size(), equals - kPrefix.size())),
                       std::string(text.substr(equals + 1)));
  }
  return found;
}

double Median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

// Steps of rawd's own timeline, phase by phase (µs).
struct Phases {
  std::vector<double> total, pre, build, send, commit, tools;

  void Add(const raw::v1::StepOverhead& step) {
    total.push_back(static_cast<double>(step.total_us()));
    pre.push_back(static_cast<double>(step.pre_request_us()));
    build.push_back(static_cast<double>(step.build_us()));
    send.push_back(static_cast<double>(step.send_us()));
    commit.push_back(static_cast<double>(step.commit_us()));
    tools.push_back(static_cast<double>(step.tools_us()));
  }
};

// The words of the environment variable `variable`; none if it is unset.
std::vector<std::string> Launcher(const char* variable) {
  const char* words = std::getenv(variable);
  if (words == nullptr) return {};
  return absl::StrSplit(words, ' ', absl::SkipEmpty());
}

// The peak child_peak printed on the last line of `err`; 0 if none.
long ChildPeakKb(const std::string& err) {
  const size_t at = err.rfind("child_peak_kb=");
  return at == std::string::npos ? 0 : std::atol(err.c_str() + at + 14);
}

raw::testing::ScriptedResponse KeptOpen(raw::testing::ScriptedResponse response) {
  static const bool close_each = std::getenv("RAW_BENCH_CLOSE_CONNECTIONS") != nullptr &&
                                 std::string(std::getenv("RAW_BENCH_CLOSE_CONNECTIONS")) == "1";
  if (!close_each) response.end = raw::testing::ScriptedResponse::End::kKeepOpen;
  if (const char* pace = std::getenv("RAW_BENCH_PACE_US")) {
    response.chunk_interval = std::chrono::microseconds(std::atoi(pace));
  }
  return response;
}

}  // namespace

int main(int argc, char** argv) {
  const int runs = argc > 1 ? std::atoi(argv[1]) : 20;
  const int tool_steps = argc > 2 ? std::atoi(argv[2]) : 3;
  const int history = argc > 3 ? std::atoi(argv[3]) : 0;
  raw::testing::FakeProviderServer fake;
  if (!fake.status().ok()) {
    std::fprintf(stderr, "fake provider: %s\n", std::string(fake.status().message()).c_str());
    return 1;
  }
  raw::e2e::TestDaemon daemon(absl::StrReplaceAll(kConfig, {{"${BASE_URL}", fake.base_url()}}));
  const std::string seeded = history > 0 ? "sess_benchhistory00001" : "";
  if (history > 0) {
    // RAW_BENCH_ITEM_BYTES: the items' size (about 300 bytes by default), to
    // tell what grows with the number of items from what grows with the
    // bytes each request carries.
    const char* item_bytes = std::getenv("RAW_BENCH_ITEM_BYTES");
    const size_t filler =
        item_bytes == nullptr ? 280 : static_cast<size_t>(std::max(20, std::atoi(item_bytes)) - 20);
    if (absl::Status s = raw::e2e::SeedSession(daemon, seeded, "bench", history, filler); !s.ok()) {
      std::fprintf(stderr, "seeding the session: %s\n", std::string(s.message()).c_str());
      return 1;
    }
  }
  for (const auto& [name, value] : RawdEnvironment()) {
    std::printf("rawd's environment: %s=%s\n", name.c_str(), value.c_str());
    daemon.SetEnv(name, value);
  }
  daemon.SetLauncher(Launcher("RAW_BENCH_DAEMON_LAUNCHER"));
  const std::vector<std::string> client_launcher = Launcher("RAW_BENCH_CLIENT_LAUNCHER");
  if (auto s = daemon.Start(); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  { std::ofstream(daemon.workdir() + "/small.txt") << "hello\n"; }
  const long rss_start = raw::bench::StatusKb(daemon.pid(), "VmRSS:");

  std::vector<double> wall_ms, first_request_ms, step_overhead_ms, cpu_per_request_us,
      wakeups_per_request;
  // From rawd's own timeline, every step of every run, and the first step
  // of each turn, which also sets the turn up.
  Phases timeline, first;
  raw::v1::StepOverhead slowest;  // the step with the largest total
  int slowest_index = 0;
  long raw_peak_kb = 0;
  for (int i = 0; i < runs; ++i) {
    // Each answer leaves its connection open for the next request, as a
    // provider's API does, so that rawd's kept connections are measured.
    for (int s = 0; s < tool_steps; ++s) {
      fake.Enqueue(KeptOpen(
          chat::ToolCallsAnswer({{absl::StrCat("c", s), "read_file", R"({"path":"small.txt"})"}})));
    }
    fake.Enqueue(KeptOpen(chat::TextAnswer("done")));
    const size_t before = fake.requests().size();
    auto t0 = std::chrono::steady_clock::now();
    std::vector<std::string> run = {raw::e2e::BinaryPath("child_peak")};
    run.insert(run.end(), client_launcher.begin(), client_launcher.end());
    run.insert(run.end(), {raw::e2e::BinaryPath("raw"), "run", "--json"});
    if (seeded.empty()) {
      run.insert(run.end(), {"--cwd", daemon.workdir(), "go"});
    } else {
      run.insert(run.end(), {"--session", seeded, "go"});
    }
    const double cpu_before_us = raw::bench::ThreadsCpuUs(daemon.pid());
    const double scheduled_before = raw::bench::ThreadsScheduled(daemon.pid());
    auto r = raw::e2e::RunCommand(run, daemon.env(), "");
    auto t1 = std::chrono::steady_clock::now();
    // The turn has ended when `raw run` exits: rawd is idle again.
    cpu_per_request_us.push_back((raw::bench::ThreadsCpuUs(daemon.pid()) - cpu_before_us) /
                                 (tool_steps + 1));
    wakeups_per_request.push_back(
        (raw::bench::ThreadsScheduled(daemon.pid()) - scheduled_before) / (tool_steps + 1));
    if (r.exit_code != 0) {
      std::fprintf(stderr, "raw run failed (%d): %s\n", r.exit_code, r.err.c_str());
      return 1;
    }
    wall_ms.push_back(std::chrono::duration<double, std::milli>(t1 - t0).count());
    raw_peak_kb = std::max(raw_peak_kb, ChildPeakKb(r.err));
    const std::vector<raw::testing::RecordedRequest> requests = fake.requests();
    if (requests.size() > before) {
      first_request_ms.push_back(
          std::chrono::duration<double, std::milli>(requests[before].received - t0).count());
    }
    // Event timestamps (ms) from the JSON Lines output.
    int64_t started = 0, ended = 0, tools_ms = 0;
    std::string session;
    for (size_t at = 0; at < r.out.size();) {
      size_t nl = r.out.find('\n', at);
      std::string line = r.out.substr(at, nl - at);
      at = nl == std::string::npos ? r.out.size() : nl + 1;
      auto time_at = line.find("\"time_unix_ms\":\"");
      int64_t t = time_at == std::string::npos ? 0 : std::stoll(line.substr(time_at + 16));
      if (line.find("\"turn_started\"") != std::string::npos) started = t;
      if (auto id = line.find("\"session_id\":\""); session.empty() && id != std::string::npos) {
        session = line.substr(id + 14, line.find('"', id + 14) - (id + 14));
      }
      if (line.find("\"turn_ended\"") != std::string::npos) ended = t;
      auto d = line.find("\"duration_ms\":\"");
      if (d != std::string::npos) tools_ms += std::stoll(line.substr(d + 15));
    }
    step_overhead_ms.push_back(static_cast<double>(ended - started - tools_ms) /
                               (tool_steps + 1));
    raw::v1::GetStatsRequest stats_request;
    stats_request.set_session_id(session);
    raw::v1::GetStatsResponse stats;
    grpc::ClientContext ctx;
    if (!daemon.stub().GetStats(&ctx, stats_request, &stats).ok()) {
      std::fprintf(stderr, "GetStats of session %s failed\n", session.c_str());
      return 1;
    }
    int index = 0;
    for (const raw::v1::StepOverhead& step : stats.overhead().last_turn()) {
      ++index;
      if (step.total_us() > slowest.total_us()) {
        slowest = step;
        slowest_index = index;
      }
      timeline.Add(step);
      if (index == 1) first.Add(step);
    }
  }
  const long rss_end = raw::bench::StatusKb(daemon.pid(), "VmRSS:");
  const char* pace = std::getenv("RAW_BENCH_PACE_US");
  std::printf("runs=%d steps_per_turn=%d history=%d items (%s)\n", runs, tool_steps + 1, history,
              pace == nullptr
                  ? "zero provider latency"
                  : absl::StrCat(pace, " us before each chunk after the first").c_str());
  std::printf("orchestration overhead per step (median): %.2f ms\n", Median(step_overhead_ms));
  std::printf("rawd's own time per step (timeline, %zu steps): p50 %.0f us, p99 %.0f us\n",
              timeline.total.size(), raw::bench::Percentile(timeline.total, 0.5),
              raw::bench::Percentile(timeline.total, 0.99));
  std::printf(
      "  median by phase: before request %.0f us, build %.0f us, send %.0f us, "
      "commit %.0f us, tools %.0f us\n",
      Median(timeline.pre), Median(timeline.build), Median(timeline.send), Median(timeline.commit),
      Median(timeline.tools));
  std::printf(
      "  first step of a turn (median): %.0f us: before request %.0f us, build %.0f us, "
      "send %.0f us, commit %.0f us, tools %.0f us\n",
      Median(first.total), Median(first.pre), Median(first.build), Median(first.send),
      Median(first.commit), Median(first.tools));
  std::printf("  slowest (step %d of its turn): before request %ld us, build %ld us, send %ld us, "
              "commit %ld us, tools %ld us\n",
              slowest_index, static_cast<long>(slowest.pre_request_us()),
              static_cast<long>(slowest.build_us()), static_cast<long>(slowest.send_us()),
              static_cast<long>(slowest.commit_us()), static_cast<long>(slowest.tools_us()));
  std::printf("rawd CPU time per model request, all of its threads (median of runs): %.0f us\n",
              Median(cpu_per_request_us));
  std::printf("  and its threads put on a processor per model request (median): %.0f\n",
              Median(wakeups_per_request));
  std::printf("raw run wall time per turn (median): %.1f ms\n", Median(wall_ms));
  std::printf("raw run start to first provider request (median): %.1f ms\n",
              Median(first_request_ms));
  std::printf("rawd idle RSS after start: %ld KiB, after %d turns: %ld KiB\n", rss_start, runs,
              rss_end);
  const long rawd_peak_kb = raw::bench::StatusKb(daemon.pid(), "VmHWM:");
  if (const char* out = std::getenv("RAW_BENCH_SMAPS")) {
    std::ifstream smaps("/proc/" + std::to_string(daemon.pid()) + "/smaps");
    std::ofstream(out) << smaps.rdbuf();
  }
  // A clean stop, so that a profiler under RAW_BENCH_DAEMON_LAUNCHER writes its output.
  daemon.Stop(SIGTERM);
  std::printf("peak RSS: rawd %ld KiB, raw run %ld KiB, together %ld KiB\n", rawd_peak_kb,
              raw_peak_kb, rawd_peak_kb + raw_peak_kb);
  return 0;
}
