#include "daemon/mcp/tool_result.h"

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

// Every scalar of `value`, as text.
void CollectScalars(const Json& value, std::vector<std::string>& out) {
  if (value.is_object() || value.is_array()) {
    for (const Json& element : value) CollectScalars(element, out);
  } else if (value.is_string()) {
    out.push_back(value.get<std::string>());
  } else if (!value.is_null()) {
    out.push_back(DumpJson(value));
  }
}

// True when the text blocks already carry `structured`.
bool TextSaysTheSame(const std::vector<std::string>& texts, const Json& structured) {
  for (const std::string& text : texts) {
    absl::StatusOr<Json> parsed = ParseJson(text);
    if (parsed.ok() && *parsed == structured) return true;
  }
  if (texts.empty()) return false;
  std::vector<std::string> scalars;
  CollectScalars(structured, scalars);
  if (scalars.empty()) return false;
  std::string joined = absl::StrJoin(texts, "\n");
  for (const std::string& scalar : scalars) {
    if (!absl::StrContains(joined, scalar)) return false;
  }
  return true;
}

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

std::string RenderToolResult(const CallToolResult& result, size_t max_bytes) {
  std::vector<std::string> parts;
  std::vector<std::string> texts;
  for (const Json& block : result.content) {
    std::string part = RenderBlock(block);
    if (block.is_object() && Field(block, "type") == "text") texts.push_back(part);
    parts.push_back(std::move(part));
  }
  const Json& structured = result.structured_content;
  if (!structured.is_null() && !TextSaysTheSame(texts, structured)) {
    parts.push_back(DumpJson(structured));
  }
  std::string text = absl::StrJoin(parts, "\n");
  if (text.empty()) text = "(the tool returned no content)";
  return TruncateForModel(std::move(text), max_bytes);
}

}  // namespace raw::mcp
