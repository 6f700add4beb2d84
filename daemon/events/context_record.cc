#include "daemon/events/context_record.h"

#include <algorithm>
#include <cstdint>
#include <utility>
#include <variant>

#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/status_macros.h"
#include "common/utf8.h"
#include "daemon/events/event_codec.h"

namespace raw::events {
namespace {

constexpr unsigned char kFormat = 0x01;
// kAssistantTurnOfModel: an assistant turn followed by its model, written
// when the model is known; records written before it existed decode with
// no model.
enum Kind : unsigned char {
  kUserText = 1,
  kAssistantTurn = 2,
  kToolOutcome = 3,
  kAssistantTurnOfModel = 4,
};
constexpr unsigned char kHasImages = 0x02;
// With kHasImages: each image's name follows its size. Records of images
// without names (and those written before names existed) leave it out.
constexpr unsigned char kImagesNamed = 0x04;

class RecordWriter {
 public:
  explicit RecordWriter(std::string& out) : out_(out) {}

  void Byte(unsigned char b) { out_.push_back(static_cast<char>(b)); }
  void Varint(uint64_t v) {
    while (v >= 0x80) {
      Byte(static_cast<unsigned char>(v | 0x80));
      v >>= 7;
    }
    Byte(static_cast<unsigned char>(v));
  }
  // Text that is not valid UTF-8 is written with U+FFFD replacements, as
  // the JSON form did: a record always decodes.
  void String(const std::string& s) {
    if (ValidUtf8Prefix(s) != s.size()) {
      const std::string clean = SanitizeUtf8(s);
      Varint(clean.size());
      out_.append(clean);
      return;
    }
    Varint(s.size());
    out_.append(s);
  }

 private:
  std::string& out_;
};

// Reads fields in order; the first problem sticks and names the field.
class RecordReader {
 public:
  // Reads `bytes` from byte `pos` on.
  RecordReader(std::string_view bytes, size_t pos) : bytes_(bytes), pos_(pos) {}

  absl::StatusOr<unsigned char> Byte(const char* field) {
    if (pos_ >= bytes_.size()) return Truncated(field);
    return static_cast<unsigned char>(bytes_[pos_++]);
  }
  absl::StatusOr<uint64_t> Varint(const char* field) {
    uint64_t value = 0;
    for (int shift = 0; shift < 64; shift += 7) {
      if (pos_ >= bytes_.size()) return Truncated(field);
      const auto b = static_cast<unsigned char>(bytes_[pos_++]);
      value |= static_cast<uint64_t>(b & 0x7f) << shift;
      if ((b & 0x80) == 0) return value;
    }
    return Damaged(field, "its length does not end");
  }
  absl::Status String(const char* field, std::string& out) {
    ASSIGN_OR_RETURN(uint64_t size, Varint(field));
    if (size > bytes_.size() - pos_) {
      return Damaged(field, absl::StrCat("it says ", size, " bytes but ", bytes_.size() - pos_,
                                         " remain"));
    }
    std::string_view text = bytes_.substr(pos_, size);
    if (size_t valid = ValidUtf8Prefix(text); valid != text.size()) {
      return Damaged(field, absl::StrCat("byte ", valid, " is not valid UTF-8"));
    }
    out.assign(text);
    pos_ += size;
    return absl::OkStatus();
  }
  // A count of entries that take at least `min_bytes` each: more than the
  // remaining bytes could hold is damage (and no vector is sized by it).
  absl::StatusOr<size_t> Count(const char* field, size_t min_bytes) {
    ASSIGN_OR_RETURN(uint64_t count, Varint(field));
    if (count > (bytes_.size() - pos_) / min_bytes) {
      return Damaged(field, absl::StrCat("it says ", count, " entries but only ",
                                         bytes_.size() - pos_, " bytes remain"));
    }
    return static_cast<size_t>(count);
  }
  absl::Status Flag(const char* field, bool& out) {
    ASSIGN_OR_RETURN(unsigned char b, Byte(field));
    if (b > 1) return Damaged(field, absl::StrFormat("0x%02x is neither 0 nor 1", b));
    out = b == 1;
    return absl::OkStatus();
  }
  absl::Status End() {
    if (pos_ == bytes_.size()) return absl::OkStatus();
    return absl::InvalidArgumentError(absl::StrCat(
        "context item record: ", bytes_.size() - pos_, " bytes follow its last field"));
  }

  static absl::Status Damaged(const char* field, absl::string_view why) {
    return absl::InvalidArgumentError(
        absl::StrCat("context item record, field \"", field, "\": ", why));
  }

 private:
  absl::Status Truncated(const char* field) const {
    return absl::InvalidArgumentError(absl::StrCat("context item record: ends at byte ", pos_,
                                                   ", inside field \"", field, "\""));
  }

  std::string_view bytes_;
  size_t pos_;
};

struct Encoder {
  RecordWriter& w;
  void operator()(const UserText& p) const {
    w.Byte(kUserText);
    // Bit 1 of the role byte says images follow; records without images
    // are as they were before images existed.
    const bool named = std::any_of(p.images.begin(), p.images.end(),
                                   [](const ImagePart& image) { return !image.name.empty(); });
    w.Byte((p.kind == UserTextKind::kSummary ? 1 : 0) | (p.images.empty() ? 0 : kHasImages) |
           (named ? kImagesNamed : 0));
    w.String(p.text);
    w.String(p.turn_id);
    if (p.images.empty()) return;
    w.Varint(p.images.size());
    for (const ImagePart& image : p.images) {
      w.String(image.mime_type);
      w.String(image.base64);
      w.Varint(static_cast<uint64_t>(image.width));
      w.Varint(static_cast<uint64_t>(image.height));
      if (named) w.String(image.name);
    }
  }
  void operator()(const AssistantTurn& p) const {
    w.Byte(p.model.empty() ? kAssistantTurn : kAssistantTurnOfModel);
    w.String(p.text);
    w.String(p.reasoning);
    w.Varint(p.tool_calls.size());
    for (const ToolCallRequest& call : p.tool_calls) {
      w.String(call.call_id);
      w.String(call.name);
      w.String(call.arguments);
    }
    w.Varint(p.opaque.size());
    for (const OpaqueBlob& blob : p.opaque) {
      w.String(blob.provider);
      w.String(blob.kind);
      w.String(blob.id);
      w.String(blob.data);
    }
    if (!p.model.empty()) w.String(p.model);
  }
  void operator()(const ToolOutcome& p) const {
    w.Byte(kToolOutcome);
    w.Byte(p.is_error ? 1 : 0);
    w.String(p.call_id);
    w.String(p.name);
    w.String(p.content);
  }
};

absl::Status ReadUserText(RecordReader& r, ContextItem& out) {
  UserText& p = out.emplace<UserText>();
  ASSIGN_OR_RETURN(unsigned char role, r.Byte("role"));
  if ((role & ~(kHasImages | kImagesNamed)) > 1 ||
      ((role & kImagesNamed) != 0 && (role & kHasImages) == 0)) {
    return RecordReader::Damaged("role", absl::StrFormat("unknown role 0x%02x", role));
  }
  p.kind = (role & 1) == 1 ? UserTextKind::kSummary : UserTextKind::kPrompt;
  RETURN_IF_ERROR(r.String("text", p.text));
  RETURN_IF_ERROR(r.String("turn_id", p.turn_id));
  if ((role & kHasImages) == 0) return absl::OkStatus();
  ASSIGN_OR_RETURN(size_t images, r.Count("images", 4));
  p.images.resize(images);
  for (ImagePart& image : p.images) {
    RETURN_IF_ERROR(r.String("images.mime_type", image.mime_type));
    RETURN_IF_ERROR(r.String("images.base64", image.base64));
    ASSIGN_OR_RETURN(uint64_t width, r.Varint("images.width"));
    ASSIGN_OR_RETURN(uint64_t height, r.Varint("images.height"));
    image.width = static_cast<int64_t>(width);
    image.height = static_cast<int64_t>(height);
    if ((role & kImagesNamed) != 0) RETURN_IF_ERROR(r.String("images.name", image.name));
  }
  return absl::OkStatus();
}

absl::Status ReadAssistantTurn(RecordReader& r, bool with_model, ContextItem& out) {
  AssistantTurn& p = out.emplace<AssistantTurn>();
  RETURN_IF_ERROR(r.String("text", p.text));
  RETURN_IF_ERROR(r.String("reasoning", p.reasoning));
  ASSIGN_OR_RETURN(size_t calls, r.Count("tool_calls", 3));
  p.tool_calls.resize(calls);
  for (ToolCallRequest& call : p.tool_calls) {
    RETURN_IF_ERROR(r.String("tool_calls.call_id", call.call_id));
    RETURN_IF_ERROR(r.String("tool_calls.name", call.name));
    RETURN_IF_ERROR(r.String("tool_calls.arguments", call.arguments));
  }
  ASSIGN_OR_RETURN(size_t blobs, r.Count("opaque", 4));
  p.opaque.resize(blobs);
  for (OpaqueBlob& blob : p.opaque) {
    RETURN_IF_ERROR(r.String("opaque.provider", blob.provider));
    RETURN_IF_ERROR(r.String("opaque.kind", blob.kind));
    RETURN_IF_ERROR(r.String("opaque.id", blob.id));
    RETURN_IF_ERROR(r.String("opaque.data", blob.data));
  }
  if (with_model) RETURN_IF_ERROR(r.String("model", p.model));
  return absl::OkStatus();
}

absl::Status ReadToolOutcome(RecordReader& r, ContextItem& out) {
  ToolOutcome& p = out.emplace<ToolOutcome>();
  RETURN_IF_ERROR(r.Flag("is_error", p.is_error));
  RETURN_IF_ERROR(r.String("call_id", p.call_id));
  RETURN_IF_ERROR(r.String("name", p.name));
  return r.String("content", p.content);
}

bool LooksLikeJson(std::string_view bytes) {
  for (char c : bytes) {
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') continue;
    return c == '{';
  }
  return false;
}

}  // namespace

std::string EncodeContextRecord(const ContextItem& item) {
  std::string out;
  RecordWriter writer(out);
  writer.Byte(kFormat);
  std::visit(Encoder{writer}, item);
  return out;
}

absl::Status DecodeContextRecord(std::string_view bytes, ContextItem& out) {
  if (bytes.empty()) return absl::InvalidArgumentError("context item record: empty");
  if (LooksLikeJson(bytes)) {
    ASSIGN_OR_RETURN(out, DecodeContextItem(std::string(bytes)));
    return absl::OkStatus();
  }
  const auto format = static_cast<unsigned char>(bytes[0]);
  if (format != kFormat) {
    return absl::InvalidArgumentError(absl::StrFormat(
        "context item record: unknown format 0x%02x (neither format 1 nor JSON)", format));
  }
  RecordReader reader(bytes, 1);
  ASSIGN_OR_RETURN(unsigned char kind, reader.Byte("kind"));
  switch (kind) {
    case kUserText:
      RETURN_IF_ERROR(ReadUserText(reader, out));
      break;
    case kAssistantTurn:
    case kAssistantTurnOfModel:
      RETURN_IF_ERROR(ReadAssistantTurn(reader, kind == kAssistantTurnOfModel, out));
      break;
    case kToolOutcome:
      RETURN_IF_ERROR(ReadToolOutcome(reader, out));
      break;
    default:
      return RecordReader::Damaged("kind", absl::StrFormat("unknown kind 0x%02x", kind));
  }
  return reader.End();
}

absl::StatusOr<ContextItem> DecodeContextRecord(std::string_view bytes) {
  ContextItem item;
  RETURN_IF_ERROR(DecodeContextRecord(bytes, item));
  return item;
}

}  // namespace raw::events
