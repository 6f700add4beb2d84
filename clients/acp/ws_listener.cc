#include "clients/acp/ws_listener.h"

#include <algorithm>
#include <deque>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/strings/str_cat.h"
#include "absl/synchronization/mutex.h"
#include "clients/web/local_server.h"
#include "common/logging.h"

namespace raw::acp {

struct AcpWebSocketListener::Budgets {
  absl::Mutex mu;
  bool stopped ABSL_GUARDED_BY(mu) = false;
  std::vector<std::weak_ptr<InputBudget>> open ABSL_GUARDED_BY(mu);

  std::shared_ptr<InputBudget> Make(size_t limit) {
    auto budget = InputBudget::Create(limit);
    absl::MutexLock lock(&mu);
    if (stopped) budget->Close();
    std::erase_if(open, [](const std::weak_ptr<InputBudget>& b) { return b.expired(); });
    open.push_back(budget);
    return budget;
  }
  void CloseAll() {
    absl::MutexLock lock(&mu);
    stopped = true;
    for (const std::weak_ptr<InputBudget>& weak : open) {
      if (auto b = weak.lock()) b->Close();
    }
  }
};

namespace {

constexpr uint16_t kNormalClosure = 1000;
constexpr uint16_t kInternalError = 1011;
constexpr uint16_t kPolicyViolation = 1008;

// Bytes handed to the server but not yet being written: enough that the
// next frame is ready when one is written (and a burst is corked into
// full segments), little enough that the server holds next to nothing a
// stalled client could pin.
constexpr size_t kHandOverWindow = 256 * 1024;

// The peer of one socket, shared by the handler (OnText, OnClose) and the
// transport, which ends the connection when its client stops reading. Its
// calls never overlap, OnClosed comes once, and the peer is destroyed only
// after its last call returned. No lock is held while the peer runs: it may
// send (and that send may find the client stalled) from OnMessage.
class PeerSlot {
 public:
  void Set(std::unique_ptr<Peer> peer) {
    absl::MutexLock lock(&mu_);
    peer_ = std::move(peer);
  }
  bool empty() {
    absl::MutexLock lock(&mu_);
    return peer_ == nullptr;
  }

  // Handler only (one at a time).
  void Deliver(std::string message, InputClaim claim) {
    {
      absl::MutexLock lock(&mu_);
      if (peer_ == nullptr || finished_) return;
      in_call_ = true;
    }
    peer_->OnMessageWithClaim(std::move(message), std::move(claim));
    bool finish;
    {
      absl::MutexLock lock(&mu_);
      finish = finish_pending_ && !finished_;
      if (finish) {
        finished_ = true;
      } else {
        in_call_ = false;
      }
    }
    if (finish) CallOnClosed();
  }

  // Any thread: OnClosed, now or (during a Deliver) right after it.
  void Finish() {
    {
      absl::MutexLock lock(&mu_);
      if (finished_) return;
      if (peer_ == nullptr) {
        finished_ = true;
        return;
      }
      if (in_call_) {
        finish_pending_ = true;
        return;
      }
      finished_ = true;
      in_call_ = true;
    }
    CallOnClosed();
  }

  // Handler only, after Finish: the peer is gone once no call runs.
  void Release() {
    std::unique_ptr<Peer> peer;
    absl::MutexLock lock(&mu_);
    auto idle = [this]() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) { return !in_call_; };
    mu_.Await(absl::Condition(&idle));
    peer = std::move(peer_);
  }

 private:
  // REQUIRES: in_call_ set by this thread.
  void CallOnClosed() {
    peer_->OnClosed();
    absl::MutexLock lock(&mu_);
    in_call_ = false;
  }

  absl::Mutex mu_;
  std::unique_ptr<Peer> peer_;  // set before any call; reset by Release
  bool in_call_ ABSL_GUARDED_BY(mu_) = false;
  bool finished_ ABSL_GUARDED_BY(mu_) = false;
  bool finish_pending_ ABSL_GUARDED_BY(mu_) = false;
};

// One connection's output: its own queue in front of the server's.
class WebSocketTransport final : public Transport,
                                 public std::enable_shared_from_this<WebSocketTransport> {
 public:
  WebSocketTransport(std::shared_ptr<web::WebSocketConnection> connection,
                     std::shared_ptr<InputBudget> input, std::weak_ptr<PeerSlot> slot,
                     OutputLimits limits, size_t max_message_bytes)
      : connection_(std::move(connection)),
        input_(std::move(input)),
        slot_(std::move(slot)),
        stall_(std::move(limits), max_message_bytes) {}

  bool Send(std::string message) override {
    OutputStallRule::Verdict verdict;
    std::string why;  // logged outside the lock
    {
      absl::MutexLock lock(&mu_);
      if (closing_) return false;
      if (waiting_bytes_ + handed_bytes_ == 0) stall_.Progress();  // output begins to wait
      verdict = stall_.Check(waiting_bytes_ + handed_bytes_ + in_write_bytes_ + message.size());
      if (verdict == OutputStallRule::Verdict::kKeep) {
        waiting_bytes_ += message.size();
        waiting_.push_back(std::move(message));
        return HandOver();
      }
      closing_ = true;
      waiting_.clear();
      waiting_bytes_ = 0;
      why = stall_.Describe(verdict);
    }
    // The client stopped reading: its connection ends now, as if it had
    // gone away; the socket goes when the client does (or its idle
    // timeout), holding no more than the hand-over window.
    RAW_LOG(Error) << why;
    input_->Close();
    connection_->Close(kPolicyViolation, "output left unread");
    if (auto slot = slot_.lock()) slot->Finish();
    return false;
  }

  void Close() override {
    input_->Close();
    absl::MutexLock lock(&mu_);
    if (closing_) return;
    closing_ = true;
    HandOver();  // the close follows what is queued
  }

  // The socket is gone (the handler's OnClose): nothing more is queued.
  void Ended() {
    input_->Close();
    absl::MutexLock lock(&mu_);
    closing_ = true;
    waiting_.clear();
    waiting_bytes_ = 0;
  }

 private:
  // Hands waiting frames to the server while the window has room, and the
  // close once every frame was handed over. False when the server refused
  // a frame (the socket is closing or gone): the queue is dropped.
  bool HandOver() ABSL_EXCLUSIVE_LOCKS_REQUIRED(mu_) {
    while (!waiting_.empty() &&
           (handed_bytes_ == 0 || handed_bytes_ + waiting_.front().size() <= kHandOverWindow)) {
      std::string message = std::move(waiting_.front());
      waiting_.pop_front();
      const size_t size = message.size();
      waiting_bytes_ -= size;
      handed_bytes_ += size;
      // A kind of its own: no other frame extends it. The server renders
      // a frame when its write begins, which tells that the frame before
      // it has been written.
      web::ExtendableFrame frame{absl::StrCat("acp:", next_frame_++), std::move(message),
                                 [weak = weak_from_this(), size](std::string_view text) {
                                   if (auto self = weak.lock()) self->Began(size);
                                   return std::string(text);
                                 }};
      if (!connection_->SendExtendable(std::move(frame))) {
        closing_ = true;
        waiting_.clear();
        waiting_bytes_ = 0;
        return false;
      }
    }
    if (closing_ && waiting_.empty() && !close_sent_) {
      close_sent_ = true;
      connection_->Close(kNormalClosure, "");
    }
    return true;
  }

  // The server's I/O thread: a frame of `size` bytes begins to be written,
  // so the one before it is.
  void Began(size_t size) {
    absl::MutexLock lock(&mu_);
    handed_bytes_ -= std::min(handed_bytes_, size);
    in_write_bytes_ = size;
    stall_.Progress();
    HandOver();
  }

  const std::shared_ptr<web::WebSocketConnection> connection_;
  const std::shared_ptr<InputBudget> input_;
  const std::weak_ptr<PeerSlot> slot_;
  absl::Mutex mu_;
  std::deque<std::string> waiting_ ABSL_GUARDED_BY(mu_);  // not yet handed over
  size_t waiting_bytes_ ABSL_GUARDED_BY(mu_) = 0;
  size_t handed_bytes_ ABSL_GUARDED_BY(mu_) = 0;    // handed over, write not begun
  size_t in_write_bytes_ ABSL_GUARDED_BY(mu_) = 0;  // the frame written last (maybe done)
  uint64_t next_frame_ ABSL_GUARDED_BY(mu_) = 0;
  bool closing_ ABSL_GUARDED_BY(mu_) = false;
  bool close_sent_ ABSL_GUARDED_BY(mu_) = false;
  OutputStallRule stall_ ABSL_GUARDED_BY(mu_);
};

// One socket's ACP connection: the server calls these one at a time.
class PeerConnection final : public web::WebSocketHandler {
 public:
  PeerConnection(PeerFactory factory, std::shared_ptr<InputBudget> input, OutputLimits limits,
                 size_t max_message_bytes)
      : factory_(std::move(factory)),
        input_(std::move(input)),
        limits_(std::move(limits)),
        max_message_bytes_(max_message_bytes) {}

  void OnOpen(std::shared_ptr<web::WebSocketConnection> connection) override {
    transport_ = std::make_shared<WebSocketTransport>(connection, input_, slot_, limits_,
                                                      max_message_bytes_);
    slot_->Set(factory_(transport_));
    if (slot_->empty()) connection->Close(kInternalError, "no ACP connection");
  }
  void OnText(std::string text) override {
    // The server reads at most one frame ahead of this call and then waits
    // for it to return: waiting here for the budget holds the client back
    // (on the handler pool's thread, never the event loop's).
    InputClaim claim = input_->Acquire(text.size());
    if (input_->closed()) return;
    slot_->Deliver(std::move(text), std::move(claim));
  }
  void OnClose() override {
    input_->Close();
    if (transport_) transport_->Ended();
    slot_->Finish();
    slot_->Release();
    transport_.reset();
  }

 private:
  const PeerFactory factory_;
  const std::shared_ptr<InputBudget> input_;
  const OutputLimits limits_;
  const size_t max_message_bytes_;
  const std::shared_ptr<PeerSlot> slot_ = std::make_shared<PeerSlot>();
  std::shared_ptr<WebSocketTransport> transport_;
};

}  // namespace

AcpWebSocketListener::AcpWebSocketListener(std::unique_ptr<web::LocalServer> server,
                                           std::shared_ptr<Budgets> budgets)
    : server_(std::move(server)), budgets_(std::move(budgets)) {}
AcpWebSocketListener::~AcpWebSocketListener() { Stop(); }

uint16_t AcpWebSocketListener::port() const { return server_->port(); }
const std::string& AcpWebSocketListener::token() const { return server_->token(); }
const std::string& AcpWebSocketListener::notice() const { return server_->notice(); }
std::string AcpWebSocketListener::url() const {
  std::string origin = server_->origin();  // http://host:port
  return absl::StrCat("ws", origin.substr(4), kAcpPath);
}
void AcpWebSocketListener::Stop() {
  budgets_->CloseAll();
  server_->Stop();
}

absl::StatusOr<std::unique_ptr<AcpWebSocketListener>> ServeAcpWebSocket(
    const AcpListenOptions& options, PeerFactory factory) {
  web::LocalServerOptions server_options;
  server_options.address = options.address;
  server_options.port = options.port;
  server_options.token = options.token;
  server_options.allowed_origins = options.allowed_origins;
  server_options.max_websocket_message_bytes = options.max_message_bytes;
  // A backstop only: the transport's own queue, in front, applies the
  // stall rule and hands the server at most its window.
  server_options.max_websocket_queued_bytes = options.output_limits.hard_bytes > 0
                                                  ? options.output_limits.hard_bytes
                                                  : OutputHardLimit(options.max_message_bytes);
  server_options.max_connections = options.max_connections;
  auto budgets = std::make_shared<AcpWebSocketListener::Budgets>();
  web::Routes routes;
  routes.websocket.push_back(web::WebSocketRoute{
      .path = kAcpPath,
      .public_route = false,
      .factory = [factory = std::move(factory), budgets, limits = options.output_limits,
                  max = options.max_message_bytes](
                     const web::Request&) -> std::unique_ptr<web::WebSocketHandler> {
        return std::make_unique<PeerConnection>(factory, budgets->Make(InputBudgetLimit(max)),
                                                limits, max);
      }});
  absl::StatusOr<std::unique_ptr<web::LocalServer>> server =
      web::LocalServer::Start(std::move(server_options), std::move(routes));
  if (!server.ok()) return server.status();
  return std::unique_ptr<AcpWebSocketListener>(
      new AcpWebSocketListener(*std::move(server), std::move(budgets)));
}

}  // namespace raw::acp
