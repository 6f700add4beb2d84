// Fuzz target: arbitrary bytes as a bash command line, the text command
// rules judge. SplitShellCommand and ParseShellLine must agree — both
// refuse, or both give the same commands in the same order — every command
// they give is non-empty, and giving the same line twice gives the same
// answer (rules must not depend on anything but the text).
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/tools/policy/command_splitter.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

void Check(bool ok, const char* what) { raw::fuzz::Check(ok, "shell_fuzz", what); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace policy = raw::tools::policy;
  const std::string_view line(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<std::vector<std::string>> split = policy::SplitShellCommand(line);
  absl::StatusOr<policy::ShellLine> parsed = policy::ParseShellLine(line);
  Check(split.ok() == parsed.ok(), "the splitter and the parser disagree on refusing");
  if (!split.ok()) {
    Check(!split.status().message().empty(), "a refusal says nothing");
    return 0;
  }
  Check(split->size() == parsed->commands.size(), "different numbers of commands");
  for (size_t i = 0; i < split->size(); ++i) {
    Check(!(*split)[i].empty(), "an empty command");
    Check((*split)[i] == parsed->commands[i].Text(), "the same command reads differently");
  }
  absl::StatusOr<std::vector<std::string>> again = policy::SplitShellCommand(line);
  Check(again.ok() && *again == *split, "the same line split differently");
  return 0;
}
