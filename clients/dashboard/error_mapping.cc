#include "clients/dashboard/error_mapping.h"


namespace raw::dashboard {

int HttpStatusFor(absl::StatusCode code) {
  switch (code) {
    case absl::StatusCode::kOk:
      return 200;
    case absl::StatusCode::kInvalidArgument:
      return 400;
    case absl::StatusCode::kNotFound:
      return 404;
    case absl::StatusCode::kFailedPrecondition:
    case absl::StatusCode::kAlreadyExists:
      return 409;
    case absl::StatusCode::kPermissionDenied:
      return 403;
    case absl::StatusCode::kUnavailable:
      return 503;
    case absl::StatusCode::kDeadlineExceeded:
      return 504;
    default:
      return 500;
  }
}

Json ErrorObject(const absl::Status& status) {
  // absl names the codes "NOT_FOUND", "INVALID_ARGUMENT", ... as gRPC does.
  std::string code = absl::StatusCodeToString(status.code());
  return Json{{"code", code}, {"message", std::string(status.message())}};
}

web::Response ErrorResponse(const absl::Status& status) {
  web::Response response;
  response.status = HttpStatusFor(status.code());
  response.body = DumpJson(Json{{"error", ErrorObject(status)}});
  return response;
}

}  // namespace raw::dashboard
