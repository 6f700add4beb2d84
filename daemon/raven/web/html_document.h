// HtmlDocument: one HTML5 parse by gumbo whose nodes live in an arena owned
// by the document, freed at once when it goes.
//
// Why: gumbo makes several small allocations per node, token and text run
// and frees most of them again during the parse; on a 2 MB page malloc and
// free were a large part of the parse's time. The arena hands out memory by
// bumping a pointer and ignores frees, so the document holds at most a small
// multiple of what gumbo asked for in all (tracked in arena_bytes(); growth
// by doubling means gumbo's own reallocations are bounded by twice their
// final size). Parse errors are not recorded (max_errors 0): nothing reads
// them.
//
// A parse is bounded (ParseBudget). gumbo has no way to stop a parse, and
// some inputs make its tree construction superlinear in time and memory
// (formatting elements closed across blocks, `<a><div>x</a>` repeated: the
// adoption agency clones elements over and over; 800 KB of it took 23 s and
// 5 MiB far longer). Every allocation gumbo asks for is counted: past the
// budget's memory, or (checked every few hundred allocations) past its
// deadline or once its token is cancelled, the parse is abandoned by a
// longjmp out of the allocator back into Parse. That leaves no state
// behind: gumbo keeps none outside the parse, and all it took is in the
// arena, freed with the document. Nothing with a destructor lives in the
// frames the jump skips (gumbo's C frames and the allocator's).
//
// Not thread-safe; one document per parse.
#pragma once

#include <gumbo.h>

#include <csetjmp>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/cancel_token.h"

namespace raw::raven::web {

// What one parse may take.
struct ParseBudget {
  // Arena bytes; a real 2 MB article page takes a few tens of MB.
  size_t max_bytes = size_t{512} << 20;
  // SteadyNowNs() past which the parse stops; 0: none.
  int64_t deadline_ns = 0;
  const CancelToken* cancel = nullptr;  // may be null
};

// The memory a parse of `html_bytes` of HTML is given by Raw's callers: 24
// bytes per byte of HTML (a real 2 MB article page takes about 19, pages
// built to blow gumbo up 70 and more), at least 64 MiB.
size_t ParseMemoryFor(size_t html_bytes);

class HtmlDocument {
 public:
  // kResourceExhausted past the budget's memory, kDeadlineExceeded past its
  // deadline, kCancelled when its token is cancelled during the parse.
  static absl::StatusOr<std::unique_ptr<HtmlDocument>> Parse(std::string_view html,
                                                             const ParseBudget& budget = {});
  ~HtmlDocument();
  HtmlDocument(const HtmlDocument&) = delete;
  HtmlDocument& operator=(const HtmlDocument&) = delete;

  const GumboNode* root() const { return output_->root; }
  const GumboNode* document() const { return output_->document; }
  // Bytes the arena reserved from the system for this document.
  size_t arena_bytes() const { return reserved_; }

 private:
  // Why a parse was abandoned: the value longjmp hands to setjmp.
  enum Stop : int { kNone = 0, kOverMemory, kOverTime, kCancelledStop };

  explicit HtmlDocument(const ParseBudget& budget) : budget_(budget) {}
  static void* Allocate(void* self, size_t size);
  static void Deallocate(void* self, void* ptr);
  void* Take(size_t size);
  // Jumps back into Parse when the budget is spent; returns otherwise.
  void CheckBudget(size_t more_bytes);

  const ParseBudget budget_;
  std::jmp_buf stop_;
  uint64_t allocations_ = 0;
  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  std::byte* next_ = nullptr;
  size_t left_ = 0;
  size_t reserved_ = 0;
  GumboOutput* output_ = nullptr;
};

}  // namespace raw::raven::web
