// Test support for the client tests: FakeRawService (fake_raw_daemon.h)
// served on a Unix socket, as a client finds rawd.
#pragma once

#include <chrono>
#include <memory>
#include <string>
#include <thread>

#include "grpcpp/grpcpp.h"
#include "gtest/gtest.h"
#include "tests/clients/fake_raw_daemon.h"

namespace raw::testing {

// FakeRawService served on `socket_path` until destroyed (or Stop()).
class FakeDaemon {
 public:
  explicit FakeDaemon(const std::string& socket_path) : socket_path_(socket_path) {
    grpc::ServerBuilder builder;
    builder.AddListeningPort("unix:" + socket_path, grpc::InsecureServerCredentials());
    builder.RegisterService(&service_);
    server_ = builder.BuildAndStart();
    EXPECT_NE(server_, nullptr) << "cannot serve on " << socket_path;
  }
  ~FakeDaemon() {
    if (stopper_.joinable()) stopper_.join();
    Stop();
    // The server's threads must all have returned before it is destroyed
    // (gRPC aborts otherwise).
    if (server_) server_->Wait();
  }
  FakeRawService& service() { return service_; }
  const std::string& socket_path() const { return socket_path_; }

  // Ends the streams and shuts the server down (it unlinks the socket).
  void Stop() {
    service_.Close();
    if (server_) server_->Shutdown(std::chrono::system_clock::now());
  }
  // Stop() from another thread, for calls made inside a handler.
  void StopSoon() {
    stopper_ = std::thread([this] { Stop(); });
  }

 private:
  std::string socket_path_;
  FakeRawService service_;
  std::unique_ptr<grpc::Server> server_;
  std::thread stopper_;
};

}  // namespace raw::testing
