// raw-acp end-to-end: a real rawd against the fake provider (zero scripted
// latency) and the real raw-acp on pipes. Reports
// - the latency the bridge adds per streamed chunk: for every text delta,
//   the time its agent_message_chunk line is read from raw-acp's stdout
//   minus the time the same delta arrives on a gRPC subscription of this
//   process (both are clients of the same daemon stream), p50 and p99. The
//   two threads that take these times run at real-time priority where the
//   system permits (TimeAtRealtimePriority), so that their own wait for a
//   processor does not count as the bridge's;
// - the CPU time raw-acp spent on the turn (its threads' scheduler time,
//   from the prompt to the answer), per streamed delta: unlike the
//   latency, it holds when other programs load the machine;
// - raw-acp's peak resident memory (VmHWM) after a 10-step turn.
// RAW_BENCH_TIMES=FILE writes the reading thread and the times of every
// read and delta into FILE, for bench/written_latency.py, which takes the
// reader's own wake-up out of each latency with a scheduler trace.
//
// usage: acp_e2e_bench [CHUNKS_PER_STEP] [STEPS] [CHUNK_INTERVAL_US]   (defaults 100, 10, 0:
// bursts) Figures and the command line are recorded in docs/performance.md.
#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "bench/process_stats.h"
#include "absl/strings/str_replace.h"
#include "common/json.h"
#include "tests/fakes/fake_provider_server.h"
#include "tests/fakes/sse_builders.h"
#include "tests/support/test_daemon.h"

extern char** environ;

namespace {

namespace chat = raw::testing::chat;
using Clock = std::chrono::steady_clock;

constexpr char kConfig[] = R"({
  "default_agent": "bench",
  "models": {"fake": {"provider": "openai", "method": "openai-chat-completions",
    "model_id": "bench", "base_url": "${BASE_URL}", "api_key_env": "RAW_TEST_KEY"}},
  "agents": {"bench": {"model": "fake", "max_steps": 50, "approval_mode": "allow_all",
    "tools": {"use": ["builtin/read_file"]}}}
})";

using raw::bench::Percentile;
using raw::bench::StatusKb;

// raw-acp on two pipes.
struct Bridge {
  pid_t pid = -1;
  int in = -1;   // its stdin
  int out = -1;  // its stdout
  std::string pending;

  void Send(const raw::Json& message) {
    std::string line = raw::DumpJson(message) + "\n";
    (void)!write(in, line.data(), line.size());
  }
  // The next line (blocking).
  std::string Line() {
    for (;;) {
      size_t nl = pending.find('\n');
      if (nl != std::string::npos) {
        std::string line = pending.substr(0, nl);
        pending.erase(0, nl + 1);
        return line;
      }
      char buf[65536];
      ssize_t n = read(out, buf, sizeof buf);
      if (n <= 0) return "";
      pending.append(buf, static_cast<size_t>(n));
    }
  }
};

Bridge StartBridge(const std::map<std::string, std::string>& env) {
  int to[2], from[2];
  if (pipe(to) != 0 || pipe(from) != 0) std::abort();
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, to[0], 0);
  posix_spawn_file_actions_adddup2(&fa, from[1], 1);
  posix_spawn_file_actions_addclose(&fa, to[1]);
  posix_spawn_file_actions_addclose(&fa, from[0]);
  std::string bin = raw::e2e::BinaryPath("raw-acp");
  std::vector<std::string> envs;
  for (const auto& [k, v] : env) envs.push_back(k + "=" + v);
  std::vector<char*> envp;
  for (auto& e : envs) envp.push_back(e.data());
  envp.push_back(nullptr);
  char* argv[] = {bin.data(), nullptr};
  Bridge b;
  if (posix_spawn(&b.pid, bin.c_str(), &fa, nullptr, argv, envp.data()) != 0) std::abort();
  close(to[0]);
  close(from[1]);
  b.in = to[1];
  b.out = from[0];
  return b;
}

}  // namespace

int main(int argc, char** argv) {
  const int chunks = argc > 1 ? std::atoi(argv[1]) : 100;
  const int steps = argc > 2 ? std::atoi(argv[2]) : 10;
  // 0: each step's answer in one burst; otherwise a provider's pace.
  const int interval_us = argc > 3 ? std::atoi(argv[3]) : 0;
  raw::testing::FakeProviderServer fake;
  raw::e2e::TestDaemon daemon(absl::StrReplaceAll(kConfig, {{"${BASE_URL}", fake.base_url()}}));
  if (auto s = daemon.Start(); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  { std::ofstream(daemon.workdir() + "/small.txt") << "hello\n"; }
  // Every step streams `chunks` text deltas; all but the last call a tool.
  for (int s = 0; s < steps; ++s) {
    std::vector<std::string> events = {chat::RoleChunk()};
    for (int c = 0; c < chunks; ++c) events.push_back(chat::TextChunk(absl::StrCat("s", s, "c", c, " ")));
    if (s + 1 < steps) {
      for (const auto& e : chat::ToolCallChunks(0, absl::StrCat("t", s), "read_file", R"({"path":"small.txt"})")) {
        events.push_back(e);
      }
      events.push_back(chat::FinishChunk("tool_calls"));
    } else {
      events.push_back(chat::FinishChunk("stop"));
    }
    events.push_back(chat::UsageChunk(10, 2));
    events.push_back(chat::Done());
    raw::testing::ScriptedResponse answer = chat::Stream(events);
    answer.chunk_interval = std::chrono::microseconds(interval_us);
    fake.Enqueue(answer);
  }

  Bridge bridge = StartBridge(daemon.env());
  bridge.Send({{"jsonrpc", "2.0"}, {"id", 1}, {"method", "initialize"},
               {"params", {{"protocolVersion", 1}, {"clientInfo", {{"name", "bench"}, {"version", "1"}}}}}});
  bridge.Line();
  bridge.Send({{"jsonrpc", "2.0"}, {"id", 2}, {"method", "session/new"},
               {"params", {{"cwd", daemon.workdir()}, {"mcpServers", raw::Json::array()}}}});
  std::string session;
  for (;;) {
    raw::Json m = raw::Json::parse(bridge.Line());
    if (m.contains("id") && m["id"] == 2) {
      session = m["result"]["sessionId"];
      break;
    }
  }

  // This process's own subscription: when each delta leaves the daemon.
  std::mutex mu;
  std::map<std::string, Clock::time_point> grpc_at;
  grpc::ClientContext ctx;
  raw::v1::SubscribeRequest sub;
  sub.set_session_id(session);
  // Batched, as the bridge subscribes (raw_service.proto): a delta's time is
  // when the message carrying it was read.
  auto reader = daemon.stub().SubscribeBatched(&ctx, sub);
  std::thread subscriber([&] {
    raw::bench::TimeAtRealtimePriority();
    raw::v1::EventBatch batch;
    bool ended = false;
    while (!ended && reader->Read(&batch)) {
      const Clock::time_point now = Clock::now();
      std::lock_guard<std::mutex> l(mu);
      for (const raw::v1::Event& e : batch.events()) {
        if (e.has_text_delta()) grpc_at.emplace(e.text_delta().text(), now);
        ended = ended || e.has_turn_ended();
      }
    }
  });

  const bool realtime = raw::bench::TimeAtRealtimePriority();
  const pid_t reader_tid = gettid();  // the thread that reads raw-acp's lines
  const double cpu_before_us = raw::bench::ThreadsCpuUs(bridge.pid);
  bridge.Send({{"jsonrpc", "2.0"}, {"id", 3}, {"method", "session/prompt"},
               {"params", {{"sessionId", session}, {"prompt", {{{"type", "text"}, {"text", "go"}}}}}}});
  // Lines are only timed here and decoded after the turn, so that reading
  // keeps up with the bridge. Nothing else is done between two reads: a
  // look at /proc here would delay the next line and count in its latency
  // (the peak memory is the kernel's VmHWM, read after the turn).
  std::vector<std::pair<std::string, Clock::time_point>> lines;
  const std::string answer_marker = "\"id\":3";
  for (;;) {
    std::string line = bridge.Line();
    Clock::time_point now = Clock::now();
    if (line.empty()) break;
    const bool answer = line.find(answer_marker) != std::string::npos &&
                        line.find("\"result\"") != std::string::npos;
    lines.emplace_back(std::move(line), now);
    if (answer) break;
  }
  // The bridge joins the deltas that queue up into one chunk: a delta has
  // arrived when the line holding its text (each is "s<step>c<n> ") was read.
  std::map<std::string, Clock::time_point> acp_at;
  size_t acp_lines = 0;
  for (const auto& [line, at] : lines) {
    raw::Json m = raw::Json::parse(line);
    if (m.value("method", "") == "session/update" &&
        m["params"]["update"]["sessionUpdate"] == "agent_message_chunk") {
      ++acp_lines;
      for (absl::string_view delta :
           absl::StrSplit(m["params"]["update"]["content"]["text"].get<std::string>(), ' ',
                          absl::SkipEmpty())) {
        acp_at.emplace(absl::StrCat(delta, " "), at);
      }
    }
  }
  subscriber.join();
  long hwm = StatusKb(bridge.pid, "VmHWM:");
  const double cpu_us = raw::bench::ThreadsCpuUs(bridge.pid) - cpu_before_us;
  close(bridge.in);
  int status = 0;
  waitpid(bridge.pid, &status, 0);

  const raw::bench::MatchedDeltas matched = raw::bench::MatchDeltas(grpc_at, acp_at);
  const std::vector<double>& added_us = matched.added_us;
  std::vector<Clock::time_point> reads;
  for (const auto& line : lines) reads.push_back(line.second);
  raw::bench::WriteReaderTimes(std::getenv("RAW_BENCH_TIMES"), reader_tid, reads, matched.times);
  std::printf("chunks matched: %zu of %d, in %zu agent_message_chunk lines\n", added_us.size(),
              chunks * steps, acp_lines);
  std::printf("added per chunk (rawd event -> ACP line read): p50 %.1f us, p99 %.1f us\n",
              Percentile(added_us, 0.5), Percentile(added_us, 0.99));
  std::printf("harness's timing threads at real-time priority: %s\n",
              realtime ? "yes" : "no (not permitted: their own delays count as the program's)");
  std::printf("raw-acp CPU time for the turn: %.1f ms (%.1f us per delta)\n", cpu_us / 1000.0,
              cpu_us / (chunks * steps));
  std::printf("raw-acp RSS during the %d-step turn: peak (VmHWM) %ld kB\n", steps, hwm);
  std::printf("raw-acp exit status: %d\n", WIFEXITED(status) ? WEXITSTATUS(status) : -1);
  return 0;
}
