// PackageStore: the content-addressed store of installed packages,
// $XDG_DATA_HOME/raw/packages/ (docs/packages.md):
//   sha256/<hash>/   one package's normalized tree, read-only
//   staging/         half-written entries and unpacked sources, one
//                    stage_PID_START_ID directory per use, named for the
//                    process that made it (a crash leaves them here only,
//                    until SweepStaging)
//   indexes.json     every alias index ever written on this machine, so
//                    that gc keeps what any config still refers to
//   lock             flock(2)-ed by whoever changes the store
// An entry appears by rename(2) of a complete staging directory, so a
// reader sees a whole entry or none. Thread-safe as far as the file system
// is; changes are serialized across processes by Lock().
#pragma once

#include <functional>
#include <map>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"
#include "common/paths.h"
#include "daemon/packages/manifest.h"
#include "daemon/packages/package_files.h"
#include "daemon/packages/package_tree.h"

namespace raw::packages {

// True for 64 lowercase hex digits.
bool IsPackageHash(absl::string_view hash);

// A store entry as read back: its tree, manifest and hash.
struct StoredPackage {
  std::string hash;
  std::string dir;  // absolute
  std::vector<TreeEntry> files;
  Manifest manifest;
  // ReadVerified only: the text of every prompt export's file, by its path
  // (PromptExport::path), as it was hashed; or why it could not be kept (a
  // symlink, a file larger than kMaxPromptFileBytes).
  std::map<std::string, absl::StatusOr<std::string>> prompt_texts;
};

class PackageStore {
 public:
  // `root` is the store directory ($XDG_DATA_HOME/raw/packages).
  explicit PackageStore(std::string root, TreeLimits limits = {});
  // The store of the user whose environment `env` is.
  static absl::StatusOr<PackageStore> ForUser(const EnvLookup& env);

  const std::string& root() const { return root_; }
  const TreeLimits& limits() const { return limits_; }
  std::string EntryDir(const std::string& hash) const;

  // An exclusive lock on the store, held until the object is destroyed.
  class StoreLock {
   public:
    explicit StoreLock(int fd) : fd_(fd) {}
    ~StoreLock();
    StoreLock(StoreLock&& other) noexcept : fd_(other.fd_) { other.fd_ = -1; }
    StoreLock(const StoreLock&) = delete;
    StoreLock& operator=(const StoreLock&) = delete;

   private:
    int fd_;
  };
  absl::StatusOr<StoreLock> Lock() const;

  // A fresh empty directory under staging/, for unpacking or copying,
  // named for this process (its pid and start time).
  absl::StatusOr<std::string> NewStagingDir() const;

  // Removes every directory under staging/ whose process has ended (an
  // install or inspect that was killed or crashed, read-only trees
  // included), or whose name names no process; those of running processes
  // stay. Returns the names removed (with `dry_run`: to remove, and nothing
  // is), sorted. Call with Lock() held, so that two sweeps never meet.
  absl::StatusOr<std::vector<std::string>> SweepStaging(bool dry_run = false) const;

  enum class AddOutcome {
    kAdded,     // the entry is new
    kPresent,   // an intact entry with that hash was there; nothing changed
    kRepaired,  // the entry there no longer matched its hash and was replaced
  };
  // Stores the package at `source` (a directory holding raw-package.json):
  // validates its tree and manifest, copies the normalized tree to staging,
  // hashes the copy, makes it read-only and renames it into place. When an
  // entry with that hash exists it is re-hashed: an intact one is kept, one
  // that changed (or cannot be read as a package) is swapped for the fresh
  // copy in one rename. Call with Lock() held. Nothing of the package is
  // executed.
  absl::StatusOr<StoredPackage> Add(const std::string& source, AddOutcome* outcome = nullptr) const;

  // Reads entry `hash` back (its tree and manifest), without re-hashing.
  absl::StatusOr<StoredPackage> Read(const std::string& hash) const;

  // Re-hashes entry `hash`: OK when its tree still hashes to its name, else
  // kDataLoss saying what hash it has now.
  absl::Status Verify(const std::string& hash) const;

  // Reads entry `hash` back and re-hashes it in one pass, for what the
  // daemon loads itself: the manifest (hooks, servers, presets, models) and
  // the prompt files are kept from the very read that is hashed, and are
  // parsed and returned from those bytes, never read again; a file swapped
  // after the hash is not used. Errors: kNotFound (no such entry),
  // kDataLoss (the tree no longer hashes to `hash`, or cannot be read as a
  // package), kAborted (it changed while it was read), kInvalidArgument (an
  // intact entry whose manifest is refused, naming the file). The files the
  // daemon hands to other programs (hook and server executables) are still
  // opened by them later, by path: see docs/packages.md, "Integrity".
  absl::StatusOr<StoredPackage> ReadVerified(const std::string& hash) const;

  // Called by Verify and ReadVerified each time an entry's hash was found
  // intact, with the entry's directory, before anything else of the entry
  // is read or used: lets a test change the files in that window. Null by
  // default.
  void set_verified_hook_for_testing(std::function<void(const std::string& dir)> hook) {
    verified_hook_ = std::move(hook);
  }
  // Called by Read each time it reads an entry, with the entry's directory:
  // lets a test count how often an entry is read. Null by default.
  void set_read_hook_for_testing(std::function<void(const std::string& dir)> hook) {
    read_hook_ = std::move(hook);
  }

  // Hashes of every entry, sorted.
  absl::StatusOr<std::vector<std::string>> Hashes() const;

  absl::Status Remove(const std::string& hash) const;

  // The alias index files recorded by RememberIndex, sorted.
  absl::StatusOr<std::set<std::string>> KnownIndexes() const;
  absl::Status RememberIndex(const std::string& index_path) const;

 private:
  std::string root_;
  TreeLimits limits_;
  std::function<void(const std::string& dir)> verified_hook_;
  std::function<void(const std::string& dir)> read_hook_;
};

}  // namespace raw::packages
