#include "clients/dashboard/dashboard_args.h"

#include <optional>

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace raw::dashboard {

const char kDashboardUsage[] =
    "Usage: raw-dashboard [--port N] [--open] [--socket PATH]\n"
    "\n"
    "Serves the Raw dashboard on 127.0.0.1 and prints its URL with a fresh\n"
    "access token; runs until interrupted (Ctrl-C).\n"
    "\n"
    "  --port N        listen on port N (default: a free port, new on each run)\n"
    "  --open          open the URL in the browser (xdg-open)\n"
    "  --socket PATH   the daemon's socket (default: as raw finds it)\n"
    "  --help          this text\n"
    "  --version       the version\n";

absl::StatusOr<DashboardArgs> ParseDashboardArgs(const std::vector<std::string>& args) {
  DashboardArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    // --name VALUE and --name=VALUE both work for the options with a value.
    std::string name = arg;
    std::optional<std::string> inline_value;
    if (size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      inline_value = arg.substr(eq + 1);
    }
    auto value = [&]() -> absl::StatusOr<std::string> {
      if (inline_value) return *inline_value;
      if (i + 1 >= args.size()) return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
      return args[++i];
    };
    if (name == "--port") {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      uint32_t port = 0;
      if (!absl::SimpleAtoi(*v, &port) || port == 0 || port > 65535) {
        return absl::InvalidArgumentError(
            absl::StrCat("--port wants a port number from 1 to 65535, not '", *v, "'"));
      }
      out.port = static_cast<uint16_t>(port);
    } else if (name == "--socket") {
      absl::StatusOr<std::string> v = value();
      if (!v.ok()) return v.status();
      if (v->empty()) return absl::InvalidArgumentError("--socket needs a path");
      out.socket = *v;
    } else if (arg == "--open") {
      out.open = true;
    } else if (arg == "--help" || arg == "-h") {
      out.help = true;
    } else if (arg == "--version") {
      out.version = true;
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown argument '", arg, "'"));
    }
  }
  return out;
}

}  // namespace raw::dashboard
