// PackageLoader: the store entries the package references of one config
// file lead to, each read once however many resolutions ask for it.
//
// An alias is looked up in the index beside the config file (read once, on
// first use) and its entry read from the store (PackageStore::Read, or
// ReadVerified with EntryCheck::kRehash); the entry, or why it could not be
// read, is kept for every later Get of that alias. So resolving every agent
// of a config through one loader (the config check) reads an entry that
// many agents use, one preset they all extend say, once, not once per agent.
// Not thread-safe: one loader serves one thread's resolutions.
#pragma once

#include <map>
#include <optional>
#include <string>

#include "absl/status/statusor.h"
#include "daemon/packages/package_index.h"
#include "daemon/packages/package_store.h"

namespace raw::packages {

// Whether resolving re-hashes the store entries it uses. Re-hashing reads
// every byte of an entry (up to TreeLimits: 256 MiB), so only what runs the
// agent pays for it.
enum class EntryCheck {
  // Re-hash each entry used; a changed entry is refused. The manifest and
  // prompt texts applied are the bytes that were hashed
  // (PackageStore::ReadVerified), never a later read of the files. For what
  // runs the agent or stores what it resolved: creating a session, planning
  // a turn (or its warm-up), a compaction, /clear.
  kRehash,
  // Take each entry as it is (its tree is scanned and its manifest read and
  // checked, nothing is hashed). Only for what describes the agent and runs
  // nothing: the model a session listing shows, a context estimate, the
  // config check, the listing of MCP servers.
  kTrust,
};

class PackageLoader {
 public:
  // Reads the index of the config file `config_path` ("" = a config not
  // read from a file, which cannot use packages) and the entries of
  // `store`; a `store` that is an error (it could not be located) is what
  // every Get returns.
  PackageLoader(std::string config_path, absl::StatusOr<PackageStore> store, EntryCheck check);

  // The stored package of `alias`, valid as long as the loader; errors are
  // kFailedPrecondition prefixed with `path` (the JSON path of the
  // reference), and say what to do: install the alias, run
  // `raw package verify`.
  absl::StatusOr<const StoredPackage*> Get(const std::string& alias, const std::string& path);

  EntryCheck check() const { return check_; }

  // `path`: `message`, as every error of Get reads.
  static absl::Status Error(const std::string& path, absl::string_view message);

 private:
  const std::string config_path_;
  const absl::StatusOr<PackageStore> store_;
  const EntryCheck check_;
  std::optional<absl::StatusOr<PackageIndex>> index_;
  // By alias: the entry, or why the store did not give it.
  std::map<std::string, absl::StatusOr<StoredPackage>> entries_;
};

}  // namespace raw::packages
