// ListPackages: the daemon's worker pool reads the index and the store
// entries (SessionManager::ListPackages); the call finishes from there.
#include "daemon/api/rpc/handlers.h"

namespace raw::api::rpc {

UnaryReactor* ListPackages(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                           const raw::v1::ListPackagesRequest& /*request*/,
                           raw::v1::ListPackagesResponse* response) {
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.ListPackages([reactor, response](absl::StatusOr<loop::PackageListing> listing) {
    if (!listing.ok()) {
      FinishWith(reactor, listing.status());
      return;
    }
    response->set_index_path(listing->index_path);
    for (const packages::ListedPackage& p : listing->packages) {
      raw::v1::PackageInfo* info = response->add_packages();
      info->set_alias(p.alias);
      info->set_name(p.entry.name);
      info->set_version(p.entry.version);
      info->set_hash(p.entry.hash);
      info->set_source(p.entry.source);
      for (const std::string& e : p.exports) info->add_exports(e);
      info->set_problem(p.problem);
    }
    FinishWith(reactor, absl::OkStatus());
  });
  return reactor;
}

}  // namespace raw::api::rpc
