#include "daemon/api/convert/status_to_grpc.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"

namespace raw::api::convert {
namespace {

struct CodeCase {
  absl::StatusCode absl_code;
  grpc::StatusCode grpc_code;
};

const std::vector<CodeCase>& AllCodes() {
  static const auto* cases = new std::vector<CodeCase>{
      {absl::StatusCode::kOk, grpc::StatusCode::OK},
      {absl::StatusCode::kCancelled, grpc::StatusCode::CANCELLED},
      {absl::StatusCode::kUnknown, grpc::StatusCode::UNKNOWN},
      {absl::StatusCode::kInvalidArgument, grpc::StatusCode::INVALID_ARGUMENT},
      {absl::StatusCode::kDeadlineExceeded, grpc::StatusCode::DEADLINE_EXCEEDED},
      {absl::StatusCode::kNotFound, grpc::StatusCode::NOT_FOUND},
      {absl::StatusCode::kAlreadyExists, grpc::StatusCode::ALREADY_EXISTS},
      {absl::StatusCode::kPermissionDenied, grpc::StatusCode::PERMISSION_DENIED},
      {absl::StatusCode::kResourceExhausted, grpc::StatusCode::RESOURCE_EXHAUSTED},
      {absl::StatusCode::kFailedPrecondition, grpc::StatusCode::FAILED_PRECONDITION},
      {absl::StatusCode::kAborted, grpc::StatusCode::ABORTED},
      {absl::StatusCode::kOutOfRange, grpc::StatusCode::OUT_OF_RANGE},
      {absl::StatusCode::kUnimplemented, grpc::StatusCode::UNIMPLEMENTED},
      {absl::StatusCode::kInternal, grpc::StatusCode::INTERNAL},
      {absl::StatusCode::kUnavailable, grpc::StatusCode::UNAVAILABLE},
      {absl::StatusCode::kDataLoss, grpc::StatusCode::DATA_LOSS},
      {absl::StatusCode::kUnauthenticated, grpc::StatusCode::UNAUTHENTICATED},
  };
  return *cases;
}

TEST(StatusToGrpcTest, EveryCodeMapsToItsNamesake) {
  for (const CodeCase& c : AllCodes()) {
    EXPECT_EQ(ToGrpcCode(c.absl_code), c.grpc_code) << absl::StatusCodeToString(c.absl_code);
  }
}

TEST(StatusToGrpcTest, ErrorsKeepTheirMessageAndNothingElse) {
  for (const CodeCase& c : AllCodes()) {
    if (c.absl_code == absl::StatusCode::kOk) continue;
    absl::Status status(c.absl_code, "session s1 not found");
    status.SetPayload("type.googleapis.com/raw.internal", absl::Cord("internal detail"));
    grpc::Status out = ToGrpcStatus(status);
    EXPECT_EQ(out.error_code(), c.grpc_code);
    EXPECT_EQ(out.error_message(), "session s1 not found");
    EXPECT_EQ(out.error_details(), "") << "payloads must not leave the daemon";
  }
}

TEST(StatusToGrpcTest, OkIsOk) {
  EXPECT_TRUE(ToGrpcStatus(absl::OkStatus()).ok());
}

TEST(StatusToGrpcTest, ACodeThisBuildDoesNotKnowIsUnknown) {
  EXPECT_EQ(ToGrpcCode(static_cast<absl::StatusCode>(99)), grpc::StatusCode::UNKNOWN);
  grpc::Status out = ToGrpcStatus(absl::Status(static_cast<absl::StatusCode>(99), "odd"));
  EXPECT_EQ(out.error_code(), grpc::StatusCode::UNKNOWN);
  EXPECT_EQ(out.error_message(), "odd");
}

}  // namespace
}  // namespace raw::api::convert
