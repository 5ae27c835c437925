// SPDX-License-Identifier: Apache-2.0
// The session's life cycle: opening the C client handle, mapping its states to
// session_state, the contact heartbeat, renewal after expiry, close. The lease itself (its
// renewals and the local expiry) is in session_lease.cpp.
#include "session_impl.hpp"

#include "c_client_log.hpp"
#include "lease_rule.hpp"
#include "resolve_hosts.hpp"
#include "session_state_machine.hpp"
#include "zk_result.hpp"

#include <zkcoord/path.hpp>

#include <boost/asio/bind_executor.hpp>
#include <boost/asio/post.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <cerrno>
#include <thread>

namespace zkcoord::detail {

namespace {
void ignore_void_reply(int, const void*) {}
// zookeeper_close's own bound on waiting for the server's answer to its close request.
constexpr std::chrono::milliseconds close_answer_wait{1500};
}  // namespace

session_impl::session_impl(boost::asio::any_io_executor ex, session_options options)
    : executor_(std::move(ex)),
      strand_(boost::asio::make_strand(executor_)),
      options_(std::move(options)),
      heartbeat_timer_(strand_),
      renewal_timer_(strand_),
      lease_timer_(strand_),
      connect_timer_(strand_) {
  if (!options_.logger) options_.logger = default_logger();
#ifdef ZKCOORD_ZK_ST
  driver_ = std::make_unique<st_driver>(strand_);
#endif
  timeout_ms_ = options_.session_timeout.count();
  if (options_.lease.always) lease_wanted_ = 1;
}

session_impl::~session_impl() {
  user_closed_ = true;
  close_handle(make_error_code(errc::closed));
}

session_credentials session_impl::credentials() const {
  c_call_lock lock(handle_mutex_);
  session_credentials c;
  c.connect = options_.connect;
  if (zh_) {
    const clientid_t* id = zoo_client_id(zh_);
    c.id = id->client_id;
    c.password.assign(id->passwd, sizeof id->passwd);
  }
  return c;
}

bool session_impl::replace_servers(const std::string& hosts) {
  bool ok = false, dropped = false;
  {
    c_call_lock lock(handle_mutex_);
    if (!zh_) return false;
    const bool was_connected = zoo_state(zh_) == ZOO_CONNECTED_STATE;
    ok = zoo_set_servers(zh_, hosts.c_str()) == ZOK;
    // When the server it talks to is not in the new list, the C client closes the socket and
    // marks itself not connected without the session event it sends for any other lost
    // connection (and its later failures send none either: it no longer counts as connected).
    // Report the loss as that event would have.
    dropped = was_connected && zoo_state(zh_) != ZOO_CONNECTED_STATE;
    after_c_call();
  }
  if (dropped) {
    boost::asio::post(strand_, [weak = weak_from_this(), gen = generation_.load()] {
      if (auto self = weak.lock()) self->handle_zk_state(gen, ZOO_CONNECTING_STATE);
    });
  }
  return ok;
}

std::string session_impl::connected_server() const {
  c_call_lock lock(handle_mutex_);
  const char* host = zh_ ? zoo_get_current_server(zh_) : nullptr;
  return host ? host : "";
}

steady::time_point session_impl::last_contact() const noexcept {
  std::lock_guard lock(lease_mutex_);
  return lease_.last_contact;
}

void session_impl::record_contact(const op_base& answered, bool quorum) {
  std::lock_guard lock(lease_mutex_);
  if (answered.generation != lease_.generation) return;
  lease_.last_contact = std::max(lease_.last_contact, answered.sent);
  if (quorum && answered.sent > lease_.quorum) {
    lease_.quorum = answered.sent;
    lease_.quorum_gap = answered.gap;
    if (options_.metrics) report_lease_margin_locked();
  }
}

error_code session_impl::result_of(int rc, std::uint64_t generation) const {
  if (rc != ZCLOSING && rc != ZINVALIDSTATE) return from_request_result(rc);
  if (auto cause = close_cause(generation)) return *cause;
  // The handle is still open: ZINVALIDSTATE from a handle the C client gave up on (expired),
  // or a request pinned to a session that is no longer this one's.
  return state_error();
}

std::optional<error_code> session_impl::close_cause(std::uint64_t generation) const {
  std::lock_guard lock(causes_mutex_);
  const auto it = close_causes_.find(generation);
  if (it == close_causes_.end()) return std::nullopt;
  return it->second;
}

void op_base::note_reply(int rc) {
  mark_c_client_thread();
  impl->untrack(this);
  if (is_unanswered(rc)) return;
  impl->record_contact(*this, proves_quorum && rc == ZOK);
}

// ---- connect / close -------------------------------------------------------------------

void session_impl::start_connect(void_completion handler) {
  auto op = make_op<void>(std::move(handler));
  boost::asio::post(strand_, [self = shared_from_this(), op = std::move(op)]() mutable {
    if (self->user_closed_) return fail(std::move(op), make_error_code(errc::closed));
    const session_state s = self->state_.load();
    if (self->started_ && (s == session_state::connected || s == session_state::reconnected))
      return op->finish({});
    if (const std::string why = connect_string_problem(self->options_.connect); !why.empty()) {
      self->logger()->error("cannot connect: {}", why);
      return fail(std::move(op), make_error_code(errc::bad_connect_string));
    }
    if (const std::string why = lease_options_problem(self->options_.lease); !why.empty()) {
      self->logger()->error("cannot connect: {}", why);
      return fail(std::move(op), make_error_code(errc::bad_argument));
    }
    {
      std::lock_guard lock(self->mutex_);
      self->connect_waiters_.push_back(std::move(op));
    }
    if (!self->started_) {
      self->started_ = true;
      self->set_state(session_state::connecting);
      self->open_handle();
      self->lease_interest_changed();  // lease_options::always
    }
    if (!self->started_) return;  // the resolution already failed the connect (open_handle)
    self->connect_timer_.expires_after(
        self->options_.connect_timeout.value_or(self->options_.session_timeout));
    self->connect_timer_.async_wait([weak = self->weak_from_this()](error_code ec) {
      auto me = weak.lock();
      if (ec || !me) return;
      const session_state now = me->state_.load();
      if (now == session_state::connected || now == session_state::reconnected) return;
      me->logger()->error(
          "no ZooKeeper server of \"{}\" answered in time (is one running there, and do the "
          "host names resolve?)",
          me->options_.connect);
      me->finish_connect_waiters(make_error_code(errc::unreachable));
      if (!me->ever_connected_) {
        ++me->resolving_;  // a resolution still running opens nothing
        me->close_handle(make_error_code(errc::unreachable));
        me->started_ = false;
        me->set_state(session_state::closed);
      }
    });
  });
}

void session_impl::finish_connect_waiters(error_code ec) {
  std::vector<std::unique_ptr<pending_op<void>>> waiters;
  {
    std::lock_guard lock(mutex_);
    waiters.swap(connect_waiters_);
  }
  for (auto& w : waiters) w->finish(ec);
}

void session_impl::open_handle() {
  // Names first, with Asio's resolver; the C client gets numeric addresses only (its own
  // getaddrinfo would block the strand on a slow DNS). resolve_hosts.hpp, docs/session.md.
  if (user_closed_) return;
  const std::uint64_t ticket = ++resolving_;
  resolve_connect_string(
      strand_, options_.connect, logger(),
      [weak = weak_from_this(), ticket](error_code ec, const std::string& numeric) {
        auto self = weak.lock();
        if (!self || ticket != self->resolving_ || self->user_closed_) return;
        if (!ec) return self->open_handle_with(numeric);
        self->finish_connect_waiters(ec);
        if (!self->ever_connected_) {  // a first connect: nothing retries, as for unreachable
          self->connect_timer_.cancel();
          self->started_ = false;
          self->set_state(session_state::closed);
          return;
        }
        // A new handle after expiry: the names may come back; try again in a second.
        auto retry =
            std::make_shared<boost::asio::steady_timer>(self->strand_, std::chrono::seconds(1));
        retry->async_wait([weak, retry, ticket](error_code e) {
          auto me = weak.lock();
          if (!e && me && ticket == me->resolving_ && !me->user_closed_) me->open_handle();
        });
      });
}

void session_impl::open_handle_with(const std::string& numeric_connect) {
  std::unique_lock lock(handle_mutex_);
  if (user_closed_) return;
  const auto gen = generation_.load() + 1;
  generation_ = gen;
  contexts_.push_back(handle_context{this, gen});
  {
    // A new session: the leader starts its clock when it commits the session's creation (a
    // quorum proposal), after the connect request left, so after this instant. Until a reply
    // renews it, contact and lease run from here.
    const auto now = steady::now();
    std::lock_guard lease(lease_mutex_);
    lease_ = lease_state{gen, 0, now, now, {}};
  }
  route_c_client_log_to(logger());
  zh_ = zookeeper_init2(numeric_connect.c_str(), &session_impl::on_session_event,
                        static_cast<int>(options_.session_timeout.count()), nullptr,
                        &contexts_.back(), 0, &c_client_log_line);
  if (!zh_) {
    const int err = errno;
    lock.unlock();
    logger()->error("cannot start a ZooKeeper handle for \"{}\" (\"{}\"): {}", options_.connect,
                    numeric_connect, std::strerror(err));
    finish_connect_waiters(make_error_code(errc::unreachable));
    return;
  }
  // The addresses are numeric: nothing to re-resolve while connected (by default the C client
  // calls getaddrinfo on every pass of its I/O loop). It still parses them when it reconnects.
  zoo_set_servers_resolution_delay(zh_, -1);
  if (options_.digest) {
    const std::string cert = options_.digest->first + ":" + options_.digest->second;
    zoo_add_auth(zh_, "digest", cert.data(), static_cast<int>(cert.size()), &ignore_void_reply,
                 nullptr);
  }
  after_c_call();  // libzookeeper_st: the driver starts connecting
}

void session_impl::wait_for_closers() {
  std::unique_lock lock(closers_->mutex);
  closers_->done.wait(lock, [this] { return closers_->running == 0; });
}

void session_impl::close_handle(error_code cause) {
  if (auto detached = detach_handle(cause)) finish_close(std::move(*detached), cause);
  fail_all_watches(cause);
}

std::optional<session_impl::detached_handle> session_impl::detach_handle(error_code cause) {
  std::unique_lock lock(handle_mutex_);
  if (!zh_) return std::nullopt;
  detached_handle d{zh_, generation_.load(), {}};
#ifdef ZKCOORD_ZK_ST
  // The driver's copy of the socket (ours: its number cannot be another file's), if the C
  // client will send its close request on it.
  if (driver_->connected && driver_->generation == d.generation &&
      zoo_state(zh_) == ZOO_CONNECTED_STATE)
    d.linger = connection_linger(driver_->socket.native_handle());
#endif
  zh_ = nullptr;
  // Before the close: the completions it runs read the cause.
  std::lock_guard causes(causes_mutex_);
  close_causes_.emplace(d.generation, cause);
  return d;
}

void session_impl::finish_close(detached_handle d, error_code cause) {
  // Outside the handle lock: closing runs the pending completions (with ZCLOSING).
  const auto closing = steady::now();
#ifndef ZKCOORD_ZK_ST
  // mt: the C client's I/O thread still reads the socket; let it read the replies to what is
  // in flight first, so that what may be unread at the close is only its answer (the same
  // hazard as connection_linger.hpp). Only for the user's close (an expired session's
  // requests get no answer), and not on the C client's thread: it may be the one to read.
  if (cause == errc::closed && !on_c_client_thread)
    await_replies(d.generation, closing + close_answer_wait);
#endif
  zookeeper_close(d.zh);
  // What the C client meant to wait for its answer (connection_linger.hpp), but did not.
  const auto left = close_answer_wait - (steady::now() - closing);
  if (left > steady::duration::zero())
    d.linger.await_server_close(std::chrono::ceil<std::chrono::milliseconds>(left));
  // Its threads are joined now, but a request queued just before the close can be left
  // without its completion: complete (and free) those ops ourselves. Not on a C client
  // thread, where the client may still run completions once this callback returns.
  if (!on_c_client_thread) abandon_outstanding(d.generation, cause);
#ifdef ZKCOORD_ZK_ST
  st_kick();  // the driver lets go of its copy of the closed handle's socket
#endif
}

void session_impl::add_deletion_observer(std::shared_ptr<deletion_observer> observer) {
  std::unique_lock lock(deletion_observers_mutex_);
  deletion_observers_.push_back(std::move(observer));
  any_deletion_observer_ = true;
}

void session_impl::note_deleted(std::int64_t session, std::string_view path) noexcept {
  if (!any_deletion_observer_.load(std::memory_order_relaxed)) return;
  std::shared_lock lock(deletion_observers_mutex_);
  const std::uint64_t told = ++deletion_proofs_;
  for (const auto& o : deletion_observers_) o->node_deleted(session, path, told);
}

void session_impl::keep_alive(std::shared_ptr<void> owner) {
  std::lock_guard lock(kept_mutex_);
  const void* key = owner.get();
  kept_[key] = std::move(owner);
}

std::shared_ptr<void> session_impl::let_go(const void* owner) {
  std::lock_guard lock(kept_mutex_);
  const auto it = kept_.find(owner);
  if (it == kept_.end()) return nullptr;
  auto out = std::move(it->second);
  kept_.erase(it);
  return out;
}

void session_impl::track(op_base* op) {
  std::lock_guard lock(outstanding_mutex_);
  outstanding_.insert(op);
}

void session_impl::untrack(op_base* op) {
  std::lock_guard lock(outstanding_mutex_);
  outstanding_.erase(op);
}

#ifndef ZKCOORD_ZK_ST
void session_impl::await_replies(std::uint64_t generation, steady::time_point deadline) const {
  const auto in_flight = [&] {
    std::lock_guard lock(outstanding_mutex_);
    return std::any_of(outstanding_.begin(), outstanding_.end(),
                       [&](const op_base* op) { return op->generation == generation; });
  };
  while (in_flight() && steady::now() < deadline)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
}
#endif

std::size_t session_impl::requests_in_flight() const {
  std::lock_guard lock(outstanding_mutex_);
  return outstanding_.size();
}

void session_impl::abandon_outstanding(std::uint64_t generation, error_code cause) {
  std::vector<op_base*> left;
  {
    std::lock_guard lock(outstanding_mutex_);
    for (auto it = outstanding_.begin(); it != outstanding_.end();) {
      if ((*it)->generation != generation) {
        ++it;
        continue;
      }
      left.push_back(*it);
      it = outstanding_.erase(it);
    }
  }
  if (!left.empty())
    logger()->debug("{} request(s) left without a reply by the closed handle", left.size());
  for (op_base* op : left) op->abandon(cause);
}

void session_impl::close() {
  if (user_closed_.exchange(true)) return;
  close_handle(make_error_code(errc::closed));
  finish_connect_waiters(make_error_code(errc::closed));
  set_state(session_state::closed);
  boost::asio::post(strand_, [weak = weak_from_this()] {
    if (auto self = weak.lock()) {
      self->heartbeat_timer_.cancel();
      self->renewal_timer_.cancel();
      self->lease_timer_.cancel();
      self->connect_timer_.cancel();
    }
  });
}

// ---- states ----------------------------------------------------------------------------

void session_impl::on_session_event(zhandle_t*, int type, int state, const char*, void* ctx) {
  mark_c_client_thread();
  if (type != ZOO_SESSION_EVENT) return;
  auto* hc = static_cast<handle_context*>(ctx);
  session_impl* impl = hc->impl;
  deliver_from_client(impl->strand_, [weak = impl->weak_from_this(), gen = hc->generation, state] {
    if (auto self = weak.lock()) self->handle_zk_state(gen, state);
  });
}

void session_impl::handle_zk_state(std::uint64_t generation, int zk_state) {
  if (generation != generation_.load() || generation == expired_generation_ || user_closed_) return;
  const session_state before = state_.load();
  if (zk_state == ZOO_CONNECTED_STATE) {
    std::int64_t id = 0;
    {
      c_call_lock lock(handle_mutex_);
      if (!zh_) return;
      id = zoo_client_id(zh_)->client_id;
      timeout_ms_ = zoo_recv_timeout(zh_);
    }
    // No record_contact here: the connect request left at an unknown time, and the time of
    // this event would put our deadline after the server's. A probe sent now renews the lease
    // from its own send time (reconnected: the old deadline holds until its reply).
    send_probe();
    {
      std::lock_guard lease(lease_mutex_);
      if (lease_.generation == generation) lease_.session = id;
    }
    const auto next =
        next_session_state(before, client_report::connected, id == session_id_.load());
    session_id_ = id;
    ever_connected_ = true;
    connect_timer_.cancel();
    if (!next) return;
    set_state(*next);
    logger()->info("session 0x{:x} {} (timeout {} ms)", id, to_string(*next), timeout_ms_.load());
    finish_connect_waiters({});
    schedule_heartbeat();
    schedule_lease_check();
    if (renewing_) send_renewal();  // a renewal in flight at once, not one cadence later
  } else if (zk_state == ZOO_CONNECTING_STATE || zk_state == ZOO_ASSOCIATING_STATE) {
    if (next_session_state(before, client_report::connecting, true)) {
      logger()->warn("session 0x{:x} suspended: lost contact with ZooKeeper", session_id_.load());
      set_state(session_state::suspended);
      schedule_lease_check();
    }
  } else if (zk_state == ZOO_EXPIRED_SESSION_STATE) {
    expire({});
  } else if (zk_state == ZOO_AUTH_FAILED_STATE) {
    if (!next_session_state(before, client_report::auth_failed, true)) return;
    logger()->error("ZooKeeper refused the session's authentication");
    finish_connect_waiters(make_error_code(zk_errc::auth_failed));
    close_handle(make_error_code(zk_errc::auth_failed));
    set_state(session_state::closed);
  }
}

void session_impl::expire(const std::string& local) {
  if (!next_session_state(state_.load(), client_report::expired, false)) return;
  logger()->warn("session 0x{:x} expired ({})", session_id_.load(),
                 local.empty() ? "reported by the server" : local);
  heartbeat_timer_.cancel();
  lease_timer_.cancel();
  {
    // Whatever the clock said, the lease is over (the server may end a session early).
    std::lock_guard lease(lease_mutex_);
    lease_.session = 0;
    lease_.last_contact = steady::time_point::min();
    lease_.quorum = steady::time_point::min();
  }
  set_state(session_state::expired);
  // Closing a handle that still seems connected (a lease that ran out while the server
  // seemed to answer) blocks while the C client tries to end the session (1.5 s with a 3 s
  // timeout, seen when a proxy held every byte): never on the session's executor. The old
  // handle's events are ignored from here on.
  expired_generation_ = generation_.load();
  const error_code cause = make_error_code(zk_errc::session_expired);
  if (auto detached = detach_handle(cause)) {
    // On a thread of its own: nothing of the caller's executor waits for it. It keeps the
    // session's state alive until the C client has let go of the handle, and the user's
    // session waits for it (wait_for_closers) before the executor may go.
    {
      std::lock_guard lock(closers_->mutex);
      ++closers_->running;
    }
    std::thread([self = shared_from_this(), count = closers_, d = std::move(*detached),
                 cause]() mutable {
      self->finish_close(std::move(d), cause);
      // Let go of the session first: once `running` is 0 the user's session may return and
      // its io_context go, and the last reference must not be dropped here after that.
      self.reset();
      std::lock_guard lock(count->mutex);
      if (--count->running == 0) count->done.notify_all();
    }).detach();
  }
  fail_all_watches(cause);
  if (options_.renew_after_expiry && !user_closed_) open_handle();
}

void session_impl::set_state(session_state s) {
  state_ = s;
  if (options_.metrics) options_.metrics->session_state_changed(s);
  std::vector<std::shared_ptr<state_listener>> to_call;
  std::list<state_waiter> done;
  {
    std::lock_guard lock(mutex_);
    for (auto& [id, l] : listeners_) to_call.push_back(l);
    for (auto it = state_waiters_.begin(); it != state_waiters_.end();) {
      auto next = std::next(it);
      if (it->target == s || s == session_state::closed)
        done.splice(done.end(), state_waiters_, it);
      it = next;
    }
  }
  for (auto& l : to_call) boost::asio::post(strand_, [l = std::move(l), s] { l->call(s); });
  for (auto& w : done) {
    const error_code ec = w.target == s ? error_code{} : make_error_code(errc::closed);
    complete_via(w.executor, std::move(w.handler), ec);
  }
}

state_subscription session_impl::subscribe(std::function<void(session_state)> listener) {
  std::lock_guard lock(mutex_);
  const auto id = next_listener_id_++;
  listeners_.emplace(id, std::make_shared<state_listener>(std::move(listener)));
  return state_subscription(weak_from_this(), id);
}

void session_impl::unsubscribe(std::uint64_t id) {
  std::shared_ptr<state_listener> gone;
  {
    std::lock_guard lock(mutex_);
    const auto it = listeners_.find(id);
    if (it == listeners_.end()) return;
    gone = std::move(it->second);
    listeners_.erase(it);
  }
  gone->silence();
}

void state_listener::call(session_state s) {
  std::lock_guard lock(mutex_);
  if (active_) fn_(s);
}

void state_listener::silence() {
  std::lock_guard lock(mutex_);  // waits for a call in progress on another thread
  active_ = false;               // fn_ itself stays: it may be the caller
}

void session_impl::start_wait_state(void_completion handler, session_state target) {
  auto ex = tracked_executor();
  auto slot = boost::asio::get_associated_cancellation_slot(handler);
  std::unique_lock lock(mutex_);
  const session_state now = state_.load();
  if (now == target || (now == session_state::closed && user_closed_)) {
    lock.unlock();
    const error_code ec = now == target ? error_code{} : make_error_code(errc::closed);
    complete_via(ex, std::move(handler), ec);
    return;
  }
  const auto id = next_listener_id_++;
  state_waiters_.push_back(state_waiter{target, std::move(handler), ex, id});
  if (slot.is_connected()) {
    slot.assign([weak = weak_from_this(), id](boost::asio::cancellation_type) {
      auto self = weak.lock();
      if (!self) return;
      std::unique_lock lock(self->mutex_);
      for (auto it = self->state_waiters_.begin(); it != self->state_waiters_.end(); ++it) {
        if (it->id != id) continue;
        state_waiter w = std::move(*it);
        self->state_waiters_.erase(it);
        lock.unlock();
        complete_via(w.executor, std::move(w.handler),
                     make_error_code(boost::asio::error::operation_aborted));
        return;
      }
    });
  }
}

// ---- lease: heartbeat and local expiry --------------------------------------------------

void session_impl::schedule_heartbeat() {
  heartbeat_timer_.expires_after(negotiated_timeout() / 3);
  heartbeat_timer_.async_wait([weak = weak_from_this()](error_code ec) {
    if (auto self = weak.lock(); self && !ec) self->heartbeat();
  });
}

namespace {
// The heartbeat's request: nobody waits for it, its reply only renews the lease.
struct heartbeat_probe : op_base {
  void abandon(error_code) override { delete this; }
};
}  // namespace

void session_impl::on_heartbeat_reply(int rc, const Stat*, const void* data) {
  std::unique_ptr<heartbeat_probe> probe(static_cast<heartbeat_probe*>(const_cast<void*>(data)));
  probe->note_reply(rc);
}

// The C client pings on its own but does not tell us when the server answered, so the lease
// deadline is kept fresh by a cheap read whenever nothing else reached the server lately.
void session_impl::heartbeat() {
  const session_state s = state_.load();
  if (s != session_state::connected && s != session_state::reconnected) return;
  const auto third = negotiated_timeout() / 3;
  if (last_contact() + third <= steady::now()) send_probe();
  schedule_heartbeat();
}

void session_impl::send_probe() {
  c_call_lock lock(handle_mutex_);
  if (!zh_) return;
  auto* probe = new heartbeat_probe;
  probe->impl = this;
  probe->generation = generation_.load();
  probe->sent = steady::now();
  probe->gap = note_request_sent(probe->sent);
  track(probe);
  const int rc = zoo_aexists(zh_, "/", 0, &session_impl::on_heartbeat_reply, probe);
  after_c_call();
  if (rc != ZOK) {
    untrack(probe);
    delete probe;
  }
}

// ---- errors ----------------------------------------------------------------------------

error_code session_impl::no_handle_error() const {
  if (user_closed_) return make_error_code(errc::closed);
  if (auto cause = close_cause(generation_.load())) return *cause;
  return make_error_code(errc::not_connected);
}

error_code session_impl::state_error() const {
  if (user_closed_) return make_error_code(errc::closed);
  return make_error_code(zk_errc::session_expired);
}

void session_impl::log_submit_failure(int rc) const {
  logger()->error("ZooKeeper client refused a request: {}", zerror(rc));
}

}  // namespace zkcoord::detail
