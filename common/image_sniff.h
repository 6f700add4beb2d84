// Image facts read from the bytes themselves, never from a declared type:
// which of the formats every supported provider API takes the bytes are in
// (PNG, JPEG, GIF, WebP), and the pixel size when the header states it.
// Anything else (SVG, which can carry script, included) is not an image here.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

namespace raw {

struct ImageFacts {
  std::string_view mime_type;  // "image/png", "image/jpeg", "image/gif", "image/webp"
  // Pixel size; 0 when the header does not state it where it was looked for.
  int64_t width = 0;
  int64_t height = 0;
};

// nullopt when `bytes` do not start like one of the four formats.
std::optional<ImageFacts> SniffImage(std::string_view bytes);

// The mime types SniffImage answers, for messages.
inline constexpr std::string_view kImageMimeTypes = "image/png, image/jpeg, image/gif, image/webp";

}  // namespace raw
