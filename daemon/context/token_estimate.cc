#include "daemon/context/token_estimate.h"

#include <algorithm>
#include <cmath>
#include <type_traits>

#include "common/json.h"

namespace raw::context {

int64_t EstimateTextTokens(std::string_view text) {
  const auto bytes = static_cast<int64_t>(text.size());
  return (bytes + kBytesPerToken - 1) / kBytesPerToken;
}

int64_t EstimateImageTokens(const events::ImagePart& image) {
  if (image.width <= 0 || image.height <= 0) return kImageTokensUnknownSize;
  constexpr double kMaxEdge = 1568;
  double w = static_cast<double>(image.width);
  double h = static_cast<double>(image.height);
  const double scale = std::min(1.0, kMaxEdge / std::max(w, h));
  const double tokens = std::ceil(w * scale * h * scale / 750);
  return std::clamp<int64_t>(static_cast<int64_t>(tokens), 1, kImageTokensUnknownSize);
}

int64_t EstimateItemTokens(const events::ContextItem& item,
                           const providers::ReasoningRule& reasoning) {
  return std::visit(
      [&reasoning](const auto& v) -> int64_t {
        using T = std::decay_t<decltype(v)>;
        int64_t tokens = kMessageOverheadTokens;
        if constexpr (std::is_same_v<T, events::UserText>) {
          tokens += EstimateTextTokens(v.text);
          for (const events::ImagePart& image : v.images) tokens += EstimateImageTokens(image);
        } else if constexpr (std::is_same_v<T, events::AssistantTurn>) {
          tokens += EstimateTextTokens(v.text);
          if (reasoning.Sends(v)) tokens += EstimateTextTokens(v.reasoning);
          for (const auto& call : v.tool_calls) {
            tokens += kToolCallOverheadTokens + EstimateTextTokens(call.name) +
                      EstimateTextTokens(call.arguments);
          }
        } else {
          static_assert(std::is_same_v<T, events::ToolOutcome>);
          tokens += EstimateTextTokens(v.name) + EstimateTextTokens(v.content);
        }
        return tokens;
      },
      item);
}

int64_t EstimateItemsTokens(const std::vector<events::ContextItem>& items,
                            const providers::ReasoningRule& reasoning) {
  int64_t tokens = 0;
  for (const auto& item : items) tokens += EstimateItemTokens(item, reasoning);
  return tokens;
}

int64_t EstimateRuntimeTokens(const std::string& system_prompt,
                              const std::vector<providers::ToolDefinition>& tools) {
  int64_t tokens = 0;
  if (!system_prompt.empty()) tokens += kMessageOverheadTokens + EstimateTextTokens(system_prompt);
  for (const auto& tool : tools) {
    tokens += kToolDefinitionOverheadTokens + EstimateTextTokens(tool.name) +
              EstimateTextTokens(tool.description) +
              EstimateTextTokens(DumpJson(tool.parameters));
  }
  return tokens;
}

}  // namespace raw::context
