#include "daemon/loop/unanswered_calls.h"

#include <set>
#include <variant>

namespace raw::loop {

const char kNotRecordedResult[] =
    "Not recorded: the session could not store this call's result, so it may or may not have "
    "run; check its effects before repeating it.";

std::optional<AnsweredContext> AnswerEveryCall(const std::vector<events::ContextItem>& items,
                                               const std::string& why, size_t from) {
  std::optional<AnsweredContext> out;
  size_t copied = 0;  // items[0, copied) are in out->items
  for (size_t i = from; i < items.size(); ++i) {
    const auto* assistant = std::get_if<events::AssistantTurn>(&items[i]);
    if (assistant == nullptr || assistant->tool_calls.empty()) continue;
    size_t end = i + 1;  // past the outcomes that follow the assistant item
    std::set<std::string> answered;
    for (; end < items.size(); ++end) {
      const auto* outcome = std::get_if<events::ToolOutcome>(&items[end]);
      if (outcome == nullptr) break;
      answered.insert(outcome->call_id);
    }
    std::vector<events::ContextItem> missing;
    for (const events::ToolCallRequest& call : assistant->tool_calls) {
      if (answered.insert(call.call_id).second) {
        missing.push_back(events::ToolOutcome{call.call_id, call.name, why, true});
      }
    }
    if (missing.empty()) continue;
    if (!out) {
      out.emplace();
      out->items.reserve(items.size() + missing.size());
      out->first_inserted = end;
    }
    out->items.insert(out->items.end(), items.begin() + static_cast<long>(copied),
                      items.begin() + static_cast<long>(end));
    out->items.insert(out->items.end(), missing.begin(), missing.end());
    copied = end;
  }
  if (out)
    out->items.insert(out->items.end(), items.begin() + static_cast<long>(copied), items.end());
  return out;
}

}  // namespace raw::loop
