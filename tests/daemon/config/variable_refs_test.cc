// The ${NAME} syntax of values that may reference variables.
#include "daemon/config/variable_refs.h"

#include <string>
#include <vector>

#include "gmock/gmock.h"
#include "gtest/gtest.h"

namespace raw::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

TemplatePart Text(std::string text) { return {TemplatePart::Kind::kText, std::move(text)}; }
TemplatePart Var(std::string name) { return {TemplatePart::Kind::kVariable, std::move(name)}; }

TEST(VariableRefsTest, NamesFollowTheRule) {
  EXPECT_TRUE(IsVariableName("OPENAI_KEY"));
  EXPECT_TRUE(IsVariableName("_x1"));
  EXPECT_FALSE(IsVariableName(""));
  EXPECT_FALSE(IsVariableName("1KEY"));
  EXPECT_FALSE(IsVariableName("MY-KEY"));
  EXPECT_FALSE(IsVariableName("MY KEY"));
}

TEST(VariableRefsTest, SplitsTextAndReferences) {
  EXPECT_THAT(*ParseTemplate("Bearer ${TOKEN}"), ElementsAre(Text("Bearer "), Var("TOKEN")));
  EXPECT_THAT(*ParseTemplate("${A}${B}"), ElementsAre(Var("A"), Var("B")));
  EXPECT_THAT(*ParseTemplate("${A}-x-${B}!"),
              ElementsAre(Var("A"), Text("-x-"), Var("B"), Text("!")));
  EXPECT_THAT(*ParseTemplate("plain"), ElementsAre(Text("plain")));
  EXPECT_THAT(*ParseTemplate(""), IsEmpty());
}

TEST(VariableRefsTest, DoubleDollarBraceIsALiteral) {
  EXPECT_THAT(*ParseTemplate("$${HOME}"), ElementsAre(Text("${HOME}")));
  EXPECT_THAT(*ParseTemplate("a$${b}${C}"), ElementsAre(Text("a${b}"), Var("C")));
  // A "$" not starting "${" is literal, also doubled.
  EXPECT_THAT(*ParseTemplate("cost $5 $$ $"), ElementsAre(Text("cost $5 $$ $")));
  EXPECT_THAT(*ParseTemplate("$${"), ElementsAre(Text("${")));
}

TEST(VariableRefsTest, MalformedReferencesAreErrorsWithoutTheText) {
  absl::StatusOr<std::vector<TemplatePart>> unclosed = ParseTemplate("sk-secret ${KEY");
  ASSERT_FALSE(unclosed.ok());
  EXPECT_EQ(unclosed.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_EQ(unclosed.status().message(),
            "the \"${\" at character 11 has no closing \"}\" (write \"$${\" for a literal "
            "\"${\")");
  EXPECT_THAT(std::string(unclosed.status().message()), Not(HasSubstr("sk-secret")));

  for (const char* bad : {"${}", "x${1A}", "${MY-KEY}", "${A B}", "${${A}}"}) {
    absl::StatusOr<std::vector<TemplatePart>> parts = ParseTemplate(bad);
    ASSERT_FALSE(parts.ok()) << bad;
    EXPECT_THAT(std::string(parts.status().message()), HasSubstr("does not hold a variable name"))
        << bad;
  }
  EXPECT_THAT(std::string(ParseTemplate("x${1A}").status().message()), HasSubstr("at character 2"));
}

TEST(VariableRefsTest, ReferencedVariablesInFirstUseOrderOnce) {
  EXPECT_THAT(*ReferencedVariables("${B} ${A} ${B} $${C}"), ElementsAre("B", "A"));
  EXPECT_THAT(*ReferencedVariables("none"), IsEmpty());
  EXPECT_FALSE(ReferencedVariables("${").ok());
}

}  // namespace
}  // namespace raw::config
