#include "clients/cli/package_command.h"

#include "clients/cli/exec_sibling.h"

namespace raw::cli {

const std::vector<OptionSpec>& PackageOptionSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"--as", OptionSpec::Kind::kValue, ""},
      {"--config", OptionSpec::Kind::kValue, ""},
      {"--json", OptionSpec::Kind::kFlag, ""},
      {"--dry-run", OptionSpec::Kind::kFlag, ""},
      {"--help", OptionSpec::Kind::kFlag, "-h"},
  };
  return specs;
}

const char kPackageUsage[] =
    "usage: raw package install PATH|URL [--as ALIAS] [--json]\n"
    "       raw package list [--json]\n"
    "       raw package inspect ALIAS|PATH|URL [--json]\n"
    "       raw package remove ALIAS [--json]\n"
    "       raw package gc [--dry-run] [--json]\n"
    "       raw package verify [ALIAS] [--json]\n"
    "\n"
    "install  store a package (a folder, a .tar.gz/.tgz/.tar.zst, or an https URL\n"
    "         of one) and give it ALIAS (default: its name) in the config's index\n"
    "list     the config's aliases: name, version, hash, exports\n"
    "inspect  show a package's manifest, exports, files and hash (reads only)\n"
    "remove   drop ALIAS from the config's index\n"
    "gc       delete stored packages that no config's index refers to\n"
    "verify   re-hash stored packages and report any that changed\n"
    "\n"
    "Works without the daemon. Installing or inspecting never runs package code.\n"
    "\n"
    "options:\n"
    "  --as ALIAS      (install) the alias to use\n"
    "  --config PATH   the config file whose index is used (default:\n"
    "                  $XDG_CONFIG_HOME/raw/config.json)\n"
    "  --dry-run       (gc) list what would be deleted\n"
    "  --json          one JSON object per line\n";

int PackageCommand(const std::vector<std::string>& args, CliContext& ctx) {
  return ExecSibling("raw-package", "raw package", args, ctx, /*pass_socket=*/false);
}

}  // namespace raw::cli
