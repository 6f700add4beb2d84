#include "daemon/tools/builtin/builtin_tools.h"

#include "common/status_macros.h"
#include "daemon/tools/builtin/load_skill.h"
#include "daemon/tools/registry.h"

namespace raw::tools {

absl::Status RegisterBuiltinTools(ToolRegistry& registry) {
  // One line per tool, in the spirit of tmux's cmd_table[].
  RETURN_IF_ERROR(registry.Register(builtin::MakeReadFileTool()));
  RETURN_IF_ERROR(registry.Register(builtin::MakeWriteFileTool()));
  RETURN_IF_ERROR(registry.Register(builtin::MakeBashTool()));
  RETURN_IF_ERROR(registry.Register(builtin::MakeEditFileTool()));
  RETURN_IF_ERROR(registry.Register(builtin::MakeGlobTool()));
  RETURN_IF_ERROR(registry.Register(builtin::MakeGrepTool()));
  RETURN_IF_ERROR(registry.Register(builtin::MakeListDirTool()));
  RETURN_IF_ERROR(registry.Register(builtin::MakeWebFetchTool()));
  RETURN_IF_ERROR(registry.Register(builtin::MakeWebSearchTool()));
  RETURN_IF_ERROR(registry.Register(builtin::MakeLoadSkillTool()));
  RETURN_IF_ERROR(registry.Register(builtin::MakeRavenTaskTool()));
  return absl::OkStatus();
}

}  // namespace raw::tools
