// Transcript: the model context rendered as plain text for the summarizer
// that compaction asks, and the preparations that keep such a transcript
// small and free of binary payloads.
//
// Binary payloads (any `data:<mime>;base64,<data>` in text, such as an image
// a tool returned) are never sent to the summarizer: each one is replaced by
// a description of its type and size, and the file path when the tool call
// that produced it names one.
//
// Pure functions; safe from any thread.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "daemon/events/conversation.h"

namespace raw::context {

// `text` with every data-URL payload replaced by a description such as
// "[image image/png, 12.1 KB, path shots/a.png; data left out]". `path` is
// omitted from the description when empty.
std::string DescribeDataPayloads(std::string_view text, std::string_view path = {});

// Copies of `items` with DescribeDataPayloads applied to every text field.
// A tool output's payload is described with the path its tool call (found
// by call id among `items`) named in a "path", "file_path", "file" or
// "filename" argument.
std::vector<events::ContextItem> WithoutDataPayloads(
    const std::vector<events::ContextItem>& items);

// `text` cut to at most `max_bytes` (when longer): its head and tail around a
// line saying how many bytes were left out. Never splits a UTF-8 sequence.
std::string ShortenText(std::string_view text, size_t max_bytes);

// A copy of `item` whose text fields (user text, assistant text and
// reasoning, tool call arguments, tool output) total at most about
// `max_bytes`, cutting the largest fields first with ShortenText.
events::ContextItem ShortenItem(const events::ContextItem& item, size_t max_bytes);

// Total bytes of the text fields ShortenItem cuts.
size_t TextBytes(const events::ContextItem& item);

// One item as transcript text: a header line ("[user]", "[assistant]",
// "[tool result NAME #ID]", "[tool error NAME #ID]", "[summary of earlier
// turns]"; an assistant's tool calls each get a "[tool call NAME #ID]" line)
// and under it the content, every line of which starts with "| " ("|" when
// empty). So no content (a fetched page, a file, a command's output) can
// make a line that reads as a header: a header is always Raw's. Line breaks
// are LF, CR LF, CR, VT, FF, NEL, LS and PS; the names and ids in headers
// have theirs and any brackets replaced by spaces. Reasoning is not
// rendered. Data-URL payloads are described, never copied. An earlier
// summary is rendered without its preamble (the current kSummaryPreamble or
// the one older sessions stored).
std::string RenderItem(const events::ContextItem& item);

// The items in order, as RenderItem renders them (with tool-output payloads
// described with their paths, as WithoutDataPayloads does), separated by
// blank lines.
std::string RenderTranscript(const std::vector<events::ContextItem>& items);

// The fixed start of every compaction summary as the model sees it (see
// AssembleCompacted): the summary enters the context as a user-role message,
// so it says that the assistant wrote it as a record of earlier turns, not
// that the user sent it. RenderItem leaves it out of an earlier summary.
extern const char kSummaryPreamble[];

}  // namespace raw::context
