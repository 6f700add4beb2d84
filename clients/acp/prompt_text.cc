#include "clients/acp/prompt_text.h"

#include <algorithm>

#include "absl/strings/escaping.h"
#include "absl/strings/str_cat.h"
#include "clients/lib/image_file.h"
#include "google/protobuf/io/coded_stream.h"

namespace raw::acp {
namespace {

std::string Field(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : "";
}

std::string LastSegment(const std::string& uri) {
  std::string trimmed = uri;
  while (!trimmed.empty() && trimmed.back() == '/') trimmed.pop_back();
  size_t slash = trimmed.find_last_of('/');
  return slash == std::string::npos ? trimmed : trimmed.substr(slash + 1);
}

// A backtick fence longer than any run of backticks in `text` (at least 3).
std::string Fence(const std::string& text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  return std::string(std::max<size_t>(3, longest + 1), '`');
}

// The size of a length-delimited field of `length` bytes: its tag (one
// byte for the field numbers used here) and its length as a varint.
size_t FieldBytes(size_t length) {
  return 1 + google::protobuf::io::CodedOutputStream::VarintSize64(length) + length;
}

}  // namespace

size_t PromptRequestBytes(const AcpPrompt& prompt) {
  size_t bytes = prompt.text.empty() ? 0 : FieldBytes(prompt.text.size());
  for (const v1::Image& image : prompt.images) bytes += FieldBytes(image.ByteSizeLong());
  return bytes;
}

absl::Status CheckPromptFits(const AcpPrompt& prompt, size_t max_request_bytes) {
  const size_t bytes = PromptRequestBytes(prompt);
  if (bytes + kRequestIdsReserve <= max_request_bytes) return absl::OkStatus();
  return absl::InvalidArgumentError(absl::StrCat(
      "the prompt is ", bytes,
      " bytes once assembled (its text with the contents of its embedded resources, and its "
      "images), more than the ",
      max_request_bytes > kRequestIdsReserve ? max_request_bytes - kRequestIdsReserve : 0,
      " bytes a prompt may take of the ", max_request_bytes,
      " rawd takes in one request; send less, or fewer or smaller resources"));
}

absl::StatusOr<AcpPrompt> PromptOf(const Json& blocks, size_t max_request_bytes) {
  if (!blocks.is_array()) return absl::InvalidArgumentError("\"prompt\" must be an array");
  AcpPrompt prompt;
  std::string& text = prompt.text;
  std::string appendix;
  for (size_t i = 0; i < blocks.size(); ++i) {
    const Json& block = blocks[i];
    if (!block.is_object()) {
      return absl::InvalidArgumentError(absl::StrCat("prompt[", i, "] is not an object"));
    }
    const std::string type = Field(block, "type");
    if (type == "text") {
      text += Field(block, "text");
    } else if (type == "resource_link") {
      std::string uri = Field(block, "uri");
      if (uri.empty()) {
        return absl::InvalidArgumentError(
            absl::StrCat("prompt[", i, "]: resource_link needs a uri"));
      }
      std::string name = Field(block, "name");
      absl::StrAppend(&text, "[", name.empty() ? LastSegment(uri) : name, "](", uri, ")");
    } else if (type == "resource") {
      const Json resource = block.value("resource", Json());
      std::string uri = resource.is_object() ? Field(resource, "uri") : "";
      if (uri.empty()) {
        return absl::InvalidArgumentError(absl::StrCat("prompt[", i, "]: resource needs a uri"));
      }
      absl::StrAppend(&text, "[", LastSegment(uri), "](", uri, ")");
      if (resource.contains("text") && resource["text"].is_string()) {
        std::string body = resource["text"].get<std::string>();
        std::string fence = Fence(body);
        if (!body.empty() && body.back() != '\n') body.push_back('\n');
        absl::StrAppend(&appendix, "\n\nContents of ", uri, ":\n", fence, "\n", body, fence);
      } else {
        std::string mime = Field(resource, "mimeType");
        absl::StrAppend(&appendix, "\n\n(", uri, " is binary",
                        mime.empty() ? "" : absl::StrCat(", ", mime), "; not included)");
      }
    } else if (type == "image") {
      // rawd checks the bytes and whether the session's model takes images.
      v1::Image& image = prompt.images.emplace_back();
      image.set_mime_type(Field(block, "mimeType"));
      // Where the image came from, when the client says and rawd takes it.
      if (std::string uri = Field(block, "uri"); client::AcceptableImageName(uri)) {
        image.set_name(uri);
      }
      const std::string data = Field(block, "data");
      if (data.empty() || !absl::Base64Unescape(data, image.mutable_data())) {
        return absl::InvalidArgumentError(
            absl::StrCat("prompt[", i, "]: an image needs its bytes in base64 in \"data\""));
      }
    } else if (type == "audio") {
      return absl::InvalidArgumentError(absl::StrCat(
          "prompt[", i, "]: audio content is not supported (promptCapabilities.audio is false)"));
    } else {
      return absl::InvalidArgumentError(
          absl::StrCat("prompt[", i, "]: unknown content type \"", type, "\""));
    }
  }
  text += appendix;
  if (text.find_first_not_of(" \t\r\n") == std::string::npos && prompt.images.empty()) {
    return absl::InvalidArgumentError("the prompt is empty");
  }
  if (absl::Status fits = CheckPromptFits(prompt, max_request_bytes); !fits.ok()) return fits;
  return prompt;
}

absl::StatusOr<std::string> PromptText(const Json& blocks) {
  absl::StatusOr<AcpPrompt> prompt = PromptOf(blocks);
  if (!prompt.ok()) return prompt.status();
  return std::move(prompt->text);
}

}  // namespace raw::acp
