// Protobuf message -> one line of JSON, the `--json` output format of the
// `raw` command line (JSON Lines: one object per line). Field names are the
// proto names (snake_case); 64-bit integers are strings, as the proto3 JSON
// mapping specifies. Pure function.
#pragma once

#include <string>

#include "absl/status/statusor.h"
#include "google/protobuf/message.h"

namespace raw::cli {

absl::StatusOr<std::string> ToJsonLine(const google::protobuf::Message& message);

}  // namespace raw::cli
