// The Engine behind RunAction, shared by the files that implement its
// actions (engine_lifecycle.cc, engine_checkpoint.cc, engine_complete.cc,
// engine_discover.cc, engine_draft.cc, engine_export.cc). One Engine runs one
// action: it copies the addressed Task, proposes the next state and returns
// the result. Internal to the engine.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "daemon/raven/action_fields.h"
#include "daemon/raven/engine.h"
#include "daemon/raven/evidence.h"

namespace raw::raven {

class Engine {
 public:
  Engine(const TaskBook& book, const EngineContext& ctx) : book_(book), ctx_(ctx) {}

  absl::StatusOr<ActionResult> Run(const Json& args);

 private:
  static std::string StatusOf(const TaskState& s);
  absl::StatusOr<TaskState*> Address(const Fields& f, bool optional);
  ActionResult Finish(std::string status, std::string message);
  // Moves the revision of the addressed Task.
  ActionResult Commit(TaskState next, std::string status, std::string message);
  ActionResult NeedsRevision(std::vector<Issue> issues, std::string message);

  absl::StatusOr<ActionResult> Start(const Fields& f);
  absl::StatusOr<ActionResult> Stop(const Fields& f);
  absl::StatusOr<ActionResult> Resume();
  absl::StatusOr<ActionResult> Steer(const Fields& f);

  // Parses `sources` into `merged` (the Task's Sources plus new ones).
  absl::Status MergeSources(const Fields& f, std::vector<Source>& merged,
                            std::vector<Issue>& issues);
  absl::Status MergeClaims(const Fields& f, const std::vector<Source>& sources,
                           std::vector<Claim>& merged, std::vector<Issue>& issues);
  absl::Status AddFailures(const Fields& f, TaskState& s, std::vector<Issue>& issues);
  // The artifact laid out, or an error naming the field.
  static absl::StatusOr<std::string> LaidOut(const Fields& f);
  absl::StatusOr<ActionResult> CheckpointAction(const Fields& f);

  absl::StatusOr<ActionResult> Complete(const Fields& f);
  absl::StatusOr<ActionResult> Discover(const Fields& f);
  absl::StatusOr<ActionResult> Draft(const Fields& f);
  absl::StatusOr<ActionResult> Export(const Fields& f);

  const TaskBook& book_;
  const EngineContext& ctx_;
  ActionResult result_;
  TaskState holder_;
};

}  // namespace raw::raven
