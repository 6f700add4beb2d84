#include "daemon/loop/runtime_record.h"

#include <algorithm>
#include <cstdint>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "absl/strings/str_join.h"
#include "common/json.h"

namespace raw::loop {
namespace {

void Fnv1a(uint64_t& h, const std::string& bytes) {
  for (unsigned char c : bytes) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  h ^= 0xff;  // a separator, so ("ab","c") and ("a","bc") differ
  h *= 0x100000001b3ULL;
}

}  // namespace

std::string ToolsHash(const std::vector<providers::ToolDefinition>& tools) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (const auto& t : tools) {
    Fnv1a(h, t.name);
    Fnv1a(h, t.description);
    Fnv1a(h, DumpJson(t.parameters));
  }
  return absl::StrFormat("%016x", h);
}

std::string SerializeRuntime(const RuntimeRecord& record) {
  OrderedJson j;
  j["tools_hash"] = record.tools_hash;
  j["tools"] = record.tools;
  OrderedJson skills = OrderedJson::object();
  for (const auto& [name, hash] : record.loaded_skills) skills[name] = hash;
  j["loaded_skills"] = std::move(skills);
  if (!record.packages.empty()) {
    OrderedJson packages = OrderedJson::object();
    for (const auto& [alias, hash] : record.packages) packages[alias] = hash;
    j["packages"] = std::move(packages);
  }
  return DumpJson(j);
}

RuntimeRecord ParseRuntime(const std::string& text) {
  RuntimeRecord record;
  if (text.empty()) return record;
  absl::StatusOr<Json> parsed = ParseJson(text);
  if (!parsed.ok() || !parsed->is_object()) return record;
  const Json& j = *parsed;
  if (auto it = j.find("tools_hash"); it != j.end() && it->is_string()) {
    record.tools_hash = it->get<std::string>();
  }
  if (auto it = j.find("tools"); it != j.end() && it->is_array()) {
    for (const auto& name : *it) {
      if (name.is_string()) record.tools.push_back(name.get<std::string>());
    }
  }
  if (auto it = j.find("loaded_skills"); it != j.end() && it->is_object()) {
    for (const auto& [name, hash] : it->items()) {
      if (hash.is_string()) record.loaded_skills[name] = hash.get<std::string>();
    }
  }
  if (auto it = j.find("packages"); it != j.end() && it->is_object()) {
    for (const auto& [alias, hash] : it->items()) {
      if (hash.is_string()) record.packages[alias] = hash.get<std::string>();
    }
  }
  return record;
}

std::string ToolChangeNotice(const RuntimeRecord& before, const std::string& tools_hash,
                             const std::vector<std::string>& tools) {
  if (before.tools_hash.empty() || before.tools_hash == tools_hash) return "";
  std::vector<std::string> added, removed;
  std::set_difference(tools.begin(), tools.end(), before.tools.begin(), before.tools.end(),
                      std::back_inserter(added));
  std::set_difference(before.tools.begin(), before.tools.end(), tools.begin(), tools.end(),
                      std::back_inserter(removed));
  std::string text = "The tools available to the model changed since this session's last turn";
  if (added.empty() && removed.empty()) {
    text += " (same names, changed definitions)";
  } else {
    if (!added.empty()) text += "; added: " + absl::StrJoin(added, ", ");
    if (!removed.empty()) text += "; removed: " + absl::StrJoin(removed, ", ");
  }
  text += ". The conversation continues with the new tools.";
  return text;
}

std::string PackageChangeNotice(const RuntimeRecord& before,
                                const std::map<std::string, std::string>& packages) {
  if (before.tools_hash.empty() || before.packages == packages) return "";
  auto shorten = [](const std::string& hash) { return hash.substr(0, 12); };
  std::vector<std::string> changes;
  for (const auto& [alias, hash] : packages) {
    auto it = before.packages.find(alias);
    if (it == before.packages.end()) {
      changes.push_back(absl::StrCat(alias, " (now used, ", shorten(hash), ")"));
    } else if (it->second != hash) {
      changes.push_back(absl::StrCat(alias, " (", shorten(it->second), " -> ", shorten(hash), ")"));
    }
  }
  for (const auto& [alias, hash] : before.packages) {
    if (!packages.contains(alias)) changes.push_back(absl::StrCat(alias, " (no longer used)"));
  }
  return absl::StrCat("The packages this session's agent uses changed since its last turn: ",
                      absl::StrJoin(changes, ", "));
}

}  // namespace raw::loop
