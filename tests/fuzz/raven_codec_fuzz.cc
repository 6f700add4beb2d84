// Fuzz target: arbitrary bytes as a stored Raven Task record (the host-side
// metadata a hostile or corrupt row could hold). DecodeRecord must refuse
// or accept without crashing; an accepted record must encode back to a
// record that decodes to the same state (the codec is the replay's only
// gate), and ReplayBook over it — alone and after a valid record — must
// not crash and must keep its invariants (the current Task is in the book).
// The same bytes as a Source URL: CanonicalUrl must be idempotent.
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/raven/codec.h"
#include "tests/fuzz/fuzz_check.h"

namespace {

void Check(bool ok, const char* what) { raw::fuzz::Check(ok, "raven_codec_fuzz", what); }

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  namespace rv = raw::raven;
  const std::string text(reinterpret_cast<const char*>(data), size);
  absl::StatusOr<rv::Record> record = rv::DecodeRecord(text);
  if (record.ok()) {
    const std::string again = rv::EncodeRecord(record->state, record->current_task_id);
    absl::StatusOr<rv::Record> round = rv::DecodeRecord(again);
    Check(round.ok(), "an accepted record does not decode after encoding");
    Check(round->state == record->state, "the round trip changed the state");
    Check(round->current_task_id == record->current_task_id, "the round trip changed the id");
  }
  // The input as a Source URL: a canonical form must be its own canonical
  // form, within the ceiling, or the codec would refuse what was stored.
  std::string once;
  if (rv::CanonicalUrl(text, once).ok()) {
    std::string twice;
    Check(rv::CanonicalUrl(once, twice).ok() && twice == once, "CanonicalUrl is not idempotent");
    Check(rv::CodePoints(once) <= rv::Limits::kUrlChars, "a canonical URL exceeds the ceiling");
  }
  for (const std::vector<std::string>& records :
       {std::vector<std::string>{text}, std::vector<std::string>{text, text}}) {
    rv::TaskBook book = rv::ReplayBook(records);
    Check(book.current_task_id.empty() || book.tasks.count(book.current_task_id) == 1,
          "the current Task is not in the book");
  }
  return 0;
}
