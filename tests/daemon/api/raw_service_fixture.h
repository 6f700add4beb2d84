// The fixture of RawService's tests: the service and its handlers against a
// real SessionManager (SQLite store in a temp dir, scripted HTTP), over real
// gRPC on a Unix socket.
#pragma once

#include <google/protobuf/util/json_util.h>

#include <chrono>
#include <fstream>
#include <future>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "common/time.h"
#include "daemon/api/raw_service.h"
#include "daemon/config/config_loader.h"
#include "daemon/loop/session_manager.h"
#include "daemon/store/session_store.h"
#include "daemon/tools/registry.h"
#include "gtest/gtest.h"
#include "tests/daemon/api/api_test_support.h"
#include "tests/fakes/fake_http_client.h"
#include "tests/fakes/sse_builders.h"

namespace raw::api {

inline constexpr char kRawServiceTestConfig[] = R"({
  "default_agent": "coder",
  "models": {
    "fake": {
      "provider": "openai",
      "method": "openai-chat-completions",
      "model_id": "gpt-test",
      "base_url": "http://127.0.0.1:9/v1",
      "api_key_env": "RAW_TEST_KEY"
    }
  },
  "agents": {
    "coder": { "model": "fake", "max_steps": 4, "tools": { "use": ["builtin/*"] },
                "approval_mode": "allow_all" }
  }
})";

inline std::chrono::system_clock::time_point RawServiceTestDeadline() {
  return std::chrono::system_clock::now() + std::chrono::seconds(30);
}

class RawServiceTest : public ::testing::Test {
 protected:
  RawServiceTest() {
    std::ofstream(dir_.File("config.json")) << kRawServiceTestConfig;
    store_ = *store::SessionStore::Open(dir_.File("sessions.sqlite3"));
    EXPECT_TRUE(tools::RegisterBuiltinTools(tools_).ok());
    sessions_ = std::make_unique<loop::SessionManager>(loop::SessionManagerDeps{
        .store = *store_,
        .http = http_,
        .tools = tools_,
        .clock = clock_,
        .env = [](const std::string& name) -> std::optional<std::string> {
          if (name == "RAW_TEST_KEY") return "sk-test";
          return std::nullopt;
        },
        .config_path = dir_.File("config.json"),
        .probe = [](const std::string&) { return false; },
    });
    info_.version = "9.9.9";
    info_.protocol_version = 7;
    info_.pid = 31337;
    info_.config_path = dir_.File("config.json");
    info_.state_dir = dir_.path();
    info_.socket_path = dir_.File("rawd.sock");
    info_.database_path = dir_.File("sessions.sqlite3");
    info_.log_path = dir_.File("rawd.log");
    info_.started_at_unix_ms = 1234;
    service_ = std::make_unique<RawService>(*sessions_, info_, [this] {
      absl::MutexLock lock(&mu_);
      shutdown_requests_++;
    });
    server_ = std::make_unique<testing::TestServer>(service_.get(), info_.socket_path, getuid());
    EXPECT_TRUE(server_->status().ok()) << server_->status();
    stub_ = server_->NewStub();
  }

  ~RawServiceTest() override {
    leases_.clear();
    sessions_->Shutdown();
    service_->DrainStreams();
    server_.reset();
  }

  // Opens an AcquireLease stream that holds the session's write lease until
  // the test ends; returns the lease id ("" when refused).
  std::string HoldLease(const std::string& session_id) {
    auto held = std::make_unique<HeldLease>();
    raw::v1::AcquireLeaseRequest request;
    request.set_session_id(session_id);
    request.set_client_name("test");
    held->reader = stub_->AcquireLease(&held->ctx, request);
    raw::v1::LeaseEvent first;
    if (!held->reader->Read(&first) || !first.has_granted()) return "";
    std::string id = first.granted().lease_id();
    leases_.push_back(std::move(held));
    return id;
  }

  raw::v1::Session CreateSession() {
    grpc::ClientContext ctx;
    raw::v1::CreateSessionRequest request;
    request.set_cwd(dir_.path());
    raw::v1::CreateSessionResponse response;
    grpc::Status s = stub_->CreateSession(&ctx, request, &response);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return response.session();
  }

  struct HeldLease {
    grpc::ClientContext ctx;
    std::unique_ptr<grpc::ClientReader<raw::v1::LeaseEvent>> reader;
    ~HeldLease() {
      ctx.TryCancel();
      raw::v1::LeaseEvent ignored;
      while (reader->Read(&ignored)) {
      }
      reader->Finish().IgnoreError();
    }
  };

  testing::TestDir dir_;
  raw::testing::FakeHttpClient http_;
  tools::ToolRegistry tools_;
  SystemClock clock_;
  std::unique_ptr<store::SessionStore> store_;
  std::unique_ptr<loop::SessionManager> sessions_;
  DaemonInfo info_;
  absl::Mutex mu_;
  int shutdown_requests_ ABSL_GUARDED_BY(mu_) = 0;
  std::unique_ptr<RawService> service_;
  std::unique_ptr<testing::TestServer> server_;
  std::unique_ptr<raw::v1::Raw::Stub> stub_;
  std::vector<std::unique_ptr<HeldLease>> leases_;
};

}  // namespace raw::api
