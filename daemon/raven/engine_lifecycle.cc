// start, stop, resume and steer: the Task lifecycle actions.

#include "daemon/raven/engine_internal.h"

#include "absl/strings/str_cat.h"

namespace raw::raven {

using absl::StrCat;

absl::StatusOr<ActionResult> Engine::Start(const Fields& f) {
  ASSIGN_OR_RETURN(Outcome outcome, f.Enum<Outcome>("outcome"));
  ASSIGN_OR_RETURN(std::string request, f.Text("request", Limits::kRequestChars));
  ASSIGN_OR_RETURN(std::optional<Grounding> grounding, f.OptionalEnum<Grounding>("grounding"));
  bool floor = outcome == Outcome::kResearch || outcome == Outcome::kAcademicWriting;
  if (floor && grounding == Grounding::kNone) {
    return FieldError("grounding", StrCat("a ", Name(outcome),
                                          " Task cannot disable its evidence floor; use "
                                          "\"required\" (the default) or \"optional\""));
  }
  if (const TaskState* current = book_.Current(); current && current->phase == Phase::kActive) {
    return absl::FailedPreconditionError(
        StrCat("Task ", current->task_id, " is still active; continue it, or stop it before "
               "starting a new Task"));
  }
  TaskState s;
  s.ordinal = book_.MaxOrdinal() + 1;
  s.task_id = MakeTaskId(ctx_.session_id, s.ordinal);
  s.outcome = outcome;
  s.request = request;
  s.grounding = grounding.value_or(floor ? Grounding::kRequired : Grounding::kOptional);
  s.started_at = s.updated_at = ctx_.now_ms;
  result_.state = s;
  result_.current_task_id = s.task_id;
  result_.mutated = true;
  return Finish("active", StrCat("Started Raven Task ", s.task_id, "."));
}

absl::StatusOr<ActionResult> Engine::Stop(const Fields& f) {
  ASSIGN_OR_RETURN(std::optional<std::string> reason,
                   f.OptionalText("reason", Limits::kLimitationDetailChars));
  (void)reason;  // validated, deliberately not stored
  TaskState s = result_.state;
  if (Completed(s.phase)) {
    return absl::FailedPreconditionError(StrCat("Task ", s.task_id, " is already ", Name(s.phase)));
  }
  if (s.phase == Phase::kStopped) return Finish("stopped", "The Task was already stopped.");
  s.phase = Phase::kStopped;
  return Commit(std::move(s), "stopped", "Stopped; resume continues the same Task.");
}

absl::StatusOr<ActionResult> Engine::Resume() {
  TaskState s = result_.state;
  if (Completed(s.phase)) {
    return absl::FailedPreconditionError(StrCat("Task ", s.task_id, " is already ", Name(s.phase),
                                                "; start a new Task for new work"));
  }
  if (s.phase == Phase::kActive) return Finish("active", "The Task is already active.");
  if (const TaskState* current = book_.Current();
      current && current->task_id != s.task_id && current->phase == Phase::kActive) {
    return absl::FailedPreconditionError(StrCat("Task ", current->task_id,
                                                " is active; stop it before resuming ", s.task_id));
  }
  s.phase = Phase::kActive;
  result_.current_task_id = s.task_id;
  return Commit(std::move(s), "active", "Resumed.");
}

absl::StatusOr<ActionResult> Engine::Steer(const Fields& f) {
  ASSIGN_OR_RETURN(std::string correction, f.Text("correction", Limits::kCorrectionChars));
  TaskState s = result_.state;
  if (s.steering.size() >= Limits::kSteeringRevisions) {
    return FieldError("correction", StrCat("the Task already has ", Limits::kSteeringRevisions,
                                           " Steering Revisions"));
  }
  s.steering_revision += 1;
  s.steering.push_back({s.steering_revision, correction, ctx_.now_ms});
  s.verification.reset();
  s.final_artifact_sha256.reset();
  return Commit(std::move(s), "active",
                StrCat("Steering Revision ", s.steering_revision,
                       " recorded; publish a Checkpoint that applies it before completing."));
}


}  // namespace raw::raven
