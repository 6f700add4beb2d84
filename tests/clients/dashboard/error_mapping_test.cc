#include "clients/dashboard/error_mapping.h"

#include "gtest/gtest.h"

namespace raw::dashboard {
namespace {

TEST(ErrorMappingTest, GrpcCodesBecomeHttpStatuses) {
  EXPECT_EQ(HttpStatusFor(absl::StatusCode::kInvalidArgument), 400);
  EXPECT_EQ(HttpStatusFor(absl::StatusCode::kNotFound), 404);
  EXPECT_EQ(HttpStatusFor(absl::StatusCode::kFailedPrecondition), 409);
  EXPECT_EQ(HttpStatusFor(absl::StatusCode::kAlreadyExists), 409);
  EXPECT_EQ(HttpStatusFor(absl::StatusCode::kPermissionDenied), 403);
  EXPECT_EQ(HttpStatusFor(absl::StatusCode::kUnavailable), 503);
  EXPECT_EQ(HttpStatusFor(absl::StatusCode::kDeadlineExceeded), 504);
  EXPECT_EQ(HttpStatusFor(absl::StatusCode::kInternal), 500);
  EXPECT_EQ(HttpStatusFor(absl::StatusCode::kDataLoss), 500);
}

TEST(ErrorMappingTest, TheBodyNamesTheCodeAndTheMessage) {
  web::Response response = ErrorResponse(absl::NotFoundError("session s_9 not found"));
  EXPECT_EQ(response.status, 404);
  EXPECT_EQ(response.content_type, "application/json");
  auto body = ParseJson(response.body);
  ASSERT_TRUE(body.ok());
  EXPECT_EQ((*body)["error"]["code"], "NOT_FOUND");
  EXPECT_EQ((*body)["error"]["message"], "session s_9 not found");
}

}  // namespace
}  // namespace raw::dashboard
