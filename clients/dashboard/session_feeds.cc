#include "clients/dashboard/session_feeds.h"

#include <iterator>
#include <utility>

namespace raw::dashboard {

SessionFeeds::SessionFeeds(std::shared_ptr<client::RawClient> client)
    : client_(std::move(client)) {}

std::unique_ptr<SessionFeed::Membership> SessionFeeds::Join(const std::string& session_id,
                                                            uint64_t after_seq, FeedTab tab) {
  std::shared_ptr<SessionFeed> feed;
  {
    absl::MutexLock lock(&mu_);
    // Entries of feeds whose last tab left are dropped as they are met.
    for (auto it = feeds_.begin(); it != feeds_.end();) {
      it = it->second.expired() ? feeds_.erase(it) : std::next(it);
    }
    feed = feeds_[session_id].lock();
    if (feed == nullptr || feed->ended()) {
      feed = std::make_shared<SessionFeed>(client_, session_id);
      feeds_[session_id] = feed;
    }
  }
  // Outside mu_: a feed's last Membership may be destroyed (and its stream
  // joined) on another thread meanwhile; this one is kept alive by `feed`.
  return feed->Join(after_seq, std::move(tab));
}

int SessionFeeds::OpenStreams(const std::string& session_id) {
  std::shared_ptr<SessionFeed> feed = Find(session_id);
  return feed == nullptr ? 0 : feed->open_streams();
}

int SessionFeeds::WriterChecks(const std::string& session_id) {
  std::shared_ptr<SessionFeed> feed = Find(session_id);
  return feed == nullptr ? 0 : feed->writer_checks();
}

bool SessionFeeds::AwaitOpenStreams(const std::string& session_id, int n,
                                    absl::Duration timeout) {
  std::shared_ptr<SessionFeed> feed = Find(session_id);
  return feed == nullptr ? n == 0 : feed->AwaitOpenStreams(n, timeout);
}

bool SessionFeeds::AwaitFailedAttempts(const std::string& session_id, int n,
                                       absl::Duration timeout) {
  std::shared_ptr<SessionFeed> feed = Find(session_id);
  return feed != nullptr && feed->AwaitFailedAttempts(n, timeout);
}

std::shared_ptr<SessionFeed> SessionFeeds::Find(const std::string& session_id) {
  absl::MutexLock lock(&mu_);
  auto it = feeds_.find(session_id);
  return it == feeds_.end() ? nullptr : it->second.lock();
}

}  // namespace raw::dashboard
