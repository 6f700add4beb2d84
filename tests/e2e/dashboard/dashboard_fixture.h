// Fixture of the dashboard gateway's end-to-end tests: a real rawd (with
// the fake provider, approval on ask), a real raw-dashboard process, and
// plain HTTP and WebSocket clients.
#pragma once

#include <sys/wait.h>

#include <deque>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "gtest/gtest.h"
#include "tests/clients/web/support/ws_test_client.h"
#include "tests/e2e/contract_fixture.h"
#include "tests/support/dashboard_process.h"
#include "tests/support/test_leases.h"

namespace raw::e2e {

class DashboardTest : public ContractTest {
 protected:
  void SetUp() override {
    ContractTest::SetUp();
    StartDaemon("", TopExtra(), R"(["builtin/*"])", ModelExtra());
    absl::Status started = dashboard_.Start(daemon_->socket_path(), {}, GatewayEnv());
    ASSERT_TRUE(started.ok()) << started;
  }
  void TearDown() override {
    // The gateway first: it exits 0 on SIGTERM, with its sockets closed.
    const int status = dashboard_.Stop();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    ContractTest::TearDown();
  }

  // JSON members added to the model entry and to the config's top level
  // (see ContractTest::StartDaemon); TopExtra may write files it names.
  virtual std::string ModelExtra() const { return ""; }
  virtual std::string TopExtra() { return ""; }

  // The gateway's environment: the daemon's (temporary XDG directories and
  // HOME), so that nothing it keeps lands in the user's own.
  std::vector<std::string> GatewayEnv() const {
    std::vector<std::string> env;
    for (const auto& [name, value] : daemon_->env()) env.push_back(absl::StrCat(name, "=", value));
    return env;
  }

  Json BodyJson(const web::testing::RawResponse& response) {
    absl::StatusOr<Json> parsed = ParseJson(response.body);
    EXPECT_TRUE(parsed.ok()) << response.status << " " << response.body;
    return parsed.ok() ? *parsed : Json();
  }

  // POST /api/sessions in the daemon's work directory; the session id.
  std::string CreateSessionOverHttp() {
    DashboardProcess::Call call;
    call.method = "POST";
    call.target = "/api/sessions";
    call.body = Json{{"agent", "coder"}, {"directory", daemon_->workdir()}}.dump();
    auto response = dashboard_.Send(call);
    EXPECT_EQ(response.status, 200) << response.body;
    return BodyJson(response)["session"]["id"].get<std::string>();
  }

  // A tab's socket on `session_id`, with the token as a header.
  std::unique_ptr<web::testing::WsTestClient> OpenLive(const std::string& session_id,
                                                       uint64_t after_seq = 0) {
    web::testing::WsConnectOptions options;
    options.port = dashboard_.port();
    options.target = absl::StrCat("/api/sessions/", session_id, "/live?after_seq=", after_seq);
    options.headers = {{"Authorization", "Bearer " + dashboard_.token()}};
    auto client = web::testing::WsTestClient::Connect(options);
    EXPECT_TRUE(client.ok()) << client.status();
    if (!client.ok()) return nullptr;
    unread_.erase(client->get());  // a closed socket's address may be reused
    return *std::move(client);
  }

  // The next frame for which `pred` holds (earlier ones are skipped). The
  // frames a Command read past come first.
  template <typename Pred>
  Json ReadUntil(web::testing::WsTestClient& ws, Pred pred) {
    std::deque<Json>& unread = unread_[&ws];
    while (!unread.empty()) {
      Json frame = std::move(unread.front());
      unread.pop_front();
      if (pred(frame)) return frame;
    }
    while (true) {
      absl::StatusOr<std::string> text = ws.Read();
      if (!text.ok()) {
        ADD_FAILURE() << "the socket closed: " << text.status();
        return Json();
      }
      absl::StatusOr<Json> frame = ParseJson(*text);
      if (!frame.ok()) {
        ADD_FAILURE() << "not JSON: " << *text;
        return Json();
      }
      if (pred(*frame)) return *frame;
    }
  }

  // Sends command `op` (with `fields`) and returns its reply. The frames
  // that arrive before the reply (an event the command caused may) are kept
  // for the next ReadUntil.
  Json Command(web::testing::WsTestClient& ws, const std::string& op, Json fields = Json::object()) {
    fields["id"] = ++next_id_;
    fields["op"] = op;
    EXPECT_TRUE(ws.SendText(fields.dump()).ok());
    const int64_t id = next_id_;
    std::deque<Json> passed;
    Json reply = ReadUntil(ws, [&](const Json& f) {
      if (f["type"] == "reply" && f["id"] == id) return true;
      passed.push_back(f);
      return false;
    });
    std::deque<Json>& unread = unread_[&ws];
    unread.insert(unread.begin(), passed.begin(), passed.end());
    return reply;
  }

  static bool IsEvent(const Json& frame, const char* kind) {
    return frame["type"] == "event" && frame["event"].contains(kind);
  }

  DashboardProcess dashboard_;
  int64_t next_id_ = 0;
  // Per socket: frames read but not yet consumed (see Command).
  std::map<const web::testing::WsTestClient*, std::deque<Json>> unread_;
};

}  // namespace raw::e2e
