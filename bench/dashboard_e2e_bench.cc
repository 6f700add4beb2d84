// raw-dashboard end to end: a real rawd against the fake provider (zero
// scripted latency), the real raw-dashboard, and five open tab sockets on
// one session (one of them holds the lease and sends the prompt). Reports
// - the latency the gateway adds per streamed event: for every text delta,
//   the time its WebSocket frame is read by the prompting tab minus the
//   time the same delta arrives on a gRPC subscription of this process
//   (both are clients of the same daemon stream), p50 and p99; deltas that
//   the gateway joined into one frame each count at that frame's arrival.
//   The two threads that take these times run at real-time priority where
//   the system permits, and only timestamp what they read (decoding it
//   after the turn), so that their own delays do not count as the
//   gateway's;
// - the CPU time raw-dashboard spent on the turn (from the prompt to the
//   last tab's end of turn; its threads' scheduler time, which counts in
//   nanoseconds where /proc/PID/stat counts 10 ms ticks), per streamed
//   delta: unlike the latency, it holds when other programs load the
//   machine;
// - raw-dashboard's resident memory (VmRSS, its heap and stacks RssAnon
//   and its mapped files RssFile, and its peak VmHWM) with the five sockets
//   open after the turn.
// RAW_BENCH_TIMES=FILE writes the prompting tab's reading thread and the
// times of its reads and deltas into FILE, for bench/written_latency.py.
//
// usage: dashboard_e2e_bench [CHUNKS] [CHUNK_INTERVAL_US]   (defaults 2000 and 0: one burst)
// Figures and the command line are recorded in docs/performance.md.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <fstream>
#include <map>
#include <memory>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "absl/strings/str_split.h"
#include "bench/process_stats.h"
#include "common/json.h"
#include "tests/clients/web/support/ws_test_client.h"
#include "tests/fakes/fake_provider_server.h"
#include "tests/fakes/sse_builders.h"
#include "tests/support/dashboard_process.h"
#include "tests/support/test_daemon.h"

namespace {

namespace chat = raw::testing::chat;
using Clock = std::chrono::steady_clock;

constexpr char kConfig[] = R"({
  "default_agent": "bench",
  "models": {"fake": {"provider": "openai", "method": "openai-chat-completions",
    "model_id": "bench", "base_url": "${BASE_URL}", "api_key_env": "RAW_TEST_KEY"}},
  "agents": {"bench": {"model": "fake", "max_steps": 5, "approval_mode": "allow_all",
    "tools": {"use": []}}}
})";

using raw::bench::Percentile;
using raw::bench::StatusKb;

std::unique_ptr<raw::web::testing::WsTestClient> Open(const raw::e2e::DashboardProcess& dashboard,
                                                      const std::string& session) {
  raw::web::testing::WsConnectOptions options;
  options.port = dashboard.port();
  options.target = absl::StrCat("/api/sessions/", session, "/live");
  options.headers = {{"Authorization", "Bearer " + dashboard.token()}};
  auto client = raw::web::testing::WsTestClient::Connect(options);
  if (!client.ok()) {
    std::fprintf(stderr, "connect: %s\n", std::string(client.status().message()).c_str());
    std::exit(1);
  }
  return *std::move(client);
}

// Reads frames until one satisfies `pred`.
template <typename Pred>
raw::Json ReadUntil(raw::web::testing::WsTestClient& ws, Pred pred) {
  for (;;) {
    auto text = ws.Read();
    if (!text.ok()) std::exit(1);
    auto frame = raw::ParseJson(*text);
    if (frame.ok() && pred(*frame)) return *frame;
  }
}

// Reads frames until the end of the turn, without decoding them: a reader
// that parses every frame as it arrives competes with the gateway for the
// two cores and delays its own next read. Returns each frame with the time
// it was read.
std::vector<std::pair<Clock::time_point, std::string>> ReadTurn(
    raw::web::testing::WsTestClient& ws) {
  std::vector<std::pair<Clock::time_point, std::string>> frames;
  frames.reserve(4096);
  for (;;) {
    auto text = ws.Read();
    const Clock::time_point now = Clock::now();
    if (!text.ok()) std::exit(1);
    const bool end = text->find("\"turnEnded\"") != std::string::npos;
    frames.emplace_back(now, *std::move(text));
    if (end) return frames;
  }
}

}  // namespace

int main(int argc, char** argv) {
  const int chunks = argc > 1 ? std::atoi(argv[1]) : 2000;
  // 0: the whole answer in one burst; otherwise a provider's pace.
  const int interval_us = argc > 2 ? std::atoi(argv[2]) : 0;
  raw::testing::FakeProviderServer fake;
  raw::e2e::TestDaemon daemon(absl::StrReplaceAll(kConfig, {{"${BASE_URL}", fake.base_url()}}));
  if (auto s = daemon.Start(); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  std::vector<std::string> events = {chat::RoleChunk()};
  for (int c = 0; c < chunks; ++c) events.push_back(chat::TextChunk(absl::StrCat("c", c, " ")));
  events.push_back(chat::FinishChunk("stop"));
  events.push_back(chat::UsageChunk(10, 2));
  events.push_back(chat::Done());
  raw::testing::ScriptedResponse answer = chat::Stream(events);
  answer.chunk_interval = std::chrono::microseconds(interval_us);
  fake.Enqueue(answer);

  // In the test daemon's temporary XDG directories, like rawd.
  std::vector<std::string> env;
  for (const auto& [name, value] : daemon.env()) env.push_back(absl::StrCat(name, "=", value));
  raw::e2e::DashboardProcess dashboard;
  if (auto s = dashboard.Start(daemon.socket_path(), {}, env); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  const std::string session = daemon.CreateSession();

  // The daemon-side clock: a gRPC subscription in this process.
  // Batches are only timestamped while reading; their deltas are matched
  // after the turn.
  std::vector<std::pair<Clock::time_point, raw::v1::EventBatch>> grpc_batches;
  grpc_batches.reserve(4096);
  grpc::ClientContext grpc_ctx;
  raw::v1::SubscribeRequest subscribe;
  subscribe.set_session_id(session);
  // Batched, as the gateway subscribes (raw_service.proto): a delta's time is
  // when the message carrying it was read.
  auto reader = daemon.stub().SubscribeBatched(&grpc_ctx, subscribe);
  std::thread grpc_thread([&] {
    raw::bench::TimeAtRealtimePriority();
    raw::v1::EventBatch batch;
    while (reader->Read(&batch)) {
      const Clock::time_point now = Clock::now();
      const bool ended = std::any_of(batch.events().begin(), batch.events().end(),
                                     [](const raw::v1::Event& e) { return e.has_turn_ended(); });
      grpc_batches.emplace_back(now, std::move(batch));
      batch.Clear();
      if (ended) break;
    }
  });

  auto writer = Open(dashboard, session);
  std::vector<std::unique_ptr<raw::web::testing::WsTestClient>> followers;
  std::vector<std::thread> drains;
  for (int i = 0; i < 4; ++i) followers.push_back(Open(dashboard, session));
  for (auto& follower : followers) {
    drains.emplace_back([&ws = *follower] { ReadTurn(ws); });
  }
  writer->SendText(R"({"id":1,"op":"acquire_lease"})").IgnoreError();
  ReadUntil(*writer, [](const raw::Json& f) { return f["type"] == "reply" && f["id"] == 1; });
  const double cpu_before_us = raw::bench::ThreadsCpuUs(dashboard.pid());
  writer->SendText(R"({"id":2,"op":"prompt","text":"stream"})").IgnoreError();
  const bool realtime = raw::bench::TimeAtRealtimePriority();
  const pid_t reader_tid = gettid();  // the thread that reads the prompting tab's frames
  const std::vector<std::pair<Clock::time_point, std::string>> frames = ReadTurn(*writer);
  grpc_thread.join();
  for (auto& t : drains) t.join();
  const double cpu_us = raw::bench::ThreadsCpuUs(dashboard.pid()) - cpu_before_us;

  std::map<std::string, Clock::time_point> at_grpc;
  for (const auto& [time, batch] : grpc_batches) {
    for (const raw::v1::Event& event : batch.events()) {
      if (event.has_text_delta()) at_grpc.emplace(event.text_delta().text(), time);
    }
  }
  std::map<std::string, Clock::time_point> at_ws;
  int delta_frames = 0;
  for (const auto& [time, text] : frames) {
    auto f = raw::ParseJson(text);
    if (!f.ok() || (*f)["type"] != "event" || !(*f)["event"].contains("textDelta")) continue;
    ++delta_frames;
    // Deltas that queued up behind the socket arrive joined ("c7 c8 "):
    // each piece is attributed to the frame that carried it.
    for (absl::string_view piece : absl::StrSplit(
             (*f)["event"]["textDelta"]["text"].get<std::string>(), ' ', absl::SkipEmpty())) {
      at_ws.emplace(absl::StrCat(piece, " "), time);
    }
  }
  const raw::bench::MatchedDeltas matched = raw::bench::MatchDeltas(at_grpc, at_ws);
  const std::vector<double>& added_us = matched.added_us;
  std::vector<Clock::time_point> reads;
  for (const auto& frame : frames) reads.push_back(frame.first);
  raw::bench::WriteReaderTimes(std::getenv("RAW_BENCH_TIMES"), reader_tid, reads, matched.times);
  const pid_t pid = dashboard.pid();
  std::printf("harness's timing threads at real-time priority: %s\n",
              realtime ? "yes" : "no (not permitted: their own delays count as the program's)");
  std::printf("deltas matched: %zu of %d, in %d frames\n", added_us.size(), chunks, delta_frames);
  std::printf("added latency per event: p50 %.0f us, p99 %.0f us\n", Percentile(added_us, 0.5),
              Percentile(added_us, 0.99));
  std::printf("raw-dashboard CPU time for the turn: %.2f ms (%.1f us per delta)\n", cpu_us / 1000.0,
              cpu_us / chunks);
  std::printf("raw-dashboard with 5 open sockets: VmRSS %ld kB (RssAnon %ld kB, RssFile %ld kB), "
              "VmHWM %ld kB\n",
              StatusKb(pid, "VmRSS:"), StatusKb(pid, "RssAnon:"), StatusKb(pid, "RssFile:"),
              StatusKb(pid, "VmHWM:"));
  return 0;
}
