// SPDX-License-Identifier: Apache-2.0
// The session's operations: validate, submit to the C client, convert the reply, complete on
// the caller's executor.
#include "session_impl.hpp"

#include "c_types.hpp"
#include "session_requests.hpp"

#include <zkcoord/path.hpp>

#include <spdlog/spdlog.h>

namespace zkcoord {

using detail::pending_op;
using detail::session_impl;

namespace {

// Completes an op whose arguments were refused before anything was sent, logging why.
template <class T, class Handler>
void refuse(session_impl& impl, Handler&& handler, errc why, const std::string& message) {
  impl.logger()->warn("{}", message);
  session_impl::fail(impl.make_op<T>(std::forward<Handler>(handler)), make_error_code(why));
}

bool sequential(create_mode m) {
  return is_sequential(m);
}

}  // namespace

using impl_ptr = const std::shared_ptr<session_impl>&;

void session::detail_start_connect(impl_ptr impl, detail::void_completion h) {
  impl->start_connect(std::move(h));
}

void session::detail_start_create(impl_ptr impl, detail::completion<created_node> h,
                                  std::string path, std::string data, create_options options) {
  if (auto why = path_problem(path, sequential(options.mode)); !why.empty())
    return refuse<created_node>(*impl, std::move(h), errc::bad_path, why);
  if (data.size() > detail::max_data_size)
    return refuse<created_node>(*impl, std::move(h), errc::data_too_large,
                                "data for \"" + path + "\" exceeds ZooKeeper's 1 MiB limit");
  if (auto why = detail::ttl_problem(options.mode, options.ttl); !why.empty())
    return refuse<created_node>(*impl, std::move(h), errc::bad_argument,
                                "create of \"" + path + "\": " + why);
  if (has_ttl(options.mode))
    return detail::request_create_ttl(*impl, detail::any_session, path, data, options.mode,
                                      options.ttl.count(), options.acl_entries, std::move(h));
  detail::request_create(*impl, detail::any_session, path, data, options.mode, options.acl_entries,
                         std::move(h));
}

void session::detail_start_get(impl_ptr impl, detail::completion<node_data> h, std::string path,
                               watch* w) {
  if (auto why = path_problem(path); !why.empty())
    return refuse<node_data>(*impl, std::move(h), errc::bad_path, why);
  detail::request_get(*impl, detail::any_session, path, w, std::move(h));
}

void session::detail_start_set(impl_ptr impl, detail::completion<node_stat> h, std::string path,
                               std::string data, std::int32_t version) {
  if (auto why = path_problem(path); !why.empty())
    return refuse<node_stat>(*impl, std::move(h), errc::bad_path, why);
  if (data.size() > detail::max_data_size)
    return refuse<node_stat>(*impl, std::move(h), errc::data_too_large,
                             "data for \"" + path + "\" exceeds ZooKeeper's 1 MiB limit");
  detail::request_set(*impl, detail::any_session, path, data, version, std::move(h));
}

void session::detail_start_exists(impl_ptr impl, detail::completion<std::optional<node_stat>> h,
                                  std::string path, watch* w) {
  using result = std::optional<node_stat>;
  if (auto why = path_problem(path); !why.empty())
    return refuse<result>(*impl, std::move(h), errc::bad_path, why);
  detail::request_exists(*impl, detail::any_session, path, w, std::move(h));
}

void session::detail_start_children(impl_ptr impl, detail::completion<child_list> h,
                                    std::string path, watch* w) {
  if (auto why = path_problem(path); !why.empty())
    return refuse<child_list>(*impl, std::move(h), errc::bad_path, why);
  detail::request_children(*impl, detail::any_session, path, w, std::move(h));
}

void session::detail_start_remove(impl_ptr impl, detail::void_completion h, std::string path,
                                  std::int32_t version) {
  if (auto why = path_problem(path); !why.empty())
    return refuse<void>(*impl, std::move(h), errc::bad_path, why);
  detail::request_remove(*impl, detail::any_session, path, version, std::move(h));
}

void session::detail_start_sync(impl_ptr impl, detail::void_completion h, std::string path) {
  if (auto why = path_problem(path); !why.empty())
    return refuse<void>(*impl, std::move(h), errc::bad_path, why);
  detail::request_sync(*impl, detail::any_session, path, std::move(h));
}

void session::detail_start_wait_state(impl_ptr impl, detail::void_completion h,
                                      session_state state) {
  impl->start_wait_state(std::move(h), state);
}

}  // namespace zkcoord
