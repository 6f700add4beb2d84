// GetPluginSettings and SetPluginSettings: the settings are a
// google.protobuf.Struct on the wire and JSON text in the store; the
// conversion is protobuf's own JSON mapping.
#include <google/protobuf/util/json_util.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/api/rpc/handlers.h"

namespace raw::api::rpc {
namespace {

absl::Status StructFromJson(const std::string& json, google::protobuf::Struct* out) {
  if (json.empty()) return absl::OkStatus();
  google::protobuf::util::Status parsed = google::protobuf::util::JsonStringToMessage(json, out);
  if (!parsed.ok()) {
    return absl::InternalError(
        absl::StrCat("plugin settings schema does not convert: ", parsed.message().ToString()));
  }
  return absl::OkStatus();
}

absl::Status ToProto(const store::PluginSettings& stored, raw::v1::PluginSettings* out) {
  out->set_namespace_(stored.ns);
  out->set_revision(stored.revision);
  google::protobuf::util::Status parsed =
      google::protobuf::util::JsonStringToMessage(stored.settings_json, out->mutable_settings());
  if (!parsed.ok()) {
    return absl::DataLossError(absl::StrCat("stored plugin settings \"", stored.ns,
                                            "\" do not read: ", parsed.message().ToString()));
  }
  return absl::OkStatus();
}

}  // namespace

UnaryReactor* GetPluginSettings(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                                const raw::v1::GetPluginSettingsRequest& request,
                                raw::v1::PluginSettings* response) {
  absl::StatusOr<loop::PluginSettingsView> view = sessions.GetPluginSettings(request.namespace_());
  if (!view.ok()) return ReturnStatus(ctx, view.status());
  absl::Status converted = ToProto(view->stored, response);
  if (converted.ok()) converted = StructFromJson(view->schema_json, response->mutable_schema());
  if (converted.ok()) {
    converted = StructFromJson(view->config_values_json, response->mutable_config_values());
  }
  for (const auto& [section, why] : view->inactive_sections) {
    (*response->mutable_inactive_sections())[section] = why;
  }
  return ReturnStatus(ctx, converted);
}

UnaryReactor* SetPluginSettings(grpc::CallbackServerContext* ctx, loop::SessionManager& sessions,
                                const raw::v1::SetPluginSettingsRequest& request,
                                raw::v1::PluginSettings* response) {
  std::string json;
  google::protobuf::util::Status printed =
      google::protobuf::util::MessageToJsonString(request.settings(), &json);
  if (!printed.ok()) {
    return ReturnStatus(ctx, absl::InvalidArgumentError(absl::StrCat(
                                 "plugin settings do not convert to JSON: ",
                                 printed.message().ToString())));
  }
  UnaryReactor* reactor = ctx->DefaultReactor();
  sessions.SetPluginSettings(request.namespace_(), std::move(json), request.revision(),
                             [reactor, response](absl::StatusOr<store::PluginSettings> stored) {
                               FinishWith(reactor, stored.ok() ? ToProto(*stored, response)
                                                               : stored.status());
                             });
  return reactor;
}

}  // namespace raw::api::rpc
