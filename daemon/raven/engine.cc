#include "daemon/raven/engine.h"

#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "daemon/raven/engine_internal.h"

namespace raw::raven {

using absl::StrCat;

absl::StatusOr<ActionResult> Engine::Run(const Json& args) {
  if (!args.is_object()) return FieldError("arguments", "must be an object");
  if (!args.contains("action") || !args["action"].is_string()) {
    return FieldError("action", StrCat("is required; one of: ", absl::StrJoin(ActionNames(), ", ")));
  }
  std::string action = args["action"].get<std::string>();
  auto fields = ActionFields().find(action);
  if (fields == ActionFields().end()) {
    return FieldError("action", StrCat("must be one of: ", absl::StrJoin(ActionNames(), ", ")));
  }
  std::vector<std::string> allowed = fields->second;
  allowed.insert(allowed.begin(), "action");
  Fields f(args, "");
  RETURN_IF_ERROR(f.Only(allowed));
  result_.current_task_id = book_.current_task_id;
  if (action == "start") return Start(f);
  ASSIGN_OR_RETURN(TaskState * task, Address(f, action == "status"));
  result_.state = *task;
  if (action == "status") return Finish(StatusOf(result_.state), "");
  if (action == "stop") return Stop(f);
  if (action == "resume") return Resume();
  if (action == "export") return Export(f);
  if (result_.state.phase != Phase::kActive) {
    return absl::FailedPreconditionError(
        StrCat("Task ", result_.state.task_id, " is ", Name(result_.state.phase),
               Completed(result_.state.phase) ? "; start a new Task for new work"
                                              : "; call resume first if the user wants to continue"));
  }
  if (action == "checkpoint") return CheckpointAction(f);
  if (action == "steer") return Steer(f);
  if (action == "complete") return Complete(f);
  if (action == "discover") return Discover(f);
  return Draft(f);
}

std::string Engine::StatusOf(const TaskState& s) { return std::string(Name(s.phase)); }

absl::StatusOr<TaskState*> Engine::Address(const Fields& f, bool optional) {
  std::string id;
  if (f.Has("taskId") || !optional) {
    ASSIGN_OR_RETURN(id, f.Id("taskId"));
  } else {
    id = book_.current_task_id;
    if (id.empty()) return FieldError("taskId", "no Raven Task exists in this session; start one");
  }
  auto it = book_.tasks.find(id);
  if (it == book_.tasks.end()) {
    return FieldError("taskId", StrCat("unknown Task ", id,
                                       book_.current_task_id.empty()
                                           ? ""
                                           : StrCat("; the current Task is ", book_.current_task_id)));
  }
  holder_ = it->second;
  return &holder_;
}

ActionResult Engine::Finish(std::string status, std::string message) {
  result_.status = std::move(status);
  result_.message = std::move(message);
  return std::move(result_);
}

ActionResult Engine::Commit(TaskState next, std::string status, std::string message) {
  next.revision = result_.state.revision + 1;
  next.updated_at = std::max(ctx_.now_ms, next.started_at);
  result_.state = std::move(next);
  result_.mutated = true;
  return Finish(std::move(status), std::move(message));
}

ActionResult Engine::NeedsRevision(std::vector<Issue> issues, std::string message) {
  result_.issues = std::move(issues);
  return Finish("needs-revision", std::move(message));
}

const std::vector<std::string>& ActionNames() {
  static const std::vector<std::string> kNames = {"start", "discover", "checkpoint", "draft",
                                                  "steer", "complete", "status",     "stop",
                                                  "resume", "export"};
  return kNames;
}

const std::map<std::string, std::vector<std::string>>& ActionFields() {
  static const std::map<std::string, std::vector<std::string>> kFields = {
      {"start", {"outcome", "request", "grounding"}},
      {"discover", {"taskId", "queries"}},
      {"checkpoint", {"taskId", "stage", "summary", "artifact", "sources", "claims", "failures"}},
      {"draft", {"taskId", "instruction", "routes"}},
      {"steer", {"taskId", "correction"}},
      {"complete", {"taskId", "artifact"}},
      {"status", {"taskId"}},
      {"stop", {"taskId", "reason"}},
      {"resume", {"taskId"}},
      {"export", {"taskId", "title", "tags", "init"}},
  };
  return kFields;
}

absl::StatusOr<ActionResult> RunAction(const TaskBook& book, const Json& args,
                                       const EngineContext& ctx) {
  absl::StatusOr<ActionResult> result = Engine(book, ctx).Run(args);
  // A seam that saw the cancellation reports it as an ordinary observation
  // ("the check was cancelled", a failed query); the user's interrupt says
  // nothing about a Source, so whatever the action made of it is dropped.
  if (ctx.cancel.cancelled()) {
    return absl::CancelledError("the call was cancelled; nothing was recorded");
  }
  return result;
}

}  // namespace raw::raven
