#include "daemon/raven/web/html_document.h"

#include <algorithm>

#include "absl/strings/str_cat.h"
#include "common/time.h"

namespace raw::raven::web {
namespace {

constexpr size_t kAlign = alignof(std::max_align_t);
constexpr size_t kBlockBytes = 1 << 20;
// How many allocations pass between two looks at the clock and the token:
// a look costs tens of nanoseconds, an allocation of the parse a few.
constexpr uint64_t kCheckEvery = 256;

}  // namespace

size_t ParseMemoryFor(size_t html_bytes) {
  constexpr size_t kBytesPerByte = 24;
  constexpr size_t kMinBytes = size_t{64} << 20;
  return std::max(kMinBytes, html_bytes * kBytesPerByte);
}

absl::StatusOr<std::unique_ptr<HtmlDocument>> HtmlDocument::Parse(std::string_view html,
                                                                  const ParseBudget& budget) {
  std::unique_ptr<HtmlDocument> doc(new HtmlDocument(budget));
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &HtmlDocument::Allocate;
  options.deallocator = &HtmlDocument::Deallocate;
  options.userdata = doc.get();
  options.max_errors = 0;
  // setjmp returns again, with the reason, when CheckBudget stops the parse.
  switch (setjmp(doc->stop_)) {
    case kNone:
      break;
    case kOverMemory:
      return absl::ResourceExhaustedError(
          absl::StrCat("the page needs more than ", budget.max_bytes >> 20, " MiB to parse (",
                       html.size(), " bytes of HTML) and was not parsed"));
    case kOverTime:
      return absl::DeadlineExceededError(absl::StrCat(
          "parsing the page (", html.size(), " bytes of HTML) ran past its time and was stopped"));
    default:
      return absl::CancelledError("the parse of the page was cancelled");
  }
  doc->output_ = gumbo_parse_with_options(&options, html.data(), html.size());
  if (doc->output_ == nullptr) return absl::InternalError("the HTML parser failed");
  return doc;
}

// Everything the output holds is in the arena: nothing to hand back to
// gumbo.
HtmlDocument::~HtmlDocument() = default;

void* HtmlDocument::Allocate(void* self, size_t size) {
  return static_cast<HtmlDocument*>(self)->Take(size);
}

void HtmlDocument::Deallocate(void*, void*) {}

void HtmlDocument::CheckBudget(size_t more_bytes) {
  if (more_bytes > 0 && reserved_ + more_bytes > budget_.max_bytes) longjmp(stop_, kOverMemory);
  if (++allocations_ % kCheckEvery != 0) return;
  if (budget_.cancel != nullptr && budget_.cancel->cancelled()) longjmp(stop_, kCancelledStop);
  if (budget_.deadline_ns != 0 && SteadyNowNs() >= budget_.deadline_ns) {
    longjmp(stop_, kOverTime);
  }
}

void* HtmlDocument::Take(size_t size) {
  size = (std::max<size_t>(size, 1) + kAlign - 1) & ~(kAlign - 1);
  const size_t block = size > left_ ? std::max(size, kBlockBytes) : 0;
  // Before anything with a destructor is made in this frame.
  CheckBudget(block);
  if (block > 0) {
    // A large request gets a block of its own; the current block stays in
    // use for the small ones that follow.
    blocks_.push_back(std::make_unique_for_overwrite<std::byte[]>(block));
    reserved_ += block;
    if (block > kBlockBytes) return blocks_.back().get();
    next_ = blocks_.back().get();
    left_ = block;
  }
  void* out = next_;
  next_ += size;
  left_ -= size;
  return out;
}

}  // namespace raw::raven::web
