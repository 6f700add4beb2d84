// Tool calls the model context holds without a result.
//
// Every AssistantTurn's calls must be answered by ToolOutcomes right after
// it, or the providers refuse every later request. A batch whose results
// could not all be stored (a storage error part-way through it, after its
// calls joined the context) leaves some unanswered; these helpers find
// them and make the outcomes that close them.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include "daemon/events/conversation.h"

namespace raw::loop {

// The outcome that answers such a call. The storage error itself (which
// names local files) is the turn's end message, for the user; the model
// only needs to know the call's effect is uncertain.
extern const char kNotRecordedResult[];

struct AnsweredContext {
  // The context with an error outcome inserted for each unanswered call,
  // right after the outcomes that follow its assistant item, in the order
  // of its calls.
  std::vector<events::ContextItem> items;
  // The index of the first inserted outcome: when it equals the old
  // context's size, the old context is a prefix of `items` (only the last
  // batch was open) and the outcomes can be appended.
  size_t first_inserted = 0;
};

// `items` with every call answered, each new outcome saying `why`; empty
// (no value) when every call already has its outcome. The calls of the
// assistant items before `from` are taken as answered (a check that already
// covered them: SessionContext::CallsCheckedUpTo), so that a turn's start
// looks only at what was appended since.
std::optional<AnsweredContext> AnswerEveryCall(const std::vector<events::ContextItem>& items,
                                               const std::string& why, size_t from = 0);

}  // namespace raw::loop
