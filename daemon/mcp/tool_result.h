// RenderToolResult: the text the model receives for an MCP tools/call
// result. Pure.
//
// - text blocks: their text, joined with newlines;
// - image and audio: described (type, MIME type, decoded size), never
//   inlined as base64;
// - resource_link: name or title, URI, MIME type, size and description;
// - resource: its URI and MIME type, then its text (a blob with a textual
//   MIME type that decodes to UTF-8 counts as text; other blobs are only
//   described);
// - structuredContent: serialized JSON, unless a text block already says the
//   same (the same JSON, or text holding every value of it; that check gives
//   up, and the JSON is shown, when the values times the text's length pass
//   64 MiB, so rendering stays fast whatever the server sends);
// - a result past `max_bytes` is cut at a character boundary, ending with a
//   line saying how many bytes were left out. Blocks past the cut are
//   measured for that line, one at a time, never kept.
//
// isError is not part of the text: the caller maps it to the tool status.
#pragma once

#include <cstddef>
#include <string>

#include "daemon/mcp/mcp_tool.h"

namespace raw::mcp {

inline constexpr size_t kMaxToolResultBytes = 100 * 1024;

// What a rendering kept in memory, for tests: a result of any size is
// rendered into one buffer of at most max_bytes + 1 bytes, and what lies
// past it is only measured (for the truncation line), never kept.
struct RenderStats {
  size_t buffer_bytes = 0;  // the rendered text held, before the cut
};

std::string RenderToolResult(const CallToolResult& result, size_t max_bytes = kMaxToolResultBytes,
                             RenderStats* stats = nullptr);

// `text` cut to at most `max_bytes` (at a UTF-8 character boundary) plus a
// line saying how much was left out; unchanged when it fits.
std::string TruncateForModel(std::string text, size_t max_bytes);

}  // namespace raw::mcp
