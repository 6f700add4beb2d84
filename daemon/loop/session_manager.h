// SessionManager: the domain facade the API layer calls. Owns the running
// sessions (one SessionRunner each, created on first use) and routes every
// operation to them. Thread-safe: every method may be called from any
// thread (gRPC callback threads).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/paths.h"
#include "common/time.h"
#include "daemon/config/config_loader.h"
#include "daemon/http/http_client.h"
#include "daemon/events/session_event.h"
#include "daemon/loop/subscription.h"
#include "daemon/store/session_store.h"
#include "daemon/tools/registry.h"

namespace raw::loop {

class SessionRunner;

struct SessionInfo {
  store::SessionRecord record;
  std::string model;     // model entry the agent resolves to now ("" if it does not resolve)
  std::string model_id;  // provider model id
  bool running = false;  // a turn is in progress
};

struct ConfigCheck {
  std::string path;
  bool exists = false;
  std::vector<std::string> errors;  // "<path>: <message>"
};

struct SessionManagerDeps {
  store::SessionStore& store;
  http::HttpClient& http;
  const tools::ToolRegistry& tools;
  const Clock& clock;
  EnvLookup env;
  std::string config_path;
  // Used to find the local server for the default agent.
  config::ServerProbe probe;
};

class SessionManager {
 public:
  explicit SessionManager(SessionManagerDeps deps);
  ~SessionManager();

  // Resolves the agent now (unknown agent or unusable model is an error, and
  // no session is created); `cwd` must be an absolute existing directory.
  absl::StatusOr<SessionInfo> CreateSession(const std::string& agent, const std::string& cwd);
  absl::StatusOr<SessionInfo> GetSession(const std::string& id);
  absl::StatusOr<std::vector<SessionInfo>> ListSessions(int page_size,
                                                        const std::string& page_token,
                                                        std::string* next_page_token);

  // Starts a turn in the background and returns its id. kFailedPrecondition
  // while another turn of the session runs; config problems (the agent no
  // longer resolves, a missing key variable) are reported here, before any
  // event is recorded.
  absl::StatusOr<std::string> StartTurn(const std::string& session_id, const std::string& text);
  // Returns false when no turn was running.
  absl::StatusOr<bool> InterruptTurn(const std::string& session_id);

  // Answers the session's pending approval request (see ApprovalBroker).
  absl::Status RespondToApproval(const std::string& session_id, const std::string& request_id,
                                 const std::vector<events::ApprovalAnswer>& answers,
                                 const std::optional<events::ApprovalAnswer>& all);

  absl::StatusOr<std::unique_ptr<Subscription>> Subscribe(const std::string& session_id,
                                                          uint64_t after_seq);
  absl::StatusOr<store::HistoryPage> GetHistory(const std::string& session_id,
                                                const std::string& cursor, int limit,
                                                store::HistoryDirection direction);

  ConfigCheck CheckConfig(const std::string& path);
  const std::string& config_path() const { return deps_.config_path; }

  // Interrupts every running turn and waits until each has recorded its end.
  void Shutdown();

 private:
  absl::StatusOr<SessionRunner*> Runner(const std::string& session_id);
  absl::StatusOr<config::Config> LoadConfig();
  // `cfg` may be null (unreadable config): the model is then left empty.
  SessionInfo Describe(const store::SessionRecord& record, const SessionRunner* runner,
                       const config::Config* cfg);

  SessionManagerDeps deps_;
  absl::Mutex mu_;
  std::map<std::string, std::unique_ptr<SessionRunner>> runners_ ABSL_GUARDED_BY(mu_);
  bool shutting_down_ ABSL_GUARDED_BY(mu_) = false;
};

}  // namespace raw::loop
