// SessionRunner: the commands that change the session's settings rather
// than its conversation (its own MCP servers, its agent and model, the
// approval mode a client chose).
#include "daemon/loop/session_runner.h"

namespace raw::loop {

void SessionRunner::SetMcpServers(std::string lease_id, McpServerMap servers,
                                  StatusReply reply) {
  auto self = shared_from_this();
  Post(
      [self, lease_id = std::move(lease_id), servers = std::move(servers), reply] {
        // No history is read or written: a session whose history does not
        // read may still be given servers.
        if (absl::Status s = self->CheckWriteCommand(lease_id, false); !s.ok()) return reply(s);
        {
          absl::MutexLock lock(&self->settings_mu_);
          self->mcp_servers_ = servers;
        }
        reply(absl::OkStatus());
      },
      reply);
}

void SessionRunner::InitMcpServers(McpServerMap servers) {
  absl::MutexLock lock(&settings_mu_);
  mcp_servers_ = std::move(servers);
}

void SessionRunner::ChooseApprovalMode(std::string lease_id,
                                       std::optional<config::ApprovalMode> mode,
                                       StatusReply reply) {
  auto self = shared_from_this();
  Post(
      [self, lease_id = std::move(lease_id), mode, reply] {
        if (absl::Status s = self->CheckWriteCommand(lease_id, false); !s.ok()) return reply(s);
        self->SetApprovalModeNow(lease_id, mode);
        reply(absl::OkStatus());
      },
      reply);
}

void SessionRunner::SetApprovalModeNow(const std::string& lease_id,
                                       std::optional<config::ApprovalMode> mode) {
  absl::MutexLock lock(&settings_mu_);
  if (mode) {
    approval_mode_ = ChosenApprovalMode{lease_id, *mode};
  } else {
    approval_mode_.reset();
  }
}

config::ApprovalMode SessionRunner::EffectiveApprovalMode(config::ApprovalMode configured,
                                                          const std::string& lease_id) const {
  if (configured == config::ApprovalMode::kDenyAll) return configured;
  absl::MutexLock lock(&settings_mu_);
  if (!approval_mode_ || approval_mode_->lease_id != lease_id) return configured;
  return approval_mode_->mode;
}

McpServerMap SessionRunner::mcp_servers() const {
  absl::MutexLock lock(&settings_mu_);
  return mcp_servers_;
}

void SessionRunner::ChangeWhileIdle(std::string lease_id, std::function<absl::Status()> change,
                                    StatusReply reply, bool needs_history) {
  auto self = shared_from_this();
  Post([self, lease_id = std::move(lease_id), change = std::move(change), reply,
        needs_history] { self->DoChangeWhileIdle(lease_id, needs_history, change, reply); },
       reply);
}

void SessionRunner::DoChangeWhileIdle(const std::string& lease_id, bool needs_history,
                                      const std::function<absl::Status()>& change,
                                      const StatusReply& reply) {
  if (absl::Status s = CheckWriteCommand(lease_id, needs_history); !s.ok()) return reply(s);
  auto self = shared_from_this();
  {
    absl::MutexLock lock(&mu_);
    if (!ReadyOrDefer([self, lease_id, needs_history, change, reply] {
          self->DoChangeWhileIdle(lease_id, needs_history, change, reply);
        },
                      reply)) {
      return;
    }
  }
  // Idle and on the queue: no operation can start until this returns.
  reply(change());
}

}  // namespace raw::loop
