#include "clients/present/compaction_text.h"

#include "absl/strings/str_cat.h"
#include "clients/present/usage_text.h"

namespace raw::present {

std::string CompactionStartedText(const v1::CompactionStarted& started) {
  std::string text =
      absl::StrCat(started.trigger() == v1::COMPACTION_TRIGGER_AUTOMATIC
                       ? "compacting the context automatically ("
                       : "compacting the context (",
                   FormatTokens(started.tokens_before()), " tokens");
  if (started.chunks() > 1) absl::StrAppend(&text, ", ", started.chunks(), " summaries");
  return text + ")";
}

std::string CompactionProgressText(const v1::CompactionProgress& progress) {
  return absl::StrCat("compacting: summary ", progress.chunk(), " of ", progress.chunks());
}

std::string CompactionOutcomeText(const v1::CompactionEnded& ended) {
  std::string outcome;
  switch (ended.outcome()) {
    case v1::COMPACTION_OUTCOME_ACCEPTED: outcome = "compacted"; break;
    case v1::COMPACTION_OUTCOME_REJECTED: outcome = "summary rejected; context unchanged"; break;
    case v1::COMPACTION_OUTCOME_FAILED: outcome = "failed; context unchanged"; break;
    case v1::COMPACTION_OUTCOME_CANCELLED: outcome = "cancelled; context unchanged"; break;
    case v1::COMPACTION_OUTCOME_NOTHING_TO_COMPACT: outcome = "nothing to compact yet"; break;
    default: outcome = "ended"; break;
  }
  if (!ended.message().empty()) absl::StrAppend(&outcome, " (", ended.message(), ")");
  return outcome;
}

std::string CompactionEndedText(const v1::CompactionEnded& ended) {
  if (ended.outcome() == v1::COMPACTION_OUTCOME_ACCEPTED) {
    return absl::StrCat("context compacted: ", FormatTokens(ended.tokens_before()), " → ",
                        FormatTokens(ended.tokens_after()), " tokens");
  }
  return absl::StrCat("compaction ", CompactionOutcomeText(ended));
}

}  // namespace raw::present
