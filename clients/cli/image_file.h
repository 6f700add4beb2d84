// Reading an image file for `raw run --image`.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "raw/v1/event.pb.h"

namespace raw::cli {

// The file at `path` as a prompt image, its mime type read from its bytes.
// INVALID_ARGUMENT naming the file when it is not a regular file, larger
// than 5 MiB (rawd's limit for one image), or not PNG, JPEG, GIF or WebP;
// NOT_FOUND and the like when it cannot be read.
absl::StatusOr<v1::Image> ReadImageFile(const std::string& path);

}  // namespace raw::cli
