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
// Not thread-safe; one document per parse.
#pragma once

#include <gumbo.h>

#include <cstddef>
#include <memory>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace raw::raven::web {

class HtmlDocument {
 public:
  static absl::StatusOr<std::unique_ptr<HtmlDocument>> Parse(std::string_view html);
  ~HtmlDocument();
  HtmlDocument(const HtmlDocument&) = delete;
  HtmlDocument& operator=(const HtmlDocument&) = delete;

  const GumboNode* root() const { return output_->root; }
  // Bytes the arena reserved from the system for this document.
  size_t arena_bytes() const { return reserved_; }

 private:
  HtmlDocument() = default;
  static void* Allocate(void* self, size_t size);
  static void Deallocate(void* self, void* ptr);
  void* Take(size_t size);

  std::vector<std::unique_ptr<std::byte[]>> blocks_;
  std::byte* next_ = nullptr;
  size_t left_ = 0;
  size_t reserved_ = 0;
  GumboOutput* output_ = nullptr;
};

}  // namespace raw::raven::web
