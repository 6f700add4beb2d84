// What the engine records is what replay restores: every published state
// decodes back to itself, and a call the caller cancelled records nothing.
#include <gmock/gmock.h>
#include <gtest/gtest.h>

#include "daemon/raven/engine.h"
#include "tests/daemon/raven/raven_test_support.h"

namespace raw::raven {
namespace {

using testing::ClaimArg;
using ::testing::HasSubstr;
using testing::RavenSession;
using testing::SourceArg;

std::string IssueText(const ActionResult& r) {
  std::string out;
  for (const Issue& i : r.issues) out += i.field + ": " + i.message + "\n";
  return out;
}

class EngineIntegrityTest : public ::testing::Test {
 protected:
  std::string Start(const std::string& outcome = "research") {
    auto r =
        s.Call({{"action", "start"}, {"outcome", outcome}, {"request", "How do X and Y differ?"}});
    EXPECT_TRUE(r.ok()) << r.status();
    return r->state.task_id;
  }
  absl::StatusOr<ActionResult> Checkpoint(const std::string& id, const std::string& artifact,
                                          Json sources = Json::array(),
                                          Json claims = Json::array()) {
    Json a = {{"action", "checkpoint"},
              {"taskId", id},
              {"stage", "draft"},
              {"summary", "A draft."},
              {"artifact", artifact}};
    if (!sources.empty()) a["sources"] = sources;
    if (!claims.empty()) a["claims"] = claims;
    return s.Call(a);
  }
  RavenSession s;
};

// A Source URL whose canonical form would not be its own canonical form (a
// doubled port) is refused at registration, and one that canonicalizes
// stably (a doubled trailing dot) is stored in a form replay accepts: the
// Checkpoint Raven reports is the one the next call sees.
TEST_F(EngineIntegrityTest, EveryPublishedStateReplays) {
  std::string id = Start("learning");  // optional grounding: nothing is fetched
  auto refused =
      Checkpoint(id, "Notes.", Json::array({SourceArg("b", "https://b.test:443:443/y")}));
  ASSERT_TRUE(refused.ok()) << refused.status();
  EXPECT_EQ(refused->status, "needs-revision");
  EXPECT_THAT(IssueText(*refused), HasSubstr("sources[0].url: invalid external URL"));
  auto r = Checkpoint(id, "Notes.", Json::array({SourceArg("c", "https://C.test../z")}));
  ASSERT_TRUE(r.ok()) << r.status();
  ASSERT_EQ(r->status, "active") << IssueText(*r);
  ASSERT_EQ(r->state.sources.size(), 1u);
  EXPECT_EQ(r->state.sources[0].url, "https://c.test/z");
  EXPECT_EQ(s.Replayed(id), r->state);
}

}  // namespace
}  // namespace raw::raven
