#include "daemon/tools/registry.h"

#include <string>
#include <vector>

#include "daemon/tools/builtin/builtin_tools.h"
#include "daemon/tools/schema_validator.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::tools {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::StartsWith;

ToolSpec Spec(std::string qualified, std::string model) {
  ToolSpec spec;
  spec.qualified_name = std::move(qualified);
  spec.model_name = std::move(model);
  spec.description = "test tool";
  spec.input_schema = OrderedJson{{"type", "object"}};
  spec.handler = [](const Json&, const ToolContext&) { return ToolOutput::Ok("ok"); };
  return spec;
}

std::vector<std::string> Names(const std::vector<const ToolSpec*>& specs) {
  std::vector<std::string> names;
  for (const ToolSpec* spec : specs) names.push_back(spec->qualified_name);
  return names;
}

ToolRegistry Builtins() {
  ToolRegistry registry;
  EXPECT_TRUE(RegisterBuiltinTools(registry).ok());
  return registry;
}

TEST(ToolRegistryTest, RegistersTheBuiltinTools) {
  ToolRegistry registry = Builtins();
  const ToolSpec* read = registry.FindQualified("builtin/read_file");
  const ToolSpec* write = registry.FindQualified("builtin/write_file");
  const ToolSpec* bash = registry.FindQualified("builtin/bash");
  ASSERT_NE(read, nullptr);
  ASSERT_NE(write, nullptr);
  ASSERT_NE(bash, nullptr);
  EXPECT_EQ(read->model_name, "read_file");
  EXPECT_EQ(write->model_name, "write_file");
  EXPECT_EQ(bash->model_name, "bash");
  EXPECT_TRUE(read->read_only);
  EXPECT_FALSE(write->read_only);
  EXPECT_FALSE(bash->read_only);
  EXPECT_EQ(registry.FindQualified("builtin/nope"), nullptr);
  EXPECT_EQ(registry.FindQualified("read_file"), nullptr);
  for (const auto& [name, spec] : registry.all()) {
    EXPECT_NE(spec.validator, nullptr) << name;
  }
}

TEST(ToolRegistryTest, BuiltinValidatorsCheckArguments) {
  ToolRegistry registry = Builtins();
  const ToolSpec* read = registry.FindQualified("builtin/read_file");
  ASSERT_NE(read, nullptr);
  ASSERT_NE(read->validator, nullptr);
  EXPECT_TRUE(read->validator->Validate(Json{{"path", "a.txt"}}, read->model_name).ok());
  absl::Status wrong = read->validator->Validate(Json{{"path", 5}, {"colour", "red"}}, "read_file");
  EXPECT_EQ(wrong.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(wrong.message()), HasSubstr("schema of read_file"));
  EXPECT_THAT(std::string(wrong.message()), HasSubstr("/path: expected type string, got integer"));
  EXPECT_THAT(std::string(wrong.message()), HasSubstr("property \"colour\" is not allowed"));
  const ToolSpec* bash = registry.FindQualified("builtin/bash");
  ASSERT_NE(bash, nullptr);
  EXPECT_FALSE(bash->validator->Validate(Json::object(), "bash").ok());
}

TEST(ToolRegistryTest, CompilesTheInputSchemaIntoTheValidator) {
  ToolRegistry registry;
  ToolSpec spec = Spec("test/typed", "typed");
  spec.input_schema = OrderedJson::parse(
      R"({"type": "object", "properties": {"n": {"type": "integer", "minimum": 1}},
          "required": ["n"], "additionalProperties": false})");
  ASSERT_TRUE(registry.Register(std::move(spec)).ok());
  const ToolSpec* typed = registry.FindQualified("test/typed");
  ASSERT_NE(typed, nullptr);
  ASSERT_NE(typed->validator, nullptr);
  EXPECT_TRUE(typed->validator->Validate(Json{{"n", 2}}, "typed").ok());
  absl::Status low = typed->validator->Validate(Json{{"n", 0}}, "typed");
  EXPECT_THAT(std::string(low.message()), HasSubstr("- /n: expected a number >= 1, got 0"));
}

TEST(ToolRegistryTest, AnInvalidInputSchemaIsARegistrationErrorNamingTheTool) {
  ToolRegistry registry;
  ToolSpec spec = Spec("test/broken", "broken");
  spec.input_schema = OrderedJson::parse(
      R"({"type": "object", "properties": {"n": {"type": "int"}}, "required": "n"})");
  absl::Status status = registry.Register(std::move(spec));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(std::string(status.message()),
              StartsWith("tool test/broken: input_schema is not a valid JSON Schema (Draft 7):"));
  EXPECT_THAT(std::string(status.message()), HasSubstr("- /properties/n/type: "));
  EXPECT_THAT(std::string(status.message()), HasSubstr("- /required: "));
  EXPECT_TRUE(registry.all().empty());

  ToolSpec missing = Spec("test/null", "null_schema");
  missing.input_schema = OrderedJson();
  EXPECT_THAT(std::string(registry.Register(std::move(missing)).message()),
              HasSubstr("tool test/null: input_schema is not a valid JSON Schema"));
}

TEST(ToolRegistryTest, BuiltinSchemasAreClosedAndDescribed) {
  ToolRegistry registry = Builtins();
  for (const auto& [name, spec] : registry.all()) {
    SCOPED_TRACE(name);
    EXPECT_FALSE(spec.description.empty());
    const OrderedJson& schema = spec.input_schema;
    EXPECT_EQ(schema.value("type", ""), "object");
    ASSERT_TRUE(schema.contains("additionalProperties"));
    EXPECT_EQ(schema["additionalProperties"], false);
    // Every tool lists its required arguments (none for, e.g., list_dir).
    ASSERT_TRUE(schema["required"].is_array());
    for (const auto& [prop, def] : schema["properties"].items()) {
      SCOPED_TRACE(prop);
      EXPECT_TRUE(def.contains("type"));
      EXPECT_FALSE(def.value("description", "").empty());
    }
    for (const auto& required : schema["required"]) {
      EXPECT_TRUE(schema["properties"].contains(required.get<std::string>()));
    }
  }
}

TEST(ToolRegistryTest, RegisteringTheBuiltinsTwiceFails) {
  ToolRegistry registry = Builtins();
  absl::Status status = RegisterBuiltinTools(registry);
  EXPECT_EQ(status.code(), absl::StatusCode::kAlreadyExists);
}

TEST(ToolRegistryTest, RejectsInvalidModelNames) {
  ToolRegistry registry;
  for (const std::string& bad : std::vector<std::string>{
           "", "has space", "dotted.name", "slash/name", "ünï", std::string(65, 'a')}) {
    SCOPED_TRACE(bad);
    absl::Status status = registry.Register(Spec("test/x", bad));
    EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
    EXPECT_THAT(status.message(), HasSubstr("model-facing name"));
  }
  EXPECT_TRUE(registry.all().empty());
  EXPECT_TRUE(registry.Register(Spec("test/long", std::string(64, 'a'))).ok());
  EXPECT_TRUE(registry.Register(Spec("test/mixed", "Mixed_Case-09")).ok());
}

TEST(ToolRegistryTest, RejectsInvalidQualifiedNamesAndMissingHandlers) {
  ToolRegistry registry;
  EXPECT_EQ(registry.Register(Spec("", "x")).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Register(Spec("test/*", "x")).code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(registry.Register(Spec("test/a b", "x")).code(), absl::StatusCode::kInvalidArgument);
  ToolSpec no_handler = Spec("test/x", "x");
  no_handler.handler = nullptr;
  absl::Status status = registry.Register(std::move(no_handler));
  EXPECT_EQ(status.code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(status.message(), HasSubstr("no handler"));
}

TEST(ToolRegistryTest, RefusesDuplicates) {
  ToolRegistry registry;
  ASSERT_TRUE(registry.Register(Spec("test/one", "one")).ok());
  absl::Status same_qualified = registry.Register(Spec("test/one", "other"));
  EXPECT_EQ(same_qualified.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(same_qualified.message(), HasSubstr("test/one is already registered"));
  absl::Status same_model = registry.Register(Spec("test/two", "one"));
  EXPECT_EQ(same_model.code(), absl::StatusCode::kAlreadyExists);
  EXPECT_THAT(same_model.message(), HasSubstr("\"one\" is already used by test/one"));
  EXPECT_EQ(registry.all().size(), 1u);
}

// A registry of a few tools named like the builtins (whose set grows).
ToolRegistry Fixed() {
  ToolRegistry registry;
  for (const char* name : {"bash", "read_file", "write_file"}) {
    EXPECT_TRUE(registry.Register(Spec(std::string("builtin/") + name, name)).ok());
  }
  return registry;
}

TEST(ToolRegistryTest, SelectsSortedAndDeduplicated) {
  ToolRegistry registry = Fixed();
  auto all = registry.Select({"builtin/*"});
  ASSERT_TRUE(all.ok());
  EXPECT_THAT(Names(*all), ElementsAre("builtin/bash", "builtin/read_file", "builtin/write_file"));

  auto mixed = registry.Select(
      {"builtin/write_file", "builtin/bash", "builtin/*_file", "builtin/write_file"});
  ASSERT_TRUE(mixed.ok());
  EXPECT_THAT(Names(*mixed),
              ElementsAre("builtin/bash", "builtin/read_file", "builtin/write_file"));

  auto one = registry.Select({"builtin/read_file"});
  ASSERT_TRUE(one.ok());
  EXPECT_THAT(Names(*one), ElementsAre("builtin/read_file"));
  EXPECT_EQ((*one)[0], registry.FindQualified("builtin/read_file"));

  auto none = registry.Select({});
  ASSERT_TRUE(none.ok());
  EXPECT_TRUE(none->empty());
}

TEST(ToolRegistryTest, SelectsFromTheBuiltins) {
  ToolRegistry registry = Builtins();
  auto all = registry.Select({"builtin/*"});
  ASSERT_TRUE(all.ok());
  EXPECT_EQ(all->size(), registry.all().size());
  auto some = registry.Select({"builtin/bash", "builtin/read_file"});
  ASSERT_TRUE(some.ok());
  EXPECT_THAT(Names(*some), ElementsAre("builtin/bash", "builtin/read_file"));
}

TEST(ToolRegistryTest, UnmatchedPatternNamesItAndTheAvailableTools) {
  ToolRegistry registry = Fixed();
  auto result = registry.Select({"builtin/bash", "builtin/foo"});
  ASSERT_FALSE(result.ok());
  EXPECT_EQ(result.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(result.status().message(),
            "tools.use: \"builtin/foo\" matches no tool (available: builtin/bash, "
            "builtin/read_file, builtin/write_file)");

  auto glob = registry.Select({"mcp/*"});
  ASSERT_FALSE(glob.ok());
  EXPECT_THAT(std::string(glob.status().message()), HasSubstr("\"mcp/*\" matches no tool"));

  ToolRegistry empty;
  auto from_empty = empty.Select({"builtin/*"});
  ASSERT_FALSE(from_empty.ok());
  EXPECT_THAT(std::string(from_empty.status().message()), HasSubstr("(available: none)"));
}

TEST(GlobMatchTest, StarMatchesAnyRunIncludingSlashes) {
  EXPECT_TRUE(GlobMatch("*", ""));
  EXPECT_TRUE(GlobMatch("*", "builtin/bash"));
  EXPECT_TRUE(GlobMatch("builtin/*", "builtin/bash"));
  EXPECT_TRUE(GlobMatch("builtin/*", "builtin/"));
  EXPECT_TRUE(GlobMatch("mcp/*", "mcp/server/tool"));
  EXPECT_TRUE(GlobMatch("mcp/*/read", "mcp/files/read"));
  EXPECT_TRUE(GlobMatch("mcp/*/read", "mcp/a/b/read"));
  EXPECT_TRUE(GlobMatch("*_file", "builtin/read_file"));
  EXPECT_TRUE(GlobMatch("a*b*c", "aXbYbZc"));
  EXPECT_TRUE(GlobMatch("**", "x"));
  EXPECT_TRUE(GlobMatch("builtin/bash", "builtin/bash"));
  EXPECT_TRUE(GlobMatch("", ""));

  EXPECT_FALSE(GlobMatch("builtin/*", "builtinx/bash"));
  EXPECT_FALSE(GlobMatch("builtin/bash", "builtin/bash2"));
  EXPECT_FALSE(GlobMatch("builtin/bas", "builtin/bash"));
  EXPECT_FALSE(GlobMatch("mcp/*/read", "mcp/files/reader"));
  EXPECT_FALSE(GlobMatch("a*b*c", "aXbYbZ"));
  EXPECT_FALSE(GlobMatch("a*", ""));
  EXPECT_FALSE(GlobMatch("", "a"));
  // '?' and '[' are ordinary characters.
  EXPECT_FALSE(GlobMatch("builtin/?ash", "builtin/bash"));
  EXPECT_TRUE(GlobMatch("a?[b]", "a?[b]"));
}

TEST(GlobMatchTest, PathologicalPatternsStayFast) {
  std::string name(2000, 'a');
  std::string pattern;
  for (int i = 0; i < 50; ++i) pattern += "a*";
  pattern += "b";
  EXPECT_FALSE(GlobMatch(pattern, name));
}

}  // namespace
}  // namespace raw::tools
