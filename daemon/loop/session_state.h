// SessionState: what a session remembers between its turns while the daemon
// runs, beyond the stored history: the approval meeting point, the rules a
// user added with "allow for this session", the skills the model loaded
// (and the text hash it saw), and whether session_start hooks ran.
//
// Lifetime: owned by the SessionRunner, shared with each of its turns. Not
// persisted: a daemon restart forgets session rules and loaded skills (the
// docs say so). Thread-safety: all members are safe from any thread.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/synchronization/mutex.h"
#include "daemon/config/config.h"
#include "daemon/loop/approval_broker.h"

namespace raw::loop {

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
    return loaded_skills_;
  }
  void SetLoadedSkill(const std::string& name, const std::string& hash) {
    absl::MutexLock lock(&mu_);
    loaded_skills_[name] = hash;
  }

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
  std::map<std::string, std::string> loaded_skills_ ABSL_GUARDED_BY(mu_);
  bool started_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace raw::loop
