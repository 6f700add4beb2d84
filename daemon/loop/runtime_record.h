// RuntimeRecord: what a session last used of its runtime — the model-facing
// tool definitions (a hash and the names) and the skills the model loaded
// (name -> hash of the text it saw). Stored with the session (the store's
// opaque runtime_hash column) after every turn, so that a session resumed
// after its config, tools or skills changed — also in a later daemon — is
// compared with what it really used:
// - changed tool definitions: the prompt-cache key (derived from them, see
//   daemon/context/cache_key.h) changes once, the conversation continues
//   with the new tools, and an info notice says which tools came and went;
// - a loaded skill whose text changed: the key stays, and the next user
//   message asks the model to reload it.
// Nothing committed is rewritten. Plain value; pure functions.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "daemon/providers/provider.h"

namespace raw::loop {

struct RuntimeRecord {
  std::string tools_hash;          // empty = nothing recorded yet
  std::vector<std::string> tools;  // model-facing names, sorted
  std::map<std::string, std::string> loaded_skills;
  bool operator==(const RuntimeRecord&) const = default;
};

// Stable hash of the serialized definitions (names, descriptions, schemas).
std::string ToolsHash(const std::vector<providers::ToolDefinition>& tools);

std::string SerializeRuntime(const RuntimeRecord& record);
// Anything unreadable (an empty or foreign text) is an empty record: the
// comparison then simply starts afresh.
RuntimeRecord ParseRuntime(const std::string& text);

// The notice for a session whose tool definitions changed since `before`;
// empty when they did not (or nothing was recorded before).
std::string ToolChangeNotice(const RuntimeRecord& before, const std::string& tools_hash,
                             const std::vector<std::string>& tools);

}  // namespace raw::loop
