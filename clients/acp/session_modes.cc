#include "clients/acp/session_modes.h"

#include "absl/strings/str_cat.h"

namespace raw::acp {
namespace {

struct Mode {
  const char* id;
  const char* name;
  const char* description;
};

// The names are the config's approval_mode values (daemon/config).
constexpr Mode kModes[] = {
    {"default", "Default", "Read-only tools run; other calls ask"},
    {"ask_all", "Ask every time", "Every call asks, read-only ones too"},
    {"allow_all", "Allow", "Calls no rule matched run without asking (ask and deny rules still apply)"},
    {"deny_all", "Deny", "Calls no rule matched are denied"},
};

}  // namespace

Json SessionModes(const std::string& current) {
  Json modes = Json::array();
  for (const Mode& m : kModes) {
    modes.push_back({{"id", m.id}, {"name", m.name}, {"description", m.description}});
  }
  return {{"currentModeId", current}, {"availableModes", std::move(modes)}};
}

Json ModeConfigOption(const std::string& current) {
  Json values = Json::array();
  for (const Mode& m : kModes) {
    values.push_back({{"value", m.id}, {"name", m.name}, {"description", m.description}});
  }
  return {{"id", "mode"},
          {"name", "Approval mode"},
          {"description", "What happens to tool calls no rule decides"},
          {"category", "mode"},
          {"type", "select"},
          {"currentValue", current},
          {"options", std::move(values)}};
}

absl::StatusOr<std::string> CheckModeId(const Json& value) {
  std::string ids;
  for (const Mode& m : kModes) {
    if (value.is_string() && value.get<std::string>() == m.id) return std::string(m.id);
    absl::StrAppend(&ids, ids.empty() ? "" : ", ", m.id);
  }
  return absl::InvalidArgumentError(
      absl::StrCat("\"modeId\" must be one of the session's modes (", ids, ")"));
}

std::string AgentMode(const std::vector<v1::AgentInfo>& agents, const std::string& agent) {
  for (const v1::AgentInfo& a : agents) {
    if (a.name() == agent && !a.approval_mode().empty()) return a.approval_mode();
  }
  return "default";
}

}  // namespace raw::acp
