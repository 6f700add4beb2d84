// ResolveModelSecrets and ResolveMcpServerSecrets: the fields that reference
// variables, expanded, with errors that name the model or server and field.
#include "daemon/vars/resolve_secrets.h"

#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/vars/vars_test_util.h"

namespace raw::vars {
namespace {

using ::raw::vars::testing::EnvVar;
using ::raw::vars::testing::FakeEnv;
using ::raw::vars::testing::FileVar;
using ::raw::vars::testing::ShellVar;
using ::raw::vars::testing::TempDir;
using ::testing::ElementsAre;
using ::testing::HasSubstr;
using ::testing::IsEmpty;
using ::testing::Not;
using ::testing::Pair;

config::ModelConfig Model() {
  config::ModelConfig m;
  m.name = "gpt";
  m.provider = "openai";
  m.method = config::kMethodOpenAiChat;
  m.model_id = "gpt-test";
  m.base_url = "http://127.0.0.1:9/v1";
  return m;
}

config::Config WithVariables() {
  config::Config config;
  config.variables["KEY"] = EnvVar("KEY", "KEY_ENV");
  config.variables["ORG"] = EnvVar("ORG", "ORG_ENV", /*secret=*/false);
  config.variables["MISSING"] = EnvVar("MISSING", "MISSING_ENV");
  return config;
}

TEST(ResolveModelSecretsTest, ApiKeyAndHeadersAreExpanded) {
  config::Config config = WithVariables();
  config::ModelConfig model = Model();
  model.api_key = "${KEY}";
  model.headers = {{"X-Org", "org-${ORG}"}, {"Anthropic-Beta", "b1"}};
  EnvLookup env = FakeEnv({{"KEY_ENV", "sk-var"}, {"ORG_ENV", "acme"}});
  VariableStore store(env);
  absl::StatusOr<ResolvedSecrets> resolved = ResolveModelSecrets(model, config, store, env);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->api_key, "sk-var");
  EXPECT_THAT(resolved->headers,
              ElementsAre(Pair("Anthropic-Beta", "b1"), Pair("X-Org", "org-acme")));
  // Read through the store: the key is now a known secret, the org is not.
  EXPECT_THAT(store.SecretValues(), ElementsAre("sk-var"));
}

TEST(ResolveModelSecretsTest, ApiKeyEnvAsBefore) {
  config::ModelConfig model = Model();
  model.api_key_env = "OPENAI_API_KEY";
  EnvLookup env = FakeEnv({{"OPENAI_API_KEY", "sk-env"}});
  VariableStore store(env);
  absl::StatusOr<ResolvedSecrets> resolved = ResolveModelSecrets(model, {}, store, env);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->api_key, "sk-env");
  EXPECT_THAT(resolved->headers, IsEmpty());
  // A key from the environment is a known secret from now on.
  EXPECT_THAT(store.SecretValues(), ElementsAre("sk-env"));

  EXPECT_EQ(ResolveModelSecrets(model, {}, store, FakeEnv({})).status(),
            absl::FailedPreconditionError("model gpt: environment variable OPENAI_API_KEY is not "
                                          "set (it holds the API key for openai)"));
}

TEST(ResolveModelSecretsTest, KeylessModel) {
  VariableStore store(FakeEnv({}));
  absl::StatusOr<ResolvedSecrets> resolved = ResolveModelSecrets(Model(), {}, store, FakeEnv({}));
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->api_key, std::nullopt);
}

TEST(ResolveModelSecretsTest, ErrorsNameModelFieldAndVariable) {
  config::Config config = WithVariables();
  VariableStore store(FakeEnv({{"KEY_ENV", "sk-var"}}));

  config::ModelConfig model = Model();
  model.api_key = "${MISSING}";
  EXPECT_EQ(ResolveModelSecrets(model, config, store, {}).status(),
            absl::FailedPreconditionError("model gpt: api_key: variable MISSING: environment "
                                          "variable MISSING_ENV is not set"));
  model.api_key = "${UNDEFINED}";
  EXPECT_EQ(ResolveModelSecrets(model, config, store, {}).status(),
            absl::NotFoundError("model gpt: api_key: variable UNDEFINED is not defined under "
                                "\"variables\""));

  model.api_key = "${KEY}";
  model.headers = {{"X-A", "${MISSING}"}};
  EXPECT_EQ(ResolveModelSecrets(model, config, store, {}).status(),
            absl::FailedPreconditionError("model gpt: headers.X-A: variable MISSING: environment "
                                          "variable MISSING_ENV is not set"));
}

TEST(ResolveModelSecretsTest, ValuesThatCannotGoInAHeaderAreRefusedWithoutEchoing) {
  TempDir dir;
  config::Config config;
  config.variables["TWO_LINES"] = FileVar("TWO_LINES", dir.Write("k", "line-one\nline-two\n"));
  VariableStore store(FakeEnv({}));
  config::ModelConfig model = Model();
  model.api_key = "${TWO_LINES}";
  absl::StatusOr<ResolvedSecrets> resolved = ResolveModelSecrets(model, config, store, {});
  EXPECT_EQ(resolved.status(),
            absl::FailedPreconditionError("model gpt: api_key: the value contains a line break "
                                          "or NUL after expanding its variables"));
  model.api_key.clear();
  model.headers = {{"X-B", "v ${TWO_LINES}"}};
  resolved = ResolveModelSecrets(model, config, store, {});
  EXPECT_THAT(std::string(resolved.status().message()),
              HasSubstr("model gpt: headers.X-B: the value contains a line break"));
  EXPECT_THAT(std::string(resolved.status().message()), Not(HasSubstr("line-one")));
}

TEST(ResolveModelSecretsTest, ALiteralKeyNeedsNoVariable) {
  config::ModelConfig model = Model();
  model.api_key = "sk-literal-$${x}";
  VariableStore store(FakeEnv({}));
  absl::StatusOr<ResolvedSecrets> resolved = ResolveModelSecrets(model, {}, store, {});
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_EQ(resolved->api_key, "sk-literal-${x}");
  EXPECT_THAT(store.SecretValues(), ElementsAre("sk-literal-${x}"));
}

TEST(NoteModelKeysTest, EveryModelsKeyFromTheEnvironmentOrTheConfigIsASecret) {
  config::Config config;
  config::ModelConfig from_env = Model();
  from_env.api_key_env = "OPENAI_API_KEY";
  config::ModelConfig unset = Model();
  unset.api_key_env = "UNSET_KEY";
  config::ModelConfig literal = Model();
  literal.api_key = "sk-written-in-config";
  config::ModelConfig with_variable = Model();
  with_variable.api_key = "${KEY}";
  config::ModelConfig short_key = Model();
  short_key.api_key = "abc";
  config.models = {{"a", from_env}, {"b", unset}, {"c", literal}, {"d", with_variable},
                   {"e", short_key}};
  config.variables["KEY"] = EnvVar("KEY", "KEY_ENV");
  EnvLookup env = FakeEnv({{"OPENAI_API_KEY", "sk-from-env"}, {"KEY_ENV", "sk-not-read-yet"}});
  VariableStore store(env);
  NoteModelKeys(config, store, env);
  // The variable is not read just for this; too-short values are not kept.
  EXPECT_THAT(store.SecretValues(),
              ::testing::UnorderedElementsAre("sk-from-env", "sk-written-in-config"));
}

TEST(NoteSecretEnvVariablesTest, EverySecretEnvironmentVariablesValueIsASecret) {
  config::Config config;
  config.variables["GH"] = EnvVar("GH", "GH_TOKEN");
  config.variables["ORG"] = EnvVar("ORG", "ORG_ENV", /*secret=*/false);
  config.variables["UNSET"] = EnvVar("UNSET", "UNSET_ENV");
  config.variables["SH"] = ShellVar("SH", "echo never-run");
  EnvLookup env = FakeEnv({{"GH_TOKEN", "ghp-passed-to-commands"}, {"ORG_ENV", "public-org"}});
  VariableStore store(env);
  NoteSecretEnvVariables(config, store, env);
  // A command variable is not run for this; a variable that is not secret
  // is not kept.
  EXPECT_THAT(store.SecretValues(), ElementsAre("ghp-passed-to-commands"));
}

TEST(ResolveMcpServerSecretsTest, EnvAndHeadersAreExpanded) {
  config::Config config = WithVariables();
  config.variables["GH"] = ShellVar("GH", "echo gh-token");
  config::McpServerConfig server;
  server.name = "github";
  server.env = {{"GITHUB_TOKEN", "${GH}"}, {"PLAIN", "1"}};
  server.headers = {{"Authorization", "Bearer ${KEY}"}};
  VariableStore store(FakeEnv({{"KEY_ENV", "sk-var"}}));
  absl::StatusOr<ResolvedMcpSecrets> resolved = ResolveMcpServerSecrets(server, config, store);
  ASSERT_TRUE(resolved.ok()) << resolved.status();
  EXPECT_THAT(resolved->env, ElementsAre(Pair("GITHUB_TOKEN", "gh-token"), Pair("PLAIN", "1")));
  EXPECT_THAT(resolved->headers, ElementsAre(Pair("Authorization", "Bearer sk-var")));

  server.env = {{"T", "${MISSING}"}};
  EXPECT_EQ(ResolveMcpServerSecrets(server, config, store).status(),
            absl::FailedPreconditionError("MCP server github: env.T: variable MISSING: "
                                          "environment variable MISSING_ENV is not set"));
}

}  // namespace
}  // namespace raw::vars
