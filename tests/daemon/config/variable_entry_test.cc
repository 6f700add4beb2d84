// variables.<NAME> and the ${NAME} references that use them.
#include "daemon/config/variable_entry.h"

#include <string>
#include <vector>

#include "daemon/config/config_loader.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/config/config_test_util.h"

namespace raw::config {
namespace {

using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;

const ParseContext kContext{"/etc/raw-test", "/home/me"};

// A document with keyless model "flash" (plus `model_extra` members)
// and `rest` as further top-level members.
std::string Doc(const std::string& rest, const std::string& model_extra = "") {
  std::string model =
      R"({"method": "openai-chat-completions", "model_id": "m", "base_url": "https://api.example.com")";
  if (!model_extra.empty()) model += ", " + model_extra;
  model += "}";
  std::string doc = R"({"models": {"flash": )" + model + "}";
  if (!rest.empty()) doc += ", " + rest;
  return doc + "}";
}

std::vector<std::string> Problems(const std::string& text) {
  std::vector<ConfigProblem> problems;
  absl::StatusOr<Config> config = ParseConfig(text, kContext, &problems);
  std::vector<std::string> lines;
  for (const ConfigProblem& p : problems) lines.push_back(p.ToString());
  if (config.ok() != lines.empty()) lines.push_back("<status and problem list disagree>");
  return lines;
}

Config Parse(const std::string& text) {
  absl::StatusOr<Config> config = ParseConfig(text, kContext);
  EXPECT_TRUE(config.ok()) << config.status();
  return config.ok() ? *config : Config{};
}

TEST(VariableEntryTest, ReadsEachSource) {
  Config config = Parse(Doc(R"("variables": {
      "OPENAI": {"env": "OPENAI_API_KEY"},
      "ANTHROPIC": {"file": "keys/anthropic"},
      "HOME_KEY": {"file": "~/.keys/k", "secret": false},
      "ABS": {"file": "/run/secrets/k"},
      "GH": {"command": ["gh", "auth", "token"], "timeout_seconds": 2.5},
      "LOCAL": {"command": ["./bin/get-key", "--plain"]}
    })"));
  ASSERT_EQ(config.variables.size(), 6u);
  const VariableConfig& openai = config.variables.at("OPENAI");
  EXPECT_EQ(openai.name, "OPENAI");
  EXPECT_EQ(openai.source, VariableSource::kEnv);
  EXPECT_EQ(openai.env, "OPENAI_API_KEY");
  EXPECT_TRUE(openai.secret);

  const VariableConfig& anthropic = config.variables.at("ANTHROPIC");
  EXPECT_EQ(anthropic.source, VariableSource::kFile);
  EXPECT_EQ(anthropic.file, "/etc/raw-test/keys/anthropic");
  EXPECT_EQ(config.variables.at("HOME_KEY").file, "/home/me/.keys/k");
  EXPECT_FALSE(config.variables.at("HOME_KEY").secret);
  EXPECT_EQ(config.variables.at("ABS").file, "/run/secrets/k");

  const VariableConfig& gh = config.variables.at("GH");
  EXPECT_EQ(gh.source, VariableSource::kCommand);
  EXPECT_THAT(gh.command, ElementsAre("gh", "auth", "token"));  // found on PATH
  EXPECT_EQ(gh.timeout_ms, 2500);
  // A program path is relative to the config file.
  EXPECT_THAT(config.variables.at("LOCAL").command,
              ElementsAre("/etc/raw-test/bin/get-key", "--plain"));
  EXPECT_EQ(config.variables.at("LOCAL").timeout_ms, 10000);
}

TEST(VariableEntryTest, ExactlyOneSource) {
  EXPECT_THAT(
      Problems(
          Doc(R"("variables": {"A": {}, "B": {"env": "X", "file": "f"}, "C": {"secret": true}})")),
      ElementsAre(
          "variables.A: expected exactly one source: \"env\" (an environment variable), \"file\" "
          "(a file's contents) or \"command\" (a command's output)",
          "variables.B: has 2 sources (env, file); expected exactly one of \"env\" (an "
          "environment variable), \"file\" (a file's contents) or \"command\" (a command's "
          "output)",
          HasSubstr("variables.C: expected exactly one source")));
}

TEST(VariableEntryTest, BadEntriesNameTheirPath) {
  EXPECT_THAT(
      Problems(Doc(R"("variables": {
        "1BAD": {"env": "X"},
        "my-key": {"env": "X"},
        "E": {"env": "sk-live-123 456"},
        "F": {"file": ""},
        "G": {"file": "~bob/key"},
        "H": {"command": []},
        "I": {"command": ["ok", 3]},
        "J": {"env": "X", "timeout_seconds": 5},
        "K": {"command": ["x"], "timeout_seconds": 0},
        "L": {"env": "X", "secret": "no"},
        "M": {"env": "X", "value": "v"},
        "N": "X"
      })")),
      ElementsAre(
          "variables.1BAD: invalid variable name (letters, digits and '_', not starting with a "
          "digit)",
          "variables.E.env: expected the name of an environment variable such as "
          "\"OPENAI_API_KEY\" (letters, digits and '_'), not its value",
          "variables.F.file: expected a file path, got \"\"",
          HasSubstr("variables.G.file: only \"~/\" (the home directory) is expanded"),
          HasSubstr("variables.H.command: expected the command to run, as an array"),
          "variables.I.command[1]: expected a string, got 3",
          "variables.J.timeout_seconds: only a \"command\" variable has a timeout",
          "variables.K.timeout_seconds: expected a positive number of seconds, got 0",
          "variables.L.secret: expected true or false, got \"no\"",
          "variables.M.value: unknown key (expected one of: env, file, command, timeout_seconds, "
          "secret)",
          "variables.N: expected an object, got \"X\"",
          "variables.my-key: invalid variable name (letters, digits and '_', not starting with "
          "a digit)"));
  // A pasted value is never echoed.
  for (const std::string& line : Problems(Doc(R"("variables": {"E": {"env": "sk-live-123"}})"))) {
    EXPECT_THAT(line, Not(HasSubstr("sk-live")));
  }
  EXPECT_THAT(Problems(Doc(R"("variables": [])")),
              ElementsAre("variables: expected an object, got an array"));
}

TEST(VariableEntryTest, ReferencesAreCheckedWhereTheyMayAppear) {
  Config config = Parse(Doc(R"("variables": {"KEY": {"env": "K"}, "ORG": {"file": "org"}},
      "mcp_servers": {
        "gh": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${KEY}"}},
        "fs": {"command": ["fs-server"], "env": {"TOKEN": "${KEY}", "LITERAL": "$${KEY}"}}
      })",
                            R"("api_key": "${KEY}", "headers": {"X-Org": "org=${ORG}"})"));
  // References stay as written; daemon/vars expands them when needed.
  EXPECT_EQ(config.models.at("flash").api_key, "${KEY}");
  EXPECT_EQ(config.models.at("flash").headers.at("X-Org"), "org=${ORG}");
  EXPECT_EQ(config.mcp_servers.at("gh").headers.at("Authorization"), "Bearer ${KEY}");
  EXPECT_EQ(config.mcp_servers.at("fs").env.at("LITERAL"), "$${KEY}");
}

TEST(VariableEntryTest, UndefinedOrMalformedReferencesAreErrorsAtTheirPath) {
  EXPECT_THAT(
      Problems(Doc(R"("variables": {"KEY": {"env": "K"}},
        "mcp_servers": {
          "gh": {"url": "https://mcp.example.com/mcp", "headers": {"Authorization": "Bearer ${GH_TOKEN}"}},
          "fs": {"command": ["fs-server"], "env": {"TOKEN": "${KEY"}}
        })",
                   R"("api_key": "${OPENAI}", "headers": {"X-A": "${KEY}", "X-B": "${}"})")),
      ElementsAre(
          "models.flash.api_key: \"${OPENAI}\" names no variable defined under \"variables\" "
          "(defined: KEY)",
          HasSubstr("models.flash.headers.X-B: the reference at character 1 does not hold a "
                    "variable name"),
          "mcp_servers.fs.env.TOKEN: the \"${\" at character 1 has no closing \"}\" (write "
          "\"$${\" for a literal \"${\")",
          "mcp_servers.gh.headers.Authorization: \"${GH_TOKEN}\" names no variable defined "
          "under \"variables\" (defined: KEY)"));
  // With no variables at all.
  EXPECT_THAT(Problems(Doc("", R"("api_key": "${OPENAI}")")),
              ElementsAre("models.flash.api_key: \"${OPENAI}\" names no variable defined under "
                          "\"variables\" (defined: none)"));
}

TEST(VariableEntryTest, ReferenceToABrokenVariableIsNotReportedTwice) {
  EXPECT_THAT(
      Problems(Doc(R"("variables": {"KEY": {"env": "K", "file": "f"}})", R"("api_key": "${KEY}")")),
      ElementsAre(HasSubstr("variables.KEY: has 2 sources")));
}

TEST(VariableEntryTest, OtherFieldsKeepDollarTextAsWritten) {
  // Only the listed fields take references; elsewhere "${X}" is plain text.
  Config config =
      Parse(Doc(R"("agents": {"a": {"model": "flash", "system_prompt": "Use ${X}."}})"));
  EXPECT_EQ(config.agents.at("a").system_prompt, "Use ${X}.");
}

TEST(VariableEntryTest, RelativePathsOfAFileAreRelativeToIt) {
  // LoadConfigFile supplies the file's directory; ParseConfig without a
  // context uses the current directory.
  absl::StatusOr<Config> config =
      ParseConfig(Doc(R"("variables": {"K": {"file": "k"}})"), DefaultParseContext());
  ASSERT_TRUE(config.ok()) << config.status();
  EXPECT_EQ(config->variables.at("K").file, DefaultParseContext().config_dir + "/k");
}

}  // namespace
}  // namespace raw::config
