// Tests of the test doubles themselves: the wire format of the fake provider
// server and the Chat Completions SSE builders.
#include "tests/fakes/fake_provider_server.h"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "absl/strings/match.h"
#include "absl/time/clock.h"
#include "daemon/http/curl_http_client.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/fakes/sse_builders.h"

namespace raw::testing {
namespace {

using ::testing::HasSubstr;
using ::testing::StartsWith;

// A plain TCP conversation with the server, to check bytes on the wire.
class RawConnection {
 public:
  explicit RawConnection(int port) {
    fd_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    address.sin_port = htons(static_cast<uint16_t>(port));
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
  }
  ~RawConnection() { close(fd_); }

  bool connected() const { return connected_; }
  bool Send(std::string_view bytes) {
    return send(fd_, bytes.data(), bytes.size(), MSG_NOSIGNAL) ==
           static_cast<ssize_t>(bytes.size());
  }
  // Reads until `size` bytes arrived or the server closed.
  std::string Read(size_t size) {
    std::string out;
    char buffer[4096];
    while (out.size() < size) {
      ssize_t n = recv(fd_, buffer, std::min(sizeof(buffer), size - out.size()), 0);
      if (n < 0) end_errno_ = errno;
      if (n <= 0) break;
      out.append(buffer, static_cast<size_t>(n));
    }
    return out;
  }
  std::string ReadToEnd() { return Read(SIZE_MAX); }
  // The errno of the read that found the end (0: an orderly close).
  int end_errno() const { return end_errno_; }

 private:
  int fd_ = -1;
  bool connected_ = false;
  int end_errno_ = 0;
};

constexpr char kHead200[] =
    "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\n"
    "Transfer-Encoding: chunked\r\nConnection: close\r\n\r\n";

class FakeProviderServerTest : public ::testing::Test {
 protected:
  void SetUp() override { ASSERT_TRUE(server_.status().ok()) << server_.status(); }

  std::string Exchange(std::string_view request) {
    RawConnection connection(server_.port());
    EXPECT_TRUE(connection.connected());
    EXPECT_TRUE(connection.Send(request));
    return connection.ReadToEnd();
  }

  FakeProviderServer server_;
};

TEST_F(FakeProviderServerTest, WritesEachChunkAndTheTerminator) {
  server_.Enqueue(chat::Stream({"data: a\n\n", "", "data: bc\n\n"}));
  std::string wire = Exchange("GET /v1/x HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_EQ(wire, std::string(kHead200) + "9\r\ndata: a\n\n\r\na\r\ndata: bc\n\n\r\n0\r\n\r\n");
}

TEST_F(FakeProviderServerTest, CutResponseHasNoTerminator) {
  ScriptedResponse response = chat::Stream({"data: a\n\n"});
  response.end = ScriptedResponse::End::kCut;
  server_.Enqueue(response);
  std::string wire = Exchange("GET /v1/x HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_EQ(wire, std::string(kHead200) + "9\r\ndata: a\n\n\r\n");
}

TEST_F(FakeProviderServerTest, AKeptConnectionServesTheNextRequest) {
  for (const char* data : {"data: a\n\n", "data: b\n\n"}) {
    ScriptedResponse response = chat::Stream({data});
    response.end = ScriptedResponse::End::kKeepOpen;
    server_.Enqueue(response);
  }
  const std::string head =
      "HTTP/1.1 200 OK\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
  RawConnection connection(server_.port());
  ASSERT_TRUE(connection.connected());
  ASSERT_TRUE(connection.Send("POST /v1/x HTTP/1.1\r\nHost: h\r\nContent-Length: 2\r\n\r\n{}"));
  const std::string first = head + "9\r\ndata: a\n\n\r\n0\r\n\r\n";
  EXPECT_EQ(connection.Read(first.size()), first);
  ASSERT_TRUE(connection.Send("POST /v1/y HTTP/1.1\r\nHost: h\r\nContent-Length: 0\r\n\r\n"));
  const std::string second = head + "9\r\ndata: b\n\n\r\n0\r\n\r\n";
  EXPECT_EQ(connection.Read(second.size()), second);
  ASSERT_EQ(server_.requests().size(), 2u);
  EXPECT_EQ(server_.requests()[1].path, "/v1/y");
  // The connection is still open: a third request gets the "script ran
  // out" answer on it rather than a closed socket.
  ASSERT_TRUE(connection.Send("GET /v1/z HTTP/1.1\r\nHost: h\r\n\r\n"));
  EXPECT_THAT(connection.ReadToEnd(), StartsWith("HTTP/1.1 500 "));
}

TEST_F(FakeProviderServerTest, RawFramingWritesTheChunksVerbatim) {
  ScriptedResponse response;
  response.framing = ScriptedResponse::Framing::kRaw;
  response.status = 404;  // ignored: the chunks are the whole response
  response.chunks = {"HTTP/1.1 200 OK\r\nConnection: close\r\n\r\n", "data: a\n\n"};
  server_.Enqueue(response);
  std::string wire = Exchange("GET /v1/x HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_EQ(wire, "HTTP/1.1 200 OK\r\nConnection: close\r\n\r\ndata: a\n\n");
}

TEST_F(FakeProviderServerTest, AResetBeforeAnyByteIsARst) {
  ScriptedResponse response;
  response.framing = ScriptedResponse::Framing::kRaw;
  response.end = ScriptedResponse::End::kReset;
  server_.Enqueue(response);
  RawConnection connection(server_.port());
  ASSERT_TRUE(connection.Send("GET /v1/x HTTP/1.1\r\nHost: h\r\n\r\n"));
  EXPECT_EQ(connection.ReadToEnd(), "");
  EXPECT_EQ(connection.end_errno(), ECONNRESET);
}

TEST_F(FakeProviderServerTest, APauseBetweenChunksEndsWhenTheClientCloses) {
  ScriptedResponse response = chat::Stream({"data: a\n\n", "data: b\n\n"});
  response.chunk_interval = std::chrono::minutes(10);
  server_.Enqueue(response);
  {
    RawConnection connection(server_.port());
    ASSERT_TRUE(connection.Send("GET /v1/x HTTP/1.1\r\nHost: h\r\n\r\n"));
    EXPECT_THAT(connection.Read(strlen(kHead200) + 14), HasSubstr("data: a"));
  }  // closed during the pause
  const absl::Time start = absl::Now();
  server_.Stop();  // joins the connection's thread
  EXPECT_LT(absl::Now() - start, absl::Minutes(1));
}

TEST_F(FakeProviderServerTest, KeepsAGivenContentType) {
  ScriptedResponse response;
  response.status = 502;
  response.headers = {{"content-type", "text/html"}};
  response.chunks = {"<html>Bad gateway</html>"};
  server_.Enqueue(response);
  std::string wire = Exchange("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_THAT(wire, StartsWith("HTTP/1.1 502 Bad Gateway\r\ncontent-type: text/html\r\n"));
  EXPECT_THAT(wire, ::testing::Not(HasSubstr("application/json")));
}

TEST_F(FakeProviderServerTest, DecodesChunkedRequestBodies) {
  server_.Enqueue(chat::Stream({}));
  Exchange(
      "POST /v1/p HTTP/1.1\r\nHost: h\r\nTransfer-Encoding: chunked\r\n\r\n"
      "5\r\nhello\r\n6;ext=1\r\n world\r\n0\r\n\r\n");
  EXPECT_EQ(server_.single_request().body, "hello world");
}

TEST_F(FakeProviderServerTest, AnswersExpectContinueBeforeReadingTheBody) {
  server_.Enqueue(chat::Stream({}));
  RawConnection connection(server_.port());
  ASSERT_TRUE(connection.Send(
      "POST /v1/p HTTP/1.1\r\nHost: h\r\nExpect: 100-continue\r\nContent-Length: 3\r\n\r\n"));
  const std::string interim = "HTTP/1.1 100 Continue\r\n\r\n";
  EXPECT_EQ(connection.Read(interim.size()), interim);
  ASSERT_TRUE(connection.Send("abc"));
  EXPECT_THAT(connection.ReadToEnd(), StartsWith("HTTP/1.1 200 OK"));
  EXPECT_EQ(server_.single_request().body, "abc");
}

TEST_F(FakeProviderServerTest, RejectsMalformedRequestsWithoutRecordingThem) {
  EXPECT_THAT(Exchange("NONSENSE\r\n\r\n"), StartsWith("HTTP/1.1 400 Bad Request"));
  EXPECT_TRUE(server_.requests().empty());
  EXPECT_FALSE(server_.WaitForRequestCount(1, absl::Milliseconds(20)));
}

TEST_F(FakeProviderServerTest, ScriptRunningOutIsA500AndRecorded) {
  http::CurlHttpClient client;
  http::HttpRequest request;
  request.url = server_.base_url() + "/chat/completions";
  request.body = R"({"model":"m"})";
  CancelToken cancel;
  http::HttpResponse response;
  ASSERT_TRUE(http::SendAndCollect(client, request, cancel, &response).ok());
  EXPECT_EQ(response.status, 500);
  auto body = ParseJson(response.body);
  ASSERT_TRUE(body.ok()) << body.status();
  EXPECT_EQ((*body)["error"]["code"], "script_exhausted");
  EXPECT_THAT((*body)["error"]["message"].get<std::string>(),
              HasSubstr("POST /v1/chat/completions"));
  EXPECT_EQ(server_.unscripted_requests(), 1u);
  RecordedRequest recorded = server_.single_request();
  EXPECT_EQ(recorded.method, "POST");
  auto recorded_json = recorded.BodyJson();
  ASSERT_TRUE(recorded_json.ok());
  EXPECT_EQ((*recorded_json)["model"], "m");
}

TEST_F(FakeProviderServerTest, ReleaseBeforeTheGateLetsItPass) {
  ScriptedResponse response = chat::Stream({"data: a\n\n"});
  response.gate_before_chunk = 0;
  server_.Enqueue(response);
  server_.ReleaseGate();
  std::string wire = Exchange("GET / HTTP/1.1\r\nHost: h\r\n\r\n");
  EXPECT_EQ(wire, std::string(kHead200) + "9\r\ndata: a\n\n\r\n0\r\n\r\n");
  EXPECT_FALSE(server_.WaitForGate(absl::Milliseconds(20)));
}

TEST_F(FakeProviderServerTest, StopClosesParkedConnections) {
  ScriptedResponse response = chat::Stream({"data: a\n\n", "data: b\n\n"});
  response.gate_before_chunk = 1;
  server_.Enqueue(response);
  std::string wire;
  std::thread reader([&] { wire = Exchange("GET / HTTP/1.1\r\nHost: h\r\n\r\n"); });
  ASSERT_TRUE(server_.WaitForGate());
  server_.Stop();
  reader.join();
  EXPECT_EQ(wire, std::string(kHead200) + "9\r\ndata: a\n\n\r\n");
  server_.Stop();  // idempotent
}

// "data: <json>\n\n" -> json
Json EventJson(const std::string& event) {
  EXPECT_TRUE(absl::StartsWith(event, "data: ")) << event;
  EXPECT_TRUE(absl::EndsWith(event, "\n\n")) << event;
  auto parsed = ParseJson(event.substr(6, event.size() - 8));
  EXPECT_TRUE(parsed.ok()) << parsed.status();
  return parsed.ok() ? *parsed : Json();
}

TEST(ChatBuildersTest, TextAnswerIsACompleteStream) {
  ScriptedResponse response =
      chat::TextAnswer("Hello", {.prompt_tokens = 7, .completion_tokens = 2, .cached_tokens = 3});
  EXPECT_EQ(response.status, 200);
  ASSERT_EQ(response.chunks.size(), 5u);
  EXPECT_EQ(EventJson(response.chunks[0])["choices"][0]["delta"]["role"], "assistant");
  EXPECT_EQ(EventJson(response.chunks[1])["choices"][0]["delta"]["content"], "Hello");
  EXPECT_EQ(EventJson(response.chunks[2])["choices"][0]["finish_reason"], "stop");
  Json usage = EventJson(response.chunks[3])["usage"];
  EXPECT_EQ(usage["prompt_tokens"], 7);
  EXPECT_EQ(usage["total_tokens"], 9);
  EXPECT_EQ(usage["prompt_tokens_details"]["cached_tokens"], 3);
  EXPECT_EQ(response.chunks[4], "data: [DONE]\n\n");
  EXPECT_FALSE(EventJson(chat::UsageChunk(1, 1)).at("usage").contains("prompt_tokens_details"));
}

TEST(ChatBuildersTest, ToolCallArgumentsSplitAtCharacterBoundaries) {
  const std::string arguments = "{\"path\":\"h\u00e9\u00e9\U0001F600.txt\"}";
  std::vector<std::string> events = chat::ToolCallChunks(1, "call_B", "read_file", arguments, 7);
  ASSERT_GE(events.size(), 3u);
  Json header = EventJson(events[0])["choices"][0]["delta"]["tool_calls"][0];
  EXPECT_EQ(header["index"], 1);
  EXPECT_EQ(header["id"], "call_B");
  EXPECT_EQ(header["function"]["name"], "read_file");
  std::string joined;
  for (size_t i = 1; i < events.size(); ++i) {
    Json call = EventJson(events[i])["choices"][0]["delta"]["tool_calls"][0];
    EXPECT_EQ(call["index"], 1);
    EXPECT_FALSE(call.contains("id"));
    joined += call["function"]["arguments"].get<std::string>();
  }
  EXPECT_EQ(joined, arguments);  // nothing was replaced as invalid UTF-8

  ScriptedResponse answer = chat::ToolCallsAnswer({{"call_A", "read_file", "{}"}});
  EXPECT_EQ(EventJson(answer.chunks[answer.chunks.size() - 3])["choices"][0]["finish_reason"],
            "tool_calls");
}

TEST(ChatBuildersTest, ErrorResponseHasTheOpenAiBody) {
  ScriptedResponse response =
      chat::ErrorResponse(400, "prompt is too long", "invalid_request_error", "");
  EXPECT_EQ(response.status, 400);
  ASSERT_EQ(response.chunks.size(), 1u);
  auto body = ParseJson(response.chunks[0]);
  ASSERT_TRUE(body.ok());
  EXPECT_EQ((*body)["error"]["message"], "prompt is too long");
  EXPECT_EQ((*body)["error"]["type"], "invalid_request_error");
  EXPECT_TRUE((*body)["error"]["code"].is_null());
  EXPECT_TRUE((*body)["error"]["param"].is_null());
  EXPECT_EQ(EventJson(chat::ErrorChunk("boom"))["error"]["type"], "server_error");
}

}  // namespace
}  // namespace raw::testing
