#include "daemon/vars/variable_store.h"

#include <algorithm>
#include <optional>
#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "daemon/config/variable_refs.h"
#include "daemon/vars/redact.h"
#include "daemon/vars/variable_reader.h"

namespace raw::vars {

struct VariableStore::Read {
  bool done = false;  // guarded by the store's mu_
  absl::StatusOr<std::string> result = absl::UnknownError("not read yet");
};

struct VariableStore::Entry {
  bool secret = true;
  std::optional<std::string> value;
  std::shared_ptr<Read> read;  // set while the value is being read
};

namespace {

// Every field of the definition, unambiguously: any change means a new key.
std::string CacheKey(const config::VariableConfig& d) {
  std::string key = absl::StrCat(d.name.size(), ":", d.name, "|", static_cast<int>(d.source), "|",
                                 d.env.size(), ":", d.env, "|", d.file.size(), ":", d.file, "|",
                                 d.timeout_ms, "|", d.secret ? 1 : 0, "|");
  for (const std::string& arg : d.command) absl::StrAppend(&key, arg.size(), ":", arg);
  return key;
}

}  // namespace

VariableStore::VariableStore(EnvLookup env) : env_(std::move(env)) {}

VariableStore::~VariableStore() = default;

absl::StatusOr<std::string> VariableStore::Value(const config::VariableConfig& definition) {
  const std::string key = CacheKey(definition);
  std::shared_ptr<Read> read;
  std::set<std::string> withheld_env;
  {
    absl::MutexLock lock(&mu_);
    withheld_env = withheld_env_;
    auto it = entries_.find(key);
    if (it != entries_.end()) {
      if (it->second.value.has_value()) return *it->second.value;
      // Another caller is reading it: wait for that read and share its result.
      std::shared_ptr<Read> pending = it->second.read;
      mu_.Await(absl::Condition(&pending->done));
      return pending->result;
    }
    read = std::make_shared<Read>();
    entries_[key] = Entry{definition.secret, std::nullopt, read};
  }
  // Read without the lock: a command may take seconds.
  absl::StatusOr<std::string> result =
      ReadVariable(definition, env_, withheld_env, &commands_cancel_);
  absl::MutexLock lock(&mu_);
  read->result = result;
  read->done = true;
  if (result.ok()) {
    Entry& entry = entries_[key];
    entry.value = *result;
    entry.read.reset();
  } else {
    entries_.erase(key);  // not cached: the next call reads again
  }
  return result;
}

void VariableStore::CancelCommands(const std::string& reason) { commands_cancel_.Cancel(reason); }

void VariableStore::SetWithheldEnv(std::set<std::string> names) {
  absl::MutexLock lock(&mu_);
  withheld_env_ = std::move(names);
}

absl::StatusOr<std::string> VariableStore::Expand(
    const std::string& text, const std::map<std::string, config::VariableConfig>& defs) {
  absl::StatusOr<std::vector<config::TemplatePart>> parts = config::ParseTemplate(text);
  if (!parts.ok()) return parts.status();
  std::string out;
  for (const config::TemplatePart& part : *parts) {
    if (part.kind == config::TemplatePart::Kind::kText) {
      out += part.text;
      continue;
    }
    auto def = defs.find(part.text);
    if (def == defs.end()) {
      return absl::NotFoundError(
          absl::StrCat("variable ", part.text, " is not defined under \"variables\""));
    }
    absl::StatusOr<std::string> value = Value(def->second);
    if (!value.ok()) return value.status();
    out += *value;
  }
  return out;
}

std::vector<std::string> VariableStore::SecretValues() const {
  std::vector<std::string> values;
  absl::MutexLock lock(&mu_);
  for (const auto& [key, entry] : entries_) {
    if (!entry.secret || !entry.value.has_value()) continue;
    if (entry.value->size() < kMinRedactedSecretBytes) continue;
    if (std::find(values.begin(), values.end(), *entry.value) == values.end()) {
      values.push_back(*entry.value);
    }
  }
  for (const std::string& value : noted_) {
    if (std::find(values.begin(), values.end(), value) == values.end()) values.push_back(value);
  }
  // A tool call's arguments are JSON text: a secret holding `"`, `\` or a
  // control character is written there escaped.
  const size_t plain = values.size();
  for (size_t i = 0; i < plain; ++i) {
    std::string escaped = JsonEscapedForm(values[i]);
    if (escaped != values[i] && std::find(values.begin(), values.end(), escaped) == values.end()) {
      values.push_back(std::move(escaped));
    }
  }
  return values;
}

void VariableStore::NoteSecret(const std::string& value) {
  if (value.size() < kMinRedactedSecretBytes) return;
  absl::MutexLock lock(&mu_);
  noted_.insert(value);
}

}  // namespace raw::vars
