// SessionRunner: the commands that change the session's settings rather
// than its conversation (its own MCP servers, its agent and model).
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
          absl::MutexLock lock(&self->mu_);
          self->mcp_servers_ = servers;
        }
        reply(absl::OkStatus());
      },
      reply);
}

void SessionRunner::InitMcpServers(McpServerMap servers) {
  absl::MutexLock lock(&mu_);
  mcp_servers_ = std::move(servers);
}

McpServerMap SessionRunner::mcp_servers() const {
  absl::MutexLock lock(&mu_);
  return mcp_servers_;
}

void SessionRunner::ChangeWhileIdle(std::string lease_id, std::function<absl::Status()> change,
                                    StatusReply reply) {
  auto self = shared_from_this();
  Post([self, lease_id = std::move(lease_id), change = std::move(change),
        reply] { self->DoChangeWhileIdle(lease_id, change, reply); },
       reply);
}

void SessionRunner::DoChangeWhileIdle(const std::string& lease_id,
                                      const std::function<absl::Status()>& change,
                                      const StatusReply& reply) {
  if (absl::Status s = CheckWriteCommand(lease_id, true); !s.ok()) return reply(s);
  auto self = shared_from_this();
  {
    absl::MutexLock lock(&mu_);
    if (!ReadyOrDefer([self, lease_id, change,
                       reply] { self->DoChangeWhileIdle(lease_id, change, reply); },
                      reply)) {
      return;
    }
  }
  // Idle and on the queue: no operation can start until this returns.
  reply(change());
}

}  // namespace raw::loop
