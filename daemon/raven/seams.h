// The three seams through which the Task engine meets the outside world:
// reopening Sources (SourceVerifier), finding Leads (SourceSearcher) and
// producing candidate wording (DraftGenerator). The engine owns every policy
// decision; an adapter only reports observations, and the engine validates
// what it reports (see engine.h).
//
// Implementations are called on the tool's thread and must return promptly
// once `cancel` is cancelled.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "common/cancel_token.h"
#include "daemon/raven/domain.h"

namespace raw::raven {

// What one reopening of a Source observed.
struct SourceObservation {
  std::string source_id;
  CheckStatus status = CheckStatus::kUnavailable;  // never kUnchecked
  int64_t checked_at = 0;
  std::optional<int> status_code;
  std::optional<std::string> resolved_url;
  std::optional<std::string> detail;  // required unless reachable
  // The finer outcome (domain.h); must fit `status`. An adapter never
  // reports kDrifted: the engine derives it from the Source's earlier check.
  std::optional<CheckOutcome> outcome;
  // The check never reached this Source (the time for the whole check ran
  // out before its fetch began): nothing was observed of it. Only with
  // status unavailable, and a detail saying why. The engine keeps the
  // Source's previous check (evidence.h).
  bool not_reached = false;
};

class SourceVerifier {
 public:
  virtual ~SourceVerifier() = default;
  // One observation per requested Source, in any order.
  virtual std::vector<SourceObservation> Verify(const std::vector<Source>& sources,
                                                const CancelToken& cancel) = 0;
};

// A located, uninspected candidate. Never evidence.
struct Lead {
  std::string url;
  std::string title;
  std::string snippet;
  std::vector<std::string> queries;  // every query that surfaced it
  std::string published{};           // the backend's publication label; "" = none
};

struct SearchAnswer {
  std::string query;
  std::vector<Lead> leads;           // ranked; `queries` may be left empty
  std::optional<std::string> error;  // the query failed
};

class SourceSearcher {
 public:
  virtual ~SourceSearcher() = default;
  // Why discovery cannot run here at all (nullopt = it can).
  virtual std::optional<std::string> Unavailable() const = 0;
  // One answer per query, in query order.
  virtual std::vector<SearchAnswer> Search(const std::vector<std::string>& queries,
                                           size_t max_results, const CancelToken& cancel) = 0;
};

struct DraftVariant {
  std::string route;  // "provider/model"
  bool drafted = false;
  std::string text;    // drafted: the candidate wording
  std::string detail;  // failed: why; drafted: a note such as truncation
};

class DraftGenerator {
 public:
  virtual ~DraftGenerator() = default;
  // The routes this deployment configured ("provider/model"), at most
  // Limits::kDraftRoutes; empty = drafting is off.
  virtual std::vector<std::string> Routes() const = 0;
  virtual std::vector<DraftVariant> Generate(const std::vector<std::string>& routes,
                                             const std::string& context,
                                             const std::string& instruction,
                                             const CancelToken& cancel) = 0;
};

// ---- Deterministic adapters (tests, and the daemon until the web adapters
// are composed) ----

// Answers from a table by Source id; an id not in the table is unavailable
// ("no scripted observation"). Counts calls for tests.
class DeterministicSourceVerifier : public SourceVerifier {
 public:
  void Set(const std::string& source_id, SourceObservation observation) {
    table_[source_id] = std::move(observation);
  }
  // Shorthands: reachable with HTTP 200, failed with HTTP 404, unavailable.
  void Reachable(const std::string& source_id);
  void Failed(const std::string& source_id, const std::string& detail);
  void Unavailable(const std::string& source_id, const std::string& detail);
  // When set, every reply is this list verbatim (protocol tests).
  void ReplyVerbatim(std::vector<SourceObservation> reply) { verbatim_ = std::move(reply); }
  std::vector<SourceObservation> Verify(const std::vector<Source>& sources,
                                        const CancelToken& cancel) override;
  int calls() const { return calls_; }
  int checked() const { return checked_; }

 private:
  std::map<std::string, SourceObservation> table_;
  std::optional<std::vector<SourceObservation>> verbatim_;
  int calls_ = 0;
  int checked_ = 0;
};

// Reports every Source unavailable with `reason`: the honest answer where no
// way to reopen URLs is composed. It never fabricates success.
class UnavailableSourceVerifier : public SourceVerifier {
 public:
  explicit UnavailableSourceVerifier(std::string reason) : reason_(std::move(reason)) {}
  std::vector<SourceObservation> Verify(const std::vector<Source>& sources,
                                        const CancelToken& cancel) override;

 private:
  std::string reason_;
};

// Answers queries from a table; a query not in it fails. `unavailable` set:
// discovery is unavailable with that reason.
class DeterministicSourceSearcher : public SourceSearcher {
 public:
  explicit DeterministicSourceSearcher(std::optional<std::string> unavailable = std::nullopt)
      : unavailable_(std::move(unavailable)) {}
  void Set(const std::string& query, std::vector<Lead> leads) { table_[query] = std::move(leads); }
  std::optional<std::string> Unavailable() const override { return unavailable_; }
  std::vector<SearchAnswer> Search(const std::vector<std::string>& queries, size_t max_results,
                                   const CancelToken& cancel) override;

 private:
  std::optional<std::string> unavailable_;
  std::map<std::string, std::vector<Lead>> table_;
};

// Drafts "<route>: <instruction>" for each configured route, except routes
// listed as failing.
class DeterministicDraftGenerator : public DraftGenerator {
 public:
  DeterministicDraftGenerator(std::vector<std::string> routes, std::vector<std::string> failing = {})
      : routes_(std::move(routes)), failing_(std::move(failing)) {}
  std::vector<std::string> Routes() const override { return routes_; }
  std::vector<DraftVariant> Generate(const std::vector<std::string>& routes,
                                     const std::string& context, const std::string& instruction,
                                     const CancelToken& cancel) override;

 private:
  std::vector<std::string> routes_;
  std::vector<std::string> failing_;
};

}  // namespace raw::raven
