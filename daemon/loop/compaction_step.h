// CompactSession: one compaction of a loaded session's model context, as
// both triggers run it — manually (the Compact RPC, its own operation) and
// automatically (a turn, before a request would exceed
// compact.trigger_tokens). It fires the agent's pre_compact hooks, answers
// the calls the context holds without a result (unanswered_calls.h) in what
// it compacts, runs the compactor (compactor.h: summary requests, progress
// events, acceptance; an accepted result is stored with the new meter
// state; the summary requests' usage is stored as each returns), and on
// acceptance rewrites `ctx`; in every case it publishes the resulting
// context estimate.
// Thread-safety: runs on the operation's thread.
#pragma once

#include <functional>
#include <string>

#include "common/cancel_token.h"
#include "daemon/events/session_event.h"
#include "daemon/loop/compactor.h"
#include "daemon/loop/session_context.h"
#include "daemon/loop/session_log.h"
#include "daemon/loop/turn.h"
#include "daemon/loop/turn_hooks.h"

namespace raw::loop {

// `before_end` is passed on to the compactor (see CompactionRequest).
// Returns the compactor's result, its new context already moved into `ctx`
// (CompactionResult::context is then empty); the caller owns storing an
// end the store refused (CompactionResult::unstored_end_seq).
CompactionResult CompactSession(events::CompactionTrigger trigger, bool last_turn_running,
                                const TurnPlan& plan, SessionContext& ctx, SessionLog& log,
                                TurnHooks& hooks, const CancelToken& cancel,
                                std::function<void()> before_end = nullptr);

// Publishes the meter's estimate as a live ContextEstimate event and
// remembers it in the session state (for GetSession while a turn runs).
void PublishEstimate(const TurnPlan& plan, const SessionContext& ctx, SessionLog& log);

}  // namespace raw::loop
