// What the dashboard's routes share: the daemon connection and who the
// gateway is when it holds a write lease.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include "clients/dashboard/open_page.h"
#include "clients/dashboard/session_feeds.h"
#include "clients/dashboard/slow_calls.h"
#include "clients/lib/raw_client.h"
#include "raw/v1/raw_service.pb.h"

namespace raw::dashboard {

// The prefix of the session cookie POST /api/login sets: the cookie is
// raw_dashboard_PORT (web::SessionCookieName) and carries the gateway's
// session secret, never the token.
inline constexpr char kSessionCookie[] = "raw_dashboard";

struct Gateway {
  // Thread-safe (clients/lib/raw_client.h); every route uses it.
  std::shared_ptr<client::RawClient> client;
  // StartTurn and Compact go through this connection, whose call deadline
  // outlasts the longest turn preparation (a `command` variable may take
  // 600 s), each on a thread of SlowCalls. Defaults to `client`.
  std::shared_ptr<client::RawClient> slow_client;
  std::shared_ptr<SlowCalls> slow_calls = SlowCalls::Create();
  // The sessions' event feeds, shared by their tabs (live_session.h).
  std::shared_ptr<SessionFeeds> feeds;
  std::string token;     // the access token (POST /api/login checks it)
  // The session cookie's value: random per process, not the token, since
  // a browser sends the cookie to every server on 127.0.0.1.
  std::string session_secret;
  std::string web_root;  // the web app's directory (static_files.h)
  // The page's preferences as the gateway keeps them (preferences_file.h);
  // empty when there is no state directory (no HOME), and none are kept.
  std::string preferences_path;
  // Shown to other clients while a tab (or a DELETE) holds a lease.
  std::string client_name;  // "raw-dashboard (pid N)"
  int64_t pid = 0;
  // --open's page, which holds the tokened address: the first login with
  // the token removes it (the browser has used it). Null without --open.
  std::shared_ptr<OpenPage> open_page;

  // The connection for StartTurn and Compact.
  std::shared_ptr<client::RawClient> SlowClient() const {
    return slow_client ? slow_client : client;
  }

  // An AcquireLease request for `session_id` as this gateway, named
  // `client_name` (a tab adds its own number to the gateway's name).
  // `wait_for_release`: a follower's quiet wait (AcquireLeaseRequest).
  v1::AcquireLeaseRequest LeaseRequest(const std::string& session_id, const std::string& name,
                                       bool request_handover = false,
                                       bool wait_for_release = false) const;
};

}  // namespace raw::dashboard
