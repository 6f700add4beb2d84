#include "daemon/packages/package_index.h"

#include "absl/strings/match.h"
#include "absl/strings/strip.h"
#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/paths.h"
#include "daemon/config/package_ref.h"
#include "daemon/packages/package_files.h"
#include "daemon/packages/package_store.h"

namespace raw::packages {
namespace {

constexpr int64_t kMaxIndexBytes = 4 << 20;

std::string StringField(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

}  // namespace

std::string PackageIndex::PathForConfig(const std::string& config_path) {
  std::string dir = Dirname(config_path);
  std::string base = config_path.substr(config_path.find_last_of('/') + 1);
  if (base == "config.json") return absl::StrCat(dir, "/packages.json");
  absl::string_view stem = base;
  absl::ConsumeSuffix(&stem, ".json");
  return absl::StrCat(dir, "/", stem, ".packages.json");
}

absl::StatusOr<PackageIndex> PackageIndex::Load(const std::string& path) {
  PackageIndex index;
  index.path = path;
  absl::StatusOr<std::string> text = ReadSmallFile(path, kMaxIndexBytes);
  if (absl::IsNotFound(text.status())) return index;
  if (!text.ok()) return text.status();
  auto damaged = [&](absl::string_view why) {
    return absl::DataLossError(absl::StrCat("the package index ", path, " is damaged (", why,
                                            "); reinstall the packages or fix the file"));
  };
  absl::StatusOr<Json> json = ParseJson(*text);
  if (!json.ok()) return damaged(json.status().message());
  if (!json->is_object() || !json->contains("packages") || !(*json)["packages"].is_object()) {
    return damaged("expected {\"packages\": {...}}");
  }
  for (const auto& [alias, entry] : (*json)["packages"].items()) {
    if (!config::IsPackageAlias(alias) || !entry.is_object()) {
      return damaged(absl::StrCat("bad entry \"", alias, "\""));
    }
    IndexEntry e{StringField(entry, "hash"), StringField(entry, "source"),
                 StringField(entry, "name"), StringField(entry, "version")};
    if (!IsPackageHash(e.hash)) return damaged(absl::StrCat("\"", alias, "\" has no valid hash"));
    index.aliases[alias] = std::move(e);
  }
  return index;
}

absl::Status PackageIndex::Save() const {
  OrderedJson packages = OrderedJson::object();
  for (const auto& [alias, e] : aliases) {
    OrderedJson entry;
    entry["hash"] = e.hash;
    entry["name"] = e.name;
    entry["version"] = e.version;
    entry["source"] = e.source;
    packages[alias] = std::move(entry);
  }
  OrderedJson json;
  json["packages"] = std::move(packages);
  return WriteFileAtomically(path, DumpJson(json, 2) + "\n");
}

}  // namespace raw::packages
