#include "daemon/config/command_entry.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "daemon/config/config_path.h"
#include "daemon/config/script_args.h"

namespace raw::config {

std::optional<std::vector<std::string>> ReadCommandArgv(FieldReader& r, absl::string_view key,
                                                        absl::string_view what,
                                                        const ParseContext* context,
                                                        std::vector<ConfigProblem>& problems) {
  const Json* command = r.Find(key);
  if (command == nullptr) return std::nullopt;
  if (!command->is_array() || command->empty()) {
    r.Report(key, absl::StrCat("expected ", what, ", got ", DescribeValue(*command)));
    return std::nullopt;
  }
  std::vector<std::string> argv;
  for (size_t i = 0; i < command->size(); ++i) {
    const Json& arg = (*command)[i];
    if (!arg.is_string() || (i == 0 && arg.get_ref<const std::string&>().empty())) {
      problems.push_back({IndexPath(r.PathOf(key), i),
                          absl::StrCat("expected ", i == 0 ? "a program name or path" : "a string",
                                       ", got ", DescribeValue(arg))});
      return std::nullopt;
    }
    argv.push_back(arg.get<std::string>());
  }
  if (context == nullptr) return argv;
  // An argument that may name a file the command runs but cannot be
  // resolved (behind env -C, in env -S's string, after xargs) would be
  // taken from the directory the command runs in: the command is refused.
  const std::vector<UnresolvedArgument> unresolved = UnresolvedArguments(argv);
  if (!unresolved.empty()) {
    const UnresolvedArgument& u = unresolved.front();
    problems.push_back(
        {IndexPath(r.PathOf(key), u.index),
         absl::StrCat("\"", argv[u.index], "\" is a relative path ", u.reason,
                      ", so it is not resolved against the config's directory and would name a "
                      "file of the directory the command runs in; write it as an absolute path")});
    return std::nullopt;
  }
  // The program when it is a path, and the script an interpreter runs,
  // also behind a wrapper (whether a path or a bare name, which an interpreter takes from its
  // current directory).
  std::vector<size_t> paths = ScriptArguments(argv);
  if (argv[0].find('/') != std::string::npos) paths.insert(paths.begin(), 0);
  for (size_t i : paths) {
    absl::StatusOr<std::string> path = ResolveConfigPath(argv[i], *context);
    if (!path.ok()) {
      problems.push_back({IndexPath(r.PathOf(key), i), std::string(path.status().message())});
      return std::nullopt;
    }
    argv[i] = *std::move(path);
  }
  return argv;
}

}  // namespace raw::config
