// ResponseReader: reads one HTTP response of a Streamable HTTP MCP server,
// either a JSON body or an SSE stream, and hands each JSON-RPC message in it
// to a sink as it arrives.
//
// SSE: frames are decoded with http::SseDecoder; the last event id
// and `retry` value are remembered for resumption; events with empty data
// (the priming event of 2025-11-25 servers) are not dispatched. JSON: the
// body is collected and dispatched by Finish(). Either way, a response
// whose id equals `awaited_id` sets got_awaited(), and an SSE transfer is
// then Done(): nothing after it matters, and the HTTP client drops the rest
// (keeping the connection when the server ends the stream there).
//
// Ownership: the sink is borrowed for the reader's lifetime.
// Thread-safety: one reader per transfer, used by the thread running it.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "common/json.h"
#include "daemon/http/http_client.h"
#include "daemon/http/sse_decoder.h"

namespace raw::mcp {

class ResponseReader : public http::HttpResponseHandler {
 public:
  using Sink = std::function<void(const Json& message)>;
  using StatusObserver = std::function<void(int status, const http::Headers& headers)>;

  // `awaited_id`: the request whose response this transfer should carry
  // (null for the GET stream). `max_bytes` bounds one SSE event or a JSON
  // body; a larger one aborts the transfer.
  ResponseReader(Json awaited_id, size_t max_bytes, Sink sink, StatusObserver on_status);

  void OnStatus(int status, const http::Headers& headers) override;
  bool OnBody(std::string_view bytes) override;
  bool Done() const override { return sse_ && got_awaited_; }

  // Dispatches a JSON body (call once the transfer ended). Returns false
  // when the body is not JSON-RPC.
  bool Finish();

  int status() const { return status_; }
  bool ok_status() const { return status_ >= 200 && status_ < 300; }
  bool is_sse() const { return sse_; }
  bool got_awaited() const { return got_awaited_; }
  bool overflowed() const { return overflowed_; }
  int64_t events() const { return events_; }
  const std::string& last_event_id() const { return last_event_id_; }
  std::optional<int64_t> retry_ms() const { return retry_ms_; }
  // The body of a non-SSE response (error bodies included), capped.
  const std::string& body() const { return body_; }

 private:
  bool Dispatch(std::string_view text);

  const Json awaited_id_;
  const size_t max_bytes_;
  Sink sink_;
  StatusObserver on_status_;
  http::SseDecoder decoder_;
  int status_ = 0;
  bool sse_ = false;
  bool got_awaited_ = false;
  bool overflowed_ = false;
  int64_t events_ = 0;
  // Parts that were not JSON-RPC: the first few are logged, not a stream
  // of them (a listening GET stream may send them for as long as it runs).
  int64_t skipped_ = 0;
  std::string last_event_id_;
  std::optional<int64_t> retry_ms_;
  std::string body_;
};

// "HTTP 500: <message>" for an error response: the JSON-RPC error message of
// the body when it has one, else its first bytes.
std::string DescribeHttpError(int status, const std::string& body);

}  // namespace raw::mcp
