#include "clients/acp/acp_server.h"

#include <utility>

namespace raw::acp {

struct AcpServer::State {
  EventLoop& loop;
  AgentOptions options;
  std::function<void()> on_closed;
  bool alive = true;  // loop thread only
  std::set<std::shared_ptr<AgentConnection>> connections;  // loop thread only
};

namespace {

class ForwardingPeer : public Peer {
 public:
  ForwardingPeer(std::shared_ptr<AcpServer::State> state, std::weak_ptr<AgentConnection> connection)
      : state_(std::move(state)), connection_(std::move(connection)) {}

  void OnMessage(std::string message) override {
    state_->loop.Post([connection = connection_, message = std::move(message)] {
      if (auto c = connection.lock()) c->Receive(message);
    });
  }

  void OnClosed() override {
    state_->loop.Post([state = state_, connection = connection_] {
      auto c = connection.lock();
      if (!c || !state->alive) return;
      c->Close([state, connection] {
        auto closed = connection.lock();
        if (!closed || !state->alive) return;
        state->connections.erase(closed);
        if (state->on_closed) state->on_closed();
      });
    });
  }

 private:
  std::shared_ptr<AcpServer::State> state_;
  std::weak_ptr<AgentConnection> connection_;
};

}  // namespace

AcpServer::AcpServer(EventLoop& loop, AgentOptions options, std::function<void()> on_closed)
    : state_(std::make_shared<State>(State{loop, std::move(options), std::move(on_closed), true, {}})) {}

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
      if (state->alive) state->connections.insert(connection);
    });
    return std::make_unique<ForwardingPeer>(state, weak);
  };
}

}  // namespace raw::acp
