#include "daemon/loop/write_leases.h"

#include <ctime>
#include <utility>

#include "absl/strings/str_cat.h"
#include "common/ids.h"

namespace raw::loop {
namespace {

constexpr size_t kMaxRememberedTakeovers = 256;

std::string ClockTime(int64_t unix_ms) {
  std::time_t t = static_cast<std::time_t>(unix_ms / 1000);
  std::tm tm{};
  localtime_r(&t, &tm);
  char buf[16];
  std::strftime(buf, sizeof buf, "%H:%M:%S", &tm);
  return buf;
}

}  // namespace

std::string WriteLeases::Describe(const std::string& session_id, const Lease& lease) {
  return absl::StrCat("session ", session_id, " is open for writing in \"", lease.client_name,
                      "\" (since ", ClockTime(lease.since_unix_ms),
                      "); only that client can write to it until it lets go, or take the write "
                      "lease over");
}

absl::StatusOr<std::string> WriteLeases::Acquire(const std::string& session_id,
                                                 const std::string& client_name, bool take_over,
                                                 LostCallback on_lost) {
  LostCallback previous_lost;
  std::string id = NewId("lease_");
  {
    absl::MutexLock lock(&mu_);
    auto it = leases_.find(session_id);
    if (it != leases_.end()) {
      if (!take_over) return absl::FailedPreconditionError(Describe(session_id, it->second));
      previous_lost = std::move(it->second.on_lost);
      if (taken_over_.size() >= kMaxRememberedTakeovers) taken_over_.erase(taken_over_.begin());
      taken_over_[it->second.id] = client_name;
      leases_.erase(it);
    }
    leases_[session_id] = Lease{id, client_name.empty() ? "an unnamed client" : client_name,
                                clock_.NowUnixMs(), std::move(on_lost)};
  }
  if (previous_lost) previous_lost(client_name);
  return id;
}

void WriteLeases::Release(const std::string& session_id, const std::string& lease_id) {
  absl::MutexLock lock(&mu_);
  auto it = leases_.find(session_id);
  if (it != leases_.end() && it->second.id == lease_id) leases_.erase(it);
}

absl::Status WriteLeases::CheckWrite(const std::string& session_id,
                                     const std::string& lease_id) const {
  absl::MutexLock lock(&mu_);
  auto it = leases_.find(session_id);
  if (it == leases_.end()) {
    if (lease_id.empty()) return absl::OkStatus();
    auto taken = taken_over_.find(lease_id);
    if (taken != taken_over_.end()) {
      return absl::FailedPreconditionError(
          absl::StrCat("this client's write lease on session ", session_id,
                       " was taken over by \"", taken->second, "\""));
    }
    return absl::FailedPreconditionError(absl::StrCat(
        "the write lease ", lease_id, " does not hold session ", session_id,
        " (it ended); acquire the lease again"));
  }
  if (it->second.id == lease_id) return absl::OkStatus();
  auto taken = taken_over_.find(lease_id);
  if (taken != taken_over_.end()) {
    return absl::FailedPreconditionError(
        absl::StrCat("this client's write lease on session ", session_id,
                     " was taken over by \"", taken->second, "\""));
  }
  return absl::FailedPreconditionError(Describe(session_id, it->second));
}

std::string WriteLeases::Holder(const std::string& session_id) const {
  absl::MutexLock lock(&mu_);
  auto it = leases_.find(session_id);
  return it == leases_.end() ? "" : it->second.client_name;
}

}  // namespace raw::loop
