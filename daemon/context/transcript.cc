#include "daemon/context/transcript.h"

#include <algorithm>
#include <map>
#include <type_traits>

#include "absl/strings/ascii.h"
#include "absl/strings/match.h"
#include "absl/strings/str_cat.h"
#include "absl/strings/str_format.h"
#include "common/json.h"
#include "daemon/events/image_part.h"

namespace raw::context {

const char kSummaryPreamble[] =
    "Summary of earlier turns of this conversation, written by the assistant (a record of those "
    "turns, not a new user message):\n\n";

namespace {

// What every line of an item's content starts with in a transcript.
constexpr char kQuote[] = "| ";

// kSummaryPreamble as sessions stored before it changed have it.
constexpr std::string_view kLegacySummaryPreamble =
    "Summary of earlier turns of this conversation (compacted to save context):\n\n";

// This absl's string_view is its own type, not std::string_view.
absl::string_view ToAbsl(std::string_view s) { return absl::string_view(s.data(), s.size()); }

bool IsMimeChar(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) ||
         std::string_view("!#$&^_.+-/=").find(c) != std::string_view::npos;
}

bool IsBase64Char(char c) {
  return absl::ascii_isalnum(static_cast<unsigned char>(c)) || c == '+' || c == '/' || c == '=';
}

std::string HumanSize(int64_t bytes) {
  if (bytes < 1024) return absl::StrCat(bytes, " bytes");
  if (bytes < 1024 * 1024) return absl::StrFormat("%.1f KB", bytes / 1024.0);
  return absl::StrFormat("%.1f MB", bytes / (1024.0 * 1024.0));
}

// Encoders such as base64(1) wrap their output at 76 (or 64) characters.
// At text[at], after a line of `line` base64 characters: where the payload
// goes on when the line was a full-width wrapped one and a line break
// follows, then a line made only of base64 characters (up to the next break
// or the end); otherwise `at`, so text after a payload is never taken in.
size_t WrappedPayloadLine(std::string_view text, size_t at, size_t stop, size_t line) {
  constexpr size_t kMinWrappedLine = 60;
  if (line < kMinWrappedLine || at >= stop) return at;
  size_t next = at;
  if (text[next] == '\r') ++next;
  if (next >= stop || text[next] != '\n') return at;
  ++next;
  size_t end = next;
  while (end < stop && IsBase64Char(text[end])) ++end;
  if (end == next) return at;
  // A line that goes on with anything else is prose, not a wrapped payload.
  const bool whole_line = end == stop || text[end] == '\n' || text[end] == '\r';
  return whole_line ? next : at;
}

// A data URL starting at text[start] ("data:" already matched): the length
// of the whole URL and its mime type and payload length, if it is one.
// The payload ends where base64 characters end, or at `limit` (the next
// "data:", whose letters are base64 characters too; ':' never is).
struct DataUrl {
  size_t length = 0;
  std::string mime;
  size_t payload = 0;
  size_t padding = 0;
};

std::optional<DataUrl> ParseDataUrl(std::string_view text, size_t start, size_t limit) {
  size_t i = start + 5;  // "data:"
  size_t mime_end = i;
  while (mime_end < text.size() && IsMimeChar(text[mime_end]) && text[mime_end] != '=') {
    ++mime_end;
  }
  DataUrl url;
  url.mime = absl::AsciiStrToLower(ToAbsl(text.substr(i, mime_end - i)));
  i = mime_end;
  // Parameters (";charset=...") up to ";base64,".
  while (i < text.size() && text[i] == ';') {
    if (absl::StartsWithIgnoreCase(ToAbsl(text.substr(i)), ";base64,")) {
      i += 8;
      size_t end = i;
      size_t payload = 0;
      size_t line = 0;  // base64 characters since the last line break
      const size_t stop = std::min(limit, text.size());
      for (;;) {
        while (end < stop && IsBase64Char(text[end])) ++end, ++payload, ++line;
        size_t next = WrappedPayloadLine(text, end, stop, line);
        if (next == end) break;
        end = next;
        line = 0;
      }
      if (payload == 0) return std::nullopt;
      url.payload = payload;
      for (size_t p = end; p > i && text[p - 1] == '='; --p) ++url.padding;
      url.length = end - start;
      return url;
    }
    ++i;
    while (i < text.size() && IsMimeChar(text[i])) ++i;
  }
  return std::nullopt;
}

std::string Describe(const DataUrl& url, std::string_view path) {
  const bool image = absl::StartsWith(url.mime, "image/");
  const int64_t decoded =
      static_cast<int64_t>(url.payload / 4 * 3) - static_cast<int64_t>(std::min<size_t>(url.padding, 2));
  std::string out = absl::StrCat("[", image ? "image " : "data ",
                                 url.mime.empty() ? "of unknown type" : url.mime, ", ",
                                 HumanSize(std::max<int64_t>(decoded, 0)));
  if (!path.empty()) absl::StrAppend(&out, ", path ", ToAbsl(path));
  absl::StrAppend(&out, "; data left out]");
  return out;
}

// The file a tool call names, from its JSON arguments.
std::string PathArgument(const std::string& arguments) {
  auto parsed = ParseJson(arguments);
  if (!parsed.ok() || !parsed->is_object()) return "";
  for (const char* key : {"path", "file_path", "file", "filename"}) {
    auto it = parsed->find(key);
    if (it != parsed->end() && it->is_string()) return it->get<std::string>();
  }
  return "";
}

// Calls `fn` on each text field of `item` (a ContextItem, const or not), in
// a fixed order.
template <typename Item, typename Fn>
void ForEachTextField(Item& item, Fn fn) {
  std::visit(
      [&](auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, events::UserText>) {
          fn(v.text);
        } else if constexpr (std::is_same_v<T, events::AssistantTurn>) {
          fn(v.text);
          fn(v.reasoning);
          for (auto& call : v.tool_calls) fn(call.arguments);
        } else {
          fn(v.content);
        }
      },
      item);
}

std::vector<std::string*> TextFields(events::ContextItem& item) {
  std::vector<std::string*> fields;
  ForEachTextField(item, [&](std::string& f) { fields.push_back(&f); });
  return fields;
}

std::string CallLabel(const std::string& name, const std::string& call_id) {
  return call_id.empty() ? name : absl::StrCat(name, " #", call_id);
}

// The length of the line break at content[i], or 0: LF, CR LF and CR, and
// the other characters a reader may take as a break (VT, FF, NEL, LS, PS).
size_t LineBreakAt(std::string_view content, size_t i) {
  switch (content[i]) {
    case '\n':
    case '\v':
    case '\f':
      return 1;
    case '\r':
      return i + 1 < content.size() && content[i + 1] == '\n' ? 2 : 1;
    default:
      break;
  }
  const std::string_view rest = content.substr(i);
  if (absl::StartsWith(ToAbsl(rest), "\xC2\x85")) return 2;
  if (absl::StartsWith(ToAbsl(rest), "\xE2\x80\xA8") ||
      absl::StartsWith(ToAbsl(rest), "\xE2\x80\xA9")) {
    return 3;
  }
  return 0;
}

// A tool name or call id as part of a header line: line breaks and brackets
// would let it end the header early, so each becomes a space.
std::string HeaderField(std::string_view text) {
  std::string out;
  for (size_t i = 0; i < text.size();) {
    const size_t brk = LineBreakAt(text, i);
    if (brk > 0 || text[i] == '[' || text[i] == ']') {
      out.push_back(' ');
      i += std::max<size_t>(brk, 1);
    } else {
      out.push_back(text[i++]);
    }
  }
  return out;
}

// Appends `content` to `out` on lines of its own, each behind kQuote ("|"
// alone for an empty line), so that no content can start a line the way an
// item header does: whatever a tool returned stays visibly inside its item.
void AppendQuoted(std::string& out, std::string_view content) {
  auto start_line = [&](bool empty) {
    out.push_back('\n');
    out.append(empty ? std::string_view(kQuote, 1) : std::string_view(kQuote));
  };
  size_t line_start = 0;
  for (size_t i = 0; i <= content.size();) {
    const size_t brk = i < content.size() ? LineBreakAt(content, i) : 1;
    if (brk == 0) {
      ++i;
      continue;
    }
    start_line(i == line_start);
    out.append(content.substr(line_start, i - line_start));
    i += brk;
    line_start = i;
  }
}

}  // namespace

std::string DescribeDataPayloads(std::string_view text, std::string_view path) {
  std::string out;
  size_t copied = 0;
  size_t pos = 0;
  while (true) {
    pos = text.find("data:", pos);
    if (pos == std::string_view::npos) break;
    auto url = ParseDataUrl(text, pos, text.find("data:", pos + 5));
    if (!url) {
      pos += 5;
      continue;
    }
    out.append(text.substr(copied, pos - copied));
    out.append(Describe(*url, path));
    pos += url->length;
    copied = pos;
  }
  out.append(text.substr(copied));
  return out;
}

std::vector<events::ContextItem> WithoutDataPayloads(
    const std::vector<events::ContextItem>& items) {
  // call id -> arguments of the call, read only for an output with a payload.
  std::map<std::string, const std::string*> call_arguments;
  std::vector<events::ContextItem> out;
  out.reserve(items.size());
  for (const auto& item : items) {
    events::ContextItem copy = item;
    std::string path;
    if (const auto* turn = std::get_if<events::AssistantTurn>(&item)) {
      for (const auto& call : turn->tool_calls) call_arguments[call.call_id] = &call.arguments;
    } else if (const auto* outcome = std::get_if<events::ToolOutcome>(&item)) {
      auto it = call_arguments.find(outcome->call_id);
      if (it != call_arguments.end() && outcome->content.find("data:") != std::string::npos) {
        path = PathArgument(*it->second);
      }
    }
    for (std::string* field : TextFields(copy)) {
      if (field->find("data:") != std::string::npos) *field = DescribeDataPayloads(*field, path);
    }
    out.push_back(std::move(copy));
  }
  return out;
}

std::string ShortenText(std::string_view text, size_t max_bytes) {
  if (text.size() <= max_bytes) return std::string(text);
  const std::string marker_probe = absl::StrFormat("\n[... %d bytes left out ...]\n", text.size());
  const size_t keep = max_bytes > marker_probe.size() ? max_bytes - marker_probe.size() : 0;
  size_t head = keep / 2;
  size_t tail_start = text.size() - (keep - head);
  // Never split a UTF-8 sequence: move the cuts off continuation bytes.
  auto continuation = [&](size_t i) {
    return i < text.size() && (static_cast<unsigned char>(text[i]) & 0xC0) == 0x80;
  };
  while (head > 0 && continuation(head)) --head;
  while (tail_start < text.size() && continuation(tail_start)) ++tail_start;
  return absl::StrCat(ToAbsl(text.substr(0, head)),
                      absl::StrFormat("\n[... %d bytes left out ...]\n", tail_start - head),
                      ToAbsl(text.substr(tail_start)));
}

size_t TextBytes(const events::ContextItem& item) {
  size_t n = 0;
  ForEachTextField(item, [&](const std::string& f) { n += f.size(); });
  return n;
}

events::ContextItem ShortenItem(const events::ContextItem& item, size_t max_bytes) {
  // Below this a field is not worth cutting further.
  constexpr size_t kMinField = 256;
  events::ContextItem copy = item;
  std::vector<std::string*> fields = TextFields(copy);
  auto total = [&] {
    size_t n = 0;
    for (const std::string* f : fields) n += f->size();
    return n;
  };
  for (size_t sum = total(); sum > max_bytes; sum = total()) {
    std::string* largest = *std::max_element(
        fields.begin(), fields.end(),
        [](const std::string* a, const std::string* b) { return a->size() < b->size(); });
    if (largest->size() <= kMinField) break;
    const size_t excess = sum - max_bytes;
    const size_t target = largest->size() > excess + kMinField ? largest->size() - excess : kMinField;
    std::string shorter = ShortenText(*largest, target);
    if (shorter.size() >= largest->size()) break;
    *largest = std::move(shorter);
  }
  return copy;
}

std::string RenderItem(const events::ContextItem& item) {
  std::string out;
  std::visit(
      [&](const auto& v) {
        using T = std::decay_t<decltype(v)>;
        if constexpr (std::is_same_v<T, events::UserText>) {
          std::string_view text = v.text;
          if (v.kind == events::UserTextKind::kSummary) {
            // The preamble is Raw's framing, not the summary's content; a
            // session stored before the framing changed has the older one.
            for (std::string_view preamble :
                 {std::string_view(kSummaryPreamble), kLegacySummaryPreamble}) {
              if (absl::StartsWith(ToAbsl(text), ToAbsl(preamble))) {
                text.remove_prefix(preamble.size());
                break;
              }
            }
            out = "[summary of earlier turns]";
          } else {
            out = "[user]";
          }
          AppendQuoted(out, DescribeDataPayloads(text));
          // The summarizer gets no image, only that there was one: its
          // type, pixel and byte size and the file it came from, as a
          // tool's image payload is described.
          for (const events::ImagePart& image : v.images) {
            std::string line = absl::StrCat("[image ", image.mime_type);
            if (image.width > 0) absl::StrAppend(&line, ", ", image.width, "x", image.height);
            absl::StrAppend(&line, ", ",
                            HumanSize(static_cast<int64_t>(events::ImageByteSize(image))));
            if (!image.name.empty()) absl::StrAppend(&line, ", path ", image.name);
            absl::StrAppend(&line, "; data left out]");
            AppendQuoted(out, line);
          }
        } else if constexpr (std::is_same_v<T, events::AssistantTurn>) {
          out = "[assistant]";
          if (!v.text.empty()) AppendQuoted(out, DescribeDataPayloads(v.text));
          for (const auto& call : v.tool_calls) {
            absl::StrAppend(&out, "\n[tool call ", HeaderField(CallLabel(call.name, call.call_id)),
                            "]");
            AppendQuoted(out, DescribeDataPayloads(call.arguments));
          }
        } else {
          out = absl::StrCat(v.is_error ? "[tool error " : "[tool result ",
                             HeaderField(CallLabel(v.name, v.call_id)), "]");
          AppendQuoted(out, DescribeDataPayloads(v.content));
        }
      },
      item);
  return out;
}

std::string RenderTranscript(const std::vector<events::ContextItem>& items) {
  std::string out;
  for (const auto& item : WithoutDataPayloads(items)) {
    if (!out.empty()) out.append("\n\n");
    out.append(RenderItem(item));
  }
  return out;
}

}  // namespace raw::context
