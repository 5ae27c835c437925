// SPDX-License-Identifier: Apache-2.0
// distributed_atomic_long / _int: Curator's DistributedAtomicValue. An operation reads the
// node, plans its write (counter_codec), and writes it as a versioned set (or a create when the
// node is missing); a lost race is tried again up to max_tries, then, when promoted, again
// under the lock at lock_path. The operations of one object run one at a time.
#include "counter/counter_codec.hpp"
#include "session/container_parents.hpp"
#include "session/session_requests.hpp"

#include <zkcoord/counter.hpp>
#include <zkcoord/detail/session_access.hpp>
#include <zkcoord/lock.hpp>
#include <zkcoord/path.hpp>

#include <spdlog/spdlog.h>

#include <boost/asio/steady_timer.hpp>
#include <boost/asio/system_executor.hpp>

#include <algorithm>
#include <deque>
#include <functional>
#include <mutex>
#include <random>

namespace zkcoord::detail {

using atomic_done = std::function<void(error_code, atomic_result<std::int64_t>)>;

class atomic_counter_state : public std::enable_shared_from_this<atomic_counter_state> {
 public:
  atomic_counter_state(session& s, std::string path, int width, atomic_counter_options options)
      : session_(session_access::impl(s)),
        path_(std::move(path)),
        width_(width),
        options_(std::move(options)) {
    if (!options_.lock_path.empty()) lock_.emplace(s, options_.lock_path);
  }

  const std::string& path() const noexcept { return path_; }
  int width() const noexcept { return width_; }
  const atomic_counter_options& options() const noexcept { return options_; }
  session_impl& impl() const noexcept { return *session_; }
  handler_executor executor() const { return session_->tracked_executor(); }
  const std::shared_ptr<spdlog::logger>& logger() const noexcept { return session_->logger(); }
  zkcoord::lock* promotion_lock() noexcept { return lock_ ? &*lock_ : nullptr; }

  std::chrono::milliseconds retry_wait() {
    if (options_.retry_delay.count() <= 0) return std::chrono::milliseconds{0};
    std::lock_guard lock(mutex_);
    std::uniform_int_distribution<std::int64_t> pick(0, options_.retry_delay.count());
    return std::chrono::milliseconds{pick(random_)};
  }

  /// Runs `start` once every operation started before it has completed; it calls done().
  void enqueue(std::function<void()> start) {
    {
      std::lock_guard lock(mutex_);
      if (running_) return queue_.push_back(std::move(start));
      running_ = true;
    }
    start();
  }
  void done() {
    std::function<void()> next;
    {
      std::lock_guard lock(mutex_);
      if (queue_.empty()) {
        running_ = false;
        return;
      }
      next = std::move(queue_.front());
      queue_.pop_front();
    }
    post_to(executor(), std::move(next));
  }

 private:
  std::shared_ptr<session_impl> session_;
  std::string path_;
  int width_;
  atomic_counter_options options_;
  std::optional<zkcoord::lock> lock_;
  std::mutex mutex_;
  std::deque<std::function<void()>> queue_;
  bool running_ = false;
  std::minstd_rand random_{std::random_device{}()};
};

namespace {

/// One operation: optimistic attempts, then (promoted) attempts under the lock.
class atomic_operation : public std::enable_shared_from_this<atomic_operation> {
 public:
  atomic_operation(std::shared_ptr<atomic_counter_state> state, atomic_request request,
                   atomic_done done)
      : state_(std::move(state)), request_(request), done_(std::move(done)) {}

  void attempt() {
    if (held_)
      ++result_.promoted_tries;
    else
      ++result_.optimistic_tries;
    request_get(
        state_->impl(), any_session, state_->path(), nullptr,
        [self = shared_from_this()](error_code ec, node_data got) { self->on_read(ec, got); });
  }

 private:
  std::uint32_t tries_in_phase() const {
    return held_ ? result_.promoted_tries : result_.optimistic_tries;
  }

  std::uint32_t tries_allowed_in_phase() const {
    const auto& o = state_->options();
    return std::max<std::uint32_t>(1, held_ && o.lock_max_tries ? o.lock_max_tries : o.max_tries);
  }

  void on_read(error_code ec, const node_data& got) {
    const bool missing = ec == condition::not_found;
    if (ec && !missing) return finish(ec);
    std::int64_t current = 0;
    if (!missing) {
      const decoded_counter decoded = decode_counter(got.data, state_->width(), 0);
      if (decoded.ec) {
        state_->logger()->warn("distributed atomic {}: the node holds {} bytes, not {}",
                               state_->path(), got.data.size(), state_->width());
        return finish(decoded.ec);
      }
      current = decoded.value;
    }
    result_.pre_value = result_.post_value = current;
    const atomic_step step = plan_atomic_step(request_, current, state_->width());
    if (!step.write) {
      result_.succeeded = step.succeeded;
      return finish({});
    }
    if (missing) return create(step.new_value, true);
    if (!checkable_version(got.stat.version)) {
      // ZooKeeper reads version -1 as "any version": a set there would not be a compare.
      state_->logger()->warn("distributed atomic {}: version -1 cannot be checked", state_->path());
      return finish(make_error_code(errc::bad_argument));
    }
    request_set(state_->impl(), any_session, state_->path(),
                encode_counter(step.new_value, state_->width()), got.stat.version,
                [self = shared_from_this(), value = step.new_value](error_code sec, node_stat) {
                  self->on_written(sec, value);
                });
  }

  void create(std::int64_t value, bool parents_left) {
    request_create(
        state_->impl(), any_session, state_->path(), encode_counter(value, state_->width()),
        create_mode::persistent, {},
        [self = shared_from_this(), value, parents_left](error_code ec, created_node) {
          const std::string parent = parent_path(self->state_->path());
          if (ec == condition::not_found && parents_left && parent != "/") {
            return request_container_parents(
                self->state_->impl(), any_session, parent,
                [self, value](error_code pec, std::vector<std::string>) {
                  if (pec) return self->finish(pec);
                  self->create(value, false);
                });
          }
          self->on_written(
              ec == condition::already_exists ? make_error_code(zk_errc::bad_version) : ec, value);
        });
  }

  void on_written(error_code ec, std::int64_t value) {
    if (!ec) {
      result_.succeeded = true;
      result_.post_value = value;
      return finish({});
    }
    // Another writer got in between (or deleted or created the node): try again. Any other
    // error, connection loss included (the write may have happened), ends the operation.
    const bool lost_race = ec == condition::version_conflict || ec == condition::not_found;
    if (!lost_race) return finish(ec);
    if (!retries(request_)) return finish({});
    if (tries_in_phase() < tries_allowed_in_phase()) return retry();
    if (!held_ && state_->promotion_lock()) return promote();
    finish({});
  }

  void retry() {
    const auto wait = state_->retry_wait();
    if (wait.count() == 0)
      return post_to(state_->executor(), [self = shared_from_this()] { self->attempt(); });
    auto timer = std::make_shared<boost::asio::steady_timer>(state_->executor(), wait);
    timer->async_wait([self = shared_from_this(), timer](error_code) { self->attempt(); });
  }

  void promote() {
    state_->promotion_lock()->async_acquire(
        std::chrono::steady_clock::duration(state_->options().lock_timeout),
        [self = shared_from_this()](error_code ec, held_lock held) {
          if (ec) return self->finish(ec);
          self->held_.emplace(std::move(held));
          self->attempt();
        });
  }

  void finish(error_code ec) {
    if (ec) result_.succeeded = false;
    if (!held_) return deliver(ec);
    // The handle stays ours until the release completes; then the result goes out.
    held_->async_release([self = shared_from_this(), ec](error_code rec) {
      if (rec)
        self->state_->logger()->debug("distributed atomic {}: lock release: {}",
                                      self->state_->path(), rec.message());
      self->held_.reset();
      self->deliver(ec);
    });
  }

  void deliver(error_code ec) {
    done_(ec, result_);
    state_->done();
  }

  std::shared_ptr<atomic_counter_state> state_;
  atomic_request request_;
  atomic_done done_;
  atomic_result<std::int64_t> result_;
  std::optional<held_lock> held_;
};

template <class T>
atomic_result<T> narrow(const atomic_result<std::int64_t>& r) {
  return {r.succeeded, static_cast<T>(r.pre_value), static_cast<T>(r.post_value),
          r.optimistic_tries, r.promoted_tries};
}

template <class T>
void start_operation(std::shared_ptr<atomic_counter_state> state, atomic_request request,
                     completion<atomic_result<T>> handler) {
  if (!state) {  // a moved-from object
    return complete_via(handler_executor(boost::asio::system_executor()), std::move(handler),
                        make_error_code(errc::bad_argument), atomic_result<T>{});
  }
  const handler_executor executor = state->executor();
  if (!path_problem(state->path()).empty()) {
    return complete_via(executor, std::move(handler), make_error_code(errc::bad_path),
                        atomic_result<T>{});
  }
  auto h = std::make_shared<completion<atomic_result<T>>>(std::move(handler));
  auto op = std::make_shared<atomic_operation>(
      state, request, [executor, h](error_code ec, atomic_result<std::int64_t> r) {
        complete_via(executor, std::move(*h), ec, narrow<T>(r));
      });
  state->enqueue([op] { op->attempt(); });
}

}  // namespace

std::shared_ptr<atomic_counter_state> make_atomic_counter_state(session& s, std::string path,
                                                                int width,
                                                                atomic_counter_options options) {
  return std::make_shared<atomic_counter_state>(s, std::move(path), width, std::move(options));
}

const std::string& path_of(const atomic_counter_state* state) noexcept {
  static const std::string none;
  return state ? state->path() : none;
}

void start_atomic(std::shared_ptr<atomic_counter_state> state, atomic_request request,
                  completion<atomic_result<std::int64_t>> handler) {
  start_operation<std::int64_t>(std::move(state), request, std::move(handler));
}

void start_atomic(std::shared_ptr<atomic_counter_state> state, atomic_request request,
                  completion<atomic_result<std::int32_t>> handler) {
  start_operation<std::int32_t>(std::move(state), request, std::move(handler));
}

}  // namespace zkcoord::detail
