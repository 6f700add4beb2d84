// End-to-end harness for store reads under write load: a real rawd against
// the fake provider with zero scripted latency. Eight sessions commit turns
// back to back (each turn: start, a 4 KB answer, usage, end) while one
// client measures the latency of GetHistory (a 100-event page of another
// session, newest first) and ListSessions (a page of 50) over the Unix
// socket. The same calls are measured first with no writers, as a baseline.
//
// usage: store_contention_bench [SAMPLES] [WRITERS]   (defaults 1000 and 8)
// Figures and the command line are recorded in docs/performance.md.
#include <algorithm>
#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <string>
#include <mutex>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_replace.h"
#include "tests/fakes/fake_provider_server.h"
#include "tests/fakes/sse_builders.h"
#include "tests/support/test_daemon.h"

namespace {

namespace chat = raw::testing::chat;
using Clock = std::chrono::steady_clock;

constexpr char kConfig[] = R"({
  "default_agent": "bench",
  "models": {"fake": {"provider": "openai", "method": "openai-chat-completions",
    "model_id": "bench", "base_url": "${BASE_URL}", "api_key_env": "RAW_TEST_KEY"}},
  "agents": {"bench": {"model": "fake", "max_steps": 5, "tools": {"use": []}}}
})";

struct Percentiles {
  double p50 = 0, p99 = 0, max = 0;
};

Percentiles Summarize(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  if (ms.empty()) return {};
  auto at = [&](double q) { return ms[std::min(ms.size() - 1, size_t(q * ms.size()))]; };
  return {at(0.50), at(0.99), ms.back()};
}

// Runs one turn in `session` and waits for its end.
bool RunTurn(raw::testing::FakeProviderServer& fake, raw::v1::Raw::Stub& stub,
             raw::e2e::EventStream& events, const std::string& session, const std::string& answer) {
  fake.Enqueue(chat::TextAnswer(answer));
  grpc::Status status;
  std::string turn = raw::e2e::StartTurn(stub, session, "go", &status);
  if (!status.ok()) {
    std::fprintf(stderr, "StartTurn: %s\n", status.error_message().c_str());
    return false;
  }
  return events.WaitForTurnEnd(turn).has_value();
}

struct Latencies {
  std::vector<double> history_ms, list_ms;
};

// `samples` GetHistory and ListSessions calls, alternating.
bool Measure(raw::v1::Raw::Stub& stub, const std::string& session, int samples, Latencies* out) {
  for (int i = 0; i < samples; ++i) {
    {
      grpc::ClientContext ctx;
      raw::v1::GetHistoryRequest req;
      req.set_session_id(session);
      req.set_limit(100);
      req.set_direction(raw::v1::HISTORY_DIRECTION_BACKWARD);
      raw::v1::GetHistoryResponse resp;
      auto t0 = Clock::now();
      grpc::Status s = stub.GetHistory(&ctx, req, &resp);
      out->history_ms.push_back(
          std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      if (!s.ok() || resp.events_size() == 0) {
        std::fprintf(stderr, "GetHistory: %s\n", s.error_message().c_str());
        return false;
      }
    }
    {
      grpc::ClientContext ctx;
      raw::v1::ListSessionsRequest req;
      req.set_page_size(50);
      raw::v1::ListSessionsResponse resp;
      auto t0 = Clock::now();
      grpc::Status s = stub.ListSessions(&ctx, req, &resp);
      out->list_ms.push_back(std::chrono::duration<double, std::milli>(Clock::now() - t0).count());
      if (!s.ok()) {
        std::fprintf(stderr, "ListSessions: %s\n", s.error_message().c_str());
        return false;
      }
    }
  }
  return true;
}

void Print(const char* phase, const Latencies& l) {
  Percentiles h = Summarize(l.history_ms), s = Summarize(l.list_ms);
  std::printf(
      "%-22s GetHistory p50 %.2f ms p99 %.2f ms max %.2f ms | ListSessions p50 %.2f ms "
      "p99 %.2f ms max %.2f ms\n",
      phase, h.p50, h.p99, h.max, s.p50, s.p99, s.max);
}

}  // namespace

int main(int argc, char** argv) {
  const int samples = argc > 1 ? std::atoi(argv[1]) : 1000;
  const int writers = argc > 2 ? std::atoi(argv[2]) : 8;
  raw::testing::FakeProviderServer fake;
  if (!fake.status().ok()) {
    std::fprintf(stderr, "fake provider: %s\n", std::string(fake.status().message()).c_str());
    return 1;
  }
  raw::e2e::TestDaemon daemon(absl::StrReplaceAll(kConfig, {{"${BASE_URL}", fake.base_url()}}));
  if (auto s = daemon.Start(); !s.ok()) {
    std::fprintf(stderr, "%s\n", std::string(s.message()).c_str());
    return 1;
  }
  const std::string answer(4096, 'x');

  // The session whose history is read: 40 turns, so a page of 100 is full.
  const std::string reader_session = daemon.CreateSession();
  {
    raw::e2e::EventStream events(daemon.stub(), reader_session);
    for (int i = 0; i < 40; ++i) {
      if (!RunTurn(fake, daemon.stub(), events, reader_session, answer)) return 1;
    }
  }
  std::vector<std::string> writer_sessions;
  for (int i = 0; i < writers; ++i) writer_sessions.push_back(daemon.CreateSession());

  auto reader_channel = raw::e2e::MakeChannel(daemon.socket_path());
  auto reader = raw::v1::Raw::NewStub(reader_channel);
  Latencies idle;
  if (!Measure(*reader, reader_session, samples / 4, &idle)) return 1;

  std::atomic<bool> stop{false};
  std::atomic<int> turns{0};
  std::atomic<bool> failed{false};
  std::mutex mu;
  std::condition_variable writing;  // every writer has finished a turn (or failed)
  std::vector<std::thread> threads;
  for (const std::string& session : writer_sessions) {
    threads.emplace_back([&, session] {
      auto channel = raw::e2e::MakeChannel(daemon.socket_path());
      auto stub = raw::v1::Raw::NewStub(channel);
      raw::e2e::EventStream events(*stub, session);
      while (!stop) {
        const bool done = RunTurn(fake, *stub, events, session, answer);
        {
          std::lock_guard<std::mutex> lock(mu);
          if (done) ++turns;
          failed = failed || !done;
        }
        writing.notify_all();
        if (!done) return;
      }
    });
  }
  // Let every writer get going before measuring.
  {
    std::unique_lock<std::mutex> lock(mu);
    writing.wait(lock, [&] { return turns >= writers || failed; });
  }
  Latencies loaded;
  const int turns_before = turns;
  auto t0 = Clock::now();
  bool ok = Measure(*reader, reader_session, samples, &loaded);
  const double seconds = std::chrono::duration<double>(Clock::now() - t0).count();
  const int turns_during = turns - turns_before;
  stop = true;
  for (auto& t : threads) t.join();
  if (!ok || failed) return 1;

  std::printf("samples=%d (idle: %d) writers=%d, each turn commits a 4 KB answer\n", samples,
              samples / 4, writers);
  Print("idle:", idle);
  Print("while writers commit:", loaded);
  std::printf("writers committed %d turns in %.1f s (%.0f turns/s)\n", turns_during, seconds,
              turns_during / seconds);
  return 0;
}
