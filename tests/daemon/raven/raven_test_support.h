// Test support for the Raven engine: a session's Task book driven action by
// action the way builtin/raven_task drives it (each result's record is
// replayed into the book), with deterministic seams and a fixed clock.
#pragma once

#include <string>
#include <vector>

#include "absl/status/statusor.h"
#include "common/cancel_token.h"
#include "common/json.h"
#include "daemon/raven/codec.h"
#include "daemon/raven/engine.h"
#include "daemon/raven/seams.h"

namespace raw::raven::testing {

class RavenSession {
 public:
  explicit RavenSession(std::string session_id = "session-1") : session_id_(std::move(session_id)) {}

  // Runs one action; on success its record is appended and the book moves.
  absl::StatusOr<ActionResult> Call(const Json& args) {
    EngineContext ctx{session_id_, now_ms, verifier, searcher, drafter, cancel_};
    TaskBook book = ReplayBook(records);
    absl::StatusOr<ActionResult> r = RunAction(book, args, ctx);
    if (r.ok()) records.push_back(EncodeRecord(r->state, r->current_task_id));
    return r;
  }
  // The state the records replay to for `task_id`.
  TaskState Replayed(const std::string& task_id) const {
    return ReplayBook(records).tasks.at(task_id);
  }

  // Cancels the token every later call runs under (the caller's interrupt).
  void Cancel() { cancel_.Cancel(); }

  int64_t now_ms = 1796184000000;  // 2026-12-02T04:00:00Z
  DeterministicSourceVerifier verifier;
  DeterministicSourceSearcher searcher;
  DeterministicDraftGenerator drafter{{}};
  std::vector<std::string> records;

 private:
  std::string session_id_;
  CancelToken cancel_;
};

// A Source entry for a checkpoint.
inline Json SourceArg(const std::string& id, const std::string& url,
                      const std::string& family = "") {
  Json s = {{"sourceId", id},
            {"url", url},
            {"title", "Title of " + id},
            {"locator", "section 2"},
            {"excerpt", "the verbatim passage of " + id + ", copied from the page"}};
  if (!family.empty()) s["sourceFamily"] = family;
  return s;
}

inline Json ClaimArg(const std::string& id, const std::vector<std::string>& sources,
                     const std::string& disposition = "supported",
                     const std::string& importance = "material") {
  return {{"claimId", id},         {"text", "Claim text " + id}, {"kind", "external"},
          {"importance", importance}, {"disposition", disposition}, {"sourceIds", sources}};
}

// Each issue of `r` as "field: message", one a line (for failure messages
// and matchers).
inline std::string IssueLines(const ActionResult& r) {
  std::string out;
  for (const Issue& i : r.issues) out += i.field + ": " + i.message + "\n";
  return out;
}

}  // namespace raw::raven::testing
