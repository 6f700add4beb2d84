#include "daemon/packages/package_list.h"

#include <utility>

#include "common/status_macros.h"

namespace raw::packages {

absl::StatusOr<std::vector<ListedPackage>> List(const PackageContext& ctx) {
  ASSIGN_OR_RETURN(PackageIndex index,
                   PackageIndex::Load(PackageIndex::PathForConfig(ctx.config_path)));
  std::vector<ListedPackage> listed;
  for (const auto& [alias, entry] : index.aliases) {
    ListedPackage item{alias, entry, {}, ""};
    absl::StatusOr<StoredPackage> stored = ctx.store.Read(entry.hash);
    if (stored.ok()) {
      item.exports = stored->manifest.ExportNames();
    } else {
      item.problem = std::string(stored.status().message());
    }
    listed.push_back(std::move(item));
  }
  return listed;
}

}  // namespace raw::packages
