#include "tests/layers/layer_contract.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::layers {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::UnorderedElementsAre;

// A small tree shaped like the real one: a base, two modules beside each
// other above it, a top that sees both, a folder with a part of its own and
// a file-sized module that sees that part.
constexpr std::string_view kContract = R"(# Title

Some prose.

```layers
base:                   # the bottom
mid/left: base
mid/right: base
mid/right/part: mid/right
mid/right/factory: mid/right/part
top: mid/left, mid/right/factory  # an indented line goes on
     grpc proto
```

More prose.
)";

Contract Parsed() {
  absl::StatusOr<Contract> contract = ParseContract(kContract);
  EXPECT_TRUE(contract.ok()) << contract.status();
  return contract.ok() ? *std::move(contract) : Contract{};
}

std::vector<std::string> Messages(const std::vector<Violation>& violations) {
  std::vector<std::string> messages;
  for (const Violation& v : violations) messages.push_back(v.ToString());
  return messages;
}

TEST(ParseContractTest, ReadsTheBlockAndClosesOverWhatEachModuleSees) {
  Contract contract = Parsed();
  EXPECT_THAT(contract.named.at("top"), ElementsAre("mid/left", "mid/right/factory", "grpc",
                                                    "proto"));
  EXPECT_THAT(contract.sees.at("base"), IsEmpty());
  EXPECT_THAT(contract.sees.at("mid/right/factory"),
              UnorderedElementsAre("mid/right/part", "mid/right", "base"));
  EXPECT_THAT(contract.sees.at("top"),
              UnorderedElementsAre("mid/left", "mid/right/factory", "mid/right/part",
                                   "mid/right", "base", "grpc", "proto"));
}

TEST(ParseContractTest, RejectsBrokenContracts) {
  EXPECT_EQ(ParseContract("no block here").status().code(), absl::StatusCode::kNotFound);
  EXPECT_THAT(ParseContract("```layers\na: b\nb: a\n```\n").status().message(),
              HasSubstr("sees itself"));
  EXPECT_THAT(ParseContract("```layers\na: missing\n```\n").status().message(),
              HasSubstr("a names missing, which has no line of its own"));
  EXPECT_THAT(ParseContract("```layers\na:\na:\n```\n").status().message(),
              HasSubstr("listed twice"));
  EXPECT_THAT(ParseContract("```layers\na b\n```\n").status().message(),
              HasSubstr("without ':'"));
  EXPECT_THAT(ParseContract("```layers\na:\n").status().message(), HasSubstr("not closed"));
}

TEST(ModuleOfTest, TheLongestMatchingDirectoryOrFileStemOwnsAPath) {
  Contract contract = Parsed();
  EXPECT_EQ(ModuleOf(contract, "base/x.h"), "base");
  EXPECT_EQ(ModuleOf(contract, "base/deeper/x.cc"), "base");
  EXPECT_EQ(ModuleOf(contract, "mid/right/x.h"), "mid/right");
  EXPECT_EQ(ModuleOf(contract, "mid/right/part/x.h"), "mid/right/part");
  EXPECT_EQ(ModuleOf(contract, "mid/right/factory.cc"), "mid/right/factory");
  EXPECT_EQ(ModuleOf(contract, "mid/right/factory_extra.h"), "mid/right");
  EXPECT_EQ(ModuleOf(contract, "based/x.h"), std::nullopt);
  EXPECT_EQ(ModuleOf(contract, "grpcpp/grpcpp.h"), "grpc");
  EXPECT_EQ(ModuleOf(contract, "raw/v1/event.pb.h"), "proto");
  EXPECT_EQ(ModuleOf(contract, "google/protobuf/util/json_util.h"), "proto");
}

TEST(IncludesOfTest, FindsQuotedAndAngledIncludesWithTheirLines) {
  std::vector<Include> includes = IncludesOf(
      "// #include \"commented/out.h\" is not an include\n"
      "#include \"a/b.h\"\n"
      "  #  include <vector>\n"
      "#pragma once\n");
  ASSERT_EQ(includes.size(), 2u);
  EXPECT_EQ(includes[0].line, 2);
  EXPECT_EQ(includes[0].target, "a/b.h");
  EXPECT_EQ(includes[1].line, 3);
  EXPECT_EQ(includes[1].target, "vector");
  EXPECT_FALSE(includes[0].angled);
  EXPECT_TRUE(includes[1].angled);
}

TEST(CheckFileTest, AllowsOwnFilesWhatTheModuleSeesAndThirdPartyHeaders) {
  Contract contract = Parsed();
  EXPECT_THAT(CheckFile(contract, "top/main.cc",
                        "#include \"top/app.h\"\n#include \"base/x.h\"\n"
                        "#include \"mid/right/factory.h\"\n#include \"mid/right/part/y.h\"\n"
                        "#include <grpcpp/grpcpp.h>\n#include \"raw/v1/event.pb.h\"\n"
                        "#include \"absl/status/status.h\"\n#include <vector>\n"),
              IsEmpty());
}

TEST(CheckFileTest, NamesFileLineAndEdgeOfAnUpwardInclude) {
  EXPECT_THAT(Messages(CheckFile(Parsed(), "base/x.h", "#pragma once\n#include \"top/app.h\"\n")),
              ElementsAre("base/x.h:2: #include \"top/app.h\": base -> top goes up a layer "
                          "(top sees base)"));
}

TEST(CheckFileTest, NamesAnIncludeBetweenModulesThatDoNotSeeEachOther) {
  EXPECT_THAT(Messages(CheckFile(Parsed(), "mid/left/x.cc", "#include \"mid/right/y.h\"\n")),
              ElementsAre("mid/left/x.cc:1: #include \"mid/right/y.h\": mid/left -> mid/right "
                          "crosses to a module mid/left may not see"));
  // A folder's part does not see the file-sized module above it, and the
  // folder does not see its part.
  EXPECT_THAT(CheckFile(Parsed(), "mid/right/part/x.cc", "#include \"mid/right/factory.h\"\n"),
              testing::SizeIs(1));
  EXPECT_THAT(CheckFile(Parsed(), "mid/right/x.cc", "#include \"mid/right/part/y.h\"\n"),
              testing::SizeIs(1));
}

TEST(CheckFileTest, NamesGrpcAndGeneratedProtoIncludesOutsideTheModulesAllowedThem) {
  EXPECT_THAT(
      Messages(CheckFile(Parsed(), "mid/left/x.h",
                         "#include <grpcpp/server.h>\n#include \"raw/v1/event.pb.h\"\n")),
      ElementsAre("mid/left/x.h:1: #include <grpcpp/server.h>: mid/left -> grpc reaches gRPC "
                  "or generated protobuf code, which mid/left may not see",
                  "mid/left/x.h:2: #include \"raw/v1/event.pb.h\": mid/left -> proto reaches "
                  "gRPC or generated protobuf code, which mid/left may not see"));
}

TEST(CheckFileTest, NamesProjectPathsAndFilesNoModuleOwns) {
  EXPECT_THAT(Messages(CheckFile(Parsed(), "base/x.cc", "#include \"tests/fakes/fake.h\"\n")),
              ElementsAre("base/x.cc:1: #include \"tests/fakes/fake.h\": no module owns this "
                          "path"));
  EXPECT_THAT(Messages(CheckFile(Parsed(), "elsewhere/x.cc", "")),
              ElementsAre("elsewhere/x.cc: no module of the layers contract owns this file"));
}

}  // namespace
}  // namespace raw::layers
