// The codec: round trips, every ceiling, corrupt, unknown-version and
// unknown-field input, and replay that falls back to an older snapshot.
#include "daemon/raven/codec.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include <random>

#include "tests/daemon/raven/raven_test_support.h"

namespace raw::raven {
namespace {

// A valid state with generated content (Sources, Claims, Limitations,
// Checkpoints and steering).
TaskState Generated(std::mt19937& rng) {
  TaskState s;
  s.ordinal = 1 + static_cast<int>(rng() % 5);
  s.task_id = MakeTaskId("sess", s.ordinal);
  s.outcome = static_cast<Outcome>(rng() % 4);
  s.grounding = (s.outcome == Outcome::kResearch || s.outcome == Outcome::kAcademicWriting)
                    ? static_cast<Grounding>(rng() % 2)
                    : static_cast<Grounding>(rng() % 3);
  s.request = "Request \xe4\xb8\xad " + std::to_string(rng());
  s.started_at = 1000;
  s.updated_at = 2000;
  int steering = static_cast<int>(rng() % 3);
  for (int i = 1; i <= steering; ++i) s.steering.push_back({i, "fix " + std::to_string(i), 1500});
  s.steering_revision = steering;
  int sources = static_cast<int>(rng() % 4);
  for (int i = 0; i < sources; ++i) {
    Source src;
    src.source_id = "s" + std::to_string(i);
    src.url = "https://h" + std::to_string(i) + ".test/p";
    src.title = "T";
    src.locator = "L";
    src.excerpt = "E";
    src.role = static_cast<SourceRole>(rng() % 4);
    if (rng() % 2) src.family = "fam";
    src.inspected_at = 1200;
    switch (rng() % 3) {
      case 0:
        src.check = {CheckStatus::kReachable, 1300, 200, src.url, std::nullopt, {}, 1300};
        break;
      case 1:  // unavailable after an earlier verification
        src.check = {CheckStatus::kUnavailable,  1400, std::nullopt, std::nullopt, "timeout",
                     CheckOutcome::kUnreachable, 1300};
        break;
      default:
        break;
    }
    s.sources.push_back(src);
  }
  for (int i = 0; i < sources; ++i) {
    Claim c{"c" + std::to_string(i), "text", ClaimKind::kExternal, Importance::kMaterial,
            Disposition::kSupported, {"s" + std::to_string(i)}, {}};
    if (i > 0 && rng() % 2) c.contradicts = {"c0"};
    s.claims.push_back(c);
  }
  if (rng() % 2) s.limitations.push_back({"coverage-1", LimitationKind::kCoverage, "gap", std::nullopt, std::nullopt});
  int checkpoints = static_cast<int>(rng() % 3);
  std::string artifact = "Artifact.";
  for (int i = 1; i <= checkpoints; ++i) {
    s.checkpoints.push_back({MakeCheckpointId(s.task_id, i), i, Stage::kDraft, "sum",
                             Sha256Tagged(artifact), 9, steering, 1600});
  }
  if (checkpoints > 0) s.latest_artifact = artifact;
  s.revision = 1 + static_cast<int>(rng() % 9);
  return s;
}

TEST(CodecPropertyTest, RoundTripsGeneratedStates) {
  std::mt19937 rng(7);
  for (int i = 0; i < 500; ++i) {
    TaskState s = Generated(rng);
    absl::StatusOr<TaskState> back = DecodeState(Json::parse(DumpJson(EncodeState(s))));
    ASSERT_TRUE(back.ok()) << back.status() << "\n" << DumpJson(EncodeState(s));
    EXPECT_EQ(*back, s);
    absl::StatusOr<Record> rec = DecodeRecord(EncodeRecord(s, s.task_id));
    ASSERT_TRUE(rec.ok());
    EXPECT_EQ(rec->state, s);
  }
}

TaskState Base() {
  std::mt19937 rng(1);
  TaskState s = Generated(rng);
  return s;
}

void ExpectRefused(const Json& j, const std::string& what) {
  absl::StatusOr<TaskState> r = DecodeState(j);
  EXPECT_FALSE(r.ok()) << what;
  if (!r.ok()) {
    EXPECT_THAT(std::string(r.status().message()), ::testing::HasSubstr(what));
  }
}

TEST(CodecTest, RefusesUnknownVersionAndUnknownFields) {
  Json j = Json::parse(DumpJson(EncodeState(Base())));
  Json v = j;
  v["schemaVersion"] = 2;
  ExpectRefused(v, "unknown schemaVersion 2");
  Json u = j;
  u["extra"] = 1;
  ExpectRefused(u, "unknown field \"extra\"");
  Json nested = j;
  nested["sources"] = Json::array({{{"sourceId", "a"}, {"url", "https://a.test/"}, {"title", "t"},
                                    {"locator", "l"}, {"excerpt", "e"}, {"role", "primary"},
                                    {"inspectedAt", 1}, {"check", {{"status", "unchecked"}}},
                                    {"surprise", true}}});
  ExpectRefused(nested, "unknown field \"surprise\"");
}

TEST(CodecTest, EveryCeilingIsShared) {
  struct Case {
    std::string field;
    size_t limit;
  };
  TaskState s = Base();
  s.request = std::string(Limits::kRequestChars, 'r');
  EXPECT_TRUE(DecodeState(Json::parse(DumpJson(EncodeState(s)))).ok());
  s.request += "r";
  ExpectRefused(Json::parse(DumpJson(EncodeState(s))), "request exceeds 20000");
  auto list_over = [](const char* key, size_t limit, const Json& item) {
    Json j = Json::parse(DumpJson(EncodeState(Base())));
    j[key] = Json::array();
    for (size_t i = 0; i <= limit; ++i) j[key].push_back(item);
    ExpectRefused(j, std::string(key) + " is not an array of at most " + std::to_string(limit));
  };
  list_over("sources", Limits::kSources, Json::object());
  list_over("claims", Limits::kClaims, Json::object());
  list_over("limitations", Limits::kLimitations, Json::object());
  list_over("checkpoints", Limits::kCheckpoints, Json::object());
  list_over("steering", Limits::kSteeringRevisions, Json::object());
  TaskState t = Base();
  t.sources.push_back({"big", "https://big.test/", std::string(Limits::kSourceTitleChars + 1, 't'),
                       "l", "e", SourceRole::kPrimary, std::nullopt, std::nullopt, 1, {}});
  ExpectRefused(Json::parse(DumpJson(EncodeState(t))), "title exceeds 1000");
  t.sources.back().title = "t";
  t.sources.back().excerpt = std::string(Limits::kSourceExcerptChars + 1, 'e');
  ExpectRefused(Json::parse(DumpJson(EncodeState(t))), "excerpt exceeds 20000");
}

TEST(CodecTest, RefusesBrokenInvariants) {
  std::mt19937 rng(3);
  TaskState s;
  do s = Generated(rng); while (s.checkpoints.empty() || s.sources.size() < 2);
  Json j = Json::parse(DumpJson(EncodeState(s)));
  Json hash = j;
  hash["latestArtifact"] = "Tampered.";
  ExpectRefused(hash, "does not hash to the latest checkpoint");
  Json link = j;
  link["claims"][0]["sourceIds"] = {"ghost"};
  ExpectRefused(link, "names unknown Source");
  Json self = j;
  self["claims"][0]["contradicts"] = Json::array({self["claims"][0]["claimId"]});
  ExpectRefused(self, "invalid contradiction link");
  Json id = j;
  id["taskId"] = "rvn-000000000000-9";
  ExpectRefused(id, "taskId does not match");
  Json done = j;
  done["phase"] = "completed";
  ExpectRefused(done, "is completed without");
  Json floor = j;
  floor["outcome"] = "research";
  floor["grounding"] = "none";
  ExpectRefused(floor, "disables the evidence floor");
  Json cred = j;
  cred["sources"][0]["url"] = "https://u:p@a.test/";
  ExpectRefused(cred, "url is not canonical");
  Json page = j;
  page["sources"][1]["url"] = page["sources"][0]["url"];
  page["sources"][0]["check"] = {{"status", "unchecked"}};
  ExpectRefused(page, "registers one URL twice");
  page["sources"][0]["check"] = {{"status", "failed"}, {"checkedAt", 1300}, {"detail", "gone"}};
  EXPECT_TRUE(DecodeState(page).ok()) << "a failed Source is superseded by a later one";
  Json checked = j;
  checked["sources"][0]["check"] = {{"status", "reachable"},
                                    {"checkedAt", 1300},
                                    {"outcome", "verified"},
                                    {"lastVerifiedAt", 1200}};
  ExpectRefused(checked, "lastVerifiedAt contradicts checkedAt");
  checked["sources"][0]["check"] = {{"status", "unavailable"},
                                    {"checkedAt", 1300},
                                    {"detail", "timeout"},
                                    {"lastVerifiedAt", 1400}};
  ExpectRefused(checked, "lastVerifiedAt contradicts checkedAt");
  checked["sources"][0]["check"] = {{"status", "unchecked"}, {"lastVerifiedAt", 1}};
  ExpectRefused(checked, "carries check fields");
}

TEST(CodecTest, ReplaySkipsBadRecordsAndKeepsTheHighestRevision) {
  TaskState s = Base();
  s.revision = 2;
  std::string good = EncodeRecord(s, s.task_id);
  TaskState newer = s;
  newer.revision = 3;
  newer.request = "newer";
  Json corrupt = Json::parse(EncodeRecord(newer, s.task_id));
  corrupt["state"]["schemaVersion"] = 99;
  Json unknown = Json::parse(EncodeRecord(newer, s.task_id));
  unknown["state"]["mystery"] = 1;
  TaskBook book = ReplayBook({good, "not json", DumpJson(corrupt), DumpJson(unknown),
                              good.substr(0, good.size() / 2)});
  ASSERT_EQ(book.tasks.size(), 1u);
  EXPECT_EQ(book.tasks.at(s.task_id), s);
  EXPECT_EQ(book.current_task_id, s.task_id);
  TaskState older = s;
  older.revision = 1;
  book = ReplayBook({good, EncodeRecord(older, s.task_id), EncodeRecord(newer, s.task_id)});
  EXPECT_EQ(book.tasks.at(s.task_id).request, "newer");
}

TEST(CodecTest, CanonicalUrl) {
  std::string out;
  ASSERT_TRUE(CanonicalUrl("HTTPS://Example.TEST:443", out).ok());
  EXPECT_EQ(out, "https://example.test/");
  ASSERT_TRUE(CanonicalUrl("http://a.test:8080/x?y#z", out).ok());
  EXPECT_EQ(out, "http://a.test:8080/x?y#z");
  EXPECT_FALSE(CanonicalUrl("ftp://a.test/", out).ok());
  EXPECT_FALSE(CanonicalUrl("https://a b/", out).ok());
  EXPECT_FALSE(CanonicalUrl("https://" + std::string(Limits::kUrlChars, 'a'), out).ok());
  ASSERT_TRUE(CanonicalUrl("https://Example.org../a", out).ok());
  EXPECT_EQ(out, "https://example.org/a") << "every trailing dot of the host is dropped";
  ASSERT_TRUE(CanonicalUrl("http://[::1]:8080/x", out).ok());
  EXPECT_EQ(out, "http://[::1]:8080/x");
  EXPECT_FALSE(CanonicalUrl("https://example.org:443:443/a", out).ok());
  EXPECT_FALSE(CanonicalUrl("https://a.com:443:/x", out).ok());
  EXPECT_FALSE(CanonicalUrl("http://[::1]:80:80/", out).ok());
}

// "." and ".." path segments are resolved, so one page has one Source URL;
// a record written before (its URL keeps them) still replays.
TEST(CodecTest, CanonicalUrlResolvesDotSegments) {
  std::string out;
  ASSERT_TRUE(CanonicalUrl("https://a.test/x/./y/../z?p=../q#../f", out).ok());
  EXPECT_EQ(out, "https://a.test/x/z?p=../q#../f");
  ASSERT_TRUE(CanonicalUrl("https://a.test/x/%2E%2e/y/%2e", out).ok());
  EXPECT_EQ(out, "https://a.test/y/");
  ASSERT_TRUE(CanonicalUrl("https://a.test/../..", out).ok());
  EXPECT_EQ(out, "https://a.test/");
  ASSERT_TRUE(CanonicalUrl("https://a.test/x/..y/.z", out).ok());
  EXPECT_EQ(out, "https://a.test/x/..y/.z") << "not a dot segment";
  ASSERT_TRUE(CanonicalUrl("https://a.test//x/./", out).ok());
  EXPECT_EQ(out, "https://a.test//x/");

  TaskState s = Base();
  ASSERT_FALSE(s.sources.empty());
  s.sources[0].url = "https://a.test/x/../y";
  absl::StatusOr<Record> legacy = DecodeRecord(EncodeRecord(s, s.task_id));
  ASSERT_TRUE(legacy.ok()) << legacy.status();
  EXPECT_EQ(legacy->state.sources[0].url, "https://a.test/x/../y");
  s.sources[0].url = "https://A.test/x/../y";
  EXPECT_FALSE(DecodeRecord(EncodeRecord(s, s.task_id)).ok());
}

// The codec accepts a stored URL only when it is its own canonical form, so
// whatever CanonicalUrl returns must canonicalize to itself and fit the
// ceiling; what cannot is refused at registration instead.
TEST(CodecTest, CanonicalUrlIsIdempotent) {
  const std::string at_limit_host(Limits::kUrlChars - std::string("https://?q").size(), 'h');
  for (const std::string& input :
       {std::string("https://example.org:443:443/a"), std::string("https://example.org../a"),
        std::string("https://a.com:443:/x"), std::string("HTTPS://A.com.:443?q#f"),
        std::string("https://a.com:/x"), std::string("http://[::1]/"),
        std::string("https://[::1/x"), std::string("https://a]:80/x"),
        std::string("https://a.test/x/%2e%2E/./y/.."), std::string("https://a.test/.%2e?a/../b"),
        std::string("https://...:8080/"), "https://" + at_limit_host + "?q"}) {
    std::string once;
    if (!CanonicalUrl(input, once).ok()) continue;
    EXPECT_LE(CodePoints(once), Limits::kUrlChars) << input;
    std::string twice;
    ASSERT_TRUE(CanonicalUrl(once, twice).ok()) << input << " -> " << once;
    EXPECT_EQ(twice, once) << input;
  }
}

// Source identity: host and port, whatever the case, trailing dot, explicit
// default port or percent-encoding of the host; the scheme is not part of it.
TEST(CodecTest, UrlIdentityIsHostAndNonDefaultPort) {
  EXPECT_EQ(UrlIdentity("https://example.org/a"), "example.org");
  EXPECT_EQ(UrlIdentity("HTTPS://Example.ORG:443/b"), "example.org");
  EXPECT_EQ(UrlIdentity("http://EXAMPLE.org./c"), "example.org");
  EXPECT_EQ(UrlIdentity("http://example.org:80/"), "example.org");
  EXPECT_EQ(UrlIdentity("http://loc%61lhost:18471/x"), "localhost:18471");
  EXPECT_EQ(UrlIdentity("http://example.org:443/"), "example.org:443");
  EXPECT_EQ(UrlIdentity("https://example.org:8443/"), "example.org:8443");
  EXPECT_EQ(UrlIdentity("http://[::1]:8080/"), "[::1]:8080");
  EXPECT_EQ(UrlIdentity("ftp://example.org/"), "");
  EXPECT_EQ(UrlIdentity("example.org/"), "");
}

}  // namespace
}  // namespace raw::raven
