// SessionStore: plugin settings (see session_store.h for the contract).
#include <string>

#include "absl/strings/str_cat.h"
#include "common/json.h"
#include "common/status_macros.h"
#include "daemon/store/session_store.h"
#include "daemon/store/sqlite/db.h"
#include "daemon/store/sqlite/statement.h"

namespace raw::store {
namespace {

absl::Status CheckNamespace(const std::string& ns) {
  const auto valid_char = [](char c, bool first) {
    if ((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9')) return true;
    return !first && (c == '.' || c == '_' || c == '-');
  };
  bool ok = !ns.empty() && ns.size() <= 64;
  for (size_t i = 0; ok && i < ns.size(); ++i) ok = valid_char(ns[i], i == 0);
  if (ok) return absl::OkStatus();
  return absl::InvalidArgumentError(
      absl::StrCat("plugin settings namespace \"", ns,
                   "\" is not valid: use 1 to 64 of a-z, 0-9, '.', '_' and '-', "
                   "starting with a letter or digit"));
}

absl::Status CheckSettings(const std::string& settings_json) {
  if (settings_json.size() > kMaxPluginSettingsBytes) {
    return absl::InvalidArgumentError(absl::StrCat("plugin settings are ", settings_json.size(),
                                                   " bytes; at most ", kMaxPluginSettingsBytes,
                                                   " are stored"));
  }
  absl::StatusOr<Json> parsed = ParseJson(settings_json);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("plugin settings are not JSON: ", parsed.status().message()));
  }
  if (!parsed->is_object()) return absl::InvalidArgumentError("plugin settings must be a JSON object");
  return absl::OkStatus();
}

// The namespace's row, or revision 0 and "{}" when it has none.
absl::StatusOr<PluginSettings> ReadSettings(Database& db, const std::string& ns) {
  ASSIGN_OR_RETURN(Statement select,
                   db.Prepare("SELECT settings, revision FROM plugin_settings WHERE namespace = ?1"));
  select.BindString(0, ns);
  PluginSettings settings;
  settings.ns = ns;
  ASSIGN_OR_RETURN(bool has_row, select.Step());
  if (has_row) {
    settings.settings_json = select.ColumnString(0);
    settings.revision = select.ColumnInt64(1);
  }
  return settings;
}

}  // namespace

absl::StatusOr<PluginSettings> SessionStore::GetPluginSettings(const std::string& ns) {
  RETURN_IF_ERROR(CheckNamespace(ns));
  PluginSettings settings;
  absl::Status read = Read("", [&](Database& db) -> absl::Status {
    ASSIGN_OR_RETURN(settings, ReadSettings(db, ns));
    return absl::OkStatus();
  });
  RETURN_IF_ERROR(read);
  return settings;
}

absl::StatusOr<PluginSettings> SessionStore::SetPluginSettings(const std::string& ns,
                                                               const std::string& settings_json,
                                                               int64_t expected_revision) {
  RETURN_IF_ERROR(CheckNamespace(ns));
  RETURN_IF_ERROR(CheckSettings(settings_json));
  PluginSettings stored;
  absl::Status written = Write(StoreStep::kCommitWriting, "", [&](Database& db) -> absl::Status {
    // Read and write in one transaction: no other write comes between.
    ASSIGN_OR_RETURN(PluginSettings current, ReadSettings(db, ns));
    if (current.revision != expected_revision) {
      return absl::FailedPreconditionError(
          absl::StrCat("plugin settings \"", ns, "\" changed: revision ", current.revision,
                       " is stored, the write was based on revision ", expected_revision,
                       "; read them again"));
    }
    ASSIGN_OR_RETURN(Statement upsert,
                     db.Prepare("INSERT INTO plugin_settings (namespace, settings, revision) "
                                "VALUES (?1, ?2, ?3) ON CONFLICT (namespace) DO UPDATE SET "
                                "settings = excluded.settings, revision = excluded.revision"));
    upsert.BindString(0, ns);
    upsert.BindString(1, settings_json);
    upsert.BindInt64(2, expected_revision + 1);
    RETURN_IF_ERROR(upsert.Run());
    stored = PluginSettings{ns, settings_json, expected_revision + 1};
    return absl::OkStatus();
  });
  RETURN_IF_ERROR(written);
  return stored;
}

}  // namespace raw::store
