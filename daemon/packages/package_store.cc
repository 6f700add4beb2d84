#include "daemon/packages/package_store.h"

#include <fcntl.h>
#include <signal.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <filesystem>

#include "absl/status/status.h"
#include "absl/strings/ascii.h"
#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_split.h"
#include "common/child_ledger.h"
#include "common/ids.h"
#include "common/json.h"
#include "common/status_macros.h"

namespace raw::packages {
namespace {

namespace fs = std::filesystem;

constexpr char kIndexesFile[] = "indexes.json";
constexpr int64_t kMaxIndexesBytes = 4 << 20;

// Renaming a directory into another parent needs write permission on the
// directory itself (its ".." changes), so a read-only entry's top directory
// is made writable for the owner just for the move. Everything below it
// stays read-only.
absl::Status MakeTopWritable(const std::string& dir) {
  if (chmod(dir.c_str(), 0700) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot chmod ", dir));
  }
  return absl::OkStatus();
}

// Swaps the directories `a` and `b` in one step, so that a reader of
// either path sees one whole tree or the other. Where the file system
// cannot swap, `b` is first moved to `aside` and `a` then renamed to `b`
// (a reader may then briefly find no `b`, never a mixed one).
absl::Status Exchange(const std::string& a, const std::string& b, const std::string& aside) {
  if (renameat2(AT_FDCWD, a.c_str(), AT_FDCWD, b.c_str(), RENAME_EXCHANGE) == 0) {
    return absl::OkStatus();
  }
  if (errno != EINVAL && errno != ENOSYS) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot replace ", b));
  }
  if (std::rename(b.c_str(), aside.c_str()) != 0 || std::rename(a.c_str(), b.c_str()) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot replace ", b));
  }
  return absl::OkStatus();
}

// True when staging directory `name` (stage_PID_START_ID) belongs to a
// process that still runs: the pid exists and started at START (a reused
// pid starts later). Any other name belongs to no process.
bool StagingOwnerRuns(const std::string& name) {
  std::vector<std::string> parts = absl::StrSplit(name, '_');
  pid_t pid = 0;
  long long start = 0;
  if (parts.size() != 4 || parts[0] != "stage" || !absl::SimpleAtoi(parts[1], &pid) ||
      !absl::SimpleAtoi(parts[2], &start) || pid <= 0 || start < -1) {
    return false;
  }
  // -1: its process could not read its own start time (no /proc); the
  // pid alone must then do.
  if (start == -1) return kill(pid, 0) == 0 || errno == EPERM;
  return child_ledger::ProcessStartTime(pid) == start;
}

// What Verify says of entry `hash` whose files hash to `now` (or could not
// be hashed).
absl::Status CheckEntryHash(const std::string& hash, const absl::StatusOr<std::string>& now,
                            const std::string& dir) {
  if (!now.ok()) {
    if (absl::IsNotFound(now.status())) {
      return absl::NotFoundError(absl::StrCat("package ", hash, " is not in the store"));
    }
    return absl::DataLossError(absl::StrCat(
        "the store entry ", dir, " cannot be read as a package: ", now.status().message()));
  }
  if (*now != hash) {
    return absl::DataLossError(absl::StrCat("the store entry ", dir,
                                            " was changed after it was installed (its files now "
                                            "hash to ",
                                            *now, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

bool IsPackageHash(absl::string_view hash) {
  return hash.size() == 64 && std::all_of(hash.begin(), hash.end(), [](char c) {
           return absl::ascii_isdigit(static_cast<unsigned char>(c)) || (c >= 'a' && c <= 'f');
         });
}

PackageStore::PackageStore(std::string root, TreeLimits limits)
    : root_(std::move(root)), limits_(limits) {}

absl::StatusOr<PackageStore> PackageStore::ForUser(const EnvLookup& env) {
  ASSIGN_OR_RETURN(RawPaths paths, ResolvePaths(env));
  return PackageStore(absl::StrCat(paths.data_dir, "/packages"));
}

std::string PackageStore::EntryDir(const std::string& hash) const {
  return absl::StrCat(root_, "/sha256/", hash);
}

PackageStore::StoreLock::~StoreLock() {
  if (fd_ >= 0) close(fd_);  // closing releases the flock
}

absl::StatusOr<PackageStore::StoreLock> PackageStore::Lock() const {
  RETURN_IF_ERROR(EnsureDir(root_));
  std::string path = absl::StrCat(root_, "/lock");
  int fd = open(path.c_str(), O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return absl::ErrnoToStatus(errno, absl::StrCat("cannot open ", path));
  while (flock(fd, LOCK_EX) != 0) {
    if (errno == EINTR) continue;
    int saved = errno;
    close(fd);
    return absl::ErrnoToStatus(saved, absl::StrCat("cannot lock ", path));
  }
  return StoreLock(fd);
}

absl::StatusOr<std::string> PackageStore::NewStagingDir() const {
  std::string staging = absl::StrCat(root_, "/staging");
  RETURN_IF_ERROR(EnsureDir(staging));
  const pid_t pid = getpid();
  std::string dir =
      absl::StrCat(staging, "/stage_", pid, "_", child_ledger::ProcessStartTime(pid), "_", NewId());
  if (mkdir(dir.c_str(), 0700) != 0) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot create ", dir));
  }
  return dir;
}

absl::StatusOr<std::vector<std::string>> PackageStore::SweepStaging(bool dry_run) const {
  std::vector<std::string> removed;
  const std::string staging = absl::StrCat(root_, "/staging");
  std::error_code error;
  if (!fs::exists(staging, error)) return removed;
  std::vector<std::string> names;
  for (const auto& child : fs::directory_iterator(staging, error)) {
    names.push_back(child.path().filename().string());
  }
  if (error) return absl::PermissionDeniedError(absl::StrCat("cannot list ", staging));
  std::sort(names.begin(), names.end());
  for (const std::string& name : names) {
    if (StagingOwnerRuns(name)) continue;
    if (!dry_run) RETURN_IF_ERROR(RemoveTree(absl::StrCat(staging, "/", name)));
    removed.push_back(name);
  }
  return removed;
}

absl::StatusOr<StoredPackage> PackageStore::Add(const std::string& source,
                                                AddOutcome* outcome) const {
  if (outcome != nullptr) *outcome = AddOutcome::kPresent;
  // Validate the source first: a broken package never reaches the store.
  ASSIGN_OR_RETURN(std::vector<TreeEntry> entries, ScanTree(source, limits_));
  ASSIGN_OR_RETURN(Manifest source_manifest, ReadManifest(source, PathsOf(entries)));
  RETURN_IF_ERROR(CheckExportFiles(source, entries, source_manifest));
  ASSIGN_OR_RETURN(std::string staging, NewStagingDir());
  std::string tree = absl::StrCat(staging, "/tree");
  absl::StatusOr<StoredPackage> result = [&]() -> absl::StatusOr<StoredPackage> {
    if (mkdir(tree.c_str(), 0700) != 0) {
      return absl::ErrnoToStatus(errno, absl::StrCat("cannot create ", tree));
    }
    RETURN_IF_ERROR(CopyTree(source, entries, tree));
    // The copy is what is stored, so it is what is hashed and checked.
    ASSIGN_OR_RETURN(std::vector<TreeEntry> copied, ScanTree(tree, limits_));
    ASSIGN_OR_RETURN(std::string hash, HashTree(tree, copied));
    ASSIGN_OR_RETURN(Manifest manifest, ReadManifest(tree, PathsOf(copied)));
    std::string entry = EntryDir(hash);
    RETURN_IF_ERROR(EnsureDir(absl::StrCat(root_, "/sha256")));
    RETURN_IF_ERROR(MakeReadOnly(tree));
    RETURN_IF_ERROR(MakeTopWritable(tree));
    struct stat st;
    AddOutcome done = AddOutcome::kPresent;
    if (lstat(entry.c_str(), &st) != 0) {
      if (std::rename(tree.c_str(), entry.c_str()) == 0) {
        done = AddOutcome::kAdded;
      } else if (errno != EEXIST && errno != ENOTEMPTY) {
        return absl::ErrnoToStatus(errno, absl::StrCat("cannot move the package to ", entry));
      }
    } else if (!Verify(hash).ok()) {
      // The entry is damaged or was edited: the fresh copy takes its place
      // (the old one ends up in staging, removed below).
      if (S_ISDIR(st.st_mode)) RETURN_IF_ERROR(MakeTopWritable(entry));
      RETURN_IF_ERROR(Exchange(tree, entry, absl::StrCat(staging, "/replaced")));
      done = AddOutcome::kRepaired;
    }
    if (done != AddOutcome::kPresent && chmod(entry.c_str(), 0555) != 0) {
      return absl::ErrnoToStatus(errno, absl::StrCat("cannot chmod ", entry));
    }
    if (outcome != nullptr) *outcome = done;
    return StoredPackage{hash, entry, std::move(copied), std::move(manifest), {}};
  }();
  RETURN_IF_ERROR(RemoveTree(staging));
  return result;
}

absl::StatusOr<StoredPackage> PackageStore::Read(const std::string& hash) const {
  if (!IsPackageHash(hash)) {
    return absl::InvalidArgumentError(absl::StrCat("\"", hash, "\" is not a package hash"));
  }
  std::string dir = EntryDir(hash);
  struct stat st;
  if (lstat(dir.c_str(), &st) != 0 || !S_ISDIR(st.st_mode)) {
    return absl::NotFoundError(
        absl::StrCat("package ", hash, " is not in the store (", dir, "); install it again"));
  }
  if (read_hook_) read_hook_(dir);
  ASSIGN_OR_RETURN(std::vector<TreeEntry> files, ScanTree(dir, limits_));
  ASSIGN_OR_RETURN(Manifest manifest, ReadManifest(dir, PathsOf(files)));
  return StoredPackage{hash, dir, std::move(files), std::move(manifest), {}};
}

absl::Status PackageStore::Verify(const std::string& hash) const {
  if (!IsPackageHash(hash)) {
    return absl::InvalidArgumentError(absl::StrCat("\"", hash, "\" is not a package hash"));
  }
  std::string dir = EntryDir(hash);
  RETURN_IF_ERROR(CheckEntryHash(hash, HashDirectory(dir, limits_), dir));
  if (verified_hook_) verified_hook_(dir);
  return absl::OkStatus();
}

absl::StatusOr<StoredPackage> PackageStore::ReadVerified(const std::string& hash) const {
  if (!IsPackageHash(hash)) {
    return absl::InvalidArgumentError(absl::StrCat("\"", hash, "\" is not a package hash"));
  }
  const std::string dir = EntryDir(hash);
  absl::StatusOr<std::vector<TreeEntry>> files = ScanTree(dir, limits_);
  if (!files.ok()) return CheckEntryHash(hash, files.status(), dir);
  const std::set<std::string> paths = PathsOf(*files);
  // What to keep of the read that is hashed: the manifest, and the prompt
  // files a first, unchecked read of it names. Nothing of that first read
  // is used; should the checked manifest name other prompt files (it was
  // changed and restored meanwhile), they are kept by a second pass.
  std::set<std::string> keep = {kManifestFile};
  if (absl::StatusOr<Manifest> first = ReadManifest(dir, paths); first.ok()) {
    for (const auto& [name, prompt] : first->prompts) {
      if (!prompt.path.empty()) keep.insert(prompt.path);
    }
  }
  for (int pass = 0; pass < 2; ++pass) {
    std::set<std::string> small;  // what can be kept (the limits of what is read)
    for (const TreeEntry& entry : *files) {
      const int64_t max_bytes =
          entry.path == kManifestFile ? kMaxManifestBytes : kMaxPromptFileBytes;
      if (keep.contains(entry.path) && entry.kind != TreeEntry::Kind::kSymlink &&
          entry.size <= max_bytes) {
        small.insert(entry.path);
      }
    }
    std::map<std::string, std::string> kept;
    RETURN_IF_ERROR(CheckEntryHash(hash, HashTree(dir, *files, small, kept), dir));
    if (verified_hook_) verified_hook_(dir);
    const std::string manifest_path = absl::StrCat(dir, "/", kManifestFile);
    if (!kept.contains(kManifestFile)) {
      return absl::InvalidArgumentError(
          paths.contains(kManifestFile)
              ? absl::StrCat(manifest_path, " is not a regular file of at most ", kMaxManifestBytes,
                             " bytes")
              : absl::StrCat(dir, " is not a package: it has no ", kManifestFile, " at its top"));
    }
    absl::StatusOr<Manifest> manifest = ParseManifest(kept[kManifestFile], paths);
    if (!manifest.ok()) {
      return absl::InvalidArgumentError(
          absl::StrCat(manifest_path, " is invalid:\n", manifest.status().message()));
    }
    const size_t before = keep.size();
    for (const auto& [name, prompt] : manifest->prompts) {
      if (!prompt.path.empty()) keep.insert(prompt.path);
    }
    if (keep.size() != before) continue;  // the checked manifest names other files
    StoredPackage stored{hash, dir, std::move(*files), std::move(*manifest), {}};
    for (const auto& [name, prompt] : stored.manifest.prompts) {
      if (prompt.path.empty()) continue;
      const std::string full = absl::StrCat(dir, "/", prompt.path);
      auto text = kept.find(prompt.path);
      stored.prompt_texts.emplace(
          prompt.path, text != kept.end()
                           ? absl::StatusOr<std::string>(text->second)
                           : absl::StatusOr<std::string>(absl::InvalidArgumentError(absl::StrCat(
                                 full, " is not a regular file of at most ", kMaxPromptFileBytes,
                                 " bytes; a prompt's path names a regular file of the package"))));
    }
    return stored;
  }
  return absl::AbortedError(
      absl::StrCat("the store entry ", dir, " changed while it was read; try again"));
}

absl::StatusOr<std::vector<std::string>> PackageStore::Hashes() const {
  std::vector<std::string> hashes;
  std::error_code error;
  fs::path dir = fs::path(root_) / "sha256";
  if (!fs::exists(dir, error)) return hashes;
  for (const auto& child : fs::directory_iterator(dir, error)) {
    std::string name = child.path().filename().string();
    if (IsPackageHash(name)) hashes.push_back(name);
  }
  if (error) return absl::PermissionDeniedError(absl::StrCat("cannot list ", dir.string()));
  std::sort(hashes.begin(), hashes.end());
  return hashes;
}

absl::Status PackageStore::Remove(const std::string& hash) const {
  if (!IsPackageHash(hash)) {
    return absl::InvalidArgumentError(absl::StrCat("\"", hash, "\" is not a package hash"));
  }
  // Moved aside first, so that the entry vanishes at once, whole.
  ASSIGN_OR_RETURN(std::string staging, NewStagingDir());
  std::string aside = absl::StrCat(staging, "/removed");
  struct stat st;
  if (lstat(EntryDir(hash).c_str(), &st) == 0 && S_ISDIR(st.st_mode)) {
    RETURN_IF_ERROR(MakeTopWritable(EntryDir(hash)));
  }
  if (std::rename(EntryDir(hash).c_str(), aside.c_str()) != 0 && errno != ENOENT) {
    return absl::ErrnoToStatus(errno, absl::StrCat("cannot remove ", EntryDir(hash)));
  }
  return RemoveTree(staging);
}

absl::StatusOr<std::set<std::string>> PackageStore::KnownIndexes() const {
  std::set<std::string> indexes;
  std::string path = absl::StrCat(root_, "/", kIndexesFile);
  absl::StatusOr<std::string> text = ReadSmallFile(path, kMaxIndexesBytes);
  if (absl::IsNotFound(text.status())) return indexes;
  RETURN_IF_ERROR(text.status());
  absl::StatusOr<Json> json = ParseJson(*text);
  if (!json.ok() || !json->is_object() || !json->contains("indexes") ||
      !(*json)["indexes"].is_array()) {
    return absl::DataLossError(absl::StrCat(path,
                                            " is damaged; it should list the alias index "
                                            "files of this machine"));
  }
  for (const Json& entry : (*json)["indexes"]) {
    if (entry.is_string()) indexes.insert(entry.get<std::string>());
  }
  return indexes;
}

absl::Status PackageStore::RememberIndex(const std::string& index_path) const {
  ASSIGN_OR_RETURN(std::set<std::string> indexes, KnownIndexes());
  if (!indexes.insert(index_path).second) return absl::OkStatus();
  OrderedJson json;
  json["indexes"] = indexes;
  RETURN_IF_ERROR(EnsureDir(root_));
  return WriteFileAtomically(absl::StrCat(root_, "/", kIndexesFile), DumpJson(json, 2) + "\n");
}

}  // namespace raw::packages
