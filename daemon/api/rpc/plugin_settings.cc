// GetPluginSettings and SetPluginSettings: the settings are a
// google.protobuf.Struct on the wire and JSON text in the store; the
// conversion is protobuf's own JSON mapping.
#include <google/protobuf/util/json_util.h>

#include <string>

#include "absl/strings/str_cat.h"
#include "daemon/api/rpc/handlers.h"

namespace raw::api::rpc {
namespace {

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
  absl::StatusOr<store::PluginSettings> stored = sessions.GetPluginSettings(request.namespace_());
  if (!stored.ok()) return ReturnStatus(ctx, stored.status());
  return ReturnStatus(ctx, ToProto(*stored, response));
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
