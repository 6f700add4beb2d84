#include "clients/acp/acp_args.h"

#include "absl/strings/numbers.h"
#include "absl/strings/str_cat.h"

namespace raw::acp {

const char kAcpUsage[] =
    "Usage: raw-acp [--agent NAME] [--socket PATH] [--max-message-bytes N]\n"
    "       raw-acp --listen 127.0.0.1:PORT [...]\n"
    "\n"
    "Serves Raw sessions to an ACP client (an editor, or a parent agent) over\n"
    "standard input and output: one JSON-RPC message per line, nothing else on\n"
    "stdout; logs go to stderr. See docs/acp.md.\n"
    "\n"
    "  --agent NAME            the agent of new sessions (default: the configured default)\n"
    "  --socket PATH           rawd's socket (default: $RAW_SOCKET, then the usual place);\n"
    "                          rawd is started when nothing listens there\n"
    "  --max-message-bytes N   refuse longer messages (default 16777216, what rawd\n"
    "                          takes in one request)\n"
    "  --listen HOST:PORT      serve ACP over a WebSocket at ws://HOST:PORT/acp instead\n"
    "  --version, --help\n";

absl::StatusOr<AcpArgs> ParseAcpArgs(const std::vector<std::string>& args) {
  AcpArgs out;
  for (size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    std::string name = arg, value;
    bool inline_value = false;
    if (size_t eq = arg.find('='); arg.rfind("--", 0) == 0 && eq != std::string::npos) {
      name = arg.substr(0, eq);
      value = arg.substr(eq + 1);
      inline_value = true;
    }
    auto take = [&]() -> absl::StatusOr<std::string> {
      if (inline_value) return value;
      if (i + 1 >= args.size())
        return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
      return args[++i];
    };
    if (name == "--help" || name == "-h") {
      out.help = true;
    } else if (name == "--version") {
      out.version = true;
    } else if (name == "--agent" || name == "--socket" || name == "--listen" ||
               name == "--max-message-bytes") {
      absl::StatusOr<std::string> v = take();
      if (!v.ok()) return v.status();
      if (v->empty()) return absl::InvalidArgumentError(absl::StrCat(name, " needs a value"));
      if (name == "--agent") out.agent = *v;
      if (name == "--socket") out.socket = *v;
      if (name == "--listen") out.listen = *v;
      if (name == "--max-message-bytes") {
        uint64_t n = 0;
        if (!absl::SimpleAtoi(*v, &n) || n < 1024) {
          return absl::InvalidArgumentError(absl::StrCat(
              "--max-message-bytes must be a whole number of at least 1024, not '", *v, "'"));
        }
        out.max_message_bytes = static_cast<size_t>(n);
      }
    } else {
      return absl::InvalidArgumentError(absl::StrCat("unknown argument '", arg, "'"));
    }
  }
  return out;
}

}  // namespace raw::acp
