// RawService's plugin settings (the dashboard's Settings > Plugins page and
// Raven's card), against a real SessionManager over real gRPC.
#include <string>

#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/api/raw_service_fixture.h"

namespace raw::api {
namespace {

using ::testing::HasSubstr;

TEST_F(RawServiceTest, PluginSettingsRoundTripWithARevisionCheck) {
  raw::v1::GetPluginSettingsRequest get;
  get.set_namespace_("example-plugin");
  raw::v1::PluginSettings got;
  {
    grpc::ClientContext ctx;
    ASSERT_TRUE(stub_->GetPluginSettings(&ctx, get, &got).ok());
    EXPECT_EQ(got.revision(), 0);
    EXPECT_EQ(got.settings().fields_size(), 0);
  }
  raw::v1::SetPluginSettingsRequest set;
  set.set_namespace_("example-plugin");
  (*set.mutable_settings()->mutable_fields())["depth"].set_number_value(3);
  (*set.mutable_settings()->mutable_fields())["mode"].set_string_value("deep");
  raw::v1::PluginSettings stored;
  {
    grpc::ClientContext ctx;
    grpc::Status s = stub_->SetPluginSettings(&ctx, set, &stored);
    ASSERT_TRUE(s.ok()) << s.error_message();
    EXPECT_EQ(stored.revision(), 1);
    EXPECT_EQ(stored.namespace_(), "example-plugin");
  }
  {
    grpc::ClientContext ctx;
    ASSERT_TRUE(stub_->GetPluginSettings(&ctx, get, &got).ok());
    EXPECT_EQ(got.revision(), 1);
    EXPECT_EQ(got.settings().fields().at("mode").string_value(), "deep");
    EXPECT_EQ(got.settings().fields().at("depth").number_value(), 3);
  }
  {
    grpc::ClientContext ctx;  // still based on revision 0: stale
    grpc::Status s = stub_->SetPluginSettings(&ctx, set, &stored);
    EXPECT_EQ(s.error_code(), grpc::StatusCode::FAILED_PRECONDITION);
  }
  {
    grpc::ClientContext ctx;
    get.set_namespace_("Bad/Name");
    EXPECT_EQ(stub_->GetPluginSettings(&ctx, get, &got).error_code(),
              grpc::StatusCode::INVALID_ARGUMENT);
  }
}

// Raven's card: its settings override the config's `raven` section, so
// they are checked like the config before they are stored, and reading them
// gives the schema the card renders and the config's own values.
TEST_F(RawServiceTest, RavenCardSettingsAreCheckedAgainstTheConfig) {
  raw::v1::GetPluginSettingsRequest get;
  get.set_namespace_("raven-research");
  raw::v1::PluginSettings got;
  {
    grpc::ClientContext ctx;
    ASSERT_TRUE(stub_->GetPluginSettings(&ctx, get, &got).ok());
    EXPECT_TRUE(got.schema().fields().at("properties").struct_value().fields().contains("verify"));
    const auto& verify = got.config_values().fields().at("verify").struct_value().fields();
    EXPECT_EQ(verify.at("fetch_timeout_seconds").number_value(), 15);
  }
  auto set_json = [&](const std::string& json, raw::v1::PluginSettings* out, int64_t revision) {
    raw::v1::SetPluginSettingsRequest set;
    set.set_namespace_("raven-research");
    set.set_revision(revision);
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, set.mutable_settings()).ok());
    grpc::ClientContext ctx;
    return stub_->SetPluginSettings(&ctx, set, out);
  };
  raw::v1::PluginSettings stored;
  grpc::Status bad =
      set_json(R"({"verify":{"max_bytes":0,"fetch_timeout_seconds":"soon"}})", &stored, 0);
  EXPECT_EQ(bad.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(bad.error_message(), ::testing::HasSubstr("raven.verify.max_bytes"));
  EXPECT_THAT(bad.error_message(), ::testing::HasSubstr("raven.verify.fetch_timeout_seconds"));
  grpc::Status network = set_json(R"({"network":{"allow_private_addresses":true}})", &stored, 0);
  EXPECT_EQ(network.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(network.error_message(), ::testing::HasSubstr("config file only"));
  grpc::Status ok = set_json(
      R"({"verify":{"fetch_timeout_seconds":5},"discovery":{"enabled":false}})", &stored, 0);
  ASSERT_TRUE(ok.ok()) << ok.error_message();
  EXPECT_EQ(stored.revision(), 1);
}

// A search override saved while the config file configured a backend is
// dormant once the file configures none: reading the settings says why it
// is not in effect, and a save may keep or remove it but not set or change
// a search limit (which could not take effect), naming the field.
TEST_F(RawServiceTest, SearchLimitsWithoutABackendAreShownInactiveAndOnlyKeptOrRemoved) {
  const std::string with_backend = absl::StrCat(
      std::string(kRawServiceTestConfig).substr(0, std::string(kRawServiceTestConfig).rfind('}')),
      R"(, "raven": {"search": {"backend": "searxng", "url": "http://127.0.0.1:8888"}}})");
  auto write_config = [&](const std::string& text) {
    std::ofstream(dir_.File("config.json"), std::ios::trunc) << text;
  };
  auto get = [&] {
    raw::v1::GetPluginSettingsRequest request;
    request.set_namespace_("raven-research");
    raw::v1::PluginSettings got;
    grpc::ClientContext ctx;
    grpc::Status s = stub_->GetPluginSettings(&ctx, request, &got);
    EXPECT_TRUE(s.ok()) << s.error_message();
    return got;
  };
  auto set_json = [&](const std::string& json, int64_t revision) {
    raw::v1::SetPluginSettingsRequest set;
    set.set_namespace_("raven-research");
    set.set_revision(revision);
    EXPECT_TRUE(google::protobuf::util::JsonStringToMessage(json, set.mutable_settings()).ok());
    grpc::ClientContext ctx;
    raw::v1::PluginSettings out;
    return stub_->SetPluginSettings(&ctx, set, &out);
  };
  write_config(with_backend);
  EXPECT_EQ(get().inactive_sections_size(), 0);
  grpc::Status saved = set_json(R"({"search":{"max_results":3},"verify":{"max_bytes":4096}})", 0);
  ASSERT_TRUE(saved.ok()) << saved.error_message();

  write_config(kRawServiceTestConfig);
  raw::v1::PluginSettings got = get();
  ASSERT_EQ(got.inactive_sections_size(), 1);
  EXPECT_EQ(got.inactive_sections().at("search"),
            "no search backend is configured (raven.search.backend in the config file)");
  EXPECT_FALSE(got.config_values().fields().contains("search"));
  EXPECT_TRUE(got.settings().fields().contains("search"));

  grpc::Status changed = set_json(R"({"search":{"max_results":4,"timeout_seconds":2}})", 1);
  EXPECT_EQ(changed.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(changed.error_message(),
              HasSubstr("raven.search.max_results: would not be in effect: no search backend is "
                        "configured (raven.search.backend in the config file)"));
  EXPECT_THAT(changed.error_message(), HasSubstr("raven.search.timeout_seconds: would not be"));
  EXPECT_EQ(get().revision(), 1);
  grpc::Status kept = set_json(R"({"search":{"max_results":3},"verify":{"max_bytes":8192}})", 1);
  ASSERT_TRUE(kept.ok()) << kept.error_message();
  grpc::Status removed = set_json(R"({"verify":{"max_bytes":8192}})", 2);
  ASSERT_TRUE(removed.ok()) << removed.error_message();
  EXPECT_FALSE(get().settings().fields().contains("search"));
  grpc::Status again = set_json(R"({"search":{"max_results":3}})", 3);
  EXPECT_EQ(again.error_code(), grpc::StatusCode::INVALID_ARGUMENT);
  EXPECT_THAT(again.error_message(), HasSubstr("raven.search.max_results: would not be in effect"));
}

}  // namespace
}  // namespace raw::api
