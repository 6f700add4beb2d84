#include <string>
#include <vector>

#include "daemon/store/session_store.h"
#include "gmock/gmock.h"
#include "gtest/gtest.h"
#include "tests/daemon/store/temp_dir.h"

namespace raw::store {
namespace {

using ::testing::HasSubstr;
using testing::TempDir;

class PluginSettingsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    auto opened = SessionStore::Open(dir_.File(DatabaseFileName()));
    ASSERT_TRUE(opened.ok()) << opened.status();
    store_ = std::move(opened).value();
  }
  TempDir dir_;
  std::unique_ptr<SessionStore> store_;
};

TEST_F(PluginSettingsTest, NeverWrittenIsAnEmptyObjectAtRevisionZero) {
  auto got = store_->GetPluginSettings("raven-research");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->ns, "raven-research");
  EXPECT_EQ(got->settings_json, "{}");
  EXPECT_EQ(got->revision, 0);
}

TEST_F(PluginSettingsTest, WritesCountRevisionsAndSurviveReopening) {
  auto first = store_->SetPluginSettings("raven-research", R"({"depth":2})", 0);
  ASSERT_TRUE(first.ok()) << first.status();
  EXPECT_EQ(first->revision, 1);
  auto second = store_->SetPluginSettings("raven-research", R"({"depth":3})", 1);
  ASSERT_TRUE(second.ok()) << second.status();
  EXPECT_EQ(second->revision, 2);
  store_.reset();
  store_ = *SessionStore::Open(dir_.File(DatabaseFileName()));
  auto got = store_->GetPluginSettings("raven-research");
  ASSERT_TRUE(got.ok()) << got.status();
  EXPECT_EQ(got->settings_json, R"({"depth":3})");
  EXPECT_EQ(got->revision, 2);
  // Namespaces are separate.
  EXPECT_EQ(store_->GetPluginSettings("other")->revision, 0);
}

TEST_F(PluginSettingsTest, AStaleRevisionIsRefusedAndWritesNothing) {
  ASSERT_TRUE(store_->SetPluginSettings("p", R"({"a":1})", 0).ok());
  auto stale = store_->SetPluginSettings("p", R"({"a":2})", 0);
  EXPECT_EQ(stale.status().code(), absl::StatusCode::kFailedPrecondition);
  EXPECT_THAT(stale.status().message(), HasSubstr("revision 1 is stored"));
  auto ahead = store_->SetPluginSettings("p", R"({"a":2})", 7);
  EXPECT_EQ(ahead.status().code(), absl::StatusCode::kFailedPrecondition);
  auto got = store_->GetPluginSettings("p");
  EXPECT_EQ(got->settings_json, R"({"a":1})");
  EXPECT_EQ(got->revision, 1);
}

TEST_F(PluginSettingsTest, NamespacesAreValidated) {
  const std::vector<std::string> bad = {"", "Upper", "-lead", "a/b", "a b", "../x",
                                        std::string(65, 'a')};
  for (const std::string& ns : bad) {
    auto got = store_->GetPluginSettings(ns);
    EXPECT_EQ(got.status().code(), absl::StatusCode::kInvalidArgument) << ns;
    EXPECT_THAT(got.status().message(), HasSubstr("namespace")) << ns;
    EXPECT_EQ(store_->SetPluginSettings(ns, "{}", 0).status().code(),
              absl::StatusCode::kInvalidArgument)
        << ns;
  }
  EXPECT_TRUE(store_->GetPluginSettings("a.b_c-9").ok());
}

TEST_F(PluginSettingsTest, OnlyJsonObjectsWithinTheCapAreStored) {
  for (const std::string text : {"[1]", "3", "not json", "{\"a\":"}) {
    auto set = store_->SetPluginSettings("p", text, 0);
    EXPECT_EQ(set.status().code(), absl::StatusCode::kInvalidArgument) << text;
  }
  const std::string big = "{\"a\":\"" + std::string(kMaxPluginSettingsBytes, 'x') + "\"}";
  auto set = store_->SetPluginSettings("p", big, 0);
  EXPECT_EQ(set.status().code(), absl::StatusCode::kInvalidArgument);
  EXPECT_THAT(set.status().message(), HasSubstr("at most"));
  EXPECT_EQ(store_->GetPluginSettings("p")->revision, 0);
}

}  // namespace
}  // namespace raw::store
