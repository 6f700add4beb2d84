// Tool: one handler the model can call, described by a ToolSpec.
//
// Every tool has a qualified name ("builtin/read_file"; later
// "mcp/<server>/<tool>") and a model-facing name matching
// ^[a-zA-Z0-9_-]{1,64}$ that every provider accepts.
//
// Handler contract: runs on the session's turn thread; may block; must
// return promptly once `ctx.cancel` is cancelled (killing whatever it
// started), reporting ToolOutput{status = kCancelled}. It never throws. The
// arguments it gets were already validated against `input_schema`.
#pragma once

#include <sys/stat.h>

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/cancel_token.h"
#include "common/json.h"
#include "daemon/config/config.h"
#include "daemon/events/session_event.h"

namespace raw::http {
class HttpClient;
}
namespace raw::skills {
class SkillSet;
}
namespace raw::raven {
class DraftGenerator;
}

namespace raw::tools {

class SchemaValidator;

// A progress report of a running call (MCP progress notifications).
struct ToolProgress {
  double progress = 0;
  std::optional<double> total;
  std::string message;
};

struct ToolContext {
  std::string cwd;  // the session's working directory (absolute)
  const config::ToolSettings& settings;
  const CancelToken& cancel;
  // For tools that fetch URLs (builtin/web_fetch); null = none available.
  http::HttpClient* http = nullptr;
  // The agent's selected skills (builtin/load_skill); null = none.
  const skills::SkillSet* skills = nullptr;
  // Receives progress reports while the call runs; null = not reported.
  std::function<void(const ToolProgress&)> on_progress = nullptr;
  // For tools that walk a tree below their path (grep, glob, list_dir):
  // whether the agent's rules withhold the entry at this absolute path from
  // the call (policy/walk_filter.h); a withheld directory is not entered.
  // Null = nothing is withheld.
  std::function<bool(const std::string& path)> withheld = nullptr;
  // For a tool that reads or edits a file it opened (read_file, edit_file,
  // grep of one file): why that file, as fstat(2) of the opened descriptor
  // finds it (`opened`; `path` only names it), is another name (a hard
  // link) of a protected file (policy/protected_links.h), naming that file;
  // nullopt when it is not. A link made after the call was judged (by a bash
  // call of the same batch) is caught so, and the file judged is the file
  // read: no lookup by name follows the open. Asked only when the file has
  // several links. Null = no built-in rule protects a file.
  std::function<std::optional<std::string>(const std::string& path, const struct stat& opened)>
      protected_link = nullptr;
  // For a path tool: the path its rules judged (policy::ResolveRulePath of
  // the path argument: absolute, free of symlinks). The file tools open
  // exactly this path and refuse symlinks on the way (builtin/
  // checked_open.h); nullopt = the tool resolves the argument the same way.
  std::optional<std::string> judged_path = std::nullopt;
  // builtin/load_skill reports here the skill whose SKILL.md text it
  // returned, with the hash of exactly that text (skills::SkillTextHash), so
  // a later change notice compares against what the model saw. Null = none.
  std::function<void(const std::string& name, const std::string& text_hash)> on_skill_loaded =
      nullptr;
  // Names of the daemon's environment that commands the tool starts
  // (builtin/bash) must not get: API keys and secret variables
  // (config/withheld_env.h), less what the agent passes back.
  std::set<std::string> withheld_env{};
  // The session the call belongs to ("" in contexts without one).
  std::string session_id{};
  // The non-empty host-side metadata (ToolOutput::meta) of this tool's
  // earlier results in the session, oldest first, read from the store; null
  // = none available. builtin/raven_task rebuilds its Task book from it.
  std::function<absl::StatusOr<std::vector<std::string>>()> prior_meta = nullptr;
  // The deployment's Raven and web search settings as they are now
  // (config::RavenSettings; builtin/raven_task, builtin/web_search); null =
  // the defaults (no search backend, no draft routes).
  const config::RavenSettingsSource* raven_settings = nullptr;
  // The value of a config variable by name (the brave search backend's
  // key); null = variables cannot be read here.
  std::function<absl::StatusOr<std::string>(const std::string& name)> resolve_variable = nullptr;
  // Draft Variants over the configured model routes (builtin/raven_task's
  // draft action); null = drafting is unavailable.
  raven::DraftGenerator* drafter = nullptr;
  // For a tool that fetches URLs of its own (ToolSpec::fetched_urls_of):
  // why the agent's rules deny fetching `url` (a deny url rule,
  // policy::RuleSet::UrlRefusalFor), nullopt when none does. The tool asks
  // before every request, redirects included, and sends none that is
  // refused. Null = nothing is refused.
  std::function<std::optional<std::string>(const std::string& url)> url_refused = nullptr;
  // What the session's store keeps of `text`: known secret values replaced
  // (SessionLog::Redact). For a tool whose ToolOutput::meta must read back
  // as it was written (raven_task's Task record). Null = nothing replaced.
  std::function<std::string(const std::string& text)> redact = nullptr;
  // For a tool that cuts its output: where its cuts must move so that they
  // split no known secret value (the store hides secrets after the cut, so
  // a cut through one would keep part of it). `safe_end(text)`: the most of
  // `text`'s front that may be kept (vars::SafeRedactionCut);
  // `safe_start(text, start)`: the first position at or after `start` that
  // `text`'s end may be kept from (vars::SafeRedactionStart). Null = no
  // secret is known.
  std::function<size_t(std::string_view text)> safe_end = nullptr;
  std::function<size_t(std::string_view text, size_t start)> safe_start = nullptr;
};

// ctx.protected_link asked about a file a tool opened (`opened`: fstat of
// its descriptor), only when the file has several links: a file with one
// link is no other file's second name.
inline std::optional<std::string> ProtectedLink(const ToolContext& ctx, const std::string& path,
                                                const struct stat& opened) {
  if (opened.st_nlink <= 1 || !ctx.protected_link) return std::nullopt;
  return ctx.protected_link(path, opened);
}

struct ToolOutput {
  events::ToolStatus status = events::ToolStatus::kOk;
  std::string content;  // what the model receives
  // What clients show instead of `content` when set (for example the unified
  // diff of builtin/edit_file); never sent to the model.
  std::string display;
  // Host-side result metadata: a tool's own record (JSON text), stored with
  // the result and handed back to the same tool in later calls of the
  // session (ToolContext::prior_meta); never sent to the model. Empty = none.
  std::string meta;

  static ToolOutput Ok(std::string content) {
    return {events::ToolStatus::kOk, std::move(content), {}, {}};
  }
  static ToolOutput Error(std::string content) {
    return {events::ToolStatus::kError, std::move(content), {}, {}};
  }
  static ToolOutput Cancelled(std::string content) {
    return {events::ToolStatus::kCancelled, std::move(content), {}, {}};
  }
};

using ToolHandler = std::function<ToolOutput(const Json& arguments, const ToolContext& ctx)>;

// Which argument the `command`, `path` and `url` patterns of rules are matched
// against (see daemon/tools/policy).
enum class RuleSubject {
  kNone,     // rules match on the tool name only
  kCommand,  // a shell command line, split into its simple commands
  kPath,     // a file path, resolved against the session's cwd
  kUrl,      // a URL, normalized as it is fetched (builtin/web_fetch)
};

struct ToolSpec {
  std::string qualified_name;
  std::string model_name;
  std::string description;
  OrderedJson input_schema;
  // Conservative: true only for tools that cannot change anything. Read-only
  // tools are allowed by default; the others ask.
  bool read_only = false;
  // For a tool that is not read-only: true for a call (its arguments, an
  // object) that changes nothing outside the tool's own record in the
  // session and sends nothing out of the machine; the default approval mode
  // allows such a call as it does a read-only tool's. Null = never.
  std::function<bool(const Json& arguments)> call_stays_local;
  RuleSubject rule_subject = RuleSubject::kNone;
  std::string rule_argument;  // the string argument rules see, e.g. "command"
  // For a tool whose arguments together say where it works (glob's pattern
  // may start below `path`, or at "/"): the subject rules see instead of
  // `rule_argument`'s value, given the call's arguments (an object); nullopt
  // when they name none. Null = `rule_argument`'s value.
  std::function<std::optional<std::string>(const Json& arguments)> rule_subject_of;
  // For a tool of rule subject kNone that fetches URLs beside its own work
  // (builtin/raven_task's Source checks): the URLs a call names that it may
  // send requests to. The url rules of this tool and of builtin/web_fetch
  // (a fetch is a fetch) are put to each, first match deciding: a deny
  // denies the call and an ask makes it ask, whatever the tool's own rules
  // and the approval mode say of it; an allow leaves the call to them. Such
  // a tool offers no "allow for this session": a rule for the whole tool
  // would let every later call send any URL unasked. Null = none.
  std::function<std::vector<std::string>(const Json& arguments)> fetched_urls_of;
  ToolHandler handler;
  // Text the system prompt gains when the tool is selected (after the
  // agent's prompt, in selection order, before the skills listing); ""
  // = none. A constant, never state: it is part of the cached prefix, so it
  // must not change between requests.
  std::string prompt_section;
  // At the start of a turn whose model context holds none of this tool's
  // results: text for the user's context item, made from the tool's earlier
  // result metadata in the session (as ToolContext::prior_meta, oldest
  // first); "" = nothing to add. The turn also leaves it out when the
  // context already holds exactly that text. Null = never asked.
  std::function<std::string(const std::vector<std::string>& prior_meta)> turn_context;
  // For a call of this tool that never reached its handler — its arguments
  // were refused (cut off, too large, not JSON, not an object, not matching
  // input_schema) or the turn was cancelled before it ran: text the
  // dispatcher appends, on a line of its own, to that error or cancelled
  // result, made from the tool's earlier result metadata in the session (as
  // ToolContext::prior_meta, oldest first); "" = nothing to add. Null =
  // never asked. What the handler returns, it completes itself.
  std::function<std::string(const std::vector<std::string>& prior_meta)> not_run_note;
  // Compiled from input_schema by ToolRegistry::Register.
  std::shared_ptr<const SchemaValidator> validator;
};

}  // namespace raw::tools
