#include "daemon/config/command_entry.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "daemon/config/config_path.h"

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
  if (context != nullptr && argv[0].find('/') != std::string::npos) {
    absl::StatusOr<std::string> program = ResolveConfigPath(argv[0], *context);
    if (!program.ok()) {
      problems.push_back({IndexPath(r.PathOf(key), 0), std::string(program.status().message())});
      return std::nullopt;
    }
    argv[0] = *std::move(program);
  }
  return argv;
}

}  // namespace raw::config
