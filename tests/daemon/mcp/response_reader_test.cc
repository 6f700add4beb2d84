// ResponseReader: an event stream is Done() at the awaited response, and the
// reader then takes (and drops) what the stream still carries instead of
// aborting the transfer, so that the HTTP client can keep the connection of
// a stream the server ends there.
#include "daemon/mcp/response_reader.h"

#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace raw::mcp {
namespace {

std::string Event(const Json& message) { return absl::StrCat("data: ", message.dump(), "\n\n"); }

TEST(ResponseReaderTest, AStreamIsDoneAtTheAwaitedResponseAndDropsWhatFollows) {
  std::vector<Json> dispatched;
  ResponseReader reader(
      Json(7), 1 << 20, [&](const Json& m) { dispatched.push_back(m); }, nullptr);
  reader.OnStatus(200, {{"Content-Type", "text/event-stream"}});
  const Json progress = {{"jsonrpc", "2.0"}, {"method", "notifications/progress"}};
  EXPECT_TRUE(reader.OnBody(Event(progress)));
  EXPECT_FALSE(reader.Done());
  EXPECT_TRUE(reader.OnBody(Event({{"jsonrpc", "2.0"}, {"id", 7}, {"result", Json::object()}})));
  EXPECT_TRUE(reader.got_awaited());
  EXPECT_TRUE(reader.Done());
  // The transfer goes on (the client drops the rest): not an abort.
  EXPECT_TRUE(reader.OnBody(Event(progress)));
  ASSERT_EQ(dispatched.size(), 2u);
  EXPECT_EQ(dispatched[1]["id"], 7);
}

TEST(ResponseReaderTest, AJsonBodyIsReadToItsEnd) {
  std::vector<Json> dispatched;
  ResponseReader reader(
      Json(1), 1 << 20, [&](const Json& m) { dispatched.push_back(m); }, nullptr);
  reader.OnStatus(200, {{"Content-Type", "application/json"}});
  const std::string body = Json{{"jsonrpc", "2.0"}, {"id", 1}, {"result", Json::object()}}.dump();
  EXPECT_TRUE(reader.OnBody(body.substr(0, 10)));
  EXPECT_FALSE(reader.Done());
  EXPECT_TRUE(reader.OnBody(body.substr(10)));
  EXPECT_FALSE(reader.Done());
  EXPECT_TRUE(reader.Finish());
  ASSERT_EQ(dispatched.size(), 1u);
  EXPECT_TRUE(reader.got_awaited());
}

// The GET stream awaits nothing: it is never Done.
TEST(ResponseReaderTest, TheListeningStreamIsNeverDone) {
  std::vector<Json> dispatched;
  ResponseReader reader(
      Json(), 1 << 20, [&](const Json& m) { dispatched.push_back(m); }, nullptr);
  reader.OnStatus(200, {{"Content-Type", "text/event-stream"}});
  EXPECT_TRUE(reader.OnBody(Event({{"jsonrpc", "2.0"}, {"id", 3}, {"result", Json::object()}})));
  EXPECT_FALSE(reader.Done());
  EXPECT_EQ(dispatched.size(), 1u);
}

}  // namespace
}  // namespace raw::mcp
