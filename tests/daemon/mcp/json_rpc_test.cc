#include "daemon/mcp/json_rpc.h"

#include "gtest/gtest.h"

namespace raw::mcp {
namespace {

TEST(JsonRpcTest, ClassifiesEveryKind) {
  auto request = ParseMessages(R"({"jsonrpc":"2.0","id":7,"method":"ping"})");
  ASSERT_TRUE(request.ok());
  EXPECT_EQ((*request)[0].kind, MessageKind::kRequest);
  EXPECT_EQ((*request)[0].id, 7);

  auto notification = ParseMessages(
      R"({"jsonrpc":"2.0","method":"notifications/progress","params":{"progress":1}})");
  ASSERT_TRUE(notification.ok());
  EXPECT_EQ((*notification)[0].kind, MessageKind::kNotification);
  EXPECT_EQ((*notification)[0].params["progress"], 1);

  auto response = ParseMessages(R"({"jsonrpc":"2.0","id":"a","result":{"x":1}})");
  ASSERT_TRUE(response.ok());
  EXPECT_EQ((*response)[0].kind, MessageKind::kResponse);
  EXPECT_EQ((*response)[0].result["x"], 1);

  auto error = ParseMessages(
      R"({"jsonrpc":"2.0","id":3,"error":{"code":-32602,"message":"bad","data":{"supported":["x"]}}})");
  ASSERT_TRUE(error.ok());
  EXPECT_EQ((*error)[0].kind, MessageKind::kErrorResponse);
  EXPECT_EQ((*error)[0].error_code, -32602);
  EXPECT_EQ((*error)[0].error_message, "bad");
  EXPECT_EQ((*error)[0].error_data["supported"][0], "x");
}

TEST(JsonRpcTest, AcceptsABatchArray) {
  auto batch =
      ParseMessages(R"([{"jsonrpc":"2.0","id":1,"result":{}},{"jsonrpc":"2.0","method":"n"}])");
  ASSERT_TRUE(batch.ok());
  ASSERT_EQ(batch->size(), 2u);
  EXPECT_EQ((*batch)[1].kind, MessageKind::kNotification);
}

TEST(JsonRpcTest, RejectsWhatIsNotJsonRpc) {
  EXPECT_FALSE(ParseMessages("not json").ok());
  EXPECT_FALSE(ParseMessages(R"({"id":1,"result":{}})").ok());  // no "jsonrpc"
  EXPECT_FALSE(ParseMessages(R"({"jsonrpc":"2.0","id":1.5,"result":{}})").ok());
  EXPECT_FALSE(ParseMessages(R"({"jsonrpc":"2.0","id":1})").ok());
  EXPECT_FALSE(ParseMessages(R"({"jsonrpc":"2.0","result":{}})").ok());
  EXPECT_FALSE(ParseMessages(R"({"jsonrpc":"2.0","method":5})").ok());
  // A nameless method (found by mcp_message_fuzz), as notification and as
  // request.
  auto nameless = ParseMessages(R"({"jsonrpc":"2.0","method":"","params":{"level":"info"}})");
  ASSERT_FALSE(nameless.ok());
  EXPECT_NE(nameless.status().message().find("\"method\" is empty"), std::string::npos);
  EXPECT_FALSE(ParseMessages(R"({"jsonrpc":"2.0","id":3,"method":""})").ok());
  auto message = ParseMessages("[1]");
  ASSERT_FALSE(message.ok());
  EXPECT_NE(message.status().message().find("JSON object"), std::string::npos);
}

TEST(JsonRpcTest, BuildsMessages) {
  EXPECT_EQ(DumpJson(MakeRequest(4, "tools/list", Json::object())),
            R"({"id":4,"jsonrpc":"2.0","method":"tools/list","params":{}})");
  EXPECT_EQ(DumpJson(MakeNotification("notifications/initialized", nullptr)),
            R"({"jsonrpc":"2.0","method":"notifications/initialized"})");
  EXPECT_EQ(DumpJson(MakeResult("s", Json::object())), R"({"id":"s","jsonrpc":"2.0","result":{}})");
  EXPECT_EQ(DumpJson(MakeError(9, -32601, "Method not found: x")),
            R"({"error":{"code":-32601,"message":"Method not found: x"},"id":9,"jsonrpc":"2.0"})");
  EXPECT_TRUE(IsRequest(MakeRequest(1, "a", nullptr)));
  EXPECT_FALSE(IsRequest(MakeNotification("a", nullptr)));
  EXPECT_FALSE(IsRequest(MakeResult(1, Json::object())));
}

}  // namespace
}  // namespace raw::mcp
