// ImagePart: an image that came with a user prompt, as the model context and
// the display history keep it. Made only by CheckPromptImages, so every
// ImagePart is one of the formats all provider APIs take, within the limits
// below, with a mime type read from its bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "absl/status/statusor.h"

namespace raw::events {

struct ImagePart {
  std::string mime_type;  // "image/png", "image/jpeg", "image/gif" or "image/webp"
  // The bytes in standard base64 with padding: the form the provider APIs
  // and the stored JSON take, encoded once when the prompt arrives.
  std::string base64;
  // Pixel size from the image's header; 0 when it does not say.
  int64_t width = 0;
  int64_t height = 0;
  // The file it came from, as the client named it; may be empty.
  std::string name;
  bool operator==(const ImagePart&) const = default;
};

// Limits on the images of one prompt. 5 MiB is the smallest per-image limit
// among the provider APIs Raw speaks (Anthropic's); every request of the
// session carries the images again, so the prompt's total is bounded too.
inline constexpr size_t kMaxImageBytes = 5 * 1024 * 1024;
inline constexpr size_t kMaxImagesPerPrompt = 10;
inline constexpr size_t kMaxPromptImageBytes = 10 * 1024 * 1024;
// Images the model context may hold at once: every request sends them all
// again, and 20 MB is the smallest whole-request limit for inline images
// among those APIs (Google's).
inline constexpr size_t kMaxContextImageBytes = 20 * 1024 * 1024;

// An image as a client sends it: raw bytes and, optionally, the mime type
// it declares.
struct ImageUpload {
  std::string mime_type;  // may be empty
  std::string bytes;
  std::string name;  // may be empty
};

// The longest ImagePart::name accepted, in bytes.
inline constexpr size_t kMaxImageNameBytes = 1024;

// Checks and encodes the images of one prompt. INVALID_ARGUMENT, naming the
// image by its position from 1, when one is empty, not PNG/JPEG/GIF/WebP
// by its bytes, of another type than it declares, over a limit, or named
// with more than kMaxImageNameBytes, invalid UTF-8 or a control character.
absl::StatusOr<std::vector<ImagePart>> CheckPromptImages(const std::vector<ImageUpload>& uploads);

// The decoded size of an ImagePart's bytes.
size_t ImageByteSize(const ImagePart& image);

}  // namespace raw::events
