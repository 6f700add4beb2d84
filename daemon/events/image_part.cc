#include "daemon/events/image_part.h"

#include <algorithm>

#include "absl/status/status.h"
#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "common/base64_size.h"
#include "common/image_sniff.h"
#include "common/utf8.h"

namespace raw::events {

absl::StatusOr<std::vector<ImagePart>> CheckPromptImages(const std::vector<ImageUpload>& uploads) {
  if (uploads.size() > kMaxImagesPerPrompt) {
    return absl::InvalidArgumentError(absl::StrCat("a prompt takes at most ", kMaxImagesPerPrompt,
                                                   " images; this one has ", uploads.size()));
  }
  std::vector<ImagePart> images;
  images.reserve(uploads.size());
  size_t total = 0;
  for (size_t i = 0; i < uploads.size(); ++i) {
    const ImageUpload& upload = uploads[i];
    const std::string which = absl::StrCat("image ", i + 1);
    if (upload.bytes.empty()) return absl::InvalidArgumentError(absl::StrCat(which, " is empty"));
    if (upload.bytes.size() > kMaxImageBytes) {
      return absl::InvalidArgumentError(absl::StrCat(which, " has ", upload.bytes.size(),
                                                     " bytes; an image may have at most ",
                                                     kMaxImageBytes));
    }
    total += upload.bytes.size();
    if (total > kMaxPromptImageBytes) {
      return absl::InvalidArgumentError(absl::StrCat("the images of a prompt may have at most ",
                                                     kMaxPromptImageBytes, " bytes together"));
    }
    std::optional<ImageFacts> facts = SniffImage(upload.bytes);
    if (!facts) {
      return absl::InvalidArgumentError(
          absl::StrCat(which, " is not an image Raw can send: its bytes are none of ",
                       std::string(kImageMimeTypes)));
    }
    if (!upload.mime_type.empty() && upload.mime_type != facts->mime_type) {
      return absl::InvalidArgumentError(absl::StrCat(which, " is declared \"", upload.mime_type,
                                                     "\" but its bytes are ",
                                                     std::string(facts->mime_type)));
    }
    if (upload.name.size() > kMaxImageNameBytes) {
      return absl::InvalidArgumentError(absl::StrCat(which, " has a name of ", upload.name.size(),
                                                     " bytes; at most ", kMaxImageNameBytes,
                                                     " are accepted"));
    }
    if (ValidUtf8Prefix(upload.name) != upload.name.size() ||
        std::any_of(upload.name.begin(), upload.name.end(),
                    [](char c) { return static_cast<unsigned char>(c) < 0x20 || c == 0x7f; })) {
      return absl::InvalidArgumentError(
          absl::StrCat(which, "'s name is not UTF-8 text without control characters"));
    }
    images.push_back(ImagePart{.mime_type = std::string(facts->mime_type),
                               .base64 = absl::Base64Escape(upload.bytes),
                               .width = facts->width,
                               .height = facts->height,
                               .name = upload.name});
  }
  return images;
}

size_t ImageByteSize(const ImagePart& image) { return Base64DecodedSize(image.base64); }

}  // namespace raw::events
