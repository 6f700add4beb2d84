#include "daemon/context/cache_key.h"

#include <cstdint>
#include <string_view>

#include "absl/strings/str_format.h"
#include "common/json.h"

namespace raw::context {
namespace {

void Fnv1a(uint64_t& h, std::string_view bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  // A separator, so ("ab","c") and ("a","bc") differ.
  h ^= 0xff;
  h *= 0x100000001b3ULL;
}

}  // namespace

std::string DerivedCacheKey(const std::string& session_id, const std::string& system_prompt,
                            const std::vector<providers::ToolDefinition>& tools) {
  uint64_t h = 0xcbf29ce484222325ULL;
  Fnv1a(h, session_id);
  Fnv1a(h, system_prompt);
  for (const auto& t : tools) {
    Fnv1a(h, t.name);
    Fnv1a(h, t.description);
    Fnv1a(h, DumpJson(t.parameters));
  }
  return absl::StrFormat("raw-%016x", h);
}

std::optional<std::string> PromptCacheKeyFor(const config::ModelConfig& model,
                                             const std::string& session_id,
                                             const std::string& system_prompt,
                                             const std::vector<providers::ToolDefinition>& tools) {
  if (model.cache_key) return *model.cache_key;
  const bool openai_api = model.method == config::kMethodOpenAiChat ||
                          model.method == config::kMethodOpenAiResponses;
  if (openai_api && model.provider == "openai") {
    return DerivedCacheKey(session_id, system_prompt, tools);
  }
  return std::nullopt;
}

}  // namespace raw::context
