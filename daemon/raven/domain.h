// Raven domain: the records of one research Task (Sources, Claims,
// Limitations, Checkpoints, Steering Revisions, the verification receipt),
// their enums with the names the tool and the codec use, and the size
// ceilings that action validation and replay decoding share.
//
// Lengths are counted in Unicode code points of the UTF-8 text (upstream
// counts UTF-16 units; a character outside the BMP counts 1 here, 2 there).
// Every text field is stored trimmed of Unicode white space and must not be
// empty. Times are Unix milliseconds. Plain values; safe to copy anywhere.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"

namespace raw::raven {

// The ceilings (counted as above). Shared by the engine and the codec, so a
// state that an action could not produce is refused on replay too.
struct Limits {
  static constexpr size_t kRequestChars = 20000;
  static constexpr size_t kArtifactChars = 100000;
  static constexpr size_t kSummaryChars = 2000;  // also an export title
  static constexpr size_t kCorrectionChars = 20000;
  static constexpr size_t kSourceTitleChars = 1000;
  static constexpr size_t kSourceLocatorChars = 4000;
  static constexpr size_t kSourceExcerptChars = 20000;
  // The floor of an excerpt, counted in code points of its matching key
  // (normalizer.h): a shorter one ("the", ".") is found on almost any page.
  static constexpr size_t kSourceExcerptMinChars = 40;
  static constexpr size_t kSourceFamilyChars = 512;
  static constexpr size_t kSourceAsOfChars = 128;
  static constexpr size_t kClaimTextChars = 10000;
  static constexpr size_t kLimitationDetailChars = 4000;  // also stop's reason
  static constexpr size_t kUrlChars = 2048;
  static constexpr size_t kSources = 256;
  static constexpr size_t kClaims = 512;
  static constexpr size_t kLimitations = 256;
  static constexpr size_t kCheckpoints = 128;
  static constexpr size_t kSteeringRevisions = 128;
  static constexpr size_t kClaimSourceIds = 256;
  static constexpr size_t kContradicts = 512;
  static constexpr size_t kSearchQueries = 4;
  static constexpr size_t kSearchQueryChars = 512;
  static constexpr size_t kSearchResults = 8;
  static constexpr size_t kLeads = 32;
  static constexpr size_t kLeadTitleChars = 512;    // a Lead's title and
  static constexpr size_t kLeadSnippetChars = 512;  // snippet, as rendered
  static constexpr size_t kDraftRoutes = 4;
  static constexpr size_t kDraftInstructionChars = 8000;
  static constexpr size_t kDraftVariantChars = 40000;
  static constexpr size_t kExportTags = 16;
};

enum class Outcome { kResearch, kGeneralWriting, kAcademicWriting, kLearning };
enum class Grounding { kRequired, kOptional, kNone };
enum class Phase { kActive, kStopped, kCompleted, kCompletedWithLimits };
enum class Stage { kDiscover, kRead, kAnalyze, kDraft, kVerify, kRefine };
enum class SourceRole { kPrimary, kSecondary, kDataset, kUserProvided };
enum class ClaimKind { kExternal, kAnalysis };
enum class Importance { kMaterial, kContext };
enum class Disposition { kSupported, kQualified, kDeferred, kRejected };
enum class LimitationKind { kSource, kTool, kCoverage };
enum class CheckStatus { kUnchecked, kReachable, kFailed, kUnavailable };
// What a reopening found, finer than CheckStatus (which drives policy):
// verified (the live page holds the excerpt; reachable), drifted (the
// excerpt was found at an earlier check and is gone now; failed), absent
// (the page was read and the excerpt is not on it; failed), unreachable
// (network error, HTTP error, cross-host redirect), blocked (a challenge,
// login, cookie or paywall page), unchecked (nothing could be compared: an
// unsupported type, a truncated body, a refused address, a deadline or a
// cancellation). The engine derives drifted; adapters report the others.
enum class CheckOutcome { kVerified, kDrifted, kUnreachable, kBlocked, kAbsent, kUnchecked };

// Name <-> enum for every enum above ("completed-with-limits", ...). Parse
// functions return nullopt for an unknown name.
std::string Name(Outcome v);
std::string Name(Grounding v);
std::string Name(Phase v);
std::string Name(Stage v);
std::string Name(SourceRole v);
std::string Name(ClaimKind v);
std::string Name(Importance v);
std::string Name(Disposition v);
std::string Name(LimitationKind v);
std::string Name(CheckStatus v);
std::string Name(CheckOutcome v);
template <typename E>
std::optional<E> Parse(std::string_view name);
// The names of E in declaration order (for schemas and messages).
template <typename E>
std::vector<std::string> Names();

// Whether `outcome` may accompany `status`: verified only with reachable,
// drifted and absent only with failed, the others with failed or
// unavailable.
bool OutcomeFits(CheckOutcome outcome, CheckStatus status);

struct SourceCheck {
  CheckStatus status = CheckStatus::kUnchecked;
  int64_t checked_at = 0;            // set unless unchecked
  std::optional<int> status_code;    // HTTP status of the reopening
  std::optional<std::string> resolved_url;
  std::optional<std::string> detail;  // why, when not reachable
  std::optional<CheckOutcome> outcome;  // unset in state written before it existed
  // When the excerpt was last found on the page: checked_at for a reachable
  // check, carried over by a check that is not, so a page that changes
  // after one unavailable check is still `drifted`, not `absent`. Unset when
  // never verified (and in state written before it existed).
  std::optional<int64_t> last_verified_at;
  bool operator==(const SourceCheck&) const = default;
};

struct Source {
  std::string source_id;
  std::string url;  // canonical (CanonicalUrl)
  std::string title;
  std::string locator;
  std::string excerpt;
  SourceRole role = SourceRole::kSecondary;
  std::optional<std::string> family;
  std::optional<std::string> as_of;
  int64_t inspected_at = 0;
  SourceCheck check;
  // The same evidence (everything the agent supplied), ignoring the check
  // and the inspection time: exact resubmission is idempotent.
  bool SameEvidence(const Source& o) const;
  bool operator==(const Source&) const = default;
};

struct Claim {
  std::string claim_id;
  std::string text;
  ClaimKind kind = ClaimKind::kExternal;
  Importance importance = Importance::kMaterial;
  Disposition disposition = Disposition::kSupported;
  std::vector<std::string> source_ids;
  std::vector<std::string> contradicts;
  // External and supported or qualified: needs verified Sources.
  bool NeedsSupport() const;
  bool operator==(const Claim&) const = default;
};

struct Limitation {
  std::string limitation_id;  // "<kind>-<n>", n counting that kind from 1
  LimitationKind kind = LimitationKind::kCoverage;
  std::string detail;
  std::optional<std::string> source_id;
  // Set on an automatic Source Limitation (Propagate): the checkedAt of the
  // Source check it reports. It stands for that Source's current failed or
  // unavailable check only: replaced when the check changes, cleared when
  // the Source verifies. Unset on one the agent wrote, which stays.
  std::optional<int64_t> checked_at;
  bool operator==(const Limitation&) const = default;
};

struct Checkpoint {
  std::string checkpoint_id;  // "<taskId>-cp-<ordinal>"
  int ordinal = 0;
  Stage stage = Stage::kDraft;
  std::string summary;
  std::string artifact_sha256;  // "sha256:" + hex of the stored bytes
  size_t artifact_chars = 0;
  int steering_revision = 0;  // the Steering Revision the Artifact applies
  int64_t created_at = 0;
  bool operator==(const Checkpoint&) const = default;
};

struct SteeringRevision {
  int revision = 0;
  std::string correction;
  int64_t created_at = 0;
  bool operator==(const SteeringRevision&) const = default;
};

struct VerificationReceipt {
  int64_t verified_at = 0;
  std::string mode;  // "remote" or "structural-only"
  int checked = 0;
  int reachable = 0;
  int failed = 0;
  int unavailable = 0;
  std::string artifact_sha256;
  // Sources the check did not reach (SourceObservation::not_reached): not
  // counted in `checked`; each kept its previous check.
  int not_rechecked = 0;
  bool operator==(const VerificationReceipt&) const = default;
};

struct TaskState {
  std::string task_id;
  int ordinal = 0;
  Outcome outcome = Outcome::kResearch;
  std::string request;
  Grounding grounding = Grounding::kRequired;
  Phase phase = Phase::kActive;
  int revision = 1;
  int steering_revision = 0;
  std::vector<SteeringRevision> steering;
  std::vector<Checkpoint> checkpoints;
  std::vector<Source> sources;
  std::vector<Claim> claims;
  std::vector<Limitation> limitations;
  std::optional<std::string> latest_artifact;
  std::optional<VerificationReceipt> verification;
  std::optional<std::string> final_artifact_sha256;
  int64_t started_at = 0;
  int64_t updated_at = 0;

  const Source* FindSource(std::string_view id) const;
  const Claim* FindClaim(std::string_view id) const;
  bool operator==(const TaskState&) const = default;
};

// Text helpers shared by the engine and the codec.
size_t CodePoints(std::string_view s);
// The first `n` code points of `s` (all of it when shorter): never cut
// inside a UTF-8 sequence.
std::string_view PrefixCodePoints(std::string_view s, size_t n);
// `s` without leading and trailing Unicode white space (ASCII space and
// controls \t\n\v\f\r, NBSP, U+1680, U+2000..U+200A, U+2028, U+2029,
// U+202F, U+205F, U+3000, U+FEFF).
std::string TrimText(std::string_view s);
// An id: one ASCII letter or digit then up to 63 of letters, digits, '.',
// '_' and '-'.
bool ValidId(std::string_view id);
// "sha256:" + lower-case hex of SHA-256(bytes); BareSha256Hex without prefix.
std::string Sha256Tagged(std::string_view bytes);
std::string Sha256Hex(std::string_view bytes);
// "rvn-" + the first 12 hex digits of SHA-256(session id) + "-" + ordinal.
std::string MakeTaskId(std::string_view session_id, int ordinal);
std::string MakeCheckpointId(std::string_view task_id, int ordinal);
// "2026-12-02T04:05:06.789Z" / "2026-12-02" of Unix milliseconds.
std::string IsoTime(int64_t unix_ms);
std::string IsoDate(int64_t unix_ms);

// The canonical form of a Source URL: http or https only, no user
// information, no white space or control characters, at most kUrlChars;
// scheme and host lower-cased, a default port dropped, trailing dots of the
// host dropped, an empty path made "/", "." and ".." path segments resolved
// ("%2e" counting as "."), the query and fragment kept. It is idempotent:
// the codec accepts a stored URL only when it is its own canonical form, so
// an input whose canonical form would canonicalize differently (a second
// ":port", a form longer than kUrlChars) is refused rather than stored. An
// error names the defect ("credential-bearing URL", ...).
absl::Status CanonicalUrl(std::string_view url, std::string& out);
// What the codec accepts as a stored Source URL: its own canonical form, or
// the canonical form of a record written before dot segments were resolved
// (so that record still replays; compare such a URL through CanonicalUrl).
bool IsStoredCanonicalUrl(std::string_view url);

// The site a URL names, as Source identity compares it: the host
// (percent-decoded, lower-cased, without a trailing dot) and the port, the
// scheme's default port counting as no port, so "https://Example.org:443/a"
// and "http://example.org/b" share "example.org" while "example.org:8443"
// is another site. "" when `url` is not an absolute http(s) URL with a host.
std::string UrlIdentity(std::string_view url);

// The page a canonical URL names: the URL without its fragment, which the
// fetch drops. Sources are one per page, so "…/x#r" is the page of "…/x".
std::string_view PageUrl(std::string_view canonical_url);

// The Source registered later for the page of a failed `source`, or nullptr
// (also for a Source that did not fail). Changed evidence for a page whose
// Source failed is registered under a new id; the failed one is then
// superseded: never reopened and no longer citable.
const Source* Successor(const std::vector<Source>& sources, const Source& source);

}  // namespace raw::raven
