// Fixture of the dashboard gateway's end-to-end tests: a real rawd (with
// the fake provider, approval on ask), a real raw-dashboard process, and
// plain HTTP and WebSocket clients.
#pragma once

#include <sys/wait.h>

#include <memory>
#include <string>

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
    StartDaemon("");
    absl::Status started = dashboard_.Start(daemon_->socket_path());
    ASSERT_TRUE(started.ok()) << started;
  }
  void TearDown() override {
    // The gateway first: it exits 0 on SIGTERM, with its sockets closed.
    const int status = dashboard_.Stop();
    EXPECT_TRUE(WIFEXITED(status) && WEXITSTATUS(status) == 0) << status;
    ContractTest::TearDown();
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
    return *std::move(client);
  }

  // The next frame for which `pred` holds (earlier ones are skipped).
  template <typename Pred>
  Json ReadUntil(web::testing::WsTestClient& ws, Pred pred) {
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

  // Sends command `op` (with `fields`) and returns its reply.
  Json Command(web::testing::WsTestClient& ws, const std::string& op, Json fields = Json::object()) {
    fields["id"] = ++next_id_;
    fields["op"] = op;
    EXPECT_TRUE(ws.SendText(fields.dump()).ok());
    const int64_t id = next_id_;
    return ReadUntil(ws, [id](const Json& f) { return f["type"] == "reply" && f["id"] == id; });
  }

  static bool IsEvent(const Json& frame, const char* kind) {
    return frame["type"] == "event" && frame["event"].contains(kind);
  }

  DashboardProcess dashboard_;
  int64_t next_id_ = 0;
};

}  // namespace raw::e2e
