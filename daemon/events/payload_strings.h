// ForEachString: visits every string field of an event payload or a model
// context item (texts, reasoning, tool-call arguments, reasons, messages,
// summaries, ids and names), so that one function can rewrite all of them;
// SessionLog uses it to hide known secret values in whatever it stores or
// publishes. Enum fields are not strings and are not visited, nor is the
// data of a prompt's images (ImagePart): rewriting base64 would only break
// the image, and text inside an image is not something a rewrite can find.
//
// Every alternative of EventPayload and ContextItem has its own overload:
// a new alternative without one does not compile. A new string field must
// be added to its type's overload (payload_strings_test.cc fails when one
// is missing).
//
// Pure; thread-safe.
#pragma once

#include <string>

#include "absl/functional/function_ref.h"
#include "daemon/events/conversation.h"
#include "daemon/events/session_event.h"

namespace raw::events {

using StringVisitor = absl::FunctionRef<void(std::string&)>;

void ForEachString(EventPayload& payload, StringVisitor visit);
void ForEachString(ContextItem& item, StringVisitor visit);

}  // namespace raw::events
