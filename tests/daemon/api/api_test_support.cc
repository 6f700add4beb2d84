#include "tests/daemon/api/api_test_support.h"

#include <stdlib.h>

#include <chrono>
#include <filesystem>

#include "gtest/gtest.h"

namespace raw::api::testing {

TestDir::TestDir() {
  std::string pattern = "/tmp/rawapi-XXXXXX";
  char* made = mkdtemp(pattern.data());
  EXPECT_NE(made, nullptr) << "mkdtemp " << pattern;
  path_ = pattern;
}

TestDir::~TestDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

TestServer::TestServer(grpc::Service* service, const std::string& socket_path, uid_t allowed_uid)
    : socket_path_(socket_path) {
  grpc::ServerBuilder builder;
  builder.RegisterService(service);
  server_ = builder.BuildAndStart();
  listener_ = std::make_unique<UdsListener>(socket_path, allowed_uid);
  if (server_ == nullptr) {
    status_ = absl::InternalError("the server did not start");
    return;
  }
  status_ = listener_->Listen();
  if (status_.ok()) status_ = listener_->Start(*server_);
}

TestServer::~TestServer() {
  listener_->Stop();
  if (server_ != nullptr) {
    server_->Shutdown(std::chrono::system_clock::now() + std::chrono::seconds(5));
    server_->Wait();
  }
}

std::unique_ptr<raw::v1::Raw::Stub> TestServer::NewStub() const {
  return raw::v1::Raw::NewStub(
      grpc::CreateChannel("unix:" + socket_path_, grpc::InsecureChannelCredentials()));
}

grpc::ServerUnaryReactor* InfoOnlyService::GetDaemonInfo(
    grpc::CallbackServerContext* ctx, const raw::v1::GetDaemonInfoRequest* /*request*/,
    raw::v1::GetDaemonInfoResponse* response) {
  response->set_pid(4242);
  response->set_version("test");
  auto* reactor = ctx->DefaultReactor();
  reactor->Finish(grpc::Status::OK);
  return reactor;
}

grpc::Status CallGetDaemonInfo(raw::v1::Raw::Stub& stub,
                               raw::v1::GetDaemonInfoResponse* response) {
  grpc::ClientContext ctx;
  ctx.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(10));
  raw::v1::GetDaemonInfoResponse ignored;
  return stub.GetDaemonInfo(&ctx, raw::v1::GetDaemonInfoRequest(),
                            response != nullptr ? response : &ignored);
}

}  // namespace raw::api::testing
