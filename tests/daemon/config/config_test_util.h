// Helpers shared by the config tests.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "daemon/config/config_loader.h"

namespace raw::config::testing {

// ParseConfig's problems as "<path>: <message>" lines; empty when the text
// is valid.
inline std::vector<std::string> ProblemLines(std::string_view text) {
  std::vector<ConfigProblem> problems;
  auto config = ParseConfig(text, &problems);
  std::vector<std::string> lines;
  for (const ConfigProblem& p : problems) lines.push_back(p.ToString());
  if (config.ok() != lines.empty()) lines.push_back("<status and problem list disagree>");
  return lines;
}

// A valid model entry; `extra` is spliced in as further members.
inline std::string ModelJson(std::string_view extra = "") {
  std::string json =
      R"({"method": "openai-chat-completions", "model_id": "deepseek-chat",)"
      R"( "base_url": "https://api.deepseek.com", "api_key_env": "DEEPSEEK_API_KEY")";
  if (!extra.empty()) json += ", " + std::string(extra);
  return json + "}";
}

// A document with model "flash" (ModelJson(model_extra)) and agent "coder"
// using it (plus `agent_extra`).
inline std::string DocWith(std::string_view model_extra, std::string_view agent_extra) {
  std::string agent = R"({"model": "flash")";
  if (!agent_extra.empty()) agent += ", " + std::string(agent_extra);
  agent += "}";
  return R"({"models": {"flash": )" + ModelJson(model_extra) + R"(}, "agents": {"coder": )" +
         agent + "}}";
}

}  // namespace raw::config::testing
