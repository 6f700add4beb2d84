#include "clients/acp/acp_server.h"

#include <utility>
#include <vector>

namespace raw::acp {

struct AcpServer::State {
  EventLoop& loop;
  AgentOptions options;
  std::function<void()> on_closed;
  bool alive = true;                                       // loop thread only
  std::set<std::shared_ptr<AgentConnection>> connections;  // loop thread only
  // Shutdown() has begun: `drained` is called once the last connection
  // has finished (loop thread only).
  bool stopping = false;
  std::function<void()> drained;

  // `connection` has finished closing.
  void Finished(const std::shared_ptr<AgentConnection>& connection) {
    connections.erase(connection);
    if (on_closed) on_closed();
    MaybeDrained();
  }
  void MaybeDrained() {
    if (!stopping || !connections.empty() || !drained) return;
    std::function<void()> done = std::move(drained);
    drained = nullptr;
    done();
  }
};

namespace {

class ForwardingPeer : public Peer {
 public:
  ForwardingPeer(std::shared_ptr<AcpServer::State> state, std::weak_ptr<AgentConnection> connection)
      : state_(std::move(state)), connection_(std::move(connection)) {}

  void OnMessage(std::string message) override { OnMessageWithClaim(std::move(message), {}); }

  // The claim stays with the task: the message's bytes hold the reader
  // back until the connection has handled it (or the task is dropped).
  void OnMessageWithClaim(std::string message, InputClaim claim) override {
    state_->loop.Post([connection = connection_, message = std::move(message),
                       claim = std::move(claim)]() mutable {
      if (auto c = connection.lock()) c->Receive(message);
      claim.Release();
    });
  }

  void OnClosed() override {
    state_->loop.Post([state = state_, connection = connection_] {
      auto c = connection.lock();
      if (!c || !state->alive) return;
      c->Close([state, connection] {
        auto closed = connection.lock();
        if (!closed || !state->alive) return;
        state->Finished(closed);
      });
    });
  }

 private:
  std::shared_ptr<AcpServer::State> state_;
  std::weak_ptr<AgentConnection> connection_;
};

}  // namespace

AcpServer::AcpServer(EventLoop& loop, AgentOptions options, std::function<void()> on_closed)
    : state_(std::make_shared<State>(
          State{loop, std::move(options), std::move(on_closed), true, {}, false, nullptr})) {}

AcpServer::~AcpServer() {
  state_->alive = false;
  state_->connections.clear();
}

PeerFactory AcpServer::factory() {
  return [state = state_](std::shared_ptr<Transport> transport) -> std::unique_ptr<Peer> {
    auto connection = std::make_shared<AgentConnection>(transport, state->loop, state->options);
    std::weak_ptr<AgentConnection> weak = connection;
    // The set is the loop's: the connection joins it there.
    state->loop.Post([state, connection] {
      if (state->alive && !state->stopping) state->connections.insert(connection);
    });
    return std::make_unique<ForwardingPeer>(state, weak);
  };
}

void AcpServer::Shutdown(std::function<void()> done) {
  state_->stopping = true;
  state_->drained = std::move(done);
  // A connection already closing (its client went away) finishes on its
  // own; Close does nothing more for it.
  std::vector<std::weak_ptr<AgentConnection>> open(state_->connections.begin(),
                                                   state_->connections.end());
  for (const std::weak_ptr<AgentConnection>& weak : open) {
    auto c = weak.lock();
    if (!c) continue;
    c->Close([state = state_, weak] {
      auto closed = weak.lock();
      if (!closed || !state->alive) return;
      state->Finished(closed);
    });
  }
  state_->MaybeDrained();
}

}  // namespace raw::acp
