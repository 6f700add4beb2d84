// PackageOps: what `raw package ...` does (docs/packages.md), as a library
// the CLI runs without the daemon: install, inspect, list, remove, gc and
// verify. Every operation only reads and writes files (and, for an https
// source, downloads one); none runs anything a package holds.
// Thread-safe: changes to the store take its lock.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/packages/manifest.h"
#include "daemon/packages/package_index.h"
#include "daemon/packages/package_list.h"
#include "daemon/packages/package_store.h"

namespace raw::packages {

struct InstallResult {
  std::string alias;
  std::string hash;
  std::string previous_hash;  // the alias's hash before, "" = new alias
  bool stored = false;        // false: the store held this tree already, intact
  bool repaired = false;      // the store's entry had changed and was replaced
  Manifest manifest;
  std::string index_path;
};

// Installs `source` (a folder, a .tar.gz/.tgz/.tar.zst file, or an https
// URL of one) under `alias` (nullopt = the manifest's name). The source is
// fetched, unpacked and checked in this process's staging directory before
// the store's lock is taken; the lock is held only to add the entry and
// write the index, so a slow download holds up no other command.
absl::StatusOr<InstallResult> Install(const PackageContext& ctx, const std::string& source,
                                      const std::optional<std::string>& alias);

struct Inspection {
  std::string hash;
  Manifest manifest;
  std::vector<TreeEntry> files;
  std::string alias;  // when inspected by alias
  std::string dir;    // the store entry, when inspected by alias
};

// Reads `what`: an alias of the config's index, or a source as for Install.
// An alias's entry is re-hashed (PackageStore::ReadVerified: one that
// changed since it was installed is kDataLoss, naming `raw package verify`)
// and its exports checked as a source's are (CheckExportFiles). Writes
// nothing to the store or the index.
absl::StatusOr<Inspection> Inspect(const PackageContext& ctx, const std::string& what);

// Removes `alias` from the config's index (the store entry stays for gc).
absl::StatusOr<IndexEntry> Remove(const PackageContext& ctx, const std::string& alias);

struct GcResult {
  std::vector<std::string> removed;  // hashes (to be) removed
  std::vector<std::string> kept;     // hashes some index refers to
  // Staging directories (to be) removed: left by an install or inspect
  // that did not finish (PackageStore::SweepStaging).
  std::vector<std::string> staging_removed;
};
// Removes store entries that no index of this machine refers to (every
// index any install recorded), and what interrupted installs and inspects
// left in staging/. An index that cannot be read stops gc: an entry is
// never removed on a guess.
absl::StatusOr<GcResult> CollectGarbage(const PackageContext& ctx, bool dry_run);

struct VerifyResult {
  std::string alias;
  std::string hash;
  absl::Status status;  // OK, or how the entry drifted
};
// Re-hashes the entry of `alias`, or of every alias of the index.
absl::StatusOr<std::vector<VerifyResult>> Verify(const PackageContext& ctx,
                                                 const std::optional<std::string>& alias);

}  // namespace raw::packages
