#include "tests/support/test_leases.h"

#include <unistd.h>

#include <atomic>
#include <chrono>
#include <map>
#include <memory>
#include <mutex>
#include <thread>
#include <utility>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"

namespace raw::e2e {
namespace {

class HeldLease {
 public:
  HeldLease(raw::v1::Raw::Stub& stub, const std::string& session_id, std::string name)
      : name_(std::move(name)) {
    raw::v1::AcquireLeaseRequest request;
    request.set_session_id(session_id);
    request.set_client_name(name_);
    request.set_client_kind("e2e test");
    request.set_client_pid(getpid());
    reader_ = stub.AcquireLease(&ctx_, request);
    raw::v1::LeaseEvent first;
    if (reader_->Read(&first) && first.has_granted()) {
      lease_id_ = first.granted().lease_id();
      // Reads on until the stream ends, so that an ended lease is noticed.
      thread_ = std::thread([this] {
        raw::v1::LeaseEvent ignored;
        while (reader_->Read(&ignored)) {
        }
        ended_ = true;
      });
    } else {
      ended_ = true;
      ADD_FAILURE() << "the lease of session " << session_id
                    << " was refused: " << reader_->Finish().error_message();
      finished_ = true;
    }
  }
  ~HeldLease() {
    ctx_.TryCancel();
    if (thread_.joinable()) thread_.join();
    if (!finished_) reader_->Finish().IgnoreError();
  }
  const std::string& lease_id() const { return lease_id_; }
  const std::string& name() const { return name_; }
  bool ended() const { return ended_; }

 private:
  const std::string name_;
  grpc::ClientContext ctx_;
  std::unique_ptr<grpc::ClientReader<raw::v1::LeaseEvent>> reader_;
  std::string lease_id_;
  std::atomic<bool> ended_{false};
  bool finished_ = false;
  std::thread thread_;
};

struct Registry {
  std::mutex mu;
  std::map<std::pair<raw::v1::Raw::Stub*, std::string>, std::unique_ptr<HeldLease>> held;
  int next = 0;
};

// Never destroyed: leases may still be held when the process exits.
Registry& TheRegistry() {
  static Registry* registry = new Registry();
  return *registry;
}

// True while the daemon still names `held` as the session's writer (a
// restarted daemon forgets leases before the stream's end is noticed).
bool StillHolds(raw::v1::Raw::Stub& stub, const std::string& session_id, const HeldLease& held) {
  if (held.ended()) return false;
  grpc::ClientContext ctx;
  raw::v1::GetSessionRequest request;
  request.set_session_id(session_id);
  raw::v1::GetSessionResponse response;
  if (!stub.GetSession(&ctx, request, &response).ok()) return false;
  return response.session().writer() == held.name();
}

}  // namespace

std::string LeaseFor(raw::v1::Raw::Stub& stub, const std::string& session_id) {
  Registry& registry = TheRegistry();
  std::lock_guard<std::mutex> lock(registry.mu);
  auto& slot = registry.held[{&stub, session_id}];
  if (slot != nullptr && StillHolds(stub, session_id, *slot)) return slot->lease_id();
  slot.reset();
  slot = std::make_unique<HeldLease>(stub, session_id,
                                     absl::StrCat("e2e test (lease ", ++registry.next, ")"));
  return slot->lease_id();
}

void ReleaseLease(raw::v1::Raw::Stub& stub, const std::string& session_id) {
  Registry& registry = TheRegistry();
  std::unique_ptr<HeldLease> released;
  {
    std::lock_guard<std::mutex> lock(registry.mu);
    auto it = registry.held.find({&stub, session_id});
    if (it == registry.held.end()) return;
    released = std::move(it->second);
    registry.held.erase(it);
  }
  const std::string name = released->name();
  released.reset();  // cancels the stream
  // The daemon lets go when it sees the stream end, which is asynchronous:
  // wait until it no longer names this process, so that the next client
  // (this test's next LeaseFor, a raw run) finds the lease free. Bounded.
  for (int i = 0; i < 2000; ++i) {
    grpc::ClientContext ctx;
    raw::v1::GetSessionRequest request;
    request.set_session_id(session_id);
    raw::v1::GetSessionResponse response;
    if (!stub.GetSession(&ctx, request, &response).ok()) return;
    if (response.session().writer() != name) return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ADD_FAILURE() << "the daemon still names " << name << " as the writer of " << session_id;
}

}  // namespace raw::e2e
