// The wiki projection against golden files (tests/daemon/raven/golden/;
// RAW_UPDATE_GOLDEN=1 rewrites them).
#include "daemon/raven/wiki.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string_view>

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
  s.verification = VerificationReceipt{0, "remote", 1, 1, 0, 0, "sha256:0"};
  EXPECT_EQ(Confidence(s), "high");
  s.limitations.push_back({"tool-1", LimitationKind::kTool, "x", std::nullopt, std::nullopt});
  EXPECT_EQ(Confidence(s), "medium");
  s.limitations.clear();
  s.claims.push_back({"c", "t", ClaimKind::kExternal, Importance::kContext, Disposition::kDeferred, {}, {}});
  EXPECT_EQ(Confidence(s), "medium");
  s.phase = Phase::kStopped;
  EXPECT_EQ(Confidence(s), "low");
}

// A Completion that verified nothing remotely (structural-only, or no
// Source found holding its excerpt) is not wiki fact.
TEST(WikiTest, ConfidenceNeedsAVerifiedCompletion) {
  RavenSession s;
  auto t = s.Call({{"action", "start"}, {"outcome", "learning"}, {"request", "Explain Z"}});
  std::string id = t->state.task_id;
  ASSERT_EQ(s.Call({{"action", "checkpoint"},
                    {"taskId", id},
                    {"stage", "draft"},
                    {"summary", "Outline."},
                    {"artifact", "Z is simple."}})
                ->status,
            "active");
  auto done = s.Call({{"action", "complete"}, {"taskId", id}, {"artifact", "Z is simple."}});
  ASSERT_EQ(done->status, "completed");
  ASSERT_EQ(done->state.verification->mode, "structural-only");
  EXPECT_EQ(Confidence(done->state), "medium");

  TaskState verified_none = done->state;
  verified_none.verification->mode = "remote";
  verified_none.verification->checked = 1;
  verified_none.verification->failed = 1;
  EXPECT_EQ(Confidence(verified_none), "medium");
  verified_none.verification->reachable = 1;
  verified_none.verification->failed = 0;
  EXPECT_EQ(Confidence(verified_none), "high");
}

// A raw page is immutable: a later check of its Source changes neither its
// path nor its bytes (the check is on the query page), and the same Source
// id and title in another Task gets another page.
TEST(WikiTest, RawPagesAreImmutableAndNeverShared) {
  auto exported = [](RavenSession& s) {
    auto t = s.Call({{"action", "start"}, {"outcome", "learning"}, {"request", "Tides"}});
    s.verifier.Reachable("a");
    auto cp = s.Call({{"action", "checkpoint"},
                      {"taskId", t->state.task_id},
                      {"stage", "draft"},
                      {"summary", "Outline."},
                      {"artifact", "Tides rise [@a]."},
                      {"sources", Json::array({SourceArg("a", "https://a.test/")})}});
    EXPECT_EQ(cp->status, "active");
    return cp->state;
  };
  RavenSession one("session-1"), two("session-2");
  TaskState first = exported(one), other = exported(two);
  ExportRequest req;
  req.now_ms = one.now_ms;
  std::vector<WikiPage> before = ExportWiki(first, req);
  ASSERT_GE(before.size(), 2u);
  EXPECT_THAT(before[0].content,
              ::testing::HasSubstr("reachable (verified) at 2026-12-02T04:00:00.000Z"));

  TaskState later = first;
  later.sources[0].check = {
      CheckStatus::kFailed,  one.now_ms + 86400000,  200,       "https://a.test/",
      "the excerpt is gone", CheckOutcome::kDrifted, one.now_ms};
  std::vector<WikiPage> after = ExportWiki(later, req);
  // The raw page carries its receipt: a later check is a new page at a new
  // path, never other bytes at the old one.
  EXPECT_THAT(before[1].content, ::testing::HasSubstr("- Verification: reachable at"));
  EXPECT_THAT(after[1].content, ::testing::HasSubstr("- Verification: failed at"));
  EXPECT_NE(after[1].path, before[1].path) << "a check rewrote the immutable raw page";
  EXPECT_EQ(ExportWiki(first, req)[1], before[1]);
  EXPECT_THAT(after[0].content,
              ::testing::HasSubstr("failed (drifted) at 2026-12-03T04:00:00.000Z"));

  std::vector<WikiPage> elsewhere = ExportWiki(other, req);
  EXPECT_NE(elsewhere[1].path, before[1].path);
  EXPECT_THAT(before[1].path, ::testing::StartsWith("wiki/raw/articles/a-title-of-a-"));
}

TEST(WikiTest, Slug) {
  EXPECT_EQ(Slug("Hello, World: A/B?"), "hello-world-a-b");
  EXPECT_EQ(Slug("Tides, explained {part 1}"), "tides-explained-part-1");
  EXPECT_EQ(Slug("The \"moon\": a [primer] #2 | 'tides'"), "the-moon-a-primer-2-tides");
  EXPECT_EQ(Slug("  Caf\u00E9 D\u00C9J\u00C0 vu \uFB01n  "), "cafe-deja-vu-fin");
  EXPECT_EQ(Slug("中文 标题"), "untitled");
  EXPECT_EQ(Slug("///"), "untitled");
  EXPECT_EQ(Slug(std::string(200, 'x')), std::string(80, 'x'));
  EXPECT_EQ(Slug(std::string(79, 'x') + " y"), std::string(79, 'x'));
}

// Just enough YAML to read what the export writes: one `key: value` per
// line, the value a double-quoted scalar, a flow sequence or a plain
// scalar. Anything YAML would read otherwise (a plain item holding a flow
// indicator, an unknown escape) makes the line unreadable (nullopt).
std::optional<std::string> ReadYamlDoubleQuoted(std::string_view& in) {
  if (in.empty() || in.front() != '"') return std::nullopt;
  std::string out;
  for (size_t i = 1; i < in.size(); ++i) {
    char c = in[i];
    if (c == '"') {
      in.remove_prefix(i + 1);
      return out;
    }
    if (c != '\\') {
      out.push_back(c);
      continue;
    }
    if (++i == in.size()) return std::nullopt;
    switch (in[i]) {
      case '"':
      case '\\':
        out.push_back(in[i]);
        break;
      case 'L':
        out += "\u2028";
        break;
      case 'P':
        out += "\u2029";
        break;
      case 'x': {
        if (i + 2 >= in.size()) return std::nullopt;
        int code = std::stoi(std::string(in.substr(i + 1, 2)), nullptr, 16);
        if (code < 0x80) {
          out.push_back(static_cast<char>(code));
        } else {
          out.push_back(static_cast<char>(0xC0 | (code >> 6)));
          out.push_back(static_cast<char>(0x80 | (code & 0x3F)));
        }
        i += 2;
        break;
      }
      default:
        return std::nullopt;
    }
  }
  return std::nullopt;
}

std::optional<std::vector<std::string>> ReadYamlFlowList(std::string_view in) {
  if (in.empty() || in.front() != '[' || in.back() != ']') return std::nullopt;
  in = in.substr(1, in.size() - 2);
  std::vector<std::string> items;
  while (true) {
    while (!in.empty() && in.front() == ' ') in.remove_prefix(1);
    if (in.empty()) return items;
    if (in.front() == '"') {
      std::optional<std::string> item = ReadYamlDoubleQuoted(in);
      if (!item) return std::nullopt;
      items.push_back(*item);
    } else {
      size_t end = in.find(',');
      std::string_view item = in.substr(0, end);
      if (item.find_first_of("[]{}") != std::string_view::npos) return std::nullopt;
      items.emplace_back(item);
      in.remove_prefix(item.size());
    }
    while (!in.empty() && in.front() == ' ') in.remove_prefix(1);
    if (in.empty()) return items;
    if (in.front() != ',') return std::nullopt;
    in.remove_prefix(1);
  }
}

struct ExportedFrontmatter {
  std::map<std::string, std::string> scalars;
  std::map<std::string, std::vector<std::string>> lists;
  std::vector<std::string> unreadable;  // lines the reader above refuses
};

ExportedFrontmatter ReadExportedFrontmatter(const std::string& page) {
  ExportedFrontmatter fm;
  EXPECT_EQ(page.rfind("---\n", 0), 0u) << page;
  size_t end = page.find("\n---\n", 3);
  EXPECT_NE(end, std::string::npos) << page;
  std::string_view block = std::string_view(page).substr(4, end - 3);
  while (!block.empty()) {
    std::string_view line = block.substr(0, block.find('\n'));
    block.remove_prefix(std::min(block.size(), line.size() + 1));
    size_t colon = line.find(": ");
    if (colon == std::string_view::npos) {
      fm.unreadable.emplace_back(line);
      continue;
    }
    std::string key(line.substr(0, colon));
    std::string_view value = line.substr(colon + 2);
    if (value.front() == '[') {
      std::optional<std::vector<std::string>> items = ReadYamlFlowList(value);
      if (!items) {
        fm.unreadable.emplace_back(line);
      } else {
        fm.lists[key] = *items;
      }
    } else if (value.front() == '"') {
      std::optional<std::string> text = ReadYamlDoubleQuoted(value);
      if (!text || !value.empty()) {
        fm.unreadable.emplace_back(line);
      } else {
        fm.scalars[key] = *text;
      }
    } else {
      fm.scalars[key] = std::string(value);
    }
  }
  return fm;
}

// Titles with YAML and path punctuation: every Source is one list item
// naming its own raw page, and every quoted value reads back as written.
TEST(WikiTest, FrontmatterListsAndTitlesSurvivePunctuation) {
  RavenSession s;
  auto t = s.Call({{"action", "start"}, {"outcome", "learning"}, {"request", "Tides"}});
  ASSERT_TRUE(t.ok()) << t.status();
  s.verifier.Reachable("a");
  s.verifier.Reachable("b");
  Json tides = SourceArg("a", "https://a.test/");
  tides["title"] = "Tides, explained {part 1}";
  Json moon = SourceArg("b", "https://b.test/");
  moon["title"] = "The \"moon\": a primer, [draft]";
  moon["locator"] = "section \"2\": tides\\ebb";
  auto cp = s.Call({{"action", "checkpoint"},
                    {"taskId", t->state.task_id},
                    {"stage", "draft"},
                    {"summary", "Outline."},
                    {"artifact", "Tides rise [@a]. The Moon pulls [@b]."},
                    {"sources", Json::array({tides, moon})}});
  ASSERT_TRUE(cp.ok()) << cp.status();
  ASSERT_EQ(cp->status, "active");
  ExportRequest req;
  req.now_ms = s.now_ms;
  req.title = "Ebb: \"spring\" vs {neap}, [1] \u2028 # done";
  req.tags = {"learning", "2026", "true"};
  std::vector<WikiPage> pages = ExportWiki(cp->state, req);

  const WikiPage& query = pages.front();
  EXPECT_EQ(query.path, "wiki/queries/query-2026-12-02-ebb-spring-vs-neap-1-done.md");
  ExportedFrontmatter fm = ReadExportedFrontmatter(query.content);
  EXPECT_THAT(fm.unreadable, ::testing::IsEmpty());
  EXPECT_EQ(fm.scalars["title"], *req.title);
  EXPECT_EQ(fm.lists["tags"], req.tags) << "tags stay strings, never a number or a boolean";
  const std::vector<std::string> expected = {pages[1].path.substr(5), pages[2].path.substr(5)};
  EXPECT_THAT(expected[0], ::testing::StartsWith("raw/articles/a-tides-explained-part-1-"));
  EXPECT_THAT(expected[1], ::testing::StartsWith("raw/articles/b-the-moon-a-primer-draft-"));
  ASSERT_EQ(fm.lists["sources"], expected);
  for (const std::string& path : fm.lists["sources"]) {
    EXPECT_TRUE(std::any_of(pages.begin(), pages.end(),
                            [&](const WikiPage& p) { return p.path == "wiki/" + path; }))
        << path << " is not one of the pages";
  }
  const WikiPage& raw_moon = pages[2];
  ASSERT_EQ(raw_moon.path, "wiki/" + expected[1]);
  ExportedFrontmatter raw_fm = ReadExportedFrontmatter(raw_moon.content);
  EXPECT_THAT(raw_fm.unreadable, ::testing::IsEmpty());
  EXPECT_EQ(raw_fm.scalars["locator"], "section \"2\": tides\\ebb");
  EXPECT_EQ(raw_fm.scalars["source_url"], "https://b.test/");
}

// Ids that differ only in what a slug drops still get a page each; a title
// with nothing in ASCII names the query page by the Task's id.
TEST(WikiTest, PagePathsAreDistinctAndNeverEmpty) {
  RavenSession s;
  auto t = s.Call({{"action", "start"}, {"outcome", "learning"}, {"request", "潮汐"}});
  ASSERT_TRUE(t.ok()) << t.status();
  for (const char* id : {"a.b", "a_b", "A-b"}) s.verifier.Reachable(id);
  auto cp = s.Call({{"action", "checkpoint"},
                    {"taskId", t->state.task_id},
                    {"stage", "draft"},
                    {"summary", "Outline."},
                    {"artifact", "One [@a.b]. Two [@a_b]. Three [@A-b]."},
                    {"sources", Json::array({SourceArg("a.b", "https://a.test/"),
                                             SourceArg("a_b", "https://b.test/"),
                                             SourceArg("A-b", "https://c.test/")})}});
  ASSERT_TRUE(cp.ok()) << cp.status();
  ASSERT_EQ(cp->status, "active");
  ExportRequest req;
  req.now_ms = s.now_ms;
  std::vector<WikiPage> pages = ExportWiki(cp->state, req);
  EXPECT_EQ(pages[0].path, "wiki/queries/query-2026-12-02-" + t->state.task_id + ".md");
  for (int i = 1; i <= 3; ++i) {
    EXPECT_THAT(pages[i].path, ::testing::StartsWith("wiki/raw/articles/a-b-title-of-a-b-"));
  }
  EXPECT_NE(pages[1].path, pages[2].path);
  EXPECT_NE(pages[1].path, pages[3].path);
  EXPECT_NE(pages[2].path, pages[3].path);
  ExportedFrontmatter fm = ReadExportedFrontmatter(pages[0].content);
  EXPECT_EQ(fm.lists["sources"],
            (std::vector<std::string>{pages[1].path.substr(5), pages[2].path.substr(5),
                                      pages[3].path.substr(5)}));
}

}  // namespace
}  // namespace raw::raven
