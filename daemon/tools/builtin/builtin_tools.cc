#include "daemon/tools/builtin/builtin_tools.h"

#include "common/status_macros.h"
#include "daemon/tools/registry.h"

namespace raw::tools {

absl::Status RegisterBuiltinTools(ToolRegistry& registry) {
  // One line per tool, in the spirit of tmux's cmd_table[].
  RETURN_IF_ERROR(registry.Register(builtin::MakeReadFileTool()));
  RETURN_IF_ERROR(registry.Register(builtin::MakeWriteFileTool()));
  RETURN_IF_ERROR(registry.Register(builtin::MakeBashTool()));
  return absl::OkStatus();
}

}  // namespace raw::tools
