// SPDX-License-Identifier: Apache-2.0
// shared_count: Curator's SharedCount. Reads create the node with the seed when it is missing;
// try_set is a versioned set; every value read or written is offered to the cache, which only
// moves forward by mzxid; a reconnect or a new session reads the value again.
#include "counter/counter_codec.hpp"
#include "session/container_parents.hpp"
#include "session/session_requests.hpp"

#include <zkcoord/counter.hpp>
#include <zkcoord/detail/session_access.hpp>
#include <zkcoord/path.hpp>

#include <spdlog/spdlog.h>

#include <boost/asio/system_executor.hpp>

#include <functional>
#include <mutex>

namespace zkcoord::detail {

using count_done = std::function<void(error_code, versioned_count)>;

class shared_count_state : public std::enable_shared_from_this<shared_count_state> {
 public:
  shared_count_state(const session& s, std::string path, std::int32_t seed)
      : session_(session_access::impl(s)), path_(std::move(path)), seed_(seed) {}

  /// Re-reads the value after a reconnect or on a new session (CURATOR-311).
  void watch_session(session& s) {
    subscription_ = s.subscribe([weak = weak_from_this()](session_state state) {
      if (state != session_state::reconnected && state != session_state::connected) return;
      auto self = weak.lock();
      if (!self || !self->current()) return;  // never read: nothing cached to refresh
      self->read_existing([self](error_code ec, versioned_count) {
        if (ec)
          self->logger()->debug("shared_count {}: re-read failed: {}", self->path_, ec.message());
      });
    });
  }

  const std::string& path() const noexcept { return path_; }
  std::int32_t seed() const noexcept { return seed_; }
  session_impl& impl() const noexcept { return *session_; }
  handler_executor executor() const { return session_->tracked_executor(); }
  const std::shared_ptr<spdlog::logger>& logger() const noexcept { return session_->logger(); }

  std::optional<versioned_count> current() const {
    std::lock_guard lock(mutex_);
    return cached_;
  }

  /// Offers a value read or written; returns the newest one seen (CURATOR-688).
  versioned_count offer(const versioned_count& fresh) {
    std::lock_guard lock(mutex_);
    if (moves_forward(cached_, fresh)) cached_ = fresh;
    return *cached_;
  }

  /// Reads the node, creating it with the seed if missing.
  void read(count_done done, int creates_left = 3) {
    request_get(*session_, any_session, path_, nullptr,
                [self = shared_from_this(), done = std::move(done), creates_left](
                    error_code ec, node_data got) mutable {
                  if (ec == condition::not_found && creates_left > 0)
                    return self->create_then_read(std::move(done), creates_left - 1, true);
                  self->finish_read(ec, got, done);
                });
  }

  /// Reads the node without creating it (the re-read after a reconnect).
  void read_existing(count_done done) {
    request_get(*session_, any_session, path_, nullptr,
                [self = shared_from_this(), done = std::move(done)](error_code ec, node_data got) {
                  self->finish_read(ec, got, done);
                });
  }

 private:
  void finish_read(error_code ec, const node_data& got, const count_done& done) {
    if (ec) return done(ec, {});
    const decoded_counter decoded = decode_counter(got.data, 4, seed_);
    if (decoded.ec) {
      logger()->warn("shared_count {}: the node holds {} bytes, not 4", path_, got.data.size());
      return done(decoded.ec, {});
    }
    done({}, offer({static_cast<std::int32_t>(decoded.value), got.stat.version, got.stat.mzxid}));
  }

  // An existing node is kept as it is (Curator ignores "exists" too): its value is read.
  void create_then_read(count_done done, int creates_left, bool parents_left) {
    request_create(
        *session_, any_session, path_, encode_counter(seed_, 4), create_mode::persistent, {},
        [self = shared_from_this(), done = std::move(done), creates_left, parents_left](
            error_code ec, created_node) mutable {
          if (ec == condition::not_found && parents_left && parent_path(self->path_) != "/") {
            return request_container_parents(*self->session_, any_session, parent_path(self->path_),
                                             [self, done = std::move(done), creates_left](
                                                 error_code pec, std::vector<std::string>) mutable {
                                               if (pec) return done(pec, {});
                                               self->create_then_read(std::move(done), creates_left,
                                                                      false);
                                             });
          }
          if (ec && ec != condition::already_exists) return done(ec, {});
          self->read(std::move(done), creates_left);
        });
  }

  std::shared_ptr<session_impl> session_;
  std::string path_;
  std::int32_t seed_;
  mutable std::mutex mutex_;
  std::optional<versioned_count> cached_;
  state_subscription subscription_;
};

namespace {

/// The user's handler, copyable so that it fits in a count_done.
template <class T>
auto shared_handler(completion<T> handler) {
  return std::make_shared<completion<T>>(std::move(handler));
}

}  // namespace

}  // namespace zkcoord::detail

namespace zkcoord {

shared_count::shared_count(session& s, std::string path, std::int32_t seed)
    : state_(std::make_shared<detail::shared_count_state>(s, std::move(path), seed)) {
  state_->watch_session(s);
}
shared_count::~shared_count() = default;
shared_count::shared_count(shared_count&&) noexcept = default;
shared_count& shared_count::operator=(shared_count&&) noexcept = default;

const std::string& shared_count::path() const noexcept {
  static const std::string none;
  return state_ ? state_->path() : none;
}
std::int32_t shared_count::seed() const noexcept {
  return state_ ? state_->seed() : 0;
}
std::optional<versioned_count> shared_count::current() const {
  return state_ ? state_->current() : std::nullopt;
}

void shared_count::start_get(std::shared_ptr<detail::shared_count_state> state,
                             detail::completion<versioned_count> handler) {
  if (!state) {  // a moved-from object
    return detail::complete_via(detail::handler_executor(boost::asio::system_executor()),
                                std::move(handler), make_error_code(errc::bad_argument),
                                versioned_count{});
  }
  const detail::handler_executor executor = state->executor();
  if (!path_problem(state->path()).empty()) {
    return detail::complete_via(executor, std::move(handler), make_error_code(errc::bad_path),
                                versioned_count{});
  }
  state->read([executor, h = detail::shared_handler(std::move(handler))](error_code ec,
                                                                         versioned_count value) {
    detail::complete_via(executor, std::move(*h), ec, value);
  });
}

void shared_count::start_try_set(std::shared_ptr<detail::shared_count_state> state,
                                 versioned_count expected, std::int32_t new_value,
                                 detail::completion<count_set_result> handler) {
  if (!state) {
    return detail::complete_via(detail::handler_executor(boost::asio::system_executor()),
                                std::move(handler), make_error_code(errc::bad_argument),
                                count_set_result{});
  }
  const detail::handler_executor executor = state->executor();
  if (!path_problem(state->path()).empty()) {
    return detail::complete_via(executor, std::move(handler), make_error_code(errc::bad_path),
                                count_set_result{});
  }
  if (!detail::checkable_version(expected.version)) {
    state->logger()->warn("shared_count {}: version -1 cannot be checked by ZooKeeper",
                          state->path());
    return detail::complete_via(executor, std::move(handler), make_error_code(errc::bad_argument),
                                count_set_result{});
  }
  auto h = detail::shared_handler(std::move(handler));
  detail::request_set(
      state->impl(), detail::any_session, state->path(), detail::encode_counter(new_value, 4),
      expected.version, [state, executor, h, new_value](error_code ec, node_stat stat) {
        if (!ec) {
          const versioned_count written{new_value, stat.version, stat.mzxid};
          state->offer(written);
          return detail::complete_via(executor, std::move(*h), error_code{},
                                      count_set_result{true, written});
        }
        if (ec != condition::version_conflict && ec != condition::not_found) {
          return detail::complete_via(executor, std::move(*h), ec, count_set_result{});
        }
        // Lost the race (or the node was deleted): report the value that won.
        state->read([executor, h](error_code rec, versioned_count now) {
          detail::complete_via(executor, std::move(*h), rec, count_set_result{false, now});
        });
      });
}

}  // namespace zkcoord
