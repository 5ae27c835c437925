// The lock object: one contender on one path. It validates, refuses a second acquire while
// the first is pending or its grant still held, and starts an attempt (contender_attempt) per
// acquire.
#include "recipe/contender_attempt.hpp"

#include "recipe/holder_data.hpp"
#include "recipe/node_name.hpp"
#include "session/c_types.hpp"

#include <zkcoord/lock.hpp>
#include <zkcoord/path.hpp>

#include <boost/asio/error.hpp>

#include <spdlog/spdlog.h>

namespace zkcoord {
namespace detail {

class lock_state {
 public:
  lock_state(const session& s, std::string path, lock_options options)
      : session(s.impl()),
        executor(s.get_executor()),
        path(std::move(path)),
        options(std::move(options)) {}

  /// Aborts the pending acquire, if any (the lock object is going away).
  void abort_pending() {
    std::lock_guard lock(mutex);
    if (auto a = current.lock(); a && a->acquire_pending())
      a->abort(make_error_code(boost::asio::error::operation_aborted));
  }

  const std::weak_ptr<session_impl> session;
  const boost::asio::any_io_executor executor;
  const std::string path;
  const lock_options options;
  std::mutex mutex;
  std::weak_ptr<contender_attempt> current;  ///< the latest attempt (kept alive by itself/handle)
};

namespace {

// Why an acquire cannot start on this session now, or success.
error_code session_problem(const session_impl& impl) {
  const session_state s = impl.state();
  if (s == session_state::closed) {
    return make_error_code(impl.session_id() == 0 ? errc::not_connected : errc::closed);
  }
  if (impl.session_id() == 0) return make_error_code(errc::not_connected);
  // Expired and not yet renewed: nothing to queue on (an acquire is never carried over).
  if (s == session_state::expired) return make_error_code(zk_errc::session_expired);
  return {};
}

}  // namespace
}  // namespace detail

namespace {
const std::string no_path;
}

lock::lock(session& s, std::string lock_path, lock_options options)
    : state_(std::make_shared<detail::lock_state>(s, std::move(lock_path), std::move(options))) {}

lock::~lock() {
  if (state_) state_->abort_pending();
}

lock::lock(lock&& other) noexcept = default;

lock& lock::operator=(lock&& other) noexcept {
  if (this != &other) {
    if (state_) state_->abort_pending();
    state_ = std::move(other.state_);
  }
  return *this;
}

const std::string& lock::path() const noexcept {
  return state_ ? state_->path : no_path;
}

void lock::start_acquire(std::shared_ptr<detail::lock_state> state, detail::acquire_request request,
                         detail::completion<held_lock> handler) {
  using detail::complete_via;
  const auto fail = [&](const detail::handler_executor& ex, error_code ec) {
    complete_via(ex, std::move(handler), ec, held_lock());
  };
  if (!state) {
    return fail(detail::handler_executor(boost::asio::system_executor()),
                make_error_code(errc::bad_argument));
  }
  auto impl = state->session.lock();
  if (!impl) return fail(state->executor, make_error_code(errc::closed));
  if (const std::string why = path_problem(state->path); !why.empty()) {
    impl->logger()->warn("lock path refused: {}", why);
    return fail(impl->tracked_executor(), make_error_code(errc::bad_path));
  }
  if (const error_code ec = detail::session_problem(*impl)) {
    return fail(impl->tracked_executor(), ec);
  }
  std::lock_guard lock(state->mutex);
  if (auto current = state->current.lock();
      current && (current->acquire_pending() || current->owns())) {
    return fail(impl->tracked_executor(), make_error_code(errc::already_held));
  }
  std::string data = detail::encode_holder_data(
      detail::this_process_holder(state->options.app_id, impl->session_id()));
  if (data.size() > detail::max_data_size) {
    // Sent anyway, the server would drop the connection, and the lost create would be retried.
    impl->logger()->warn("lock {}: app_id too large for a ZooKeeper node", state->path);
    return fail(impl->tracked_executor(), make_error_code(errc::data_too_large));
  }
  detail::contender_config config{
      .lock_path = state->path,
      .node_prefix = detail::new_protected_node_prefix(),
      .node_data = std::move(data),
      .session_id = impl->session_id(),
      .mode = request.try_once ? detail::wait_mode::try_once : detail::wait_mode::wait};
  auto attempt = std::make_shared<detail::contender_attempt>(impl, std::move(config));
  state->current = attempt;
  attempt->start(*impl, std::move(handler), request.timeout);
}

}  // namespace zkcoord
