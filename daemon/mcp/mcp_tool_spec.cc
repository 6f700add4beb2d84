#include "daemon/mcp/mcp_tool_spec.h"

#include <utility>

#include "absl/strings/str_cat.h"
#include "common/logging.h"
#include "common/utf8.h"
#include "daemon/mcp/tool_naming.h"
#include "daemon/mcp/tool_result.h"
#include "daemon/tools/schema_validator.h"

namespace raw::mcp {
namespace {

std::shared_ptr<const tools::SchemaValidator> CompileValidator(const std::string& qualified_name,
                                                               const OrderedJson& schema) {
  absl::StatusOr<std::shared_ptr<const tools::SchemaValidator>> validator =
      tools::SchemaValidator::Compile(Json(schema));
  if (validator.ok()) return *std::move(validator);
  RAW_LOG(Warning) << "tool " << qualified_name << ": its input schema cannot be checked here ("
                   << validator.status().message() << "); the server checks the arguments";
  return *tools::SchemaValidator::Compile(Json{{"type", "object"}});
}

tools::ToolOutput Run(ManagedServer& server, const std::string& tool, const Json& arguments,
                      const tools::ToolContext& ctx) {
  std::function<void(const ProgressUpdate&)> progress;
  if (ctx.on_progress) {
    const size_t max_message = static_cast<size_t>(server.config().max_progress_bytes);
    progress = [&ctx, max_message](const ProgressUpdate& update) {
      // A server may send any number of long progress messages; only a
      // short line of each is worth showing (mcp_servers.<name>.max_progress_bytes).
      std::string message = update.message;
      if (message.size() > max_message) {
        message.resize(Utf8Floor(message, max_message > 3 ? max_message - 3 : 0));
        message += "...";
      }
      ctx.on_progress(tools::ToolProgress{update.progress, update.total, std::move(message)});
    };
  }
  absl::StatusOr<CallToolResult> result = server.Call(tool, arguments, ctx.cancel, progress);
  if (!result.ok()) {
    if (ctx.cancel.cancelled() || absl::IsCancelled(result.status())) {
      return tools::ToolOutput::Cancelled(
          absl::StrCat("The call to MCP server \"", server.name(), "\" was cancelled."));
    }
    return tools::ToolOutput::Error(
        absl::StrCat("MCP server \"", server.name(), "\": ", result.status().message()));
  }
  std::string text = RenderToolResult(*result);
  return result->is_error ? tools::ToolOutput::Error(std::move(text))
                          : tools::ToolOutput::Ok(std::move(text));
}

}  // namespace

tools::ToolSpec MakeToolSpec(const std::shared_ptr<ManagedServer>& server, const McpTool& tool) {
  tools::ToolSpec spec;
  spec.qualified_name = QualifiedToolName(server->name(), tool.name);
  spec.model_name = ModelFacingToolName(server->name(), tool.name);
  spec.description = !tool.description.empty() ? tool.description
                     : !tool.title.empty()
                         ? tool.title
                         : absl::StrCat("Tool ", tool.name, " of MCP server ", server->name());
  spec.input_schema = tool.input_schema;
  spec.read_only = tool.read_only();
  spec.validator = CompileValidator(spec.qualified_name, tool.input_schema);
  // A weak reference: the server caches its specs, and the manager owns it.
  spec.handler = [weak = std::weak_ptr<ManagedServer>(server), server_name = server->name(),
                  name = tool.name](const Json& arguments, const tools::ToolContext& ctx) {
    std::shared_ptr<ManagedServer> live = weak.lock();
    if (live == nullptr) {
      return tools::ToolOutput::Error(
          absl::StrCat("MCP server \"", server_name, "\" is no longer available"));
    }
    return Run(*live, name, arguments, ctx);
  };
  return spec;
}

}  // namespace raw::mcp
