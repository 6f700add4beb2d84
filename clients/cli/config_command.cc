#include "clients/cli/config_command.h"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <cstdio>
#include <cstring>

#include "absl/strings/str_cat.h"
#include "clients/cli/args.h"
#include "clients/cli/exit_codes.h"
#include "clients/lib/assets.h"
#include "clients/lib/daemon_launcher.h"
#include "common/file_trust.h"
#include "common/json.h"
#include "common/paths.h"
#include "common/utf8.h"

namespace raw::cli {
namespace {

const std::vector<OptionSpec>& ConfigSpecs() {
  static const std::vector<OptionSpec> specs = {
      {"--config", OptionSpec::Kind::kValue, ""},
      {"--force", OptionSpec::Kind::kFlag, ""},
      {"--socket", OptionSpec::Kind::kValue, ""},
      {"--help", OptionSpec::Kind::kFlag, "-h"},
  };
  return specs;
}

absl::Status WriteAll(int fd, const std::string& text, const std::string& path) {
  size_t done = 0;
  while (done < text.size()) {
    ssize_t n = write(fd, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) {
      return absl::InternalError(absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
    }
    done += static_cast<size_t>(n);
  }
  if (fsync(fd) != 0) {
    return absl::InternalError(absl::StrCat("cannot write ", path, ": ", std::strerror(errno)));
  }
  return absl::OkStatus();
}

int Check(client::RawClient& client, const std::optional<std::string>& path, CliContext& ctx) {
  v1::CheckConfigRequest request;
  if (path) request.set_path(*path);
  auto result = client.CheckConfig(request);
  if (!result.ok()) {
    ctx.err << "raw config check: " << result.status().message() << "\n";
    return ExitCodeFor(result.status());
  }
  if (!result->exists() && path) {
    ctx.err << "raw config check: " << result->path() << " does not exist\n";
    return kExitUsage;
  }
  // Not problems of the config's content, so they change no exit status.
  for (const std::string& warning :
       FileTrustWarnings("the config file", result->path(), getuid())) {
    ctx.err << "raw config check: warning: " << warning << "\n";
  }
  if (result->errors().empty()) {
    ctx.out << "ok\n";
    if (!result->exists()) {
      ctx.err << "raw config check: " << result->path()
              << " does not exist; the built-in defaults apply (raw config init writes one)\n";
    }
    return kExitOk;
  }
  for (const auto& error : result->errors()) ctx.out << error << "\n";
  ctx.err << "raw config check: " << result->errors_size()
          << (result->errors_size() == 1 ? " problem in " : " problems in ") << result->path()
          << "\n";
  return kExitUsage;
}

// The config schema installed with this `raw`, as a file: URL; "" when it
// is not there.
std::string InstalledConfigSchema(const CliContext& ctx) {
  const std::string path = client::FindAsset(
      ctx.connect.self_exe.empty() ? client::SelfExecutable() : ctx.connect.self_exe,
      "config.schema.json");
  return path.empty() ? "" : absl::StrCat("file://", path);
}

int Init(client::RawClient& client, const std::optional<std::string>& path, Overwrite overwrite,
         CliContext& ctx) {
  auto tmpl = client.GetConfigTemplate(v1::GetConfigTemplateRequest());
  if (!tmpl.ok()) {
    ctx.err << "raw config init: " << tmpl.status().message() << "\n";
    return ExitCodeFor(tmpl.status());
  }
  // The file goes to the client's own config path: a path the daemon names
  // is never written to.
  std::string target;
  if (path) {
    target = *path;
  } else {
    auto paths = ResolvePaths(ctx.connect.env);
    if (!paths.ok()) {
      ctx.err << "raw config init: " << paths.status().message() << "\n";
      return kExitUsage;
    }
    target = paths->config_file;
  }
  if (absl::Status valid = ValidateConfigTemplate(tmpl->text()); !valid.ok()) {
    ctx.err << "raw config init: the daemon's starting config was not written: "
            << valid.message() << "\n";
    return ExitCodeFor(valid);
  }
  absl::Status written =
      WriteConfigFile(target, WithSchemaReference(tmpl->text(), InstalledConfigSchema(ctx)),
                      overwrite);
  if (absl::IsAlreadyExists(written)) {
    ctx.err << "raw config init: " << target
            << " already exists; use --force to replace it\n";
    return kExitUsage;
  }
  if (!written.ok()) {
    ctx.err << "raw config init: " << written.message() << "\n";
    return ExitCodeFor(written);
  }
  ctx.out << "wrote " << target << "\n";
  return kExitOk;
}

}  // namespace

const char kConfigUsage[] =
    "usage: raw config check [--config PATH]\n"
    "       raw config init [--force] [--config PATH]\n"
    "\n"
    "check  validate the config file (default: the daemon's own) and print \"ok\"\n"
    "       or one problem per line; exit status 2 when there are problems\n"
    "init   write a commented starting config to the default path (or PATH);\n"
    "       an existing file is kept unless --force is given\n"
    "\n"
    "options:\n"
    "  --config PATH   the config file to check or write\n"
    "  --force         (init) replace an existing file\n"
    "  --socket PATH   daemon socket\n";

std::string WithSchemaReference(const std::string& text, const std::string& schema_url) {
  if (schema_url.empty()) return text;
  // The object's opening brace stands alone on its line; comments precede it.
  const size_t brace = text.find("\n{\n");
  const size_t at = text.rfind("{\n", 0) == 0 ? 2 : brace == std::string::npos ? 0 : brace + 3;
  if (at == 0) return text;
  return absl::StrCat(text.substr(0, at),
                      "  // The JSON Schema of this file, for editors' completion and checks.\n"
                      "  \"$schema\": ",
                      Json(schema_url).dump(), ",\n\n", text.substr(at));
}

absl::Status ValidateConfigTemplate(const std::string& text) {
  if (text.size() > kMaxConfigTemplateBytes) {
    return absl::DataLossError(absl::StrCat("it is ", text.size(), " bytes long; at most ",
                                            kMaxConfigTemplateBytes, " are accepted"));
  }
  if (size_t valid = ValidUtf8Prefix(text); valid != text.size()) {
    return absl::DataLossError(absl::StrCat("it is not valid UTF-8 (at byte ", valid, ")"));
  }
  for (size_t i = 0; i < text.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    if ((c < 0x20 && c != '\n' && c != '\t') || c == 0x7f) {
      return absl::DataLossError(
          absl::StrCat("it holds the control character 0x", absl::Hex(c), " at byte ", i));
    }
  }
  absl::StatusOr<Json> parsed = ParseJson(text, /*allow_comments=*/true);
  if (!parsed.ok()) {
    return absl::DataLossError(absl::StrCat("it is not JSON: ", parsed.status().message()));
  }
  if (!parsed->is_object()) {
    return absl::DataLossError("it is not a JSON object");
  }
  return absl::OkStatus();
}

absl::Status WriteConfigFile(const std::string& path, const std::string& text,
                             Overwrite overwrite) {
  if (absl::Status dir = EnsureDir(Dirname(path)); !dir.ok()) return dir;
  if (overwrite == Overwrite::kRefuse) {
    int fd = open(path.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
    if (fd < 0 && errno == EEXIST) return absl::AlreadyExistsError(absl::StrCat(path, " exists"));
    if (fd < 0) {
      return absl::PermissionDeniedError(
          absl::StrCat("cannot create ", path, ": ", std::strerror(errno)));
    }
    absl::Status status = WriteAll(fd, text, path);
    close(fd);
    if (!status.ok()) unlink(path.c_str());
    return status;
  }
  std::string tmp = absl::StrCat(path, ".tmp.", getpid());
  int fd = open(tmp.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
  if (fd < 0) {
    return absl::PermissionDeniedError(
        absl::StrCat("cannot create ", tmp, ": ", std::strerror(errno)));
  }
  absl::Status status = WriteAll(fd, text, tmp);
  close(fd);
  if (status.ok() && std::rename(tmp.c_str(), path.c_str()) != 0) {
    status = absl::PermissionDeniedError(
        absl::StrCat("cannot replace ", path, ": ", std::strerror(errno)));
  }
  if (!status.ok()) unlink(tmp.c_str());
  return status;
}

int ConfigCommand(const std::vector<std::string>& args, CliContext& ctx) {
  auto parsed = ParseArgs(args, ConfigSpecs(), OptionOrder::kAnywhere);
  if (!parsed.ok()) {
    ctx.err << "raw config: " << parsed.status().message() << "\n"
            << "Run 'raw config --help' for usage.\n";
    return kExitUsage;
  }
  if (parsed->Has("--help")) {
    ctx.out << kConfigUsage;
    return kExitOk;
  }
  const auto& pos = parsed->positionals;
  std::string action = pos.empty() ? "" : pos[0];
  if (action != "check" && action != "init") {
    ctx.err << (action.empty() ? std::string("raw config: which action? check or init")
                               : absl::StrCat("raw config: unknown action '", action,
                                              "' (expected check or init)"))
            << "\n"
            << "Run 'raw config --help' for usage.\n";
    return kExitUsage;
  }
  if (pos.size() > 1) {
    ctx.err << "raw config " << action << ": unexpected argument '" << pos[1] << "'\n";
    return kExitUsage;
  }
  if (parsed->Has("--force") && action != "init") {
    ctx.err << "raw config check: --force applies to init only\n";
    return kExitUsage;
  }
  std::optional<std::string> path;
  if (auto given = parsed->Value("--config")) {
    if (given->empty()) {
      ctx.err << "raw config " << action << ": --config needs a path\n";
      return kExitUsage;
    }
    // The daemon runs in another directory: send it an absolute path.
    path = AbsolutePath(*given, ctx.cwd);
  }
  client::ConnectOptions connect = ctx.connect;
  if (auto socket = parsed->Value("--socket")) connect.socket_path = *socket;
  auto client = client::Connect(connect);
  if (!client.ok()) {
    ctx.err << "raw config " << action << ": " << client.status().message() << "\n";
    return ExitCodeFor(client.status());
  }
  if (action == "check") return Check(*client, path, ctx);
  return Init(*client, path,
              parsed->Has("--force") ? Overwrite::kReplace : Overwrite::kRefuse, ctx);
}

const std::vector<OptionSpec>& ConfigOptionSpecs() { return ConfigSpecs(); }

}  // namespace raw::cli
