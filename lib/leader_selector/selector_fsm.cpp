// SPDX-License-Identifier: Apache-2.0
// The leader selector's decisions (see selector_fsm.hpp).
#include "leader_selector/selector_fsm.hpp"

#include <boost/asio/error.hpp>

namespace zkcoord::detail {
namespace {
error_code aborted() {
  return make_error_code(boost::asio::error::operation_aborted);
}
}  // namespace

bool requeue_after(error_code ec) noexcept {
  return ec == condition::session_expired || ec == condition::connection_loss ||
         ec == errc::lock_lost || ec == errc::not_connected;
}

selector_actions selector_fsm::end_run(error_code ec) {
  phase_ = selector_phase::idle;
  selector_actions a;
  a.complete_run = ec;
  return a;
}

selector_actions selector_fsm::on_run() {
  selector_actions a;
  // Nothing queues after close, not even an explicit requeue.
  if (closed_) {
    a.refuse_run = aborted();
    return a;
  }
  // A requeue while queued or leading would be a second node of ours. (Once the run completed
  // the phase is idle again: a requeue right after a term queues, CURATOR-671.)
  if (phase_ != selector_phase::idle) {
    a.refuse_run = make_error_code(errc::already_held);
    return a;
  }
  phase_ = selector_phase::queued;
  a.enqueue = true;
  return a;
}

selector_actions selector_fsm::on_granted() {
  selector_actions a;
  if (phase_ != selector_phase::queued) return a;
  if (closed_) {
    // Granted while the close was on its way: never lead, just give the node back.
    phase_ = selector_phase::releasing;
    a.release_term = true;
    return a;
  }
  phase_ = selector_phase::leading;
  a.start_handler = true;
  return a;
}

selector_actions selector_fsm::on_acquire_failed(error_code ec) {
  if (phase_ != selector_phase::queued) return {};
  if (closed_) return end_run(aborted());
  if (auto_requeue_ && requeue_after(ec)) {
    phase_ = selector_phase::waiting_session;
    selector_actions a;
    a.retry_later = true;
    return a;
  }
  return end_run(ec);
}

selector_actions selector_fsm::on_term_ended() {
  selector_actions a;
  // CURATOR-518: a second end of the term (finish() twice, or its loss racing its end) while
  // it is released or the requeue is under way changes nothing: the requeue happens once.
  if (phase_ != selector_phase::leading) return a;  // already released (close)
  phase_ = selector_phase::releasing;
  a.release_term = true;
  return a;
}

selector_actions selector_fsm::on_released() {
  if (phase_ != selector_phase::releasing) return {};
  // The requeue that follows a term never happens after close.
  if (closed_) return end_run(aborted());
  if (!auto_requeue_) return end_run({});
  phase_ = selector_phase::queued;
  selector_actions a;
  a.enqueue = true;
  return a;
}

selector_actions selector_fsm::on_session_ready() {
  selector_actions a;
  if (phase_ != selector_phase::waiting_session || closed_) return a;
  phase_ = selector_phase::queued;
  a.enqueue = true;
  return a;
}

selector_actions selector_fsm::on_close() {
  selector_actions a;
  if (closed_) return a;
  closed_ = true;
  switch (phase_) {
    case selector_phase::idle:
    case selector_phase::releasing:  // on_released ends the run
      return a;
    case selector_phase::queued:
      // Only our own pending acquire is aborted (it deletes its own node, if it made one);
      // nothing is released that we never held. The acquire's completion ends the run.
      a.abort_wait = true;
      return a;
    case selector_phase::waiting_session:
      return end_run(aborted());
    case selector_phase::leading:
      // The handler is told, and our node goes now: a handler that does not stop cannot keep
      // it (and with it the leadership) past close.
      phase_ = selector_phase::releasing;
      a.signal_lost = true;
      a.release_term = true;
      return a;
  }
  return a;
}

}  // namespace zkcoord::detail
