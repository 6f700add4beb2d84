// The Task engine: one `raven_task` action against a session's Task book.
//
// RunAction parses the action (structure errors — an unknown or missing
// field, a wrong type or enum value — are returned as InvalidArgument naming
// the field), restores the addressed Task from the book, proposes the next
// state, validates every rule and returns either the next state or an
// actionable non-mutating `needs-revision` result listing each issue with
// the field to change. It owns all lifecycle, revision, Checkpoint, Source,
// Claim, Limitation, citation and Completion semantics; the seams only
// report observations, and what a verifier reports is validated here
// (exactly one observation per requested Source, known statuses, a detail
// unless reachable, a reachable Source on its own host) — a protocol
// violation makes every requested Source unavailable. Pure apart from the
// seams it is given.
//
// Only caller cancellation aborts a call: when `cancel` is cancelled by the
// time the action returns, RunAction returns Cancelled and no state, so an
// interrupted check or search is never recorded as evidence (a failed or
// unavailable Source, a deferred Claim, a Limitation).
#pragma once

#include <map>
#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/cancel_token.h"
#include "common/json.h"
#include "daemon/raven/citations.h"
#include "daemon/raven/codec.h"
#include "daemon/raven/seams.h"
#include "daemon/raven/wiki.h"

namespace raw::raven {

// The actions in the order the tool lists them.
const std::vector<std::string>& ActionNames();
// The fields each action accepts besides "action" (the per-action
// allow-list, enforced here and rendered into the tool's description).
const std::map<std::string, std::vector<std::string>>& ActionFields();

struct EngineContext {
  std::string session_id;
  int64_t now_ms = 0;
  SourceVerifier& verifier;
  SourceSearcher& searcher;
  DraftGenerator& drafter;
  const CancelToken& cancel;
};

struct ActionResult {
  // active | stopped | completed | completed-with-limits | needs-revision |
  // unavailable
  std::string status;
  TaskState state;              // the addressed Task after the action
  std::string current_task_id;  // the session's current Task after it
  bool mutated = false;         // the revision moved
  std::vector<Issue> issues;
  std::string message;
  // Extra Markdown for the result: Leads, Draft Variants or export pages.
  std::string extra;
  std::vector<WikiPage> pages;  // export only
};

absl::StatusOr<ActionResult> RunAction(const TaskBook& book, const Json& args,
                                       const EngineContext& ctx);

// The text the model and the user get for a result: a header (task id,
// Outcome, phase, revision, counts), the issues, the message, the rendered
// latest Artifact and the extra part.
std::string RenderResult(const ActionResult& result);

// The compact card clients show for a result (ToolOutput::display): task
// id, status, phase, counts of Sources, Claims and Limitations, the latest
// Checkpoint, and the number of issues.
std::string RenderCard(const ActionResult& result);

}  // namespace raw::raven
