// SessionState: what a session remembers between its turns while the daemon
// runs, beyond the stored history: the approval meeting point, the rules a
// user added with "allow for this session", the runtime it last used (tool
// definitions, and the skills the model loaded with the text hash it saw;
// see runtime_record.h), the latest context estimate, whether
// session_start hooks ran, and Raw's own overhead per step
// (step_timeline.h).
//
// Lifetime: owned by the SessionRunner, shared with each of its turns. The
// runtime record is stored with the session after every turn and restored
// when the session is next loaded; session rules are not persisted (a
// daemon restart forgets them; the docs say so), nor are step timings (they
// describe this daemon's work since it loaded the session). Thread-safety:
// all members are safe from any thread.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "daemon/config/config.h"
#include "daemon/events/session_event.h"
#include "daemon/loop/approval_broker.h"
#include "daemon/loop/runtime_record.h"
#include "daemon/loop/step_timeline.h"

namespace raw::loop {

// Raw's own overhead per step while the session has been loaded.
struct OverheadSummary {
  int64_t steps = 0;  // steps timed; the percentiles cover the last kOverheadSamples
  int64_t p50_us = 0;
  int64_t p99_us = 0;
  std::vector<StepTiming> last_turn;  // the phases of the last turn's steps
};
inline constexpr size_t kOverheadSamples = 4096;

class SessionState {
 public:
  ApprovalBroker& approvals() { return approvals_; }

  std::vector<config::RuleConfig> session_rules() const {
    absl::MutexLock lock(&mu_);
    return session_rules_;
  }
  void AddSessionRules(const std::vector<config::RuleConfig>& rules) {
    absl::MutexLock lock(&mu_);
    session_rules_.insert(session_rules_.end(), rules.begin(), rules.end());
  }

  // skill name -> text hash the model last loaded.
  std::map<std::string, std::string> loaded_skills() const {
    absl::MutexLock lock(&mu_);
    return runtime_.loaded_skills;
  }
  void SetLoadedSkill(const std::string& name, const std::string& hash) {
    absl::MutexLock lock(&mu_);
    runtime_.loaded_skills[name] = hash;
  }
  // After /clear the model has seen no skill text any more.
  void ForgetLoadedSkills() {
    absl::MutexLock lock(&mu_);
    runtime_.loaded_skills.clear();
  }

  RuntimeRecord runtime() const {
    absl::MutexLock lock(&mu_);
    return runtime_;
  }
  void SetRuntime(RuntimeRecord record) {
    absl::MutexLock lock(&mu_);
    runtime_ = std::move(record);
  }
  // Records the tool definitions and packages now in use; returns what was
  // recorded before.
  RuntimeRecord SwapTools(const std::string& tools_hash, std::vector<std::string> tools,
                          std::map<std::string, std::string> packages) {
    absl::MutexLock lock(&mu_);
    RuntimeRecord before = runtime_;
    runtime_.tools_hash = tools_hash;
    runtime_.tools = std::move(tools);
    runtime_.packages = std::move(packages);
    return before;
  }

  // The latest context estimate (nullopt until the context was loaded).
  std::optional<events::ContextEstimate> estimate() const {
    absl::MutexLock lock(&mu_);
    return estimate_;
  }
  void SetEstimate(const events::ContextEstimate& estimate) {
    absl::MutexLock lock(&mu_);
    estimate_ = estimate;
  }

  // The phases of a finished turn's timed steps.
  void RecordTurnTimings(std::vector<StepTiming> steps);
  OverheadSummary overhead() const;

  // True the first time only.
  bool MarkSessionStarted() {
    absl::MutexLock lock(&mu_);
    bool first = !started_;
    started_ = true;
    return first;
  }

 private:
  ApprovalBroker approvals_;
  mutable absl::Mutex mu_;
  std::vector<config::RuleConfig> session_rules_ ABSL_GUARDED_BY(mu_);
  RuntimeRecord runtime_ ABSL_GUARDED_BY(mu_);
  std::optional<events::ContextEstimate> estimate_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;
  std::vector<StepTiming> last_turn_ ABSL_GUARDED_BY(mu_);
  // Step totals in µs, a ring of at most kOverheadSamples.
  std::vector<int64_t> totals_ ABSL_GUARDED_BY(mu_);
  int64_t steps_timed_ ABSL_GUARDED_BY(mu_) = 0;
};

}  // namespace raw::loop
