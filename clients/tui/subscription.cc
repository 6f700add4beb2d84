#include "clients/tui/subscription.h"

namespace raw::tui {
namespace {

class Forwarder : public client::EventHandler {
 public:
  Forwarder(UiQueue& ui, std::shared_ptr<std::atomic<bool>> alive, Subscription::OnEvent on_event)
      : ui_(ui), alive_(std::move(alive)), on_event_(std::move(on_event)) {}

  Next OnEvent(const v1::Event& event) override {
    ui_.Post([alive = alive_, fn = on_event_, event] {
      if (*alive) fn(event);
    });
    return Next::kContinue;
  }

 private:
  UiQueue& ui_;
  std::shared_ptr<std::atomic<bool>> alive_;
  Subscription::OnEvent on_event_;
};

}  // namespace

Subscription::Subscription(std::shared_ptr<client::RawClient> client, UiQueue& ui,
                           std::string session_id, uint64_t after_seq, OnEvent on_event,
                           OnEnd on_end)
    : alive_(std::make_shared<std::atomic<bool>>(true)) {
  thread_ = std::thread([this, client = std::move(client), &ui, session_id = std::move(session_id),
                         after_seq, on_event = std::move(on_event), on_end = std::move(on_end),
                         alive = alive_] {
    Forwarder forwarder(ui, alive, on_event);
    absl::Status status = client->Subscribe(session_id, after_seq, forwarder, canceller_);
    ui.Post([alive, on_end, status] {
      if (*alive) on_end(status);
    });
  });
}

Subscription::~Subscription() {
  *alive_ = false;
  canceller_.Cancel();
  thread_.join();
}

}  // namespace raw::tui
