// Reading an image file to send with a prompt (`raw run --image`, the
// terminal client's /image).
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "raw/v1/event.pb.h"

namespace raw::client {

// The file at `path` as a prompt image, its mime type and pixel size read
// from its bytes.
// INVALID_ARGUMENT naming the file when it is not a regular file, larger
// than 5 MiB (rawd's limit for one image), or not PNG, JPEG, GIF or WebP;
// NOT_FOUND or PERMISSION_DENIED when it cannot be read. Never blocks on a
// FIFO.
absl::StatusOr<v1::Image> ReadImageFile(const std::string& path);

}  // namespace raw::client
