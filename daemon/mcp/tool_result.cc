#include "daemon/mcp/tool_result.h"

#include <cstdint>
#include <string_view>
#include <vector>

#include "absl/strings/ascii.h"
#include "absl/strings/escaping.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_join.h"
#include "common/base64_size.h"

namespace raw::mcp {
namespace {

std::string Field(const Json& object, const char* key) {
  auto it = object.find(key);
  return it != object.end() && it->is_string() ? it->get<std::string>() : std::string();
}

bool IsTextualMime(const std::string& mime_type) {
  std::string mime = absl::AsciiStrToLower(mime_type);
  mime = mime.substr(0, mime.find(';'));
  if (absl::StartsWith(mime, "text/")) return true;
  for (const char* suffix : {"/json", "+json", "/xml", "+xml", "/yaml", "/x-yaml", "/javascript",
                             "/toml", "/x-sh", "/csv"}) {
    if (absl::EndsWith(mime, suffix)) return true;
  }
  return false;
}

bool IsValidUtf8(std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    unsigned char c = static_cast<unsigned char>(text[i]);
    size_t extra;
    if (c < 0x80) {
      extra = 0;
    } else if ((c & 0xe0) == 0xc0) {
      extra = 1;
    } else if ((c & 0xf0) == 0xe0) {
      extra = 2;
    } else if ((c & 0xf8) == 0xf0) {
      extra = 3;
    } else {
      return false;
    }
    if (i + extra >= text.size() && extra > 0) return false;
    for (size_t k = 1; k <= extra; ++k) {
      if ((static_cast<unsigned char>(text[i + k]) & 0xc0) != 0x80) return false;
    }
    i += extra + 1;
  }
  return true;
}

std::string SizeNote(size_t bytes) { return absl::StrCat(bytes, " bytes"); }

std::string RenderResource(const Json& resource) {
  std::string uri = Field(resource, "uri");
  std::string mime = Field(resource, "mimeType");
  std::string head = absl::StrCat("[resource ", uri.empty() ? "(no uri)" : uri);
  if (auto text = resource.find("text"); text != resource.end() && text->is_string()) {
    return absl::StrCat(head, mime.empty() ? "" : absl::StrCat(" (", mime, ")"), "]\n",
                        text->get<std::string>());
  }
  std::string blob = Field(resource, "blob");
  if (IsTextualMime(mime)) {
    std::string decoded;
    if (absl::Base64Unescape(blob, &decoded) && IsValidUtf8(decoded)) {
      return absl::StrCat(head, " (", mime, ")]\n", decoded);
    }
  }
  return absl::StrCat(head, " (", mime.empty() ? "unknown type" : mime, ", ",
                      SizeNote(Base64DecodedSize(blob)), " of binary data, not shown)]");
}

std::string RenderBlock(const Json& block) {
  if (!block.is_object()) return "[a content block that is not an object]";
  std::string type = Field(block, "type");
  if (type == "text") return Field(block, "text");
  if (type == "image" || type == "audio") {
    std::string mime = Field(block, "mimeType");
    return absl::StrCat("[", type, " (", mime.empty() ? "unknown type" : mime, ", ",
                        SizeNote(Base64DecodedSize(Field(block, "data"))), ") not shown]");
  }
  if (type == "resource_link") {
    std::string name = Field(block, "title");
    if (name.empty()) name = Field(block, "name");
    std::vector<std::string> details;
    if (std::string mime = Field(block, "mimeType"); !mime.empty()) details.push_back(mime);
    if (auto size = block.find("size"); size != block.end() && size->is_number_unsigned()) {
      details.push_back(SizeNote(size->get<size_t>()));
    }
    std::string text = absl::StrCat(
        "[resource link: ", name, " <", Field(block, "uri"), ">",
        details.empty() ? "" : absl::StrCat(" (", absl::StrJoin(details, ", "), ")"), "]");
    if (std::string description = Field(block, "description"); !description.empty()) {
      absl::StrAppend(&text, " ", description);
    }
    return text;
  }
  if (type == "resource") {
    auto resource = block.find("resource");
    if (resource == block.end() || !resource->is_object()) return "[an empty resource]";
    return RenderResource(*resource);
  }
  return absl::StrCat("[", type.empty() ? "untyped" : type, " content not shown]");
}

// How many bytes the "text holds every value" check may look at in all:
// each value costs a scan of the text plus its own length. Past it, the
// structured content is shown rather than spend unbounded time on the
// turn's thread comparing (a server decides both sizes).
constexpr size_t kMaxScanBytes = size_t{64} << 20;

// Every scalar of `value`, as text; false (and `out` incomplete) once they
// would cost more than `budget` scan bytes against a text of `text_bytes`.
bool CollectScalars(const Json& value, size_t text_bytes, size_t& budget,
                    std::vector<std::string>& out) {
  if (value.is_object() || value.is_array()) {
    for (const Json& element : value) {
      if (!CollectScalars(element, text_bytes, budget, out)) return false;
    }
    return true;
  }
  if (value.is_null()) return true;
  std::string scalar = value.is_string() ? value.get<std::string>() : DumpJson(value);
  size_t cost = text_bytes + scalar.size();
  if (cost > budget) return false;
  budget -= cost;
  out.push_back(std::move(scalar));
  return true;
}

// Whether `needle` occurs in `text`, by Knuth-Morris-Pratt: linear in both.
// std::string_view::find, and libstdc++'s Boyer-Moore table, take time in
// the product of the lengths at worst, and the server picks both strings.
bool Contains(std::string_view text, std::string_view needle) {
  if (needle.empty()) return true;
  if (needle.size() > text.size()) return false;
  // border[i]: the length of the longest proper prefix of needle[0..i] that
  // is also its suffix.
  std::vector<size_t> border(needle.size(), 0);
  for (size_t i = 1, k = 0; i < needle.size(); ++i) {
    while (k > 0 && needle[i] != needle[k]) k = border[k - 1];
    if (needle[i] == needle[k]) ++k;
    border[i] = k;
  }
  for (size_t i = 0, k = 0; i < text.size(); ++i) {
    while (k > 0 && text[i] != needle[k]) k = border[k - 1];
    if (text[i] == needle[k]) ++k;
    if (k == needle.size()) return true;
  }
  return false;
}

bool IsTextBlock(const Json& block) { return block.is_object() && Field(block, "type") == "text"; }

// A text block's text, without copying it.
std::string_view TextOf(const Json& block) {
  auto it = block.find("text");
  return it != block.end() && it->is_string() ? std::string_view(it->get_ref<const std::string&>())
                                              : std::string_view();
}

// True when the text blocks of `content` already carry `structured`.
bool TextSaysTheSame(const Json& content, const Json& structured) {
  std::string joined;
  bool any = false;
  for (const Json& block : content) {
    if (!IsTextBlock(block)) continue;
    std::string_view text = TextOf(block);
    absl::StatusOr<Json> parsed = ParseJson(text);
    if (parsed.ok() && *parsed == structured) return true;
    if (any) joined += '\n';
    joined += text;
    any = true;
  }
  if (!any) return false;
  std::vector<std::string> scalars;
  size_t budget = kMaxScanBytes;
  if (!CollectScalars(structured, joined.size(), budget, scalars)) return false;
  if (scalars.empty()) return false;
  for (const std::string& scalar : scalars) {
    if (!Contains(joined, scalar)) return false;
  }
  return true;
}

// The parts of a result joined with newlines, kept in one buffer that
// stops growing one byte past `max_bytes` (where the cut looks); the rest
// is only counted, for the truncation note. A server may send millions of
// blocks: none of them is kept once the buffer is full.
class Joined {
 public:
  Joined(size_t max_bytes, RenderStats* stats)
      : max_bytes_(max_bytes),
        keep_(max_bytes == SIZE_MAX ? max_bytes : max_bytes + 1),
        stats_(stats) {}

  void Add(std::string_view part) {
    if (parts_++ > 0) Append("\n");
    Append(part);
  }

  // As TruncateForModel would make of the whole text.
  std::string Finish() && {
    if (total_ == 0) return TruncateForModel("(the tool returned no content)", max_bytes_);
    if (stats_ != nullptr) stats_->buffer_bytes = text_.size();
    if (total_ <= max_bytes_) return std::move(text_);
    size_t cut = max_bytes_;
    // Never split a UTF-8 sequence: back up over continuation bytes.
    while (cut > 0 && (static_cast<unsigned char>(text_[cut]) & 0xc0) == 0x80) --cut;
    text_.resize(cut);
    absl::StrAppend(&text_, "\n\n[output truncated: ", total_ - cut, " of ", total_,
                    " bytes left out]");
    return std::move(text_);
  }

 private:
  void Append(std::string_view piece) {
    total_ += piece.size();
    if (text_.size() < keep_) text_.append(piece.substr(0, keep_ - text_.size()));
  }

  const size_t max_bytes_;
  const size_t keep_;
  RenderStats* const stats_;
  std::string text_;
  size_t total_ = 0;
  size_t parts_ = 0;
};

}  // namespace

std::string TruncateForModel(std::string text, size_t max_bytes) {
  if (text.size() <= max_bytes) return text;
  size_t cut = max_bytes;
  // Never split a UTF-8 sequence: back up over continuation bytes.
  while (cut > 0 && (static_cast<unsigned char>(text[cut]) & 0xc0) == 0x80) --cut;
  size_t total = text.size();
  text.resize(cut);
  absl::StrAppend(&text, "\n\n[output truncated: ", total - cut, " of ", total, " bytes left out]");
  return text;
}

std::string RenderToolResult(const CallToolResult& result, size_t max_bytes, RenderStats* stats) {
  Joined joined(max_bytes, stats);
  for (const Json& block : result.content) {
    if (IsTextBlock(block)) {
      joined.Add(TextOf(block));
    } else {
      joined.Add(RenderBlock(block));
    }
  }
  const Json& structured = result.structured_content;
  if (!structured.is_null() && !TextSaysTheSame(result.content, structured)) {
    joined.Add(DumpJson(structured));
  }
  return std::move(joined).Finish();
}

}  // namespace raw::mcp
