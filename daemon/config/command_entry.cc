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
  // The program when it is a path, and the script an interpreter or `env`
  // runs (whether a path or a bare name, which an interpreter takes from its
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
