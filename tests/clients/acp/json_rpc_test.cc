// JsonRpc: framing checks, dispatch of requests and notifications, answers
// matched to this side's own requests, and $/cancel_request.
#include "clients/acp/json_rpc.h"

#include <deque>
#include <functional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace raw::acp {
namespace {

class RecordingTransport : public Transport {
 public:
  bool Send(std::string message) override {
    sent.push_back(Json::parse(message));
    lines.push_back(std::move(message));
    return true;
  }
  void Close() override {}
  std::vector<Json> sent;
  std::vector<std::string> lines;
};

class RecordingHandler : public JsonRpc::Handler {
 public:
  void OnRequest(const Json& id, const std::string& method, const Json& params) override {
    requests.push_back({{"id", id}, {"method", method}, {"params", params}});
  }
  void OnNotification(const std::string& method, const Json& params) override {
    notifications.push_back({{"method", method}, {"params", params}});
  }
  bool OnCancelled(const Json& id) override {
    cancelled.push_back(id);
    return answers_cancelled_itself;
  }
  std::vector<Json> requests, notifications, cancelled;
  bool answers_cancelled_itself = false;
};

class JsonRpcTest : public ::testing::Test {
 protected:
  std::shared_ptr<RecordingTransport> transport_ = std::make_shared<RecordingTransport>();
  RecordingHandler handler_;
  JsonRpc rpc_{transport_, handler_};

  int LastErrorCode() { return transport_->sent.back()["error"]["code"]; }
};

TEST_F(JsonRpcTest, UnparseableTextIsAParseErrorWithNullId) {
  rpc_.Receive("{oops");
  ASSERT_EQ(transport_->sent.size(), 1u);
  EXPECT_EQ(LastErrorCode(), -32700);
  EXPECT_TRUE(transport_->sent.back()["id"].is_null());
}

TEST_F(JsonRpcTest, BatchesAndNonObjectsAreInvalidRequests) {
  rpc_.Receive("[]");
  EXPECT_EQ(LastErrorCode(), -32600);
  rpc_.Receive("42");
  EXPECT_EQ(LastErrorCode(), -32600);
  rpc_.Receive(R"({"id":3,"method":"x"})");  // no "jsonrpc"
  EXPECT_EQ(LastErrorCode(), -32600);
  EXPECT_EQ(transport_->sent.back()["id"], 3);
  rpc_.Receive(R"({"jsonrpc":"2.0","id":{"a":1},"method":"x"})");
  EXPECT_EQ(LastErrorCode(), -32600);
  rpc_.Receive(R"({"jsonrpc":"2.0","id":4,"method":"x","params":"no"})");
  EXPECT_EQ(LastErrorCode(), -32602);
  EXPECT_TRUE(handler_.requests.empty());
}

TEST_F(JsonRpcTest, RequestsAndNotificationsReachTheHandler) {
  rpc_.Receive(R"({"jsonrpc":"2.0","id":"a","method":"session/new","params":{"cwd":"/"}})");
  rpc_.Receive(R"({"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":"s"}})");
  ASSERT_EQ(handler_.requests.size(), 1u);
  EXPECT_EQ(handler_.requests[0]["id"], "a");
  EXPECT_EQ(handler_.requests[0]["params"]["cwd"], "/");
  ASSERT_EQ(handler_.notifications.size(), 1u);
  EXPECT_TRUE(transport_->sent.empty());
  rpc_.Reply("a", Json{{"ok", true}});
  EXPECT_EQ(transport_->sent.back()["result"]["ok"], true);
  // Answered once only.
  rpc_.Reply("a", Json{{"ok", false}});
  EXPECT_EQ(transport_->sent.size(), 1u);
}

TEST_F(JsonRpcTest, ADuplicatePendingIdIsRefused) {
  rpc_.Receive(R"({"jsonrpc":"2.0","id":1,"method":"m"})");
  rpc_.Receive(R"({"jsonrpc":"2.0","id":1,"method":"m"})");
  EXPECT_EQ(handler_.requests.size(), 1u);
  EXPECT_EQ(LastErrorCode(), -32600);
}

TEST_F(JsonRpcTest, RequestsBeyondThePendingCapAreRefusedUntilAnswersCome) {
  for (size_t i = 0; i < kMaxPendingRequests; ++i) {
    rpc_.Receive(absl::StrCat(R"({"jsonrpc":"2.0","id":)", i, R"(,"method":"m"})"));
  }
  EXPECT_TRUE(transport_->sent.empty());
  rpc_.Receive(R"({"jsonrpc":"2.0","id":"one more","method":"m"})");
  EXPECT_EQ(handler_.requests.size(), kMaxPendingRequests);
  EXPECT_EQ(LastErrorCode(), -32600);
  EXPECT_EQ(transport_->sent.back()["id"], "one more");
  EXPECT_FALSE(rpc_.Pending("one more"));
  // An answer makes room for one.
  rpc_.Reply(0, Json::object());
  rpc_.Receive(R"({"jsonrpc":"2.0","id":"one more","method":"m"})");
  EXPECT_EQ(handler_.requests.size(), kMaxPendingRequests + 1);
  EXPECT_TRUE(rpc_.Pending("one more"));
}

TEST_F(JsonRpcTest, AnIdLongerThanTheCapIsRefusedAndNotKept) {
  const std::string longest(kMaxIdBytes - 2, 'i');  // with its quotes: the cap
  rpc_.Receive(absl::StrCat(R"({"jsonrpc":"2.0","id":")", longest, R"(","method":"m"})"));
  ASSERT_EQ(handler_.requests.size(), 1u);
  rpc_.Receive(absl::StrCat(R"({"jsonrpc":"2.0","id":")", longest, R"(x","method":"m"})"));
  EXPECT_EQ(handler_.requests.size(), 1u);
  EXPECT_EQ(LastErrorCode(), -32600);
  EXPECT_TRUE(transport_->sent.back()["id"].is_null());
  EXPECT_FALSE(rpc_.Pending(longest + "x"));
}

// An integer id beyond 64 bits would come back as a float (another id):
// refused with id null. Ids written as floats are echoed as sent.
TEST_F(JsonRpcTest, AnIntegerIdBeyond64BitsIsAnInvalidRequest) {
  for (const char* id :
       {"18446744073709551616", "-9223372036854775809", "123456789012345678901234567890"}) {
    SCOPED_TRACE(id);
    rpc_.Receive(
        absl::StrCat(R"({"jsonrpc":"2.0","id":)", id, R"(,"method":"m","params":{"id":1.0}})"));
    EXPECT_EQ(LastErrorCode(), -32600);
    EXPECT_TRUE(transport_->sent.back()["id"].is_null());
    EXPECT_NE(transport_->sent.back()["error"]["message"].get<std::string>().find("64 bits"),
              std::string::npos);
  }
  EXPECT_TRUE(handler_.requests.empty());
  rpc_.Receive(R"({"jsonrpc":"2.0","id":18446744073709551615,"method":"m"})");
  rpc_.Receive(R"({"jsonrpc":"2.0","id":-9223372036854775808,"method":"m"})");
  rpc_.Receive(R"({"jsonrpc":"2.0","id":1.5,"method":"m","params":{"id":1e99}})");
  rpc_.Receive(
      R"({"jsonrpc":"2.0","params":{"id":123456789012345678901234567890},"id":1e3,"method":"m"})");
  ASSERT_EQ(handler_.requests.size(), 4u);
  EXPECT_EQ(handler_.requests[0]["id"], 18446744073709551615u);
  EXPECT_EQ(handler_.requests[1]["id"], INT64_MIN);
  EXPECT_EQ(handler_.requests[2]["id"], 1.5);
  EXPECT_EQ(handler_.requests[3]["id"], 1000.0);
}

TEST_F(JsonRpcTest, ResponsesAreMatchedToOwnRequests) {
  std::vector<RpcResponse> got;
  Json id = rpc_.Request("session/request_permission", Json::object(),
                         [&](const RpcResponse& r) { got.push_back(r); });
  EXPECT_EQ(transport_->sent.back()["method"], "session/request_permission");
  rpc_.Receive(DumpJson(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", {{"x", 1}}}}));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_TRUE(got[0].ok);
  EXPECT_EQ(got[0].result["x"], 1);
  Json second = rpc_.Request("m", Json::object(), [&](const RpcResponse& r) { got.push_back(r); });
  rpc_.Receive(DumpJson(
      Json{{"jsonrpc", "2.0"}, {"id", second}, {"error", {{"code", -32000}, {"message", "no"}}}}));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_FALSE(got[1].ok);
  EXPECT_EQ(got[1].error.code, -32000);
  // A forgotten request's answer is dropped.
  Json third = rpc_.Request("m", Json::object(), [&](const RpcResponse& r) { got.push_back(r); });
  rpc_.Forget(third);
  rpc_.Receive(DumpJson(Json{{"jsonrpc", "2.0"}, {"id", third}, {"result", nullptr}}));
  EXPECT_EQ(got.size(), 2u);
}

TEST_F(JsonRpcTest, AnErrorAnswerWithWronglyTypedFieldsReadsAsAnInternalError) {
  std::vector<RpcResponse> got;
  Json id = rpc_.Request("m", Json::object(), [&](const RpcResponse& r) { got.push_back(r); });
  rpc_.Receive(DumpJson(
      Json{{"jsonrpc", "2.0"}, {"id", id}, {"error", {{"code", "oops"}, {"message", 12}}}}));
  ASSERT_EQ(got.size(), 1u);
  EXPECT_FALSE(got[0].ok);
  EXPECT_EQ(got[0].error.code, -32603);
  EXPECT_EQ(got[0].error.message, "the client answered with a malformed error");
  Json second = rpc_.Request("m", Json::object(), [&](const RpcResponse& r) { got.push_back(r); });
  rpc_.Receive(DumpJson(
      Json{{"jsonrpc", "2.0"}, {"id", second}, {"error", {{"code", 1e300}, {"message", "big"}}}}));
  ASSERT_EQ(got.size(), 2u);
  EXPECT_EQ(got[1].error.code, -32603);
  EXPECT_EQ(got[1].error.message, "big");
  EXPECT_TRUE(transport_->sent.size() == 2u) << "nothing is answered to an answer";
}

// A handler that reads a field with the wrong type throws; the request is
// answered -32603 and Receive returns normally.
class ThrowingHandler : public JsonRpc::Handler {
 public:
  void OnRequest(const Json&, const std::string&, const Json& params) override {
    (void)params.value("n", 0);  // throws when "n" is a string
  }
  void OnNotification(const std::string&, const Json& params) override {
    (void)params.value("n", 0);
  }
};

TEST(JsonRpcBackstopTest, ATypeErrorInAHandlerAnswersTheRequestAndKeepsGoing) {
  auto transport = std::make_shared<RecordingTransport>();
  ThrowingHandler handler;
  JsonRpc rpc(transport, handler);
  EXPECT_NO_THROW(rpc.Receive(R"({"jsonrpc":"2.0","id":5,"method":"m","params":{"n":"x"}})"));
  ASSERT_EQ(transport->sent.size(), 1u);
  EXPECT_EQ(transport->sent[0]["id"], 5);
  EXPECT_EQ(transport->sent[0]["error"]["code"], -32603);
  EXPECT_FALSE(rpc.Pending(5));
  EXPECT_NO_THROW(rpc.Receive(R"({"jsonrpc":"2.0","method":"m","params":{"n":"x"}})"));
  EXPECT_EQ(transport->sent.size(), 1u) << "a notification gets no answer";
  // A throwing response callback is caught too.
  Json id =
      rpc.Request("m", Json::object(), [](const RpcResponse& r) { (void)r.result.value("n", 0); });
  EXPECT_NO_THROW(
      rpc.Receive(DumpJson(Json{{"jsonrpc", "2.0"}, {"id", id}, {"result", {{"n", "x"}}}})));
}

TEST_F(JsonRpcTest, CancelRequestAnswersThePendingRequestOnce) {
  rpc_.Receive(R"({"jsonrpc":"2.0","id":7,"method":"session/list"})");
  rpc_.Receive(R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}})");
  ASSERT_EQ(transport_->sent.size(), 1u);
  EXPECT_EQ(LastErrorCode(), -32800);
  EXPECT_EQ(transport_->sent.back()["id"], 7);
  ASSERT_EQ(handler_.cancelled.size(), 1u);
  rpc_.Reply(7, Json::object());  // the late answer
  EXPECT_EQ(transport_->sent.size(), 1u);
  // Cancelling what is not pending does nothing.
  rpc_.Receive(R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":8}})");
  EXPECT_EQ(transport_->sent.size(), 1u);
  EXPECT_TRUE(handler_.notifications.empty());
}

TEST_F(JsonRpcTest, ACancelledRequestTheHandlerAnswersItselfIsNotAnsweredNow) {
  handler_.answers_cancelled_itself = true;
  rpc_.Receive(R"({"jsonrpc":"2.0","id":7,"method":"session/prompt"})");
  rpc_.Receive(R"({"jsonrpc":"2.0","method":"$/cancel_request","params":{"requestId":7}})");
  ASSERT_EQ(handler_.cancelled.size(), 1u);
  EXPECT_TRUE(transport_->sent.empty());
  EXPECT_TRUE(rpc_.Pending(7));
  rpc_.Reply(7, Json{{"stopReason", "cancelled"}});
  ASSERT_EQ(transport_->sent.size(), 1u);
  EXPECT_EQ(transport_->sent.back()["result"]["stopReason"], "cancelled");
}

TEST(ErrorFromStatusTest, MapsCodes) {
  EXPECT_EQ(ErrorFromStatus(absl::InvalidArgumentError("x")).code, -32602);
  EXPECT_EQ(ErrorFromStatus(absl::NotFoundError("x")).code, -32002);
  EXPECT_EQ(ErrorFromStatus(absl::FailedPreconditionError("held")).code, -32603);
  EXPECT_EQ(ErrorFromStatus(absl::FailedPreconditionError("held")).message, "held");
}

// --- text chunks ---

class TextChunkTest : public JsonRpcTest {
 protected:
  // The owner thread's queue: tasks run only when the test says so.
  void Defer() {
    rpc_.SetDeferral([this](std::function<void()> task) { queued_.push_back(std::move(task)); });
  }
  void RunQueued() {
    while (!queued_.empty()) {
      std::function<void()> task = std::move(queued_.front());
      queued_.pop_front();
      task();
    }
  }
  static std::string Text(const Json& line) { return line["params"]["update"]["content"]["text"]; }
  static std::string Kind(const Json& line) { return line["params"]["update"]["sessionUpdate"]; }

  std::deque<std::function<void()>> queued_;
};

TEST_F(TextChunkTest, WithoutADeferralEachChunkIsSentAtOnce) {
  rpc_.NotifyTextChunk("s1", "agent_message_chunk", "Hel");
  rpc_.NotifyTextChunk("s1", "agent_message_chunk", "lo");
  ASSERT_EQ(transport_->sent.size(), 2u);
  EXPECT_EQ(transport_->sent[0]["method"], "session/update");
  EXPECT_EQ(transport_->sent[0]["params"]["sessionId"], "s1");
  EXPECT_EQ(transport_->sent[0]["params"]["update"]["content"]["type"], "text");
  EXPECT_EQ(Text(transport_->sent[0]), "Hel");
  EXPECT_EQ(Text(transport_->sent[1]), "lo");
}

TEST_F(TextChunkTest, AChunkLineIsWhatTheNotificationDumpsTo) {
  // The line is written directly, not built as Json: the same bytes, for
  // text that needs escaping and text that is not valid UTF-8 alike.
  const std::vector<std::string> texts = {"plain",
                                          "quote \" back \\ slash",
                                          "tab\tline\n\x01",
                                          "caf\xc3\xa9 \xe2\x82\xac",
                                          "broken \xc3 \xff end",
                                          ""};
  for (const std::string& text : texts) {
    rpc_.NotifyTextChunk("s-1", "agent_thought_chunk", text);
    const Json expected = {{"jsonrpc", "2.0"},
                           {"method", "session/update"},
                           {"params",
                            {{"sessionId", "s-1"},
                             {"update",
                              {{"sessionUpdate", "agent_thought_chunk"},
                               {"content", {{"type", "text"}, {"text", text}}}}}}}};
    EXPECT_EQ(transport_->lines.back(), DumpJson(expected)) << text;
  }
}

TEST_F(TextChunkTest, ChunksQueuedInOnePassLeaveAsOneLine) {
  Defer();
  for (const char* piece : {"One ", "two ", "three."}) {
    rpc_.NotifyTextChunk("s1", "agent_message_chunk", piece);
  }
  EXPECT_TRUE(transport_->sent.empty()) << "held until the queued tasks have run";
  EXPECT_EQ(queued_.size(), 1u) << "one flush for the whole run";
  RunQueued();
  ASSERT_EQ(transport_->sent.size(), 1u);
  EXPECT_EQ(Text(transport_->sent[0]), "One two three.");
  // The next chunk starts a new line of its own.
  rpc_.NotifyTextChunk("s1", "agent_message_chunk", "Four.");
  RunQueued();
  ASSERT_EQ(transport_->sent.size(), 2u);
  EXPECT_EQ(Text(transport_->sent[1]), "Four.");
}

TEST_F(TextChunkTest, AnotherKindOrSessionOrMessageKeepsTheWireOrder) {
  Defer();
  rpc_.NotifyTextChunk("s1", "agent_thought_chunk", "think ");
  rpc_.NotifyTextChunk("s1", "agent_message_chunk", "say ");
  rpc_.NotifyTextChunk("s2", "agent_message_chunk", "other ");
  rpc_.Notify("session/update", Json{{"sessionId", "s2"}, {"update", {{"sessionUpdate", "plan"}}}});
  rpc_.NotifyTextChunk("s2", "agent_message_chunk", "after");
  rpc_.Receive(R"({"jsonrpc":"2.0","id":7,"method":"session/prompt","params":{}})");
  rpc_.Reply(7, Json{{"stopReason", "end_turn"}});
  ASSERT_EQ(transport_->sent.size(), 6u) << "the reply sent the chunk before it";
  EXPECT_EQ(Kind(transport_->sent[0]), "agent_thought_chunk");
  EXPECT_EQ(Text(transport_->sent[0]), "think ");
  EXPECT_EQ(Text(transport_->sent[1]), "say ");
  EXPECT_EQ(transport_->sent[2]["params"]["sessionId"], "s2");
  EXPECT_EQ(Text(transport_->sent[2]), "other ");
  EXPECT_EQ(Kind(transport_->sent[3]), "plan");
  EXPECT_EQ(Text(transport_->sent[4]), "after");
  EXPECT_EQ(transport_->sent[5]["id"], 7);
  RunQueued();  // the flush finds nothing left
  EXPECT_EQ(transport_->sent.size(), 6u);
}

TEST_F(TextChunkTest, AChunkHeldBackIsSentWhenTheConnectionEnds) {
  auto transport = std::make_shared<RecordingTransport>();
  std::deque<std::function<void()>> never_run;
  {
    JsonRpc rpc(transport, handler_);
    rpc.SetDeferral([&](std::function<void()> task) { never_run.push_back(std::move(task)); });
    rpc.NotifyTextChunk("s1", "agent_message_chunk", "last words");
    EXPECT_TRUE(transport->sent.empty());
  }
  ASSERT_EQ(transport->sent.size(), 1u);
  EXPECT_EQ(Text(transport->sent[0]), "last words");
  for (auto& task : never_run) task();  // a flush after the end does nothing
  EXPECT_EQ(transport->sent.size(), 1u);
}

}  // namespace
}  // namespace raw::acp
