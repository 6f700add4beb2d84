#include "daemon/packages/package_loader.h"

#include <utility>

#include "absl/status/status.h"
#include "absl/strings/str_cat.h"

namespace raw::packages {

PackageLoader::PackageLoader(std::string config_path, absl::StatusOr<PackageStore> store,
                             EntryCheck check)
    : config_path_(std::move(config_path)), store_(std::move(store)), check_(check) {}

absl::Status PackageLoader::Error(const std::string& path, absl::string_view message) {
  return absl::FailedPreconditionError(absl::StrCat(path, ": ", message));
}

absl::StatusOr<const StoredPackage*> PackageLoader::Get(const std::string& alias,
                                                        const std::string& path) {
  if (config_path_.empty()) {
    return Error(path, absl::StrCat("package \"", alias,
                                    "\" cannot be used by a config that is not read from a file"));
  }
  if (!store_.ok()) return store_.status();
  if (!index_) index_ = PackageIndex::Load(PackageIndex::PathForConfig(config_path_));
  if (!index_->ok()) return Error(path, index_->status().message());
  auto entry = (*index_)->aliases.find(alias);
  if (entry == (*index_)->aliases.end()) {
    return Error(path, absl::StrCat("no package is installed as \"", alias, "\" for ", config_path_,
                                    " (raw package install PATH --as ", alias, ")"));
  }
  const std::string& hash = entry->second.hash;
  auto read = entries_.find(alias);
  if (read == entries_.end()) {
    // kRehash: the manifest and prompt texts used are the bytes that were
    // hashed (ReadVerified), never a second read of the files.
    read = entries_
               .emplace(alias, check_ == EntryCheck::kRehash ? store_->ReadVerified(hash)
                                                             : store_->Read(hash))
               .first;
  }
  if (read->second.ok()) return &*read->second;
  const absl::Status& status = read->second.status();
  if (absl::IsNotFound(status)) {
    return Error(path, absl::StrCat("package \"", alias, "\" (", hash.substr(0, 12),
                                    ") is missing from the store; install it again"));
  }
  if (absl::IsDataLoss(status) || absl::IsAborted(status)) {
    return Error(
        path, absl::StrCat("package \"", alias, "\" is refused: ", status.message(),
                           "; run `raw package verify ", alias, "` and install the package again"));
  }
  return Error(path, absl::StrCat("package \"", alias, "\": ", status.message()));
}

}  // namespace raw::packages
