// The public API is versioned: the descriptors compiled from proto/raw/v1
// must equal the reviewed copy in tests/fixtures/api. A wire change fails
// here until scripts/update-api-golden.sh is run and the result committed.
#include <fstream>
#include <sstream>

#include <google/protobuf/descriptor.pb.h>
#include <google/protobuf/text_format.h>

#include "gtest/gtest.h"

namespace raw::api {
namespace {

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

TEST(ApiGoldenTest, CompiledDescriptorsMatchTheReviewedCopy) {
  google::protobuf::FileDescriptorSet compiled;
  ASSERT_TRUE(compiled.ParseFromString(
      ReadFile(std::string(RAW_BINARY_DIR) + "/proto/gen/descriptor_set.pb")));
  ASSERT_EQ(compiled.file_size(), 3);
  std::string text;
  ASSERT_TRUE(google::protobuf::TextFormat::PrintToString(compiled, &text));
  std::string golden =
      ReadFile(std::string(RAW_SOURCE_DIR) + "/tests/fixtures/api/raw_v1.descriptor.txt");
  EXPECT_EQ(text, golden) << "proto/raw/v1 changed: review the wire change, then run "
                             "scripts/update-api-golden.sh and commit the new copy";
}

TEST(ApiGoldenTest, EveryEnumStartsWithUnspecified) {
  google::protobuf::FileDescriptorSet compiled;
  ASSERT_TRUE(compiled.ParseFromString(
      ReadFile(std::string(RAW_BINARY_DIR) + "/proto/gen/descriptor_set.pb")));
  int enums = 0;
  for (const auto& file : compiled.file()) {
    EXPECT_EQ(file.package(), "raw.v1");
    for (const auto& e : file.enum_type()) {
      ++enums;
      ASSERT_GT(e.value_size(), 0);
      EXPECT_EQ(e.value(0).number(), 0) << e.name();
      EXPECT_NE(e.value(0).name().find("_UNSPECIFIED"), std::string::npos) << e.name();
    }
  }
  EXPECT_GE(enums, 5);
}

}  // namespace
}  // namespace raw::api
