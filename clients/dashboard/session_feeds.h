// SessionFeeds: the gateway's SessionFeed of each session that has a tab
// open (session_feed.h). The first tab on a session starts its feed, later
// tabs join it, and the feed stops when the last tab's Membership goes
// (the map holds feeds weakly; the memberships own them).
//
// Thread-safe.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>

#include "absl/synchronization/mutex.h"
#include "absl/time/time.h"
#include "clients/dashboard/session_feed.h"
#include "clients/lib/raw_client.h"

namespace raw::dashboard {

class SessionFeeds {
 public:
  explicit SessionFeeds(std::shared_ptr<client::RawClient> client);

  // `tab` on `session_id`, wanting the events after `after_seq`: joins the
  // session's running feed, or starts one (also when the running one ended
  // because the session was missing).
  std::unique_ptr<SessionFeed::Membership> Join(const std::string& session_id, uint64_t after_seq,
                                                FeedTab tab);

  // The daemon streams open for `session_id` (0 without a feed): the
  // feed's own and those of tabs still catching up; and a wait until there
  // are `n`, false after `timeout`. For tests.
  int OpenStreams(const std::string& session_id);
  bool AwaitOpenStreams(const std::string& session_id, int n, absl::Duration timeout);
  // The writer checks (GetSession calls) the session's feed made (for tests).
  int WriterChecks(const std::string& session_id);
  // A wait until the session's shared stream failed `n` attempts to open
  // (SessionFeed::AwaitFailedAttempts). For tests.
  bool AwaitFailedAttempts(const std::string& session_id, int n, absl::Duration timeout);

 private:
  std::shared_ptr<SessionFeed> Find(const std::string& session_id);

  const std::shared_ptr<client::RawClient> client_;
  absl::Mutex mu_;
  std::map<std::string, std::weak_ptr<SessionFeed>> feeds_ ABSL_GUARDED_BY(mu_);
};

}  // namespace raw::dashboard
