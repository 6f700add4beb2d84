// Support for the API tests: a private temporary directory, and a gRPC
// server fed by a real UdsListener on a socket inside it, with a client
// channel to it.
#pragma once

#include <grpcpp/grpcpp.h>
#include <sys/types.h>

#include <memory>
#include <string>

#include "daemon/api/uds_listener.h"
#include "raw/v1/raw_service.grpc.pb.h"

namespace raw::api::testing {

// A fresh 0700 directory under /tmp (short, so socket paths fit), removed
// with its contents at the end of the test.
class TestDir {
 public:
  TestDir();
  ~TestDir();
  TestDir(const TestDir&) = delete;
  TestDir& operator=(const TestDir&) = delete;

  const std::string& path() const { return path_; }
  std::string File(const std::string& name) const { return path_ + "/" + name; }

 private:
  std::string path_;
};

// Serves `service` (not owned; must outlive the server) through a
// UdsListener at `socket_path` that admits `allowed_uid`.
class TestServer {
 public:
  TestServer(grpc::Service* service, const std::string& socket_path, uid_t allowed_uid);
  ~TestServer();  // stops the listener, then the server

  // OK once the listener is accepting; otherwise why it is not.
  const absl::Status& status() const { return status_; }
  std::unique_ptr<raw::v1::Raw::Stub> NewStub() const;
  UdsListener& listener() { return *listener_; }
  grpc::Server& server() { return *server_; }

 private:
  absl::Status status_;
  std::string socket_path_;
  std::unique_ptr<grpc::Server> server_;
  std::unique_ptr<UdsListener> listener_;
};

// A Raw service that answers only GetDaemonInfo (pid 4242, version "test").
class InfoOnlyService final : public raw::v1::Raw::CallbackService {
 public:
  grpc::ServerUnaryReactor* GetDaemonInfo(grpc::CallbackServerContext* ctx,
                                          const raw::v1::GetDaemonInfoRequest* request,
                                          raw::v1::GetDaemonInfoResponse* response) override;
};

// GetDaemonInfo through `stub` with a 10 s deadline (bounds a failing test
// only).
grpc::Status CallGetDaemonInfo(raw::v1::Raw::Stub& stub,
                               raw::v1::GetDaemonInfoResponse* response = nullptr);

}  // namespace raw::api::testing
