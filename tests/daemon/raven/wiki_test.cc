// The wiki projection against golden files (tests/daemon/raven/golden/;
// RAW_UPDATE_GOLDEN=1 rewrites them).
#include "daemon/raven/wiki.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "absl/strings/str_replace.h"
#include "tests/daemon/raven/raven_test_support.h"

namespace raw::raven {
namespace {

using testing::ClaimArg;
using testing::RavenSession;
using testing::SourceArg;

std::string GoldenPath(const std::string& name) {
  return std::string(RAW_SOURCE_DIR) + "/tests/daemon/raven/golden/" + name;
}

void ExpectGolden(const std::string& name, const std::string& actual) {
  if (std::getenv("RAW_UPDATE_GOLDEN") != nullptr) {
    std::ofstream(GoldenPath(name), std::ios::binary) << actual;
    return;
  }
  std::ifstream in(GoldenPath(name), std::ios::binary);
  ASSERT_TRUE(in) << "missing golden file " << name;
  std::stringstream buf;
  buf << in.rdbuf();
  EXPECT_EQ(actual, buf.str()) << name;
}

// All pages as one document: "=== <path> (write|append)" then the bytes.
std::string Joined(const std::vector<WikiPage>& pages) {
  std::string out;
  for (const WikiPage& p : pages) {
    out += "=== " + p.path + (p.append ? " (append)\n" : " (write)\n") + p.content;
  }
  return out;
}

TaskState CompletedWithContest(RavenSession& s) {
  auto t = s.Call({{"action", "start"}, {"outcome", "research"}, {"request", "Does X beat Y?\nDetails follow."}});
  std::string id = t->state.task_id;
  s.verifier.Reachable("a");
  s.verifier.Reachable("b");
  Json c1 = ClaimArg("c1", {"a"}), c2 = ClaimArg("c2", {"b"});
  c2["contradicts"] = {"c1"};
  Json a = SourceArg("a", "https://a.test/report", "agency");
  a["asOf"] = "2026-11";
  a["role"] = "primary";
  auto cp = s.Call({{"action", "checkpoint"}, {"taskId", id}, {"stage", "verify"}, {"summary", "Both sides."},
                    {"artifact", "# Finding\n\nX beats Y [@a]. Others disagree [@b]."},
                    {"sources", {a, SourceArg("b", "https://b.test/")}}, {"claims", {c1, c2}}});
  EXPECT_EQ(cp->status, "active");
  s.now_ms += 86400000;
  auto done = s.Call({{"action", "complete"}, {"taskId", id},
                      {"artifact", "# Finding\n\nX beats Y [@a]. Others disagree [@b]."}});
  EXPECT_EQ(done->status, "completed");
  return done->state;
}

TEST(WikiTest, ExportWithInitMatchesGolden) {
  RavenSession s;
  TaskState state = CompletedWithContest(s);
  ExportRequest req;
  req.init = true;
  req.now_ms = s.now_ms;
  req.tags = {"research", "contested"};
  ExpectGolden("export_init.md", Joined(ExportWiki(state, req)));
}

TEST(WikiTest, UnfinishedTaskIsLowConfidence) {
  RavenSession s;
  auto t = s.Call({{"action", "start"}, {"outcome", "learning"}, {"request", "Explain Z: a primer"}});
  auto cp = s.Call({{"action", "checkpoint"}, {"taskId", t->state.task_id}, {"stage", "draft"},
                    {"summary", "Outline."}, {"artifact", "Z is simple. It has parts."},
                    {"sources", Json::array({SourceArg("u", "https://u.test/")})}});
  ASSERT_EQ(cp->status, "active");
  ExportRequest req;
  req.now_ms = s.now_ms;
  std::vector<WikiPage> pages = ExportWiki(cp->state, req);
  ExpectGolden("export_active.md", Joined(pages));
  EXPECT_EQ(Confidence(cp->state), "low");
}

TEST(WikiTest, RawPageShaCoversExactlyItsBody) {
  RavenSession s;
  TaskState state = CompletedWithContest(s);
  ExportRequest req;
  req.now_ms = s.now_ms;
  for (const WikiPage& p : ExportWiki(state, req)) {
    if (p.path.find("wiki/raw/") != 0) continue;
    size_t close = p.content.find("\n---\n");
    ASSERT_NE(close, std::string::npos);
    std::string body = p.content.substr(close + 5);
    EXPECT_THAT(p.content, ::testing::HasSubstr("sha256: " + Sha256Hex(body)));
    EXPECT_THAT(p.content, ::testing::HasSubstr("capture: excerpt-only"));
  }
}

TEST(WikiTest, ConfidenceIsCappedByLimits) {
  TaskState s;
  s.phase = Phase::kCompleted;
  EXPECT_EQ(Confidence(s), "high");
  s.limitations.push_back({"tool-1", LimitationKind::kTool, "x", std::nullopt});
  EXPECT_EQ(Confidence(s), "medium");
  s.limitations.clear();
  s.claims.push_back({"c", "t", ClaimKind::kExternal, Importance::kContext, Disposition::kDeferred, {}, {}});
  EXPECT_EQ(Confidence(s), "medium");
  s.phase = Phase::kStopped;
  EXPECT_EQ(Confidence(s), "low");
}

TEST(WikiTest, Slug) {
  EXPECT_EQ(Slug("Hello, World: A/B?"), "hello,-world-a-b");
  EXPECT_EQ(Slug("中文 标题"), "中文-标题");
  EXPECT_EQ(Slug("///"), "untitled");
  EXPECT_LE(Slug(std::string(200, 'x')).size(), 80u);
}

}  // namespace
}  // namespace raw::raven
