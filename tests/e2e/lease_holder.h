// A test client holding a session's write lease on an AcquireLease stream.
#pragma once

#include <grpcpp/grpcpp.h>

#include <chrono>
#include <memory>
#include <string>
#include <utility>

#include "raw/v1/raw_service.grpc.pb.h"

namespace raw::e2e {

// A client asking for a session's write lease: the first LeaseEvent has been
// read (`granted`, or `waiting` when it asked for a handover); later ones
// are read by Next().
// The AcquireLeaseRequest's options.
struct LeaseOptions {
  bool request_handover = false;
  bool interrupt_on_release = false;
  bool wait_for_release = false;
  bool rejoin_following = false;
};

class LeaseHolder {
 public:
  LeaseHolder(raw::v1::Raw::Stub& stub, const std::string& session, const std::string& name,
              bool request_handover = false, bool interrupt_on_release = false)
      : LeaseHolder(stub, session, name,
                    LeaseOptions{.request_handover = request_handover,
                                 .interrupt_on_release = interrupt_on_release}) {}
  LeaseHolder(raw::v1::Raw::Stub& stub, const std::string& session, const std::string& name,
              const LeaseOptions& options) {
    raw::v1::AcquireLeaseRequest req;
    req.set_session_id(session);
    req.set_client_name(name);
    req.set_client_kind("test client");
    req.set_client_pid(4242);
    req.set_request_handover(options.request_handover);
    req.set_interrupt_on_release(options.interrupt_on_release);
    req.set_wait_for_release(options.wait_for_release);
    req.set_rejoin_following(options.rejoin_following);
    // An event that never comes fails the test instead of hanging it.
    ctx_.set_deadline(std::chrono::system_clock::now() + std::chrono::seconds(60));
    reader_ = stub.AcquireLease(&ctx_, req);
    if (reader_->Read(&first_)) {
      if (first_.has_granted()) lease_id_ = first_.granted().lease_id();
    } else {
      ended_ = true;  // refused: the stream is over
    }
  }
  const raw::v1::LeaseEvent& first() const { return first_; }
  ~LeaseHolder() { Close(); }

  const std::string& lease_id() const { return lease_id_; }
  // For a holder granted after waiting (the `granted` event read by Next).
  void set_lease_id(std::string id) { lease_id_ = std::move(id); }
  // The next event; false when the stream ended.
  bool Next(raw::v1::LeaseEvent* event) {
    if (ended_) return false;
    ended_ = !reader_->Read(event);
    return !ended_;
  }
  // Lets go of the lease (cancels the stream) unless the server already
  // ended it; returns the stream's status.
  grpc::Status Close() {
    if (closed_) return status_;
    closed_ = true;
    if (!ended_) ctx_.TryCancel();
    raw::v1::LeaseEvent ignored;
    while (reader_->Read(&ignored)) {
    }
    status_ = reader_->Finish();
    return status_;
  }

 private:
  grpc::ClientContext ctx_;
  std::unique_ptr<grpc::ClientReader<raw::v1::LeaseEvent>> reader_;
  raw::v1::LeaseEvent first_;
  std::string lease_id_;
  bool ended_ = false;
  bool closed_ = false;
  grpc::Status status_;
};

}  // namespace raw::e2e
