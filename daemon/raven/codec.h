// Codec: the compact, schema-versioned JSON form of a Task and of the
// record builtin/raven_task stores in the host-side metadata of each of its
// results, and the replay that rebuilds a session's Task book from those
// records.
//
// Decoding is strict: every object's key set, every enum, id, URL, hash and
// counter, every size ceiling of Limits (the same ones action validation
// applies), unique identities, evidence links and phase invariants are
// checked. Replay skips a record that fails any check, so an older valid
// snapshot of the Task restores instead. Pure; safe from any thread.
#pragma once

#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "common/json.h"
#include "daemon/raven/domain.h"

namespace raw::raven {

inline constexpr int kStateSchemaVersion = 1;
inline constexpr std::string_view kRecordKind = "raw.raven/task-state";
inline constexpr int kRecordVersion = 1;

OrderedJson EncodeState(const TaskState& state);
absl::StatusOr<TaskState> DecodeState(const Json& json);

// Every Task of one session by id, and the session's current Task ("" =
// none yet).
struct TaskBook {
  std::map<std::string, TaskState> tasks;
  std::string current_task_id;
  const TaskState* Current() const;
  // The highest ordinal of any Task in the book (0 when empty).
  int MaxOrdinal() const;
};

// {"kind", "version", "currentTaskId", "state"} as compact JSON text.
std::string EncodeRecord(const TaskState& state, const std::string& current_task_id);
struct Record {
  std::string current_task_id;
  TaskState state;
};
absl::StatusOr<Record> DecodeRecord(std::string_view text);

// Where the encodings of `a` and `b` first differ, as a path into the
// state ("sources[s1].check.detail"; an element of a list of records is
// named by its id), or "" when they do not. For a message that says what
// would not read back.
std::string StateDifference(const TaskState& a, const TaskState& b);

// Folds records oldest first: a record that does not decode is skipped; per
// Task the highest revision wins (a later record of equal revision replaces
// an earlier one); the current Task is the last declared current id that is
// in the book.
TaskBook ReplayBook(const std::vector<std::string>& records);

}  // namespace raw::raven
