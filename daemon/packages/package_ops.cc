#include "daemon/packages/package_ops.h"

#include <sys/stat.h>

#include <set>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"
#include "common/status_macros.h"
#include "daemon/config/package_ref.h"
#include "daemon/packages/package_archive.h"
#include "daemon/packages/package_fetch.h"

namespace raw::packages {
namespace {

// A source made ready to read: the package's root folder, and the staging
// directory to remove afterwards ("" for a folder read in place).
struct OpenedSource {
  std::string root;
  std::string staging;
};

absl::StatusOr<OpenedSource> OpenSource(const PackageContext& ctx, const std::string& source) {
  if (IsUrl(source)) {
    RETURN_IF_ERROR(CheckPackageUrl(source));
    if (ctx.http == nullptr) {
      return absl::FailedPreconditionError("downloading packages is not available here");
    }
    ASSIGN_OR_RETURN(std::string staging, ctx.store.NewStagingDir());
    std::string file = absl::StrCat(staging, "/download", ArchiveSuffixOf(source));
    std::string unpacked = absl::StrCat(staging, "/unpacked");
    absl::Status status = FetchPackage(*ctx.http, source, file);
    if (status.ok() && mkdir(unpacked.c_str(), 0700) != 0) {
      status = absl::ErrnoToStatus(errno, absl::StrCat("cannot create ", unpacked));
    }
    if (status.ok()) status = UnpackArchive(file, unpacked, ctx.store.limits());
    if (!status.ok()) {
      (void)RemoveTree(staging);
      return status;
    }
    return OpenedSource{PackageRootIn(unpacked), staging};
  }
  struct stat st;
  if (stat(source.c_str(), &st) != 0) {
    return absl::NotFoundError(absl::StrCat(source, " does not exist"));
  }
  if (S_ISDIR(st.st_mode)) return OpenedSource{source, ""};
  if (!S_ISREG(st.st_mode) || !IsArchiveName(source)) {
    return absl::InvalidArgumentError(absl::StrCat(
        source, " is neither a package folder nor a .tar.gz, .tgz or .tar.zst archive"));
  }
  ASSIGN_OR_RETURN(std::string staging, ctx.store.NewStagingDir());
  absl::Status status = UnpackArchive(source, staging, ctx.store.limits());
  if (!status.ok()) {
    (void)RemoveTree(staging);
    return status;
  }
  return OpenedSource{PackageRootIn(staging), staging};
}

absl::StatusOr<IndexEntry> FindAlias(const PackageIndex& index, const std::string& alias) {
  auto it = index.aliases.find(alias);
  if (it == index.aliases.end()) {
    std::string known;
    for (const auto& [name, unused] : index.aliases) absl::StrAppend(&known, known.empty() ? "" : ", ", name);
    return absl::NotFoundError(absl::StrCat("no package is installed as \"", alias, "\" for ",
                                            index.path, " (installed: ",
                                            known.empty() ? "none" : known, ")"));
  }
  return it->second;
}

}  // namespace

absl::StatusOr<InstallResult> Install(const PackageContext& ctx, const std::string& source,
                                      const std::optional<std::string>& alias) {
  if (alias && !config::IsPackageAlias(*alias)) {
    return absl::InvalidArgumentError(
        absl::StrCat("\"", *alias, "\" is not a valid alias (lowercase letters, digits, '_', "
                     "'.' and '-', at most 64, starting with a letter or digit)"));
  }
  // Fetched, unpacked and checked in this process's own staging directory,
  // without the store's lock: a slow download holds up no other `raw
  // package` command. Another process's sweep spares the directory while
  // this process runs (PackageStore::SweepStaging).
  ASSIGN_OR_RETURN(OpenedSource opened, OpenSource(ctx, source));
  absl::StatusOr<InstallResult> result = [&]() -> absl::StatusOr<InstallResult> {
    ASSIGN_OR_RETURN(std::vector<TreeEntry> files, ScanTree(opened.root, ctx.store.limits()));
    ASSIGN_OR_RETURN(Manifest manifest, ReadManifest(opened.root, PathsOf(files)));
    RETURN_IF_ERROR(CheckExportFiles(opened.root, files, manifest));
    // Locked only to change the store and the index.
    ASSIGN_OR_RETURN(PackageStore::StoreLock lock, ctx.store.Lock());
    // What an interrupted install or inspect left goes first: a download
    // killed halfway would otherwise keep its space forever.
    RETURN_IF_ERROR(ctx.store.SweepStaging().status());
    PackageStore::AddOutcome outcome = PackageStore::AddOutcome::kPresent;
    ASSIGN_OR_RETURN(StoredPackage stored, ctx.store.Add(opened.root, &outcome));
    InstallResult installed;
    installed.alias = alias.value_or(stored.manifest.name);
    installed.hash = stored.hash;
    installed.stored = outcome != PackageStore::AddOutcome::kPresent;
    installed.repaired = outcome == PackageStore::AddOutcome::kRepaired;
    installed.manifest = stored.manifest;
    ASSIGN_OR_RETURN(PackageIndex index,
                     PackageIndex::Load(PackageIndex::PathForConfig(ctx.config_path)));
    installed.index_path = index.path;
    if (auto it = index.aliases.find(installed.alias); it != index.aliases.end()) {
      installed.previous_hash = it->second.hash;
    }
    index.aliases[installed.alias] =
        IndexEntry{installed.hash, source, stored.manifest.name, stored.manifest.version};
    // Recorded before the index is written, so gc never misses an index.
    RETURN_IF_ERROR(ctx.store.RememberIndex(index.path));
    RETURN_IF_ERROR(index.Save());
    return installed;
  }();
  if (!opened.staging.empty()) RETURN_IF_ERROR(RemoveTree(opened.staging));
  return result;
}

absl::StatusOr<Inspection> Inspect(const PackageContext& ctx, const std::string& what) {
  struct stat st;
  if (!IsUrl(what) && stat(what.c_str(), &st) != 0 && config::IsPackageAlias(what)) {
    ASSIGN_OR_RETURN(PackageIndex index,
                     PackageIndex::Load(PackageIndex::PathForConfig(ctx.config_path)));
    ASSIGN_OR_RETURN(IndexEntry entry, FindAlias(index, what));
    // Re-hashed, as an agent that used it would: an entry changed since it
    // was installed is never shown under the hash it no longer has.
    absl::StatusOr<StoredPackage> stored = ctx.store.ReadVerified(entry.hash);
    if (absl::IsDataLoss(stored.status()) || absl::IsAborted(stored.status())) {
      return absl::Status(
          stored.status().code(),
          absl::StrCat("package \"", what, "\" is refused: ", stored.status().message(),
                       "; run `raw package verify ", what, "` and install the package again"));
    }
    RETURN_IF_ERROR(stored.status());
    // An entry stored before its exports were checked is refused as its
    // source would be.
    RETURN_IF_ERROR(CheckExportFiles(stored->dir, stored->files, stored->manifest));
    return Inspection{stored->hash, std::move(stored->manifest), std::move(stored->files), what,
                      stored->dir};
  }
  ASSIGN_OR_RETURN(OpenedSource opened, OpenSource(ctx, what));
  absl::StatusOr<Inspection> result = [&]() -> absl::StatusOr<Inspection> {
    ASSIGN_OR_RETURN(std::vector<TreeEntry> files, ScanTree(opened.root, ctx.store.limits()));
    ASSIGN_OR_RETURN(Manifest manifest, ReadManifest(opened.root, PathsOf(files)));
    RETURN_IF_ERROR(CheckExportFiles(opened.root, files, manifest));
    ASSIGN_OR_RETURN(std::string hash, HashTree(opened.root, files));
    return Inspection{hash, std::move(manifest), std::move(files), "", ""};
  }();
  if (!opened.staging.empty()) RETURN_IF_ERROR(RemoveTree(opened.staging));
  return result;
}

absl::StatusOr<IndexEntry> Remove(const PackageContext& ctx, const std::string& alias) {
  ASSIGN_OR_RETURN(PackageStore::StoreLock lock, ctx.store.Lock());
  ASSIGN_OR_RETURN(PackageIndex index,
                   PackageIndex::Load(PackageIndex::PathForConfig(ctx.config_path)));
  ASSIGN_OR_RETURN(IndexEntry entry, FindAlias(index, alias));
  index.aliases.erase(alias);
  RETURN_IF_ERROR(index.Save());
  return entry;
}

absl::StatusOr<GcResult> CollectGarbage(const PackageContext& ctx, bool dry_run) {
  ASSIGN_OR_RETURN(PackageStore::StoreLock lock, ctx.store.Lock());
  ASSIGN_OR_RETURN(std::set<std::string> indexes, ctx.store.KnownIndexes());
  std::set<std::string> referenced;
  for (const std::string& path : indexes) {
    // A missing index refers to nothing; a damaged one stops gc (Load).
    ASSIGN_OR_RETURN(PackageIndex index, PackageIndex::Load(path));
    for (const auto& [alias, entry] : index.aliases) referenced.insert(entry.hash);
  }
  GcResult result;
  ASSIGN_OR_RETURN(result.staging_removed, ctx.store.SweepStaging(dry_run));
  ASSIGN_OR_RETURN(std::vector<std::string> hashes, ctx.store.Hashes());
  for (const std::string& hash : hashes) {
    if (referenced.contains(hash)) {
      result.kept.push_back(hash);
      continue;
    }
    if (!dry_run) RETURN_IF_ERROR(ctx.store.Remove(hash));
    result.removed.push_back(hash);
  }
  return result;
}

absl::StatusOr<std::vector<VerifyResult>> Verify(const PackageContext& ctx,
                                                 const std::optional<std::string>& alias) {
  ASSIGN_OR_RETURN(PackageIndex index,
                   PackageIndex::Load(PackageIndex::PathForConfig(ctx.config_path)));
  std::vector<VerifyResult> results;
  if (alias) {
    ASSIGN_OR_RETURN(IndexEntry entry, FindAlias(index, *alias));
    results.push_back({*alias, entry.hash, ctx.store.Verify(entry.hash)});
    return results;
  }
  for (const auto& [name, entry] : index.aliases) {
    results.push_back({name, entry.hash, ctx.store.Verify(entry.hash)});
  }
  return results;
}

}  // namespace raw::packages
