#include "clients/dashboard/proto_json.h"

#include <google/protobuf/util/json_util.h>

#include "absl/strings/str_cat.h"

namespace raw::dashboard {

std::string ToJsonText(const google::protobuf::Message& message) {
  google::protobuf::util::JsonPrintOptions options;
  options.always_print_primitive_fields = true;
  std::string out;
  // Printing a valid message cannot fail; an empty object is the fallback.
  if (!google::protobuf::util::MessageToJsonString(message, &out, options).ok()) return "{}";
  return out;
}

Json ToJsonValue(const google::protobuf::Message& message) {
  absl::StatusOr<Json> parsed = ParseJson(ToJsonText(message));
  return parsed.ok() ? *std::move(parsed) : Json::object();
}

absl::Status FromJsonText(const std::string& text, google::protobuf::Message* message) {
  google::protobuf::util::JsonParseOptions options;
  options.ignore_unknown_fields = false;
  google::protobuf::util::Status parsed =
      google::protobuf::util::JsonStringToMessage(text, message, options);
  if (!parsed.ok()) {
    return absl::InvalidArgumentError(
        absl::StrCat("the request body is not a valid ", message->GetDescriptor()->name(),
                     " in JSON: ", parsed.message().ToString()));
  }
  return absl::OkStatus();
}

}  // namespace raw::dashboard
