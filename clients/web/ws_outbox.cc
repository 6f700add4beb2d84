#include "clients/web/ws_outbox.h"

#include <algorithm>
#include <utility>

namespace raw::web {

bool OutgoingFrame::Absorb(OutgoingFrame& next) {
  if (!render || !next.render || kind != next.kind) return false;
  text += next.text;
  render = std::move(next.render);
  return true;
}

OutgoingFrame OutgoingFrame::Of(ExtendableFrame frame) {
  return OutgoingFrame{std::move(frame.piece), std::move(frame.kind), std::move(frame.render)};
}

bool WsOutbox::Push(OutgoingFrame frame) {
  if (dropped_) return true;
  if (max_queued_bytes_ > 0 && queued_bytes_ + frame.size() > max_queued_bytes_) return false;
  queued_bytes_ += frame.size();
  if (out_.size() > (writing_ ? 1 : 0) && out_.back().Absorb(frame)) return true;
  out_.push_back(std::move(frame));
  return true;
}

const std::string* WsOutbox::BeginWrite() {
  if (writing_ || out_.empty()) return nullptr;
  writing_ = true;
  OutgoingFrame& frame = out_.front();
  written_bytes_ = frame.size();
  if (frame.render) {
    frame.text = frame.render(frame.text);
    frame.render = nullptr;
  }
  return &frame.text;
}

void WsOutbox::WriteDone() {
  if (!writing_) return;
  writing_ = false;
  if (!out_.empty()) out_.pop_front();
  queued_bytes_ -= std::min(queued_bytes_, written_bytes_);
}

void WsOutbox::Drop() {
  dropped_ = true;
  if (writing_ && !out_.empty()) {
    // Erasing at a deque's back leaves its front where it is.
    out_.erase(out_.begin() + 1, out_.end());
    queued_bytes_ = written_bytes_;
  } else {
    out_.clear();
    queued_bytes_ = 0;
  }
}

}  // namespace raw::web
