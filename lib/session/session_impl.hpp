// SPDX-License-Identifier: Apache-2.0
// The session's shared state: the C client handle, state machine, lease deadline, watch
// registry and listeners. The only place (with its .cpp files) that talks to the C client.
//
// Threading: with libzookeeper_mt the C client calls back on its own completion thread; with
// libzookeeper_st (ZKCOORD_ZK_ST) on the session's strand, inside zookeeper_process
// (st_driver.hpp), or on the thread that closes a handle. Those callbacks only use raw
// pointers (the handle is always closed before this object dies, and closing flushes every
// callback) and post work to executors; they never own a shared_ptr to the session, so the
// session is never destroyed in a callback. State transitions run on `strand_`.
#pragma once

#include <zkcoord/session.hpp>

#include "session/client_deliveries.hpp"
#include "session/connection_linger.hpp"
#include "session/lease_rule.hpp"
#include "session/st_driver.hpp"

#include <zookeeper/zookeeper.h>

#include <boost/asio/append.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/strand.hpp>

#include <array>
#include <atomic>
#include <condition_variable>
#include <list>
#include <map>
#include <memory>
#include <mutex>
#include <shared_mutex>
#include <string_view>
#include <typeindex>
#include <typeinfo>
#include <unordered_map>
#include <unordered_set>
#include <vector>

namespace zkcoord::detail {

using steady = std::chrono::steady_clock;

/// What testing::expire_session needs to open a second handle on the same session.

struct session_credentials {
  std::int64_t id = 0;
  std::string password;  ///< 16 raw bytes
  std::string connect;   ///< as given in session_options, including any chroot
};
// Exported from a shared libzkcoord for zkcoord::testing (a static library linked beside it).
ZKCOORD_EXPORT session_credentials credentials_of(const session& s);
/// Testing: points the session's handle at other servers (see session_impl::replace_servers).
ZKCOORD_EXPORT bool replace_servers(const session& s, const std::string& hosts);
/// Testing: the session's requests sent and not answered yet.
ZKCOORD_EXPORT std::size_t requests_in_flight(const session& s);
/// Testing: session::subscribe for a caller that holds the session as const.
ZKCOORD_EXPORT state_subscription subscribe_state(const session& s,
                                                  std::function<void(session_state)> listener);

/// The session's I/O executor, work-tracked while an operation is pending so that run()
/// does not return while ZooKeeper still owes an answer.
using handler_executor = boost::asio::any_io_executor;

/// Completes `handler(args...)` through `io_ex` and then the handler's associated executor:
/// posted (Asio's post semantics), so it never runs on a C client thread nor inside the
/// function that started the operation; from a round of the libzookeeper_st driver, run once
/// the round is over (client_deliveries.hpp).
template <class Handler, class... Args>
void complete_via(const handler_executor& io_ex, Handler&& handler, Args&&... args) {
  deliver_from_client(
      io_ex, boost::asio::append(std::forward<Handler>(handler), std::forward<Args>(args)...));
}

/// Boost 1.81's any_completion_handler move-assignment recurses forever (it constructs from
/// an lvalue of itself); move-construct and swap instead.
template <class Handler>
void assign_handler(Handler& target, Handler&& source) {
  Handler(std::move(source)).swap(target);
}

template <class Fn>
void post_to(const handler_executor& ex, Fn&& fn) {
  deliver_from_client(ex, std::forward<Fn>(fn));
}

/// Shared state of one `watch`. Guarded by `mutex`; fired on a C client thread, delivered on
/// the waiter's executor.
struct watch_state : std::enable_shared_from_this<watch_state> {
  std::mutex mutex;
  std::weak_ptr<session_impl> session;
  std::uint64_t id = 0;
  std::string path;
  ZooWatcherType type = ZWATCHTYPE_DATA;
  bool armed = false;
  std::optional<watch_event> event;
  error_code ec;  ///< why the watch ended without an event
  std::optional<completion<watch_event>> waiter;
  handler_executor waiter_executor;
  boost::asio::cancellation_slot waiter_slot;

  /// Completes the waiter if an outcome is there. Runs on the waiter's executor.
  void deliver();
  /// Records an outcome (event or error) and schedules delivery. Any thread.
  void finish(std::optional<watch_event> ev, error_code why);
};

/// Told of the node deletions a session has proof of, on the C client's thread and before the
/// watch event or reply that proves it is handed on, so in the order the server sent them:
/// whatever such an observer has been told when a reply reaches a caller includes every
/// deletion the session was told of before that reply. The proofs: a NodeDeleted watch event
/// (once per watch armed on the node, so the same deletion may come more than once), and a
/// session-pinned delete that succeeded. Never a no_node reply: that deletion happened at an
/// unknown point, possibly before replies the caller already has. (A layer above keeps what it
/// needs; see recipe/deletion_log.hpp.)
class deletion_observer {
 public:
  virtual ~deletion_observer() = default;
  /// `path` was deleted while `session` was the handle's session; `told` numbers the session's
  /// proofs in the order they came (1, 2, ...; see session_impl::deletion_proofs). Runs on a C
  /// client thread: quick, and no lock but the observer's own.
  virtual void node_deleted(std::int64_t session, std::string_view path,
                            std::uint64_t told) noexcept = 0;
};

/// Set by every callback of the C client: its own threads (I/O and completion) run nothing
/// else. A handle closed on one of them may still run completions after zookeeper_close.
/// (Never set with libzookeeper_st: its callbacks run on threads that run other things.)
inline thread_local bool on_c_client_thread = false;
inline void mark_c_client_thread() noexcept {
#ifndef ZKCOORD_ZK_ST
  on_c_client_thread = true;
#endif
}

/// The lock a call into the C client on the handle holds on session_impl::handle_mutex_:
/// libzookeeper_mt is thread-safe (shared), libzookeeper_st is not (exclusive; st_driver.hpp).
#ifdef ZKCOORD_ZK_ST
using c_call_lock = std::unique_lock<std::shared_mutex>;
#else
using c_call_lock = std::shared_lock<std::shared_mutex>;
#endif

/// A subscribed state listener. Calls are posted, so one may be on its way when the
/// subscription ends: once `silence()` returned, the function is never called again (it waits
/// for a call running on another thread; from inside the listener it returns at once).
class state_listener {
 public:
  explicit state_listener(std::function<void(session_state)> fn) : fn_(std::move(fn)) {}
  void call(session_state s);
  void silence();

 private:
  std::recursive_mutex mutex_;
  std::function<void(session_state)> fn_;
  bool active_ = true;
};

/// Context the C client hands back to the session watcher: which handle generation it is.
struct handle_context {
  session_impl* impl;
  std::uint64_t generation;
};

/// State shared by every pending operation. While the C client holds it (from submit to its
/// reply callback) the session also lists it as outstanding, so that an op whose completion
/// the C client never calls (a request queued as the handle closes) is still completed, and
/// freed, once the handle is gone.
struct op_base {
  op_base() = default;
  op_base(const op_base&) = delete;
  op_base& operator=(const op_base&) = delete;
  virtual ~op_base() = default;

  session_impl* impl = nullptr;
  std::uint64_t generation = 0;
  steady::time_point sent;
  /// How long the session had sent nothing before this request (lease_rule::length).
  steady::duration gap{};
  /// A write: its successful reply was acknowledged by a quorum and renews the lease.
  bool proves_quorum = false;
  handler_executor executor;  // work-tracked
  std::shared_ptr<watch_state> watch;

  /// First thing every reply callback does: the op is no longer outstanding, an answer from
  /// the server is contact, and a successful write renews the lease.
  void note_reply(int rc);
  /// What the op reports for the C client's result `rc` (session_impl::result_of).
  error_code outcome(int rc) const;
  /// Completes the op with `ec` and frees it: the C client will never call its completion.
  virtual void abandon(error_code ec) = 0;
};

template <class T>
struct pending_op : op_base {
  completion<T> handler;
  void finish(error_code ec, T value) {
    complete_via(executor, std::move(handler), ec, std::move(value));
  }
  void abandon(error_code ec) override;
};

template <>
struct pending_op<void> : op_base {
  void_completion handler;
  void finish(error_code ec) { complete_via(executor, std::move(handler), ec); }
  void abandon(error_code ec) override;
};

/// request_counts, counted from any thread (each member on its own; a snapshot is not one
/// instant across members).
struct request_counters {
  std::atomic<std::uint64_t> creates{0}, removes{0}, sets{0}, gets{0}, exists{0}, listings{0},
      multis{0}, syncs{0}, lease_renewals{0};
  request_counts snapshot() const noexcept {
    constexpr auto relaxed = std::memory_order_relaxed;
    return {creates.load(relaxed), removes.load(relaxed), sets.load(relaxed),
            gets.load(relaxed),    exists.load(relaxed),  listings.load(relaxed),
            multis.load(relaxed),  syncs.load(relaxed),   lease_renewals.load(relaxed)};
  }
};
/// Which of the counters a request counts in (&request_counters::gets, ...).
using request_kind = std::atomic<std::uint64_t> request_counters::*;
/// The metrics observer's name for a request of `kind` (session_metrics.cpp).
request_type request_type_of(request_kind kind) noexcept;

class session_impl : public std::enable_shared_from_this<session_impl> {
 public:
  session_impl(boost::asio::any_io_executor ex, session_options options);
  ~session_impl();

  const boost::asio::any_io_executor& executor() const noexcept { return executor_; }
  handler_executor tracked_executor() const {
    return boost::asio::prefer(executor_, boost::asio::execution::outstanding_work.tracked);
  }
  const session_options& options() const noexcept { return options_; }
  const std::shared_ptr<spdlog::logger>& logger() const noexcept { return options_.logger; }

  void start_connect(void_completion handler);
  void close();
  /// Returns once no thread closes an expired handle any more (expire()): such a thread hands
  /// completions and a round to the session's executor, which must outlive it. The user's
  /// session waits here before it lets its executor go (session::~session).
  void wait_for_closers();

  /// Creates an op bound to the handler's associated executor (work-tracked).
  template <class T, class Handler>
  std::unique_ptr<pending_op<T>> make_op(Handler&& handler) {
    return make_op_of<pending_op<T>>(std::forward<Handler>(handler));
  }
  /// make_op for an op type derived from pending_op<T> that carries more for its reply.
  template <class Op, class Handler>
  std::unique_ptr<Op> make_op_of(Handler&& handler) {
    auto op = std::make_unique<Op>();
    op->impl = this;
    op->executor = tracked_executor();
    std::decay_t<Handler>(std::forward<Handler>(handler)).swap(op->handler);
    return op;
  }

  /// Runs `call(zh, raw_op)` under the handle lock, counted as a request of `kind` before the
  /// call (a reply never comes before its count); on a synchronous failure the op completes at once
  /// with the mapped error. `call` returns the C client's return code.
  template <class Op, class Call>
  void submit(request_kind kind, std::unique_ptr<Op> op, Call&& call) {
    c_call_lock lock(handle_mutex_);
    if (!zh_) {
      lock.unlock();
      fail(std::move(op), no_handle_error());
      return;
    }
    op->generation = generation_;
    op->sent = steady::now();
    op->gap = note_request_sent(op->sent);
    op->proves_quorum = kind == &request_counters::creates || kind == &request_counters::removes ||
                        kind == &request_counters::sets || kind == &request_counters::multis;
    if (op->proves_quorum) note_write_sent(op->sent);
    Op* raw = op.release();
    track(raw);  // before the call: the reply may come before it returns
    (sent_.*kind).fetch_add(1, std::memory_order_relaxed);  // before the call too: see above
    if (options_.metrics) options_.metrics->request_sent(request_type_of(kind));
    const int rc = call(zh_, raw);
    after_c_call();
    if (rc == ZOK) return;
    lock.unlock();
    if (rc == ZINVALIDSTATE || rc == ZBADARGUMENTS) {
      untrack(raw);
      fail(std::unique_ptr<Op>(raw), result_of(rc, raw->generation));
    } else {
      // The C client may still call the completion; leave the op to it. If it never does, the
      // op is abandoned once the handle is closed.
      log_submit_failure(rc);
    }
  }

  /// The one mapping from a C client result to what a request reports. A request that its
  /// handle's close cut short (ZCLOSING, or ZINVALIDSTATE once the handle is gone) reports why
  /// the session closed that handle: `closed` only when this process closed the session,
  /// `session_expired` when the server or the lease deadline ended it, `unreachable` when no
  /// server answered the first connect, `auth_failed` when the server refused the credentials.
  error_code result_of(int rc, std::uint64_t generation) const;
  /// Why the handle of `generation` was closed; nullopt while it is open (or never was).
  std::optional<error_code> close_cause(std::uint64_t generation) const;

  template <class Op>
  static void fail(std::unique_ptr<Op> op, error_code ec) {
    if (op->watch) {
      op->impl->forget_watch(*op->watch);
      op->watch->finish(std::nullopt, ec);
    }
    if constexpr (std::is_base_of_v<pending_op<void>, Op>) {
      op->finish(ec);
    } else {
      op->finish(ec, {});
    }
  }

  /// Keeps a recipe's background work (a lock attempt and its guaranteed delete) alive until
  /// it hands itself back with let_go, or until this session is gone.
  void keep_alive(std::shared_ptr<void> owner);
  /// Returns what keep_alive held for `owner` (null if nothing); drop it outside your locks.
  std::shared_ptr<void> let_go(const void* owner);

  /// The outstanding ops (see op_base).
  void track(op_base* op);
  void untrack(op_base* op);

  // Watches.
  std::shared_ptr<watch_state> arm(watch& w, const std::string& path, ZooWatcherType type);
  void disarm(const std::shared_ptr<watch_state>& state);
  void forget_watch(const watch_state& state);
  void fail_all_watches(error_code ec);
  std::mutex& watch_wire_mutex() noexcept { return watch_wire_mutex_; }
  void fire_watch(std::uint64_t id, watch_event ev);
  static void on_watch_event(zhandle_t* zh, int type, int state, const char* path, void* ctx);
  static void* watch_context(const watch_state& w) {
    return reinterpret_cast<void*>(static_cast<std::uintptr_t>(w.id));
  }
  /// Whether a `watch` of type `type` on `path` is registered or being armed (watch.cpp).
  bool has_watch_on(const std::string& path, ZooWatcherType type);
  /// Removes the watches on `path` of `type`: all of them, also the server's, or only the C
  /// client's watcher (fn, ctx) (path_watch.cpp, for path_watch_hub).
  void remove_watches_on(const std::string& path, ZooWatcherType type, watcher_fn fn, void* ctx,
                         bool all);

  // State.
  state_subscription subscribe(std::function<void(session_state)> listener);
  void unsubscribe(std::uint64_t id);
  void start_wait_state(void_completion handler, session_state target);
  session_state state() const noexcept { return state_.load(); }
  std::int64_t session_id() const noexcept { return session_id_.load(); }
  std::chrono::milliseconds negotiated_timeout() const noexcept {
    return std::chrono::milliseconds(timeout_ms_.load());
  }
  /// The current handle's lease (docs/session.md, "The lease"): what the latest reply that a
  /// quorum acknowledged proves, counted from its send time.
  steady::time_point lease_deadline() const noexcept;
  /// lease_deadline() with lease_mutex_ held.
  steady::time_point lease_deadline_locked() const noexcept;
  /// The lease of `session` if it is still this object's live session, else time_point::min()
  /// (what a lock bound to an expired session reports, also once a new session is up).
  steady::time_point lease_deadline_of(std::int64_t session) const noexcept;
  /// An answer came to a request of handle `generation` sent at `sent`: the server heard from
  /// the session no earlier than that (contact, never from receipt); `quorum`: a quorum
  /// acknowledged it, which renews the lease.
  void record_contact(const op_base& answered, bool quorum);
  /// The metrics observer is told how long the lease now lasts (lease_mutex_ held).
  void report_lease_margin_locked() const noexcept;
  /// Renewals run while at least one keeper lives (lease_options::always counts as one).
  lease_keeper keep_lease();
  void unwant_lease() noexcept;
  /// A request of the session leaves at `sent`: returns how long since the previous one.
  steady::duration note_request_sent(steady::time_point sent) noexcept {
    const auto previous = last_request_sent_.exchange(sent.time_since_epoch().count());
    return previous == 0 ? steady::duration::zero()
                         : std::max(steady::duration::zero(),
                                    sent - steady::time_point(steady::duration(previous)));
  }
  /// A write left at `sent`: it touches the session on its way, as a renewal does, so the
  /// next renewal is due a cadence after it (a busy session sends none).
  void note_write_sent(steady::time_point sent) noexcept {
    last_write_sent_.store(sent.time_since_epoch().count(), std::memory_order_relaxed);
  }
  /// A renewal's reply came (or it was abandoned): ZOK renewed the lease (record_contact),
  /// anything but an unknown outcome is logged once per reason. Any thread.
  void note_renewal_outcome(int rc);

  /// Adds an observer of the deletions the session has proof of (see deletion_observer); it
  /// stays until the session is gone.
  void add_deletion_observer(std::shared_ptr<deletion_observer> observer);
  /// Tells the observers that `path` was deleted (C client threads only, see deletion_observer).
  void note_deleted(std::int64_t session, std::string_view path) noexcept;
  /// How many deletion proofs the observers were told of so far. Read on the C client's thread
  /// in a reply callback, it stamps the reply: proofs numbered up to it came before the reply.
  std::uint64_t deletion_proofs() const noexcept { return deletion_proofs_.load(); }

  /// State that a layer above keeps per session (a recipe's listings shared between its
  /// waiters), made on first use and destroyed with the session. The session knows nothing of
  /// what it holds: one object per type T (default-constructible).
  template <class T>
  T& layer_state() {
    std::lock_guard lock(layer_states_mutex_);
    auto& slot = layer_states_[std::type_index(typeid(T))];
    if (!slot) slot = std::make_shared<T>();
    return *static_cast<T*>(slot.get());
  }

  session_credentials credentials() const;
  std::string connected_server() const;
  request_counts sent_requests() const noexcept { return sent_.snapshot(); }
  /// Requests sent on any handle and not answered yet.
  std::size_t requests_in_flight() const;
  /// Testing: replaces the handle's server list (hosts only); false if there is no handle.
  /// The C client compares the lists by address without the port: a list that differs from
  /// the old one only in ports changes nothing. When the handle's server leaves the list, the
  /// connection is dropped and the session reports suspended.
  bool replace_servers(const std::string& hosts);

  /// After a call into the C client on the handle, with handle_mutex_ held (c_call_lock):
  /// with libzookeeper_st, makes the driver wait for what the C client now waits for
  /// (st_driver.hpp). Nothing with libzookeeper_mt, whose I/O thread does that.
  void after_c_call() {
#ifdef ZKCOORD_ZK_ST
    st_after_call();
#endif
  }

 private:
  static void on_session_event(zhandle_t* zh, int type, int state, const char* path, void* ctx);
  void handle_zk_state(std::uint64_t generation, int zk_state);
  /// Resolves the connect string's names (resolve_hosts.hpp), then open_handle_with.
  void open_handle();
  void open_handle_with(const std::string& numeric_connect);
  /// Closes the current handle for `cause` (see result_of): its unanswered requests and the
  /// session's watches end with that error.
  void close_handle(error_code cause);
  /// close_handle in two steps: takes the handle away (nothing new is sent on it) and records
  /// the cause; then closes it and completes what it left behind (this can block).
  struct detached_handle {
    zhandle_t* zh;
    std::uint64_t generation;
    connection_linger linger;  ///< st: the connection, read to its end after the close
  };
  std::optional<detached_handle> detach_handle(error_code cause);
  void finish_close(detached_handle d, error_code cause);
#ifndef ZKCOORD_ZK_ST
  /// mt: waits until no request of handle `generation` is in flight, or until `deadline`.
  void await_replies(std::uint64_t generation, steady::time_point deadline) const;
#endif
  void send_probe();
  steady::time_point last_contact() const noexcept;
  // The lease (session_lease.cpp): renewals while wanted, and the local expiry.
  void lease_interest_changed();
  void schedule_renewal(steady::time_point at);
  steady::time_point last_write_sent() const noexcept;
  void send_renewal();
  static void on_renewal_reply(int rc, const void* data);
  std::optional<local_expiry> local_expiry_due() const;
  void check_lease();
  void set_state(session_state s);
  /// `local`: why the session ends itself ("" when the server reported the expiry).
  void expire(const std::string& local);
  void schedule_heartbeat();
  void schedule_lease_check();
  void finish_connect_waiters(error_code ec);
  void heartbeat();
  static void on_heartbeat_reply(int rc, const Stat* stat, const void* data);
  error_code no_handle_error() const;
  error_code state_error() const;
  void log_submit_failure(int rc) const;
  // The libzookeeper_st driver (st_driver.cpp; declared in either build).
  void st_after_call();
  void st_kick();
  void st_round(std::uint64_t epoch, int ready, int waited);
  void st_round_locked(std::uint64_t epoch, int ready, int waited);
  void st_rearm();
  void st_drop();
  void st_wait(int which);

  boost::asio::any_io_executor executor_;
  boost::asio::strand<boost::asio::any_io_executor> strand_;
  session_options options_;

  mutable std::shared_mutex handle_mutex_;
  zhandle_t* zh_ = nullptr;                   // guarded by handle_mutex_
  std::atomic<std::uint64_t> generation_{0};  // written under handle_mutex_
  mutable std::mutex causes_mutex_;
  std::map<std::uint64_t, error_code> close_causes_;  // generation -> why it was closed
  std::list<handle_context> contexts_;  // one per handle ever opened; freed with this object

  std::atomic<session_state> state_{session_state::closed};
  std::atomic<std::int64_t> session_id_{0};
  std::atomic<std::int64_t> timeout_ms_{0};
  struct lease_state {
    std::uint64_t generation = 0;       ///< the handle it belongs to
    std::int64_t session = 0;           ///< that handle's session id once connected; 0 once expired
    steady::time_point last_contact{};  ///< send time of the latest answered request
    steady::time_point quorum{};        ///< send time of the latest quorum-acknowledged one
    steady::duration quorum_gap{};      ///< its op_base::gap
  };
  mutable std::mutex lease_mutex_;
  lease_state lease_;
  std::atomic<bool> user_closed_{false};
  bool started_ = false;                  // strand
  bool ever_connected_ = false;           // strand
  std::uint64_t resolving_ = 0;           // strand: the latest resolution (open_handle)
  std::uint64_t expired_generation_ = 0;  // strand: the handle an expiry is closing
  // Threads closing an expired handle, counted apart from the session's state: a closer lets
  // go of the session before it says it is done, so the session is never destroyed on a
  // closer's thread after the user's session returned (its executor may be gone by then).
  struct closer_count {
    std::mutex mutex;
    std::condition_variable done;
    int running = 0;  // (mutex)
  };
  const std::shared_ptr<closer_count> closers_ = std::make_shared<closer_count>();

  std::atomic<int> lease_wanted_{0};
  bool renewing_ = false;              // strand
  steady::time_point wanted_since_{};  // strand: when the current interest began
  std::atomic<int> renewals_in_flight_{0};
  std::atomic<steady::rep> last_write_sent_{0};
  std::atomic<steady::rep> last_request_sent_{0};
  std::mutex renewal_error_mutex_;
  int last_renewal_error_ = 0;  // ZOK, or why the latest renewal renewed nothing

  boost::asio::steady_timer heartbeat_timer_;
  boost::asio::steady_timer renewal_timer_;
  boost::asio::steady_timer lease_timer_;
  boost::asio::steady_timer connect_timer_;
  std::unique_ptr<st_driver> driver_;  // libzookeeper_st only

  struct state_waiter {
    session_state target;
    void_completion handler;
    handler_executor executor;
    std::uint64_t id;
  };
  std::mutex mutex_;  // guards the members below
  std::map<std::uint64_t, std::shared_ptr<state_listener>> listeners_;
  std::list<state_waiter> state_waiters_;
  std::vector<std::unique_ptr<pending_op<void>>> connect_waiters_;
  std::uint64_t next_listener_id_ = 1;

  std::mutex watches_mutex_;
  // Orders the sending of watch-arming reads against watch removal, so that a removal of all
  // watches on a path never overtakes a newer arming read for it on the wire.
  std::mutex watch_wire_mutex_;
  std::unordered_map<std::uint64_t, std::shared_ptr<watch_state>> watches_;
  /// How many of watches_ are on each path, child watches first, then data watches: what
  /// disarm and has_watch_on ask, without scanning every watch (watches_mutex_).
  std::unordered_map<std::string, std::array<int, 2>> watched_paths_;
  void count_watch_locked(const watch_state& w, int delta);
  bool watched_locked(const std::string& path, ZooWatcherType type) const;
  std::uint64_t next_watch_id_ = 1;

  mutable std::shared_mutex deletion_observers_mutex_;
  std::vector<std::shared_ptr<deletion_observer>> deletion_observers_;
  std::atomic<bool> any_deletion_observer_{false};
  std::atomic<std::uint64_t> deletion_proofs_{0};
  request_counters sent_;

  std::mutex layer_states_mutex_;
  std::unordered_map<std::type_index, std::shared_ptr<void>> layer_states_;

  std::mutex kept_mutex_;
  std::unordered_map<const void*, std::shared_ptr<void>> kept_;

  mutable std::mutex outstanding_mutex_;
  std::unordered_set<op_base*> outstanding_;  // handed to the C client, no reply yet
  void abandon_outstanding(std::uint64_t generation, error_code cause);
};

template <class T>
void pending_op<T>::abandon(error_code ec) {
  session_impl::fail(std::unique_ptr<pending_op<T>>(this), ec);
}
inline void pending_op<void>::abandon(error_code ec) {
  session_impl::fail(std::unique_ptr<pending_op<void>>(this), ec);
}
inline error_code op_base::outcome(int rc) const {
  return impl->result_of(rc, generation);
}

}  // namespace zkcoord::detail
