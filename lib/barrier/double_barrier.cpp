// SPDX-License-Identifier: Apache-2.0
// The double barrier (Curator's DistributedDoubleBarrier, kazoo's DoubleBarrier): enter and
// leave as coroutines on the session's executor that carry out double_barrier_fsm's decisions.
// A failed or timed-out operation deletes our member node before it completes.
#include "barrier/barrier_io.hpp"
#include "barrier/double_barrier_fsm.hpp"

#include <zkcoord/barrier.hpp>
#include <zkcoord/path.hpp>

#include <boost/asio/associated_cancellation_slot.hpp>
#include <boost/asio/bind_cancellation_slot.hpp>
#include <boost/asio/co_spawn.hpp>
#include <boost/asio/detached.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/system_executor.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/uuid/uuid.hpp>
#include <boost/uuid/uuid_generators.hpp>
#include <boost/uuid/uuid_io.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>
#include <mutex>
#include <optional>

namespace zkcoord::detail {

namespace asio = boost::asio;
using namespace barrier_io;
namespace fsm = double_barrier_fsm;

class double_barrier_state {
 public:
  double_barrier_state(impl_ptr impl, std::string path, std::uint32_t member_count)
      : impl(std::move(impl)),
        path(std::move(path)),
        member_count(member_count),
        name(boost::uuids::to_string(boost::uuids::random_generator()())),
        our_path(join_path(this->path, name)),
        ready_path(join_path(this->path, fsm::ready_node)) {}

  const impl_ptr impl;
  const std::string path;
  const std::uint32_t member_count;
  const std::string name;  ///< our member node (Curator's UUID.randomUUID().toString() form)
  const std::string our_path;
  const std::string ready_path;

  std::mutex mutex;
  bool busy = false;       ///< an enter or leave is running
  bool entered = false;    ///< the last enter succeeded and no leave ran since
  bool abandoned = false;  ///< the double_barrier object is gone
};

namespace {

asio::awaitable<error_code> enter_body(std::shared_ptr<double_barrier_state> st, deadline until) {
  const impl_ptr& impl = st->impl;
  // Curator's order: look at `ready` first, then create our node.
  // Named awaitables: GCC 12 destroys a co_await expression's temporaries twice.
  auto look = exists(impl, st->ready_path, nullptr);
  auto [ec, ready_before] = co_await std::move(look);
  if (ec) co_return ec;
  auto make = create(impl, st->our_path, create_mode::ephemeral, true);
  ec = co_await std::move(make);
  if (ec) co_return ec;
  if (ready_before) co_return error_code();
  for (;;) {
    auto list = barrier_io::children(impl, st->path);
    auto [lec, names] = co_await std::move(list);
    if (lec) co_return lec;
    switch (fsm::decide_enter(names, st->name, st->member_count)) {
      case fsm::enter_step::entered:
        co_return error_code();
      case fsm::enter_step::create_ready: {
        auto open = create(impl, st->ready_path, create_mode::persistent, false);
        const error_code cec = co_await std::move(open);
        co_return cec == zk_errc::node_exists ? error_code() : cec;
      }
      case fsm::enter_step::our_node_missing:
        co_return make_error_code(errc::lock_lost);
      case fsm::enter_step::wait_for_ready:
        break;
    }
    if (passed(until)) co_return make_error_code(errc::timeout);
    watch w;
    auto again = exists(impl, st->ready_path, &w);
    auto [xec, ready_now] = co_await std::move(again);
    if (xec) co_return xec;
    if (ready_now) co_return error_code();
    auto wait = wait_for(w, until);
    ec = co_await std::move(wait);
    if (ec) co_return ec;
    // Whatever woke us, count again (Curator GH-1290): only `ready` or enough members let us in.
  }
}

asio::awaitable<error_code> leave_body(std::shared_ptr<double_barrier_state> st, deadline until) {
  using namespace asio::experimental::awaitable_operators;
  const impl_ptr& impl = st->impl;
  bool ours_deleted = false;
  bool ready_listed = false;  ///< `ready` was in the last listing
  for (bool done = false; !done;) {
    auto list = barrier_io::children(impl, st->path);
    auto [lec, names] = co_await std::move(list);
    if (lec == zk_errc::no_node) {
      names.clear();
    } else if (lec) {
      co_return lec;
    }
    ready_listed = std::find(names.begin(), names.end(), fsm::ready_node) != names.end();
    const fsm::leave_step step = fsm::decide_leave(names, st->name, ours_deleted);
    using kind = fsm::leave_step::kind;
    switch (step.what) {
      case kind::done:
        done = true;
        break;
      case kind::delete_mine_done: {
        if (!ready_listed) {
          auto gone = remove(impl, st->our_path);
          if (const error_code rec = co_await std::move(gone)) co_return rec;
        } else {
          // We go last: `ready` and our node go in one round trip, `ready` first, so the
          // members woken by our node's deletion list no `ready` and need not delete it.
          auto both = remove(impl, st->ready_path) && remove(impl, st->our_path);
          const auto [rec, oec] = co_await std::move(both);
          if (oec) co_return oec;
          if (rec) co_return rec;
          ready_listed = false;
        }
        ours_deleted = true;
        done = true;
        break;
      }
      case kind::our_node_missing:
        co_return make_error_code(errc::lock_lost);
      case kind::watch:
      case kind::delete_mine_and_watch: {
        watch w;
        std::optional<node_stat> there;
        if (step.what == kind::delete_mine_and_watch) {
          // The watch and our delete in one round trip (Curator waits for the first).
          auto both =
              exists(impl, join_path(st->path, step.node), &w) && remove(impl, st->our_path);
          // (The operators flatten the results: exists' two, then the delete's.)
          auto [xec, stat, rec] = co_await std::move(both);
          if (xec) co_return xec;
          if (rec) co_return rec;
          ours_deleted = true;
          there = stat;
        } else {
          auto look = exists(impl, join_path(st->path, step.node), &w);
          auto [xec, stat] = co_await std::move(look);
          if (xec) co_return xec;
          there = stat;
        }
        if (there) {
          if (passed(until)) co_return make_error_code(errc::timeout);
          auto wait = wait_for(w, until);
          if (const error_code wec = co_await std::move(wait)) co_return wec;
        }
        break;
      }
    }
  }
  // Whoever leaves last finds `ready` still there (Curator deletes it at the end, kazoo first).
  // Only when our last listing showed it: otherwise it is gone already, and a `ready` made
  // since then belongs to the next round's members.
  if (!ready_listed) co_return error_code();
  auto unready = remove(impl, st->ready_path);
  co_return co_await std::move(unready);
}

asio::awaitable<error_code> run(std::shared_ptr<double_barrier_state> st, bool enter,
                                deadline until) {
  // Cancellation ends the wait in progress with operation_aborted; the clean-up still runs.
  co_await asio::this_coro::throw_if_cancelled(false);
  error_code ec;
  try {
    auto body = enter ? enter_body(st, until) : leave_body(st, until);
    ec = co_await std::move(body);
  } catch (const system_error& e) {
    ec = e.code();
  }
  bool remove_ours = static_cast<bool>(ec) || !enter;
  {
    std::lock_guard lock(st->mutex);
    st->busy = false;
    st->entered = enter && !ec && !st->abandoned;
    if (st->abandoned) remove_ours = true;
  }
  if (remove_ours) {
    // Nothing left behind: a failed enter or leave is not counted by the others.
    auto gone = remove(st->impl, st->our_path);
    if (const error_code rec = co_await std::move(gone); rec && ec) {
      st->impl->logger()->warn("double barrier {}: deleting our node {} failed: {}", st->path,
                               st->our_path, rec.message());
    }
  }
  co_return ec;
}

}  // namespace

}  // namespace zkcoord::detail

namespace zkcoord {

namespace asio = boost::asio;

double_barrier::double_barrier(session& s, std::string path, std::uint32_t member_count)
    : state_(std::make_shared<detail::double_barrier_state>(detail::session_access::impl(s),
                                                            std::move(path), member_count)) {}

double_barrier::~double_barrier() {
  if (!state_ || !state_->impl) return;
  bool remove_now = false;
  {
    std::lock_guard lock(state_->mutex);
    state_->abandoned = true;
    remove_now = state_->entered && !state_->busy;
    state_->entered = false;
  }
  if (remove_now) {
    asio::co_spawn(state_->impl->tracked_executor(),
                   detail::barrier_io::remove(state_->impl, state_->our_path), asio::detached);
  }
}

double_barrier& double_barrier::operator=(double_barrier&& other) noexcept {
  if (this != &other) {
    double_barrier gone(std::move(*this));
    state_ = std::move(other.state_);
  }
  return *this;
}

const std::string& double_barrier::path() const noexcept {
  static const std::string none;
  return state_ ? state_->path : none;
}

std::uint32_t double_barrier::member_count() const noexcept {
  return state_ ? state_->member_count : 0;
}

const std::string& double_barrier::node_name() const noexcept {
  static const std::string none;
  return state_ ? state_->name : none;
}

void double_barrier::start(std::shared_ptr<detail::double_barrier_state> state, bool enter,
                           std::optional<std::chrono::steady_clock::duration> timeout,
                           detail::void_completion handler) {
  if (!state || !state->impl) {
    // A moved-from object (or session).
    return detail::complete_via(detail::handler_executor(asio::system_executor()),
                                std::move(handler), make_error_code(errc::bad_argument));
  }
  const detail::handler_executor executor = state->impl->tracked_executor();
  if (const std::string why = path_problem(state->path); !why.empty()) {
    state->impl->logger()->warn("double barrier path refused: {}", why);
    return detail::complete_via(executor, std::move(handler), make_error_code(errc::bad_path));
  }
  if (state->member_count == 0) {
    state->impl->logger()->warn("double barrier {}: member_count is 0", state->path);
    return detail::complete_via(executor, std::move(handler), make_error_code(errc::bad_argument));
  }
  {
    std::lock_guard lock(state->mutex);
    error_code refused;
    if (state->busy || (enter && state->entered)) {
      refused = make_error_code(errc::already_held);
    } else if (!enter && !state->entered) {
      refused = make_error_code(errc::not_held);
    }
    if (refused) return detail::complete_via(executor, std::move(handler), refused);
    state->busy = true;
  }
  const detail::barrier_io::deadline until =
      timeout ? detail::barrier_io::deadline(std::chrono::steady_clock::now() + *timeout)
              : std::nullopt;
  auto slot = asio::get_associated_cancellation_slot(handler);
  asio::co_spawn(
      executor, detail::run(std::move(state), enter, until),
      asio::bind_cancellation_slot(slot, [handler = std::move(handler), executor](
                                             std::exception_ptr e, error_code ec) mutable {
        if (e) ec = make_error_code(zk_errc::system_error);
        detail::complete_via(executor, std::move(handler), ec);
      }));
}

}  // namespace zkcoord
