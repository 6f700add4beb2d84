// HttpTransport and McpClient against a scripted HttpClient: what each
// request carries, JSON and SSE replies, resumption with Last-Event-ID,
// session expiry, authorization failures and the session's end.
#include "daemon/mcp/http_transport.h"

#include <poll.h>

#include <algorithm>
#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "common/thread_start.h"
#include "daemon/mcp/mcp_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::mcp {
namespace {

using ::testing::HasSubstr;

// Answers each request with a function of it, and records them all and how
// each transfer ended.
class ScriptedHttpClient : public http::HttpClient {
 public:
  using Script = std::function<absl::Status(const http::HttpRequest&, const Json& body,
                                            http::HttpResponseHandler&, const CancelToken&)>;
  explicit ScriptedHttpClient(Script script) : script_(std::move(script)) {}

  absl::Status Send(const http::HttpRequest& request, http::HttpResponseHandler& handler,
                    const CancelToken& cancel) override {
    size_t index;
    {
      absl::MutexLock lock(&mu_);
      index = requests_.size();
      requests_.push_back(request);
      ends_.emplace_back();
    }
    Json body = request.body.empty() ? Json() : ParseJson(request.body).value_or(Json());
    absl::Status ended = script_(request, body, handler, cancel);
    absl::MutexLock lock(&mu_);
    ends_[index] = ended.code();
    return ended;
  }
  // Waits until a request with this HTTP method was made.
  bool WaitForHttpMethod(const std::string& method) const {
    absl::MutexLock lock(&mu_);
    auto seen = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      for (const http::HttpRequest& request : requests_) {
        if (request.method == method) return true;
      }
      return false;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&seen), absl::Seconds(10));
  }
  // Waits until `count` POSTs whose JSON-RPC body has `key` equal to `value`
  // were made.
  bool WaitForRpc(const std::string& key, const Json& value, size_t count = 1) const {
    absl::MutexLock lock(&mu_);
    auto seen = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
      size_t found = 0;
      for (const http::HttpRequest& request : requests_) {
        Json body = ParseJson(request.body).value_or(Json());
        if (body.is_object() && body.value(key, Json()) == value) ++found;
      }
      return found >= count;
    };
    return mu_.AwaitWithTimeout(absl::Condition(&seen), absl::Seconds(10));
  }
  std::vector<http::HttpRequest> requests() const {
    absl::MutexLock lock(&mu_);
    return requests_;
  }
  // How the `nth` (from 0) POST whose JSON-RPC body has `key` equal to
  // `value` ended: the code of what Send returned; none before that POST was
  // made, nor while it is in flight.
  std::optional<absl::StatusCode> EndOfRpc(const std::string& key, const Json& value,
                                           size_t nth = 0) const {
    absl::MutexLock lock(&mu_);
    for (size_t i = 0; i < requests_.size(); ++i) {
      Json body = ParseJson(requests_[i].body).value_or(Json());
      if (!body.is_object() || body.value(key, Json()) != value) continue;
      if (nth-- == 0) return ends_[i];
    }
    return std::nullopt;
  }
  // The requests whose JSON-RPC method is `method` (or, for GET and
  // DELETE, whose HTTP method is).
  std::vector<http::HttpRequest> Find(const std::string& method) const {
    std::vector<http::HttpRequest> found;
    for (const http::HttpRequest& request : requests()) {
      if (request.method == method) found.push_back(request);
      if (request.method != "POST") continue;
      Json body = ParseJson(request.body).value_or(Json());
      if (body.is_object() && body.value("method", "") == method) found.push_back(request);
    }
    return found;
  }

 private:
  Script script_;
  mutable absl::Mutex mu_;
  std::vector<http::HttpRequest> requests_ ABSL_GUARDED_BY(mu_);
  std::vector<std::optional<absl::StatusCode>> ends_ ABSL_GUARDED_BY(mu_);  // by request
};

absl::Status Reply(http::HttpResponseHandler& handler, int status, http::Headers headers,
                   const std::string& body) {
  handler.OnStatus(status, headers);
  if (!body.empty()) handler.OnBody(body);
  return absl::OkStatus();
}

absl::Status ReplyJson(http::HttpResponseHandler& handler, const Json& message,
                       const std::string& session = "") {
  http::Headers headers = {{"Content-Type", "application/json"}};
  if (!session.empty()) headers.emplace_back("Mcp-Session-Id", session);
  return Reply(handler, 200, headers, DumpJson(message));
}

std::string Event(const std::string& id, const Json& message) {
  return "event: message\nid: " + id + "\ndata: " + DumpJson(message) + "\n\n";
}

Json Result(const Json& request, Json result) {
  return {{"jsonrpc", "2.0"}, {"id", request["id"]}, {"result", std::move(result)}};
}

Json InitializeResult(const Json& request) {
  return Result(request, {{"protocolVersion", "2025-06-18"},
                          {"capabilities", {{"tools", Json::object()}}},
                          {"serverInfo", {{"name", "scripted"}, {"version", "1"}}}});
}

Json ToolsResult(const Json& request) {
  return Result(request, {{"tools", {{{"name", "echo"}, {"inputSchema", {{"type", "object"}}}}}}});
}

Json TextResult(const Json& request, const std::string& text) {
  return Result(request, {{"content", {{{"type", "text"}, {"text", text}}}}});
}

// The answers every test shares; `call` answers tools/call.
ScriptedHttpClient::Script Server(
    std::function<absl::Status(const Json&, http::HttpResponseHandler&)> call,
    std::string* session) {
  return [call, session](const http::HttpRequest& request, const Json& body,
                         http::HttpResponseHandler& handler, const CancelToken&) {
    if (request.method == "GET") return Reply(handler, 405, {}, "");
    if (request.method == "DELETE") return Reply(handler, 200, {}, "");
    std::string method = body.value("method", "");
    if (method == "initialize") {
      *session = *session == "s1" ? "s2" : "s1";
      return ReplyJson(handler, InitializeResult(body), *session);
    }
    if (!body.contains("id")) return Reply(handler, 202, {}, "");
    if (method == "tools/list") return ReplyJson(handler, ToolsResult(body));
    return call(body, handler);
  };
}

std::unique_ptr<McpClient> Connect(ScriptedHttpClient& http, int64_t min_retry_ms = 1) {
  HttpTransportOptions options;
  options.server_name = "scripted";
  options.url = "http://127.0.0.1:9/mcp?token=never-shown";
  options.headers = {{"X-Api-Key", "secret-value"}};
  options.client = &http;
  options.default_retry_ms = 1;
  options.min_retry_ms = min_retry_ms;
  McpClientOptions client_options;
  client_options.server_name = "scripted";
  client_options.request_timeout_ms = 5000;
  auto client =
      std::make_unique<McpClient>(std::make_unique<HttpTransport>(options), client_options);
  absl::Status connected = client->Connect();
  EXPECT_TRUE(connected.ok()) << connected;
  return client;
}

TEST(HttpTransportTest, SendsTheProtocolHeadersAndReadsJsonReplies) {
  std::string session;
  ScriptedHttpClient http(Server(
      [](const Json& body, http::HttpResponseHandler& handler) {
        return ReplyJson(handler, TextResult(body, "json reply"));
      },
      &session));
  std::unique_ptr<McpClient> client = Connect(http);
  EXPECT_EQ(client->server_info().protocol_version, "2025-06-18");
  absl::StatusOr<CallToolResult> result = client->CallTool("echo", Json::object(), CallOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->content[0]["text"], "json reply");
  ASSERT_TRUE(http.WaitForHttpMethod("GET")) << "the listening stream is opened";
  client->Close();

  http::HttpRequest initialize = http.Find("initialize").at(0);
  EXPECT_EQ(http::FindHeader(initialize.headers, "Accept"), "application/json, text/event-stream");
  EXPECT_EQ(http::FindHeader(initialize.headers, "Content-Type"), "application/json");
  EXPECT_EQ(http::FindHeader(initialize.headers, "Mcp-Session-Id"), "");
  EXPECT_EQ(http::FindHeader(initialize.headers, "X-Api-Key"), "secret-value");
  for (const char* later :
       {"notifications/initialized", "tools/list", "tools/call", "GET", "DELETE"}) {
    ASSERT_FALSE(http.Find(later).empty()) << later;
    http::HttpRequest request = http.Find(later).at(0);
    EXPECT_EQ(http::FindHeader(request.headers, "Mcp-Session-Id"), "s1") << later;
    EXPECT_EQ(http::FindHeader(request.headers, "MCP-Protocol-Version"), "2025-06-18") << later;
    EXPECT_EQ(http::FindHeader(request.headers, "X-Api-Key"), "secret-value") << later;
  }
  EXPECT_EQ(http::FindHeader(http.Find("GET").at(0).headers, "Accept"), "text/event-stream");
  EXPECT_EQ(http.Find("GET").size(), 1u) << "405: the server has no listening stream";
}

TEST(HttpTransportTest, ResumesABrokenStreamWithLastEventId) {
  std::string session;
  Json call;
  ScriptedHttpClient http([&](const http::HttpRequest& request, const Json& body,
                              http::HttpResponseHandler& handler, const CancelToken& cancel) {
    if (request.method == "POST" && body.value("method", "") == "tools/call") {
      call = body;
      Json progress = {
          {"jsonrpc", "2.0"},
          {"method", "notifications/progress"},
          {"params",
           {{"progressToken", body["params"]["_meta"]["progressToken"]}, {"progress", 1}}}};
      // Priming event, one progress event, then the connection drops.
      Reply(handler, 200, {{"Content-Type", "text/event-stream"}},
            "id: e0\nretry: 5\ndata: \n\n" + Event("e1", progress))
          .IgnoreError();
      return absl::UnavailableError("connection reset");
    }
    if (request.method == "GET" && !http::FindHeader(request.headers, "Last-Event-ID").empty()) {
      return Reply(handler, 200, {{"Content-Type", "text/event-stream"}},
                   Event("e2", TextResult(call, "resumed")));
    }
    return Server(nullptr, &session)(request, body, handler, cancel);
  });
  std::unique_ptr<McpClient> client = Connect(http);
  int progress = 0;
  CallOptions options;
  options.on_progress = [&](const ProgressUpdate& update) {
    progress += static_cast<int>(update.progress);
  };
  absl::StatusOr<CallToolResult> result = client->CallTool("echo", Json::object(), options);
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->content[0]["text"], "resumed");
  EXPECT_EQ(progress, 1);
  std::vector<http::HttpRequest> gets = http.Find("GET");
  bool resumed = false;
  for (const http::HttpRequest& get : gets) {
    if (http::FindHeader(get.headers, "Last-Event-ID") == "e1") resumed = true;
  }
  EXPECT_TRUE(resumed);
}

// A listening stream that ends at once each time, after an event (so its
// failures never mount) and with `retry: 0`, is reconnected no more often
// than min_retry_ms. The gaps between the GETs are checked from below only:
// a loaded machine makes them longer, never shorter.
TEST(HttpTransportTest, AListeningStreamThatSaysRetryZeroIsNotReconnectedInATightLoop) {
  std::string session;
  absl::Mutex mu;
  std::vector<absl::Time> gets;
  ScriptedHttpClient http([&](const http::HttpRequest& request, const Json& body,
                              http::HttpResponseHandler& handler, const CancelToken& cancel) {
    if (request.method == "GET") {
      size_t n;
      {
        absl::MutexLock lock(&mu);
        gets.push_back(absl::Now());
        n = gets.size();
      }
      Json unused = {{"jsonrpc", "2.0"}, {"method", "notifications/resources/list_changed"}};
      return Reply(handler, 200, {{"Content-Type", "text/event-stream"}},
                   "retry: 0\n" + Event(absl::StrCat("e", n), unused));
    }
    return Server(nullptr, &session)(request, body, handler, cancel);
  });
  constexpr int64_t kMinRetryMs = 200;
  std::unique_ptr<McpClient> client = Connect(http, kMinRetryMs);
  {
    absl::MutexLock lock(&mu);
    auto four = [&]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu) { return gets.size() >= 4; };
    ASSERT_TRUE(mu.AwaitWithTimeout(absl::Condition(&four), absl::Seconds(10)));
  }
  client->Close();
  absl::MutexLock lock(&mu);
  for (size_t i = 1; i < 4; ++i) {
    EXPECT_GE(gets[i] - gets[i - 1], absl::Milliseconds(kMinRetryMs)) << i;
  }
}

TEST(HttpTransportTest, AStreamThatEndsWithoutAnEventIdFailsTheCall) {
  std::string session;
  ScriptedHttpClient http(Server(
      [](const Json&, http::HttpResponseHandler& handler) {
        return Reply(handler, 200, {{"Content-Type", "text/event-stream"}}, ": comment\n\n");
      },
      &session));
  std::unique_ptr<McpClient> client = Connect(http);
  absl::StatusOr<CallToolResult> result = client->CallTool("echo", Json::object(), CallOptions());
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(absl::IsUnavailable(result.status())) << result.status();
  EXPECT_THAT(result.status().message(), HasSubstr("ended before the response"));
}

TEST(HttpTransportTest, AnUnknownSessionStartsANewOne) {
  std::string session;
  ScriptedHttpClient http(Server(
      [&](const Json& body, http::HttpResponseHandler& handler) {
        if (session == "s1") {
          return Reply(
              handler, 404, {{"Content-Type", "application/json"}},
              R"({"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}})");
        }
        return ReplyJson(handler, TextResult(body, "in " + session));
      },
      &session));
  std::unique_ptr<McpClient> client = Connect(http);
  absl::StatusOr<CallToolResult> result = client->CallTool("echo", Json::object(), CallOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->content[0]["text"], "in s2");
  std::vector<http::HttpRequest> initializes = http.Find("initialize");
  ASSERT_EQ(initializes.size(), 2u);
  EXPECT_EQ(http::FindHeader(initializes[1].headers, "Mcp-Session-Id"), "")
      << "a new session starts without the old id";
  EXPECT_EQ(http::FindHeader(http.Find("tools/call").back().headers, "Mcp-Session-Id"), "s2");
}

// The server accepted the call (its answer stream began) and then lost the
// session: the call may have run, so it is not sent again in a new session.
// It fails, and the next call starts the new session (its POST is answered
// 404) and goes through.
TEST(HttpTransportTest, ASessionLostWhileResumingACallFailsItWithoutSendingItAgain) {
  std::string session;
  int calls = 0;
  Json call;
  ScriptedHttpClient http([&](const http::HttpRequest& request, const Json& body,
                              http::HttpResponseHandler& handler, const CancelToken& cancel) {
    const std::string sent_session = http::FindHeader(request.headers, "Mcp-Session-Id");
    if (request.method == "POST" && body.value("method", "") == "tools/call") {
      ++calls;
      if (calls == 1) {
        call = body;
        // Accepted: a priming event, then the connection drops.
        Reply(handler, 200, {{"Content-Type", "text/event-stream"}}, "id: e0\nretry: 1\ndata: \n\n")
            .IgnoreError();
        return absl::UnavailableError("connection reset");
      }
      if (sent_session == "s1") {
        return Reply(handler, 404, {{"Content-Type", "application/json"}},
                     R"({"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}})");
      }
      return ReplyJson(handler, TextResult(body, "in " + sent_session));
    }
    if (request.method == "GET" && !http::FindHeader(request.headers, "Last-Event-ID").empty()) {
      // Another instance, which never heard of the session.
      return Reply(handler, 404, {{"Content-Type", "application/json"}},
                   R"({"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}})");
    }
    return Server(nullptr, &session)(request, body, handler, cancel);
  });
  std::unique_ptr<McpClient> client = Connect(http);
  absl::StatusOr<CallToolResult> lost = client->CallTool("echo", Json::object(), CallOptions());
  ASSERT_FALSE(lost.ok());
  EXPECT_EQ(lost.status().code(), absl::StatusCode::kAborted) << lost.status();
  EXPECT_THAT(lost.status().message(),
              HasSubstr("the server lost the session during the call; it may have run"));
  EXPECT_THAT(lost.status().message(), HasSubstr("HTTP 404: Session not found"));
  EXPECT_EQ(http.Find("tools/call").size(), 1u) << "the call is not sent again";
  EXPECT_EQ(http.Find("initialize").size(), 1u);

  absl::StatusOr<CallToolResult> next = client->CallTool("echo", Json::object(), CallOptions());
  ASSERT_TRUE(next.ok()) << next.status();
  EXPECT_EQ(next->content[0]["text"], "in s2");
  EXPECT_EQ(http.Find("tools/call").size(), 3u) << "refused with 404 in s1, then sent in s2";
  EXPECT_EQ(http.Find("initialize").size(), 2u);
}

TEST(HttpTransportTest, RefusedCredentialsAreAClearError) {
  std::string session;
  ScriptedHttpClient http(Server(
      [](const Json&, http::HttpResponseHandler& handler) { return Reply(handler, 401, {}, ""); },
      &session));
  std::unique_ptr<McpClient> client = Connect(http);
  absl::StatusOr<CallToolResult> result = client->CallTool("echo", Json::object(), CallOptions());
  ASSERT_FALSE(result.ok());
  EXPECT_TRUE(absl::IsPermissionDenied(result.status()));
  EXPECT_THAT(result.status().message(), HasSubstr("HTTP 401"));
  EXPECT_THAT(result.status().message(), ::testing::Not(HasSubstr("secret-value")));
}

TEST(HttpTransportTest, AnUnreachableServerFailsToConnectWithoutShowingTheQuery) {
  ScriptedHttpClient http(
      [](const http::HttpRequest&, const Json&, http::HttpResponseHandler&, const CancelToken&) {
        return absl::UnavailableError("connection refused");
      });
  HttpTransportOptions options;
  options.server_name = "down";
  options.url = "http://127.0.0.1:9/mcp?token=never-shown";
  options.client = &http;
  McpClientOptions client_options;
  client_options.server_name = "down";
  McpClient client(std::make_unique<HttpTransport>(options), client_options);
  absl::Status connected = client.Connect();
  ASSERT_FALSE(connected.ok());
  EXPECT_THAT(connected.message(),
              HasSubstr("cannot reach http://127.0.0.1:9/mcp: connection refused"));
  EXPECT_THAT(connected.message(), ::testing::Not(HasSubstr("never-shown")));
}

// Holds the transfer like a server that never answers: until the transfer
// is cancelled or its total timeout (when it has one) ran out; without
// either, for good. Returns how it ended, as HttpClient would: kCancelled or
// kDeadlineExceeded.
absl::Status Stall(const http::HttpRequest& request, const CancelToken& cancel) {
  pollfd fd{cancel.fd(), POLLIN, 0};
  poll(&fd, 1, request.total_timeout_ms > 0 ? static_cast<int>(request.total_timeout_ms) : -1);
  if (cancel.cancelled()) return absl::CancelledError(cancel.reason());
  return absl::DeadlineExceededError("the transfer timed out");
}

// The server's answer to everything else, with `stalled` JSON-RPC methods
// never answered.
ScriptedHttpClient::Script StallOn(std::vector<std::string> stalled, std::string* session) {
  return [stalled, session](const http::HttpRequest& request, const Json& body,
                            http::HttpResponseHandler& handler, const CancelToken& cancel) {
    std::string method = body.is_object() ? body.value("method", "") : "";
    if (std::find(stalled.begin(), stalled.end(), method) != stalled.end()) {
      return Stall(request, cancel);
    }
    return Server([](const Json& call,
                     http::HttpResponseHandler& h) { return ReplyJson(h, TextResult(call, "ok")); },
                  session)(request, body, handler, cancel);
  };
}

HttpTransportOptions StallTestOptions(ScriptedHttpClient& http) {
  HttpTransportOptions options;
  options.server_name = "stalling";
  options.url = "http://127.0.0.1:9/mcp";
  options.client = &http;
  return options;
}

// notifications/initialized is posted within the handshake: a server that
// never answers it holds the handshake no longer than post_timeout_ms, and
// a start that is cancelled (the daemon stopping) cuts the post short.
TEST(HttpTransportTest, ANotificationPostThatNeverAnswersCannotHoldTheHandshake) {
  std::string session;
  ScriptedHttpClient http(StallOn({"notifications/initialized"}, &session));
  HttpTransportOptions options = StallTestOptions(http);
  options.post_timeout_ms = 300;
  McpClientOptions client_options;
  client_options.server_name = "stalling";
  McpClient bounded(std::make_unique<HttpTransport>(options), client_options);
  EXPECT_FALSE(bounded.Connect().ok());
  ASSERT_EQ(http.Find("notifications/initialized").size(), 1u);
  EXPECT_EQ(http.Find("notifications/initialized")[0].total_timeout_ms, 300);
  EXPECT_EQ(http.EndOfRpc("method", "notifications/initialized"),
            absl::StatusCode::kDeadlineExceeded);

  ScriptedHttpClient stalling(StallOn({"notifications/initialized"}, &session));
  options = StallTestOptions(stalling);
  McpClient cancelled(std::make_unique<HttpTransport>(options), client_options);
  CancelToken cancel;
  std::thread canceller([&] {
    stalling.WaitForRpc("method", "notifications/initialized");
    cancel.Cancel("the daemon is shutting down");
  });
  absl::Status connected = cancelled.Connect(&cancel);
  canceller.join();
  EXPECT_TRUE(absl::IsCancelled(connected)) << connected;
  // Ended by the cancel, not by its total timeout (post_timeout_ms, 10 s).
  EXPECT_EQ(stalling.EndOfRpc("method", "notifications/initialized"), absl::StatusCode::kCancelled);
}

// A call given up (interrupted) ends at once, although the server stalls
// on both the call and the cancellation; closing the connection then does
// not wait for the cancellation either. The cancellation's post ends only
// when cut short or by its total timeout (post_timeout_ms, 10 s).
TEST(HttpTransportTest, AnInterruptedCallEndsAtOnceWhateverTheServerDoes) {
  std::string session;
  ScriptedHttpClient http(StallOn({"tools/call", "notifications/cancelled"}, &session));
  McpClientOptions client_options;
  client_options.server_name = "stalling";
  McpClient client(std::make_unique<HttpTransport>(StallTestOptions(http)), client_options);
  ASSERT_TRUE(client.Connect().ok());
  CancelToken cancel;
  std::thread canceller([&] {
    http.WaitForRpc("method", "tools/call");
    cancel.Cancel("user interrupt");
  });
  CallOptions call;
  call.cancel = &cancel;
  absl::StatusOr<CallToolResult> result = client.CallTool("echo", Json::object(), call);
  EXPECT_EQ(http.EndOfRpc("method", "notifications/cancelled"), std::nullopt)
      << "the call waited for the post of its cancellation";
  canceller.join();
  EXPECT_EQ(result.status().code(), absl::StatusCode::kCancelled) << result.status();
  ASSERT_TRUE(http.WaitForRpc("method", "notifications/cancelled"));
  client.Close();
  EXPECT_EQ(http.EndOfRpc("method", "notifications/cancelled"), absl::StatusCode::kCancelled)
      << "Close waited for the post of the cancellation";
}

// The server forgets the session, then stalls on the new session's
// initialize: only a cancel, or the request timeout (30 s), ends the wait
// for its answer. A call waiting for it ends at once when interrupted; so
// does another caller's call that needs the session while a second start
// stalls; and the next call, once the server answers again, starts the new
// session and goes through.
TEST(HttpTransportTest, AnInterruptEndsACallWaitingOnAStalledNewSession) {
  std::string session;
  // Set while the server stalls on initialize. Which start a stall holds is
  // decided by this, not by counting initializes as the script sees them: a
  // given-up start's transfer may reach the script after the next start's.
  std::atomic<bool> stall_initialize = false;
  ScriptedHttpClient http([&](const http::HttpRequest& request, const Json& body,
                              http::HttpResponseHandler& handler, const CancelToken& cancel) {
    // A transfer given up before the server saw it gets no answer, as from
    // HttpClient.
    if (cancel.cancelled()) return absl::CancelledError(cancel.reason());
    std::string method = body.is_object() ? body.value("method", "") : "";
    if (method == "initialize" && stall_initialize) return Stall(request, cancel);
    if (method == "tools/call" && http::FindHeader(request.headers, "Mcp-Session-Id") == "s1") {
      return Reply(handler, 404, {{"Content-Type", "application/json"}},
                   R"({"jsonrpc":"2.0","error":{"code":-32001,"message":"Session not found"}})");
    }
    return Server([](const Json& call,
                     http::HttpResponseHandler& h) { return ReplyJson(h, TextResult(call, "ok")); },
                  &session)(request, body, handler, cancel);
  });
  McpClientOptions client_options;
  client_options.server_name = "stalling";
  client_options.request_timeout_ms = 30000;
  McpClient client(std::make_unique<HttpTransport>(StallTestOptions(http)), client_options);
  ASSERT_TRUE(client.Connect().ok());
  stall_initialize = true;

  CancelToken interrupt;
  std::thread interrupter([&] {
    http.WaitForRpc("method", "initialize", 2);
    interrupt.Cancel("user interrupt");
  });
  CallOptions call;
  call.cancel = &interrupt;
  absl::StatusOr<CallToolResult> interrupted = client.CallTool("echo", Json::object(), call);
  interrupter.join();
  EXPECT_EQ(interrupted.status().code(), absl::StatusCode::kCancelled) << interrupted.status();

  // The next call starts the session again, and that start stalls too.
  CancelToken first_cancel;
  absl::StatusOr<CallToolResult> first;
  std::thread first_caller([&] {
    CallOptions options;
    options.cancel = &first_cancel;
    first = client.CallTool("echo", Json::object(), options);
  });
  EXPECT_TRUE(http.WaitForRpc("method", "initialize", 3));
  CancelToken given_up;
  given_up.Cancel("user interrupt");
  CallOptions other;
  other.cancel = &given_up;
  absl::StatusOr<CallToolResult> waiting = client.CallTool("echo", Json::object(), other);
  EXPECT_EQ(waiting.status().code(), absl::StatusCode::kCancelled) << waiting.status();
  first_cancel.Cancel("user interrupt");
  first_caller.join();
  // The other caller's start was still stalled when this call returned: its
  // caller's cancel, given only now, ended it, not its request timeout.
  EXPECT_EQ(first.status().code(), absl::StatusCode::kCancelled)
      << first.status() << "; the call was held behind the other caller's start";

  stall_initialize = false;
  absl::StatusOr<CallToolResult> after = client.CallTool("echo", Json::object(), CallOptions());
  ASSERT_TRUE(after.ok()) << after.status();
  EXPECT_EQ(after->content[0]["text"], "ok");
  EXPECT_EQ(http.Find("initialize").size(), 4u);
}

// The server answers a notification with an event stream it keeps open,
// and stalls on the client's answer to its ping: neither holds the
// handshake or the connection's end. Both posts end only when cut short or
// by their total timeout (post_timeout_ms, 10 s).
TEST(HttpTransportTest, StreamsAndAnswersToTheServerCannotHoldTheConnection) {
  std::string session;
  ScriptedHttpClient http([&](const http::HttpRequest& request, const Json& body,
                              http::HttpResponseHandler& handler, const CancelToken& cancel) {
    if (request.method == "GET") {
      Json ping = {{"jsonrpc", "2.0"}, {"id", "p1"}, {"method", "ping"}};
      handler.OnStatus(200, {{"Content-Type", "text/event-stream"}});
      handler.OnBody(Event("g1", ping));
      return Stall(request, cancel);
    }
    if (request.method == "POST" && body.value("method", "") == "notifications/initialized") {
      handler.OnStatus(200, {{"Content-Type", "text/event-stream"}});
      return Stall(request, cancel);
    }
    if (request.method == "POST" && body.value("id", Json()) == "p1") {
      return Stall(request, cancel);
    }
    return Server(nullptr, &session)(request, body, handler, cancel);
  });
  McpClientOptions client_options;
  client_options.server_name = "stalling";
  McpClient client(std::make_unique<HttpTransport>(StallTestOptions(http)), client_options);
  ASSERT_TRUE(client.Connect().ok());
  EXPECT_EQ(http.EndOfRpc("method", "notifications/initialized"), absl::StatusCode::kCancelled)
      << "the handshake read the stream that answered notifications/initialized";
  // The answer to the ping is being posted (and stalls).
  ASSERT_TRUE(http.WaitForRpc("id", "p1"));
  client.Close();
  EXPECT_EQ(http.EndOfRpc("id", "p1"), absl::StatusCode::kCancelled)
      << "Close waited for the post of the answer to the ping";
}

// Without a thread for a request's POST, the call fails at once with a
// clear error; the connection stays usable.
TEST(HttpTransportTest, ARequestWithoutAThreadFailsAndTheNextOneWorks) {
  std::string session;
  ScriptedHttpClient http(Server(
      [](const Json& body, http::HttpResponseHandler& handler) {
        return ReplyJson(handler, TextResult(body, "answered"));
      },
      &session));
  std::unique_ptr<McpClient> client = Connect(http);
  {
    RefuseThreadStartsForTesting refuse("a request to MCP server \"scripted\"");
    absl::StatusOr<CallToolResult> refused =
        client->CallTool("echo", Json::object(), CallOptions());
    EXPECT_EQ(refuse.refused(), 1);
    EXPECT_TRUE(absl::IsResourceExhausted(refused.status())) << refused.status();
    EXPECT_THAT(refused.status().message(),
                HasSubstr("could not start a thread for a request to MCP server \"scripted\""));
  }
  absl::StatusOr<CallToolResult> result = client->CallTool("echo", Json::object(), CallOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  EXPECT_EQ(result->content[0]["text"], "answered");
  client->Close();
}

// Without a thread for the listening stream, the connection works without
// it.
TEST(HttpTransportTest, AListeningStreamWithoutAThreadIsLeftOut) {
  std::string session;
  ScriptedHttpClient http(Server(
      [](const Json& body, http::HttpResponseHandler& handler) {
        return ReplyJson(handler, TextResult(body, "answered"));
      },
      &session));
  RefuseThreadStartsForTesting refuse("the listening stream to MCP server \"scripted\"");
  std::unique_ptr<McpClient> client = Connect(http);
  EXPECT_EQ(refuse.refused(), 1);
  absl::StatusOr<CallToolResult> result = client->CallTool("echo", Json::object(), CallOptions());
  ASSERT_TRUE(result.ok()) << result.status();
  client->Close();
  EXPECT_TRUE(http.Find("GET").empty());
}

TEST(HttpTransportTest, PublicEndpointDropsCredentialsAndQuery) {
  EXPECT_EQ(PublicEndpoint("https://user:pw@example.test:8443/mcp?key=1#x"),
            "https://example.test:8443/mcp");
  EXPECT_EQ(PublicEndpoint("http://127.0.0.1:3001/mcp"), "http://127.0.0.1:3001/mcp");
}

}  // namespace
}  // namespace raw::mcp
