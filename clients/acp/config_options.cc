#include "clients/acp/config_options.h"

#include <algorithm>
#include <string>

#include "absl/strings/str_cat.h"
#include "clients/acp/request_params.h"
#include "clients/acp/session_modes.h"

namespace raw::acp {

Json ConfigOptions(const v1::Session& session, const std::vector<v1::AgentInfo>& agents,
                   const std::vector<v1::ModelInfo>& models, const std::string& mode) {
  Json options = Json::array();
  Json agent_values = Json::array();
  for (const v1::AgentInfo& agent : agents) {
    Json value = {{"value", agent.name()}, {"name", agent.name()}};
    if (!agent.model().empty()) value["description"] = absl::StrCat("model ", agent.model());
    agent_values.push_back(std::move(value));
  }
  options.push_back({{"id", "agent"},
                     {"name", "Agent"},
                     {"description", "The Raw agent (only before the first prompt)"},
                     {"type", "select"},
                     {"currentValue", session.agent()},
                     {"options", std::move(agent_values)}});
  Json model_values = Json::array();
  for (const v1::ModelInfo& model : models) {
    model_values.push_back({{"value", model.name()},
                            {"name", model.name()},
                            {"description", absl::StrCat(model.api(), " ", model.model_id())}});
  }
  options.push_back({{"id", "model"},
                     {"name", "Model"},
                     {"category", "model"},
                     {"type", "select"},
                     {"currentValue", session.model()},
                     {"options", std::move(model_values)}});
  options.push_back(ModeConfigOption(mode));
  return options;
}

absl::StatusOr<Json> ConfigChoice(const Json& params) {
  if (!params.contains("value") || !params["value"].is_string()) {
    return absl::InvalidArgumentError("\"value\" must be a string (a select option's value)");
  }
  absl::StatusOr<std::string> id = BoundedStringParam(params, "configId", kMaxTokenBytes);
  if (!id.ok()) return id.status();
  absl::StatusOr<std::string> value = BoundedStringParam(params, "value", kMaxTokenBytes);
  if (!value.ok()) return value.status();
  Json choice = {{"value", *std::move(value)}};
  if (params.contains("configId") && params["configId"].is_string()) choice["configId"] = *id;
  return choice;
}

absl::StatusOr<v1::ConfigureSessionRequest> ConfigureRequest(
    const Json& params, const std::vector<v1::AgentInfo>& agents,
    const std::vector<v1::ModelInfo>& models) {
  std::string id = params.contains("configId") && params["configId"].is_string()
                       ? params["configId"].get<std::string>()
                       : "";
  if (!params.contains("value") || !params["value"].is_string()) {
    return absl::InvalidArgumentError("\"value\" must be a string (a select option's value)");
  }
  std::string value = params["value"].get<std::string>();
  v1::ConfigureSessionRequest request;
  if (id == "agent") {
    if (std::none_of(agents.begin(), agents.end(),
                     [&](const v1::AgentInfo& a) { return a.name() == value; })) {
      return absl::InvalidArgumentError(absl::StrCat("no agent is named \"", value, "\""));
    }
    request.set_agent(value);
  } else if (id == "model") {
    if (std::none_of(models.begin(), models.end(),
                     [&](const v1::ModelInfo& m) { return m.name() == value; })) {
      return absl::InvalidArgumentError(absl::StrCat("no model entry is named \"", value, "\""));
    }
    request.set_model(value);
  } else if (id == "mode") {
    absl::StatusOr<std::string> mode = CheckModeId(params["value"]);
    if (!mode.ok()) return mode.status();
    request.set_approval_mode(*mode);
  } else {
    return absl::InvalidArgumentError(absl::StrCat(
        "unknown config option \"", id, "\" (raw-acp offers agent, model and mode)"));
  }
  return request;
}

bool AgentTakesImages(const std::vector<v1::AgentInfo>& agents,
                      const std::vector<v1::ModelInfo>& models, const std::string& agent_name) {
  const v1::AgentInfo* agent = nullptr;
  for (const v1::AgentInfo& a : agents) {
    if (agent_name.empty() ? a.is_default() : a.name() == agent_name) agent = &a;
  }
  if (agent == nullptr) return false;
  for (const v1::ModelInfo& m : models) {
    if (!m.images()) continue;
    if (agent->model().empty() || m.name() == agent->model()) return true;
  }
  return false;
}

}  // namespace raw::acp
