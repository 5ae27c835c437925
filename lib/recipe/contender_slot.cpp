// SPDX-License-Identifier: Apache-2.0
// Starting acquire attempts of a recipe object: the checks every recipe makes before it
// creates a node, in one place.
#include "recipe/contender_slot.hpp"

#include "recipe/attempt_driver.hpp"
#include "recipe/contender_attempt.hpp"
#include "recipe/node_name.hpp"
#include "session/c_types.hpp"

#include <zkcoord/detail/contender_handle.hpp>
#include <zkcoord/detail/session_access.hpp>
#include <zkcoord/path.hpp>

#include <boost/asio/error.hpp>
#include <boost/asio/system_executor.hpp>

#include <spdlog/spdlog.h>

namespace zkcoord::detail {

contender_slot::contender_slot(const session& s, std::string path, recipe_metrics::reports reports,
                               std::string metrics_path)
    : session_(detail::session_access::impl(s)),
      executor_(s.get_executor()),
      path_(std::move(path)),
      reports_(reports),
      metrics_path_(metrics_path.empty() ? path_ : std::move(metrics_path)) {}

void contender_slot::abort_pending() {
  std::lock_guard lock(mutex_);
  if (auto a = current_.lock(); a && a->acquire_pending())
    a->abort(make_error_code(boost::asio::error::operation_aborted));
}

bool contender_slot::busy() {
  std::lock_guard lock(mutex_);
  const auto current = current_.lock();
  return current && (current->acquire_pending() || current->owns());
}

void contender_slot::start(const char* what, const acquire_request& request, grant_policy policy,
                           const node_data_of& data, completion<ownership> handler) {
  const auto fail = [&](const handler_executor& ex, error_code ec) {
    complete_via(ex, std::move(handler), ec, ownership());
  };
  auto impl = session_.lock();
  if (!impl) return fail(executor_, make_error_code(errc::closed));
  if (const std::string why = path_problem(path_); !why.empty()) {
    impl->logger()->warn("{} path refused: {}", what, why);
    return fail(impl->tracked_executor(), make_error_code(errc::bad_path));
  }
  if (const error_code ec = session_problem(*impl)) return fail(impl->tracked_executor(), ec);
  std::lock_guard lock(mutex_);
  if (auto current = current_.lock(); current && (current->acquire_pending() || current->owns())) {
    return fail(impl->tracked_executor(), make_error_code(errc::already_held));
  }
  std::string node_data = data(impl->session_id());
  if (node_data.size() > max_data_size) {
    // Sent anyway, the server would drop the connection, and the lost create would be retried.
    impl->logger()->warn("{} {}: node data too large for a ZooKeeper node", what, path_);
    return fail(impl->tracked_executor(), make_error_code(errc::data_too_large));
  }
  contender_config config{.lock_path = path_,
                          .node_prefix = new_protected_node_prefix(policy.creates()),
                          .node_data = std::move(node_data),
                          .session_id = impl->session_id(),
                          .mode = request.try_once ? wait_mode::try_once : wait_mode::wait,
                          .policy = policy};
  recipe_metrics metrics(impl->options().metrics, recipe_of(policy.creates()), metrics_path_,
                         reports_);
  auto attempt = std::make_shared<contender_attempt>(impl, std::move(config), std::move(metrics));
  current_ = attempt;
  attempt->start(*impl, std::move(handler), request.timeout);
}

void abort_pending(contender_slot& state) noexcept {
  state.abort_pending();
}

const std::string& path_of(const contender_slot* state) noexcept {
  static const std::string none;
  return state ? state->path() : none;
}

}  // namespace zkcoord::detail
