// SessionBridge: the slash commands a prompt may be (/compact, /clear,
// /stats, /agent), answered by daemon calls instead of a turn.
#include <string>

#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "absl/strings/strip.h"
#include "clients/acp/session_bridge.h"
#include "clients/present/usage_text.h"

namespace raw::acp {

void SessionBridge::CommandDone(const Json& prompt_id, const absl::StatusOr<std::string>& text) {
  if (!turn_ || !SameId(turn_->prompt_id, prompt_id)) return;
  // A cancelled prompt answers cancelled, never an error; what the command
  // did all the same is still told.
  if (text.ok()) Update(TextChunk("agent_message_chunk", *text));
  if (turn_->cancel_requested) {
    EndTurn(std::string("cancelled"));
  } else if (!text.ok()) {
    EndTurn(text.status());
  } else {
    EndTurn(std::string("end_turn"));
  }
}

bool SessionBridge::RunCommand(const std::string& text) {
  absl::string_view line = absl::StripAsciiWhitespace(text);
  if (!absl::StartsWith(line, "/")) return false;
  absl::string_view command = line.substr(0, line.find_first_of(" \t\n"));
  absl::string_view arg = absl::StripAsciiWhitespace(line.substr(command.size()));
  const Json id = turn_->prompt_id;
  // The controller's callbacks below never run after the bridge (and its
  // controller) is gone.
  if (command == "/compact") {
    // Its end (CompactionEnded under the id its start chose) answers;
    // there may be no other event (nothing to compact).
    turn_->compaction = true;
    const uint64_t start = starts_sent_ + 1;
    absl::StatusOr<std::string> chosen = controller_->CompactWithId(
        [this, id, start](const absl::Status& status, const std::string& operation_id) {
          StartAnswered(start, status, operation_id);
          if (!status.ok()) CommandDone(id, status);
        });
    if (!chosen.ok()) {
      CommandDone(id, chosen.status());
      return true;
    }
    StartSent(*chosen);
    return true;
  }
  if (command != "/clear" && command != "/stats" && command != "/agent") return false;
  turn_->command = true;
  if (command == "/clear") {
    absl::Status s = controller_->ClearContext([this, id](const absl::Status& status) {
      if (!status.ok()) {
        CommandDone(id, status);
        return;
      }
      CommandDone(id, absl::StrCat("Context cleared (now ",
                                   present::FormatContext(controller_->session().context()),
                                   " tokens). The history stays."));
    });
    if (!s.ok()) CommandDone(id, s);
    return true;
  }
  if (command == "/stats") {
    controller_->GetStats([this, id](const absl::StatusOr<v1::GetStatsResponse>& stats) {
      if (!stats.ok()) {
        CommandDone(id, stats.status());
        return;
      }
      auto field = [](const v1::UsageFieldStats& f) {
        return present::FormatCount(f.has_total() ? std::optional<int64_t>(f.total())
                                                  : std::nullopt);
      };
      std::string summary = absl::StrCat("Requests: ", stats->requests(),
                                         "\nInput tokens: ", field(stats->input_tokens()),
                                         "\nOutput tokens: ", field(stats->output_tokens()),
                                         "\nCache reads: ", field(stats->cache_read_tokens()),
                                         "\nContext: ", present::FormatContext(stats->context()),
                                         "\nCompactions: ", stats->compactions());
      std::string overhead = present::FormatOverhead(*stats);
      if (!overhead.empty()) {
        absl::StrAppend(&summary, "\nRaw's own overhead per step: ", overhead);
      }
      CommandDone(id, summary);
    });
    return true;
  }
  if (command == "/agent") {
    if (arg.empty()) {
      controller_->ListAgents([this, id](const absl::StatusOr<v1::ListAgentsResponse>& agents) {
        if (!agents.ok()) {
          CommandDone(id, agents.status());
          return;
        }
        std::vector<std::string> names;
        for (const v1::AgentInfo& a : agents->agents()) {
          names.push_back(a.name() == controller_->session().agent() ? a.name() + " (this session)"
                                                                     : a.name());
        }
        CommandDone(id, absl::StrCat("Agents: ", absl::StrJoin(names, ", "),
                                     ". Choose one with /agent NAME before the first prompt."));
      });
      return true;
    }
    v1::ConfigureSessionRequest request;
    request.set_session_id(id_);
    request.set_lease_id(controller_->lease().lease_id());
    request.set_agent(std::string(arg));
    // The connection's call, not the controller's: its answer may come after
    // session/close destroyed the bridge.
    ctx_.calls->Call<v1::ConfigureSessionResponse>(
        [request](client::RawClient& c) { return c.ConfigureSession(request); },
        [this, alive = alive_, id,
         name = std::string(arg)](const absl::StatusOr<v1::ConfigureSessionResponse>& r) {
          if (!*alive) return;
          if (!r.ok()) {
            CommandDone(id, r.status());
            return;
          }
          controller_->RefreshSession();
          // Another agent may bring another approval mode: the editor
          // must not keep showing the old one.
          if (ctx_.configured) ctx_.configured(id_, *r);
          CommandDone(id, absl::StrCat("This session now uses the agent ", name, "."));
        });
    return true;
  }
  return false;
}

}  // namespace raw::acp
