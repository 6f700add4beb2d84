// Reading an image file to send with a prompt (`raw run --image`, the
// terminal client's /image).
#pragma once

#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "raw/v1/event.pb.h"

namespace raw::client {

// The file at `path` as a prompt image, its mime type and pixel size read
// from its bytes, named by `path` when rawd accepts that as a name.
// INVALID_ARGUMENT naming the file when it is not a regular file, larger
// than 5 MiB (rawd's limit for one image), or not PNG, JPEG, GIF or WebP;
// NOT_FOUND or PERMISSION_DENIED when it cannot be read. Never blocks on a
// FIFO.
absl::StatusOr<v1::Image> ReadImageFile(const std::string& path);

// Whether rawd accepts `name` as a prompt image's name (v1.Image.name): at
// most 1024 bytes of UTF-8 without control characters.
bool AcceptableImageName(std::string_view name);

}  // namespace raw::client
