// The model-facing text Raven adds around builtin/raven_task, beyond the
// tool's own description and schema.
//
// - PromptSection(): the protocol the agent follows with a Task (progressive
//   Checkpoints without asking permission between stages, excerpt
//   discipline, what evidence can and cannot carry, steering, the recovery
//   ladder, export). A constant: it joins the system prompt whenever the
//   tool is selected, so it is part of the cached prefix and never changes
//   between requests.
// - TaskContext(book): a compact `<raven_task_context>` summary of the
//   session's current Task while it is active or stopped ("" otherwise, or
//   for an empty book): its identity, phase, revision, evidence counts, the
//   latest Checkpoint and what to do next. The turn adds it to the user's
//   context item when the model context no longer shows the Task (after
//   /clear, or a compaction that summarized its results away); see
//   docs/raven.md. Bounded: the request is cut to kContextRequestChars code
//   points, everything else has executable ceilings already. The request
//   and the Checkpoint summary are text the model recorded (perhaps under a
//   prompt injection from a page it read): they are quoted as data, with
//   '<' and '>' escaped so that they cannot close the block or pose as
//   Raw's own tags.
//
// Pure functions; thread-safe.
#pragma once

#include <cstddef>
#include <string>

#include "daemon/raven/codec.h"

namespace raw::raven {

inline constexpr size_t kContextRequestChars = 400;

const std::string& PromptSection();
std::string TaskContext(const TaskBook& book);

}  // namespace raw::raven
