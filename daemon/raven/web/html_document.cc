#include "daemon/raven/web/html_document.h"

#include <algorithm>

namespace raw::raven::web {
namespace {

constexpr size_t kAlign = alignof(std::max_align_t);
constexpr size_t kBlockBytes = 1 << 20;

}  // namespace

absl::StatusOr<std::unique_ptr<HtmlDocument>> HtmlDocument::Parse(std::string_view html) {
  std::unique_ptr<HtmlDocument> doc(new HtmlDocument());
  GumboOptions options = kGumboDefaultOptions;
  options.allocator = &HtmlDocument::Allocate;
  options.deallocator = &HtmlDocument::Deallocate;
  options.userdata = doc.get();
  options.max_errors = 0;
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

void* HtmlDocument::Take(size_t size) {
  size = (std::max<size_t>(size, 1) + kAlign - 1) & ~(kAlign - 1);
  if (size > left_) {
    // A large request gets a block of its own; the current block stays in
    // use for the small ones that follow.
    const size_t block = std::max(size, kBlockBytes);
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
