// VariableStore: the values of config variables for the daemon's lifetime.
//
// A value is read (ReadVariable) the first time it is needed and then kept
// in memory only: never written to the session database, a file or the log.
// The cache is keyed by the whole definition, so a definition changed by a
// config reload is read again, while an unchanged one keeps its value until
// the daemon restarts. A failed read is not cached: the next call tries
// again. Calls that need a value being read wait for that one read instead
// of starting another.
//
// Ownership: one per daemon, owned by the composition root; everything that
// expands variables (provider setup, MCP server start-up) and everything
// that redacts stored tool output borrows it.
// Thread-safety: every method may be called from any thread.
#pragma once

#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "absl/base/thread_annotations.h"
#include "absl/status/statusor.h"
#include "absl/synchronization/mutex.h"
#include "common/cancel_token.h"
#include "common/paths.h"
#include "daemon/config/config.h"

namespace raw::vars {

// Values shorter than this are not reported by SecretValues(): redacting
// every "ab" would wreck the output and hide nothing.
inline constexpr size_t kMinRedactedSecretBytes = 4;

class VariableStore {
 public:
  // `env` serves variables whose source is "env"; it is called on the
  // threads that call Value() and Expand().
  explicit VariableStore(EnvLookup env);
  VariableStore(const VariableStore&) = delete;
  VariableStore& operator=(const VariableStore&) = delete;
  ~VariableStore();

  // The value of `definition`, read on first use (see variable_reader.h for
  // the sources and their errors, which name the variable, never the value).
  absl::StatusOr<std::string> Value(const config::VariableConfig& definition);

  // `text` with every ${NAME} replaced by the value of defs.at(NAME) and
  // every "$${" by "${" (config/variable_refs.h). A malformed reference is
  // kInvalidArgument; a name `defs` lacks is kNotFound naming it; a value
  // that cannot be read is the error of Value().
  absl::StatusOr<std::string> Expand(const std::string& text,
                                     const std::map<std::string, config::VariableConfig>& defs);

  // Every value read so far of a variable marked secret, and every value
  // given to NoteSecret, at least kMinRedactedSecretBytes long, each once;
  // and of those that a JSON string writes otherwise, their JSON-escaped
  // form (JsonEscapedForm) too. For Redact().
  std::vector<std::string> SecretValues() const;

  // Records a secret that did not come from a variable (an API key read
  // from the environment through api_key_env, or written in the config), so
  // that it is redacted like a variable's. Kept in memory only, for the
  // daemon's lifetime.
  void NoteSecret(const std::string& value);

  // The environment names a command variable's command does not get
  // (config::WithheldEnvNames of the config last loaded); empty until set.
  void SetWithheldEnv(std::set<std::string> names);

  // For the daemon's stop: ends the variable commands running now (SIGTERM
  // to the group, SIGKILL after the subprocess grace), so that nothing
  // waits for them, and runs none from then on. Their reads, and every
  // later one that would run a command, fail with kCancelled naming the
  // variable and `reason`. Values read before stay.
  void CancelCommands(const std::string& reason);

 private:
  struct Read;   // one read in progress, shared with the callers waiting for it
  struct Entry;  // one definition: its value, or the read producing it

  const EnvLookup env_;
  mutable absl::Mutex mu_;
  // Keyed by CacheKey(definition).
  std::map<std::string, Entry> entries_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> noted_ ABSL_GUARDED_BY(mu_);
  std::set<std::string> withheld_env_ ABSL_GUARDED_BY(mu_);
  // Cancelled by CancelCommands; every command read watches it.
  CancelToken commands_cancel_;
};

}  // namespace raw::vars
