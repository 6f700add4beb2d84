#include "clients/package/package_actions.h"

#include <algorithm>
#include <map>
#include <optional>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "clients/cli/args.h"
#include "clients/cli/exit_codes.h"
#include "clients/cli/package_command.h"
#include "clients/present/terminal_text.h"
#include "common/json.h"
#include "common/paths.h"
#include "daemon/config/package_ref.h"
#include "daemon/http/curl_http_client.h"
#include "daemon/packages/package_fetch.h"
#include "daemon/packages/package_ops.h"

namespace raw::cli {
namespace {

using packages::PackageContext;

// Everything printed that a package, an archive or an index holds (its
// fields, paths, symlink targets, errors quoting them) goes through Shown:
// a package stored before the manifest's fields were checked, or an
// edited index, still cannot drive the terminal. (Each piece separately:
// a sanitized piece cannot join its neighbour into an escape sequence.)
std::string Shown(absl::string_view text) { return present::SanitizeForStream(text); }

std::string Short(const std::string& hash) { return Shown(hash.substr(0, 12)); }

std::string ShownList(const std::vector<std::string>& items) {
  std::vector<std::string> shown;
  shown.reserve(items.size());
  for (const std::string& item : items) shown.push_back(Shown(item));
  return absl::StrJoin(shown, ", ");
}

// One JSON document a line, with every character outside ASCII escaped as
// \uXXXX (control characters always are): the same values for a program,
// and nothing a terminal would act on or reorder when shown there.
void PrintJson(const OrderedJson& json, CliContext& ctx) {
  ctx.out << json.dump(-1, ' ', /*ensure_ascii=*/true, OrderedJson::error_handler_t::replace)
          << "\n";
}

OrderedJson ManifestJson(const packages::Manifest& m) {
  OrderedJson j;
  j["name"] = m.name;
  j["version"] = m.version;
  j["description"] = m.description;
  if (!m.homepage.empty()) j["homepage"] = m.homepage;
  if (!m.license.empty()) j["license"] = m.license;
  j["exports"] = m.ExportNames();
  return j;
}

const char* KindName(packages::TreeEntry::Kind kind) {
  switch (kind) {
    case packages::TreeEntry::Kind::kFile:
      return "file";
    case packages::TreeEntry::Kind::kExecutable:
      return "executable";
    case packages::TreeEntry::Kind::kSymlink:
      return "symlink";
  }
  return "file";
}

int Fail(const std::string& action, const absl::Status& status, CliContext& ctx) {
  ctx.err << "raw package " << Shown(action) << ": " << Shown(status.message()) << "\n";
  return ExitCodeFor(status);
}

// A local path argument resolves against the command's directory; a URL
// and an alias stay as they are.
std::string SourceArg(const std::string& arg, const CliContext& ctx) {
  if (packages::IsUrl(arg)) return arg;
  return AbsolutePath(arg, ctx.cwd);
}

int Install(const ParsedArgs& args, const PackageContext& pctx, bool json, CliContext& ctx) {
  if (args.positionals.size() != 2) {
    ctx.err << "raw package install: expected one PATH or URL\n";
    return kExitUsage;
  }
  auto result = packages::Install(pctx, SourceArg(args.positionals[1], ctx), args.Value("--as"));
  if (!result.ok()) return Fail("install", result.status(), ctx);
  if (json) {
    OrderedJson j;
    j["alias"] = result->alias;
    j["hash"] = result->hash;
    j["previous_hash"] = result->previous_hash;
    j["stored"] = result->stored;
    j["repaired"] = result->repaired;
    j["index"] = result->index_path;
    j["manifest"] = ManifestJson(result->manifest);
    PrintJson(j, ctx);
    return kExitOk;
  }
  ctx.out << "installed " << Shown(result->manifest.name) << " " << Shown(result->manifest.version)
          << " as " << Shown(result->alias) << " (sha256 " << Short(result->hash) << ")";
  if (!result->previous_hash.empty() && result->previous_hash != result->hash) {
    ctx.out << ", replacing " << Short(result->previous_hash);
  }
  if (!result->stored) ctx.out << "; the store held it already";
  if (result->repaired) ctx.out << "; the store's copy had changed and was replaced";
  ctx.out << "\n";
  return kExitOk;
}

int Inspect(const ParsedArgs& args, const PackageContext& pctx, bool json, CliContext& ctx) {
  if (args.positionals.size() != 2) {
    ctx.err << "raw package inspect: expected one ALIAS, PATH or URL\n";
    return kExitUsage;
  }
  const std::string& what = args.positionals[1];
  // A bare word that is a valid alias is read as an alias unless a file of
  // that name exists (Inspect decides); anything else is a path or a URL.
  const bool alias_like = config::IsPackageAlias(what) && what.find('/') == std::string::npos;
  const std::string source = alias_like ? what : SourceArg(what, ctx);
  auto result = packages::Inspect(pctx, source);
  if (!result.ok()) return Fail("inspect", result.status(), ctx);
  if (json) {
    OrderedJson j;
    if (!result->alias.empty()) j["alias"] = result->alias;
    j["hash"] = result->hash;
    if (!result->dir.empty()) j["dir"] = result->dir;
    j["manifest"] = ManifestJson(result->manifest);
    OrderedJson files = OrderedJson::array();
    for (const auto& f : result->files) {
      OrderedJson file;
      file["path"] = f.path;
      file["kind"] = KindName(f.kind);
      file["size"] = f.size;
      if (!f.link_target.empty()) file["target"] = f.link_target;
      files.push_back(std::move(file));
    }
    j["files"] = std::move(files);
    PrintJson(j, ctx);
    return kExitOk;
  }
  const auto& m = result->manifest;
  ctx.out << Shown(m.name) << " " << Shown(m.version) << "  sha256 " << Shown(result->hash) << "\n"
          << "  " << Shown(m.description) << "\n";
  if (!m.homepage.empty()) ctx.out << "  homepage: " << Shown(m.homepage) << "\n";
  if (!m.license.empty()) ctx.out << "  license: " << Shown(m.license) << "\n";
  if (!result->dir.empty()) ctx.out << "  stored in: " << Shown(result->dir) << "\n";
  ctx.out << "  exports: " << ShownList(m.ExportNames()) << "\n  files:\n";
  for (const auto& f : result->files) {
    ctx.out << "    " << Shown(f.path);
    if (f.kind == packages::TreeEntry::Kind::kExecutable) ctx.out << "  (executable)";
    if (f.kind == packages::TreeEntry::Kind::kSymlink) ctx.out << " -> " << Shown(f.link_target);
    ctx.out << "\n";
  }
  return kExitOk;
}

int List(const PackageContext& pctx, bool json, CliContext& ctx) {
  auto listed = packages::List(pctx);
  if (!listed.ok()) return Fail("list", listed.status(), ctx);
  if (!json && listed->empty()) {
    ctx.out << "no packages installed for " << Shown(pctx.config_path) << "\n";
    return kExitOk;
  }
  for (const auto& p : *listed) {
    if (json) {
      OrderedJson j;
      j["alias"] = p.alias;
      j["name"] = p.entry.name;
      j["version"] = p.entry.version;
      j["hash"] = p.entry.hash;
      j["source"] = p.entry.source;
      j["exports"] = p.exports;
      if (!p.problem.empty()) j["problem"] = p.problem;
      PrintJson(j, ctx);
      continue;
    }
    ctx.out << Shown(p.alias) << "  " << Shown(p.entry.name) << " " << Shown(p.entry.version)
            << "  sha256 " << Short(p.entry.hash) << "\n";
    if (!p.exports.empty()) ctx.out << "    exports: " << ShownList(p.exports) << "\n";
    if (!p.problem.empty()) ctx.out << "    problem: " << Shown(p.problem) << "\n";
  }
  return kExitOk;
}

int Remove(const ParsedArgs& args, const PackageContext& pctx, bool json, CliContext& ctx) {
  if (args.positionals.size() != 2) {
    ctx.err << "raw package remove: expected one ALIAS\n";
    return kExitUsage;
  }
  auto removed = packages::Remove(pctx, args.positionals[1]);
  if (!removed.ok()) return Fail("remove", removed.status(), ctx);
  if (json) {
    OrderedJson j;
    j["alias"] = args.positionals[1];
    j["hash"] = removed->hash;
    PrintJson(j, ctx);
  } else {
    ctx.out << "removed " << Shown(args.positionals[1]) << " (sha256 " << Short(removed->hash)
            << "); raw package gc frees its files when no config uses them\n";
  }
  return kExitOk;
}

int Gc(const ParsedArgs& args, const PackageContext& pctx, bool json, CliContext& ctx) {
  bool dry_run = args.Has("--dry-run");
  auto result = packages::CollectGarbage(pctx, dry_run);
  if (!result.ok()) return Fail("gc", result.status(), ctx);
  if (json) {
    OrderedJson j;
    j["dry_run"] = dry_run;
    j["removed"] = result->removed;
    j["kept"] = result->kept;
    j["staging_removed"] = result->staging_removed;
    PrintJson(j, ctx);
    return kExitOk;
  }
  for (const auto& name : result->staging_removed) {
    ctx.out << (dry_run ? "would remove staging/" : "removed staging/") << Shown(name) << "\n";
  }
  for (const auto& hash : result->removed) {
    ctx.out << (dry_run ? "would remove " : "removed ") << Shown(hash) << "\n";
  }
  ctx.out << result->removed.size() << (dry_run ? " to remove, " : " removed, ")
          << result->kept.size() << " kept\n";
  return kExitOk;
}

int Verify(const ParsedArgs& args, const PackageContext& pctx, bool json, CliContext& ctx) {
  std::optional<std::string> alias;
  if (args.positionals.size() == 2) alias = args.positionals[1];
  if (args.positionals.size() > 2) {
    ctx.err << "raw package verify: expected at most one ALIAS\n";
    return kExitUsage;
  }
  auto results = packages::Verify(pctx, alias);
  if (!results.ok()) return Fail("verify", results.status(), ctx);
  bool all_ok = true;
  for (const auto& r : *results) {
    all_ok = all_ok && r.status.ok();
    if (json) {
      OrderedJson j;
      j["alias"] = r.alias;
      j["hash"] = r.hash;
      j["ok"] = r.status.ok();
      if (!r.status.ok()) j["problem"] = std::string(r.status.message());
      PrintJson(j, ctx);
      continue;
    }
    ctx.out << Shown(r.alias) << "  " << Short(r.hash) << "  "
            << (r.status.ok() ? std::string("ok") : Shown(r.status.message())) << "\n";
  }
  if (!all_ok) {
    ctx.err << "raw package verify: drift found; install the package again (raw package install "
               "SOURCE --as ALIAS)\n";
    return kExitError;
  }
  return kExitOk;
}

// Refuses an option that `action` does not take: an option meant for
// another action (`remove --dry-run`, `verify --as`) would otherwise be
// ignored, and the command would do what it was not asked to (remove for
// real) or something else than asked.
absl::Status CheckOptionsOf(const std::string& action, const ParsedArgs& args) {
  // The options of one action only; --config, --json and --help go with any.
  static const std::map<std::string, std::string> kOwner = {{"--as", "install"},
                                                            {"--dry-run", "gc"}};
  std::vector<std::string> given(args.flags.begin(), args.flags.end());
  for (const auto& [name, value] : args.values) given.push_back(name);
  for (const std::string& option : given) {
    auto owner = kOwner.find(option);
    if (owner == kOwner.end() || owner->second == action) continue;
    return absl::InvalidArgumentError(absl::StrCat(option, " does not apply to ", action,
                                                   " (it is an option of raw package ",
                                                   owner->second, ")"));
  }
  return absl::OkStatus();
}

}  // namespace

int RunPackage(const std::vector<std::string>& args, CliContext& ctx) {
  auto parsed = ParseArgs(args, PackageOptionSpecs(), OptionOrder::kAnywhere);
  if (!parsed.ok()) {
    ctx.err << "raw package: " << Shown(parsed.status().message()) << "\n"
            << "Run 'raw package --help' for usage.\n";
    return kExitUsage;
  }
  if (parsed->Has("--help")) {
    ctx.out << kPackageUsage;
    return kExitOk;
  }
  const std::string action = parsed->positionals.empty() ? "" : parsed->positionals[0];
  static const std::vector<std::string> kActions = {"install", "list", "inspect",
                                                    "remove",  "gc",   "verify"};
  if (std::find(kActions.begin(), kActions.end(), action) == kActions.end()) {
    ctx.err << (action.empty()
                    ? std::string("raw package: which action? ")
                    : absl::StrCat("raw package: unknown action '", Shown(action), "' (expected "))
            << absl::StrJoin(kActions, ", ") << (action.empty() ? "" : ")") << "\n";
    return kExitUsage;
  }
  if (absl::Status options = CheckOptionsOf(action, *parsed); !options.ok()) {
    ctx.err << "raw package " << action << ": " << Shown(options.message()) << "\n"
            << "Run 'raw package --help' for usage.\n";
    return kExitUsage;
  }
  auto store = packages::PackageStore::ForUser(ctx.connect.env);
  if (!store.ok()) return Fail(action, store.status(), ctx);
  std::string config_path;
  if (auto given = parsed->Value("--config")) {
    config_path = AbsolutePath(*given, ctx.cwd);
  } else {
    auto paths = ResolvePaths(ctx.connect.env);
    if (!paths.ok()) return Fail(action, paths.status(), ctx);
    config_path = paths->config_file;
  }
  http::CurlHttpClient::Options http_options;
  http_options.ca_file = ctx.connect.env("SSL_CERT_FILE").value_or("");
  http::CurlHttpClient http(std::move(http_options));
  PackageContext pctx{*store, config_path, &http};
  const bool json = parsed->Has("--json");
  if (action == "install") return Install(*parsed, pctx, json, ctx);
  if (action == "inspect") return Inspect(*parsed, pctx, json, ctx);
  if (action == "list") return List(pctx, json, ctx);
  if (action == "remove") return Remove(*parsed, pctx, json, ctx);
  if (action == "gc") return Gc(*parsed, pctx, json, ctx);
  return Verify(*parsed, pctx, json, ctx);
}

}  // namespace raw::cli
