// RuntimeRecord: what a session last used of its runtime — the model-facing
// tool definitions (a hash and the names) and the skills the model loaded
// (name -> hash of the text it saw), and the packages its agent used
// (alias -> content hash, daemon/packages). Stored with the session (the store's
// opaque runtime_hash column) after every turn, so that a session resumed
// after its config, tools or skills changed — also in a later daemon — is
// compared with what it really used:
// - changed tool definitions: the prompt-cache key (derived from them, see
//   daemon/context/cache_key.h) changes once, the conversation continues
//   with the new tools, and an info notice says which tools came and went;
// - a loaded skill whose text changed: the key stays, and the next user
//   message asks the model to reload it.
// - a package whose alias now names another hash: an info notice names it;
//   what the new package changed counts under the two rules above (its
//   tools change the key once, a skill's text only asks for a reload).
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
  std::map<std::string, std::string> packages{};
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

// The notice for a session whose agent uses other package contents than at
// its last turn (an alias upgraded, added or dropped); empty when nothing
// changed or nothing was recorded before.
std::string PackageChangeNotice(const RuntimeRecord& before,
                                const std::map<std::string, std::string>& packages);

}  // namespace raw::loop
