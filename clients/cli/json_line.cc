#include "clients/cli/json_line.h"

#include "absl/strings/str_cat.h"
#include "google/protobuf/util/json_util.h"

namespace raw::cli {

absl::StatusOr<std::string> ToJsonLine(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.preserve_proto_field_names = true;
  options.add_whitespace = false;
  std::string json;
  auto status = google::protobuf::util::MessageToJsonString(message, &json, options);
  if (!status.ok()) {
    return absl::InternalError(absl::StrCat("cannot convert ", message.GetTypeName(),
                                            " to JSON: ", status.ToString()));
  }
  return json;
}

}  // namespace raw::cli
