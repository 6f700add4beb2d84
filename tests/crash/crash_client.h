// CrashClient: the harness's client of one daemon life (from a start to the
// kill): it holds the session's write lease, follows the session's events
// and runs the scripted operations. When the daemon dies, every operation
// returns false instead of failing the test: dying is what the harness asks
// of it.
//
// Not thread-safe: one thread drives it; the event stream and the lease are
// read on their own threads internally.
#pragma once

#include <atomic>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include <grpcpp/grpcpp.h>

#include "raw/v1/raw_service.grpc.pb.h"
#include "tests/support/test_daemon.h"

namespace raw::crash {

class CrashClient {
 public:
  // Subscribes to `session_id` after `after_seq` and takes its write lease.
  CrashClient(raw::v1::Raw::Stub& stub, const std::string& session_id, uint64_t after_seq);
  ~CrashClient();
  CrashClient(const CrashClient&) = delete;
  CrashClient& operator=(const CrashClient&) = delete;

  // False when the lease was not granted (the daemon is going away).
  bool ready() const { return !lease_id_.empty(); }

  // A turn with the prompt ToolPrompt(op, steps); with `ask`, every call
  // asks for approval first and the client allows it. True once the turn
  // ended (any reason); false when the daemon went away first.
  bool ToolTurn(int op, int steps, bool ask);
  // /compact; true once it ended.
  bool Compact();
  // Switches the session to the model "fake-<api>" ("" = the agent's own).
  bool SetModel(const std::string& model);
  // A turn that must complete: returns its TurnEnded (nullopt when none came).
  std::optional<raw::v1::Event> CheckTurn(const std::string& text);

  // Every stored event this client saw (all but the live-only kinds), in
  // arrival order.
  std::vector<raw::v1::Event> CommittedSeen() const;

 private:
  bool SetApprovalMode(const std::string& mode);
  // The new turn's id, or "" when the daemon refused or went away.
  std::string StartTurn(const std::string& text);
  // Waits for the end of `turn_id`, allowing its approval requests.
  std::optional<raw::v1::Event> FinishTurn(const std::string& turn_id);

  raw::v1::Raw::Stub& stub_;
  const std::string session_id_;
  std::unique_ptr<e2e::EventStream> events_;
  grpc::ClientContext lease_ctx_;
  std::unique_ptr<grpc::ClientReader<raw::v1::LeaseEvent>> lease_;
  std::thread lease_reader_;
  std::string lease_id_;
  std::string approval_mode_;
};

}  // namespace raw::crash
