// The session's operations: validate, submit to the C client, convert the reply, complete on
// the caller's executor.
#include "session_impl.hpp"

#include "c_types.hpp"
#include "session_replies.hpp"

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
  return m == create_mode::persistent_sequential || m == create_mode::ephemeral_sequential;
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
  auto op = impl->make_op<created_node>(std::move(h));
  auto acl = detail::c_acl(options.acl_entries.empty() ? impl->options().default_acl
                                                       : options.acl_entries);
  impl->submit(std::move(op), [&](zhandle_t* zh, pending_op<created_node>* raw) {
    return zoo_acreate2(zh, path.c_str(), data.data(), static_cast<int>(data.size()), acl.get(),
                        detail::to_zk_mode(options.mode), &detail::on_create_reply, raw);
  });
}

void session::detail_start_get(impl_ptr impl, detail::completion<node_data> h, std::string path,
                               watch* w) {
  if (auto why = path_problem(path); !why.empty())
    return refuse<node_data>(*impl, std::move(h), errc::bad_path, why);
  auto op = impl->make_op<node_data>(std::move(h));
  if (w) op->watch = impl->arm(*w, path, ZWATCHTYPE_DATA);
  std::unique_lock wire(impl->watch_wire_mutex(), std::defer_lock);
  if (w) wire.lock();
  impl->submit(std::move(op), [&](zhandle_t* zh, pending_op<node_data>* raw) {
    if (!raw->watch) return zoo_aget(zh, path.c_str(), 0, &detail::on_get_reply, raw);
    return zoo_awget(zh, path.c_str(), &session_impl::on_watch_event,
                     session_impl::watch_context(*raw->watch), &detail::on_get_reply, raw);
  });
}

void session::detail_start_set(impl_ptr impl, detail::completion<node_stat> h, std::string path,
                               std::string data, std::int32_t version) {
  if (auto why = path_problem(path); !why.empty())
    return refuse<node_stat>(*impl, std::move(h), errc::bad_path, why);
  if (data.size() > detail::max_data_size)
    return refuse<node_stat>(*impl, std::move(h), errc::data_too_large,
                             "data for \"" + path + "\" exceeds ZooKeeper's 1 MiB limit");
  impl->submit(impl->make_op<node_stat>(std::move(h)),
               [&](zhandle_t* zh, pending_op<node_stat>* raw) {
                 return zoo_aset(zh, path.c_str(), data.data(), static_cast<int>(data.size()),
                                 version, &detail::on_set_reply, raw);
               });
}

void session::detail_start_exists(impl_ptr impl, detail::completion<std::optional<node_stat>> h,
                                  std::string path, watch* w) {
  using result = std::optional<node_stat>;
  if (auto why = path_problem(path); !why.empty())
    return refuse<result>(*impl, std::move(h), errc::bad_path, why);
  auto op = impl->make_op<result>(std::move(h));
  if (w) op->watch = impl->arm(*w, path, ZWATCHTYPE_DATA);
  std::unique_lock wire(impl->watch_wire_mutex(), std::defer_lock);
  if (w) wire.lock();
  impl->submit(std::move(op), [&](zhandle_t* zh, pending_op<result>* raw) {
    if (!raw->watch) return zoo_aexists(zh, path.c_str(), 0, &detail::on_exists_reply, raw);
    return zoo_awexists(zh, path.c_str(), &session_impl::on_watch_event,
                        session_impl::watch_context(*raw->watch), &detail::on_exists_reply, raw);
  });
}

void session::detail_start_children(impl_ptr impl, detail::completion<child_list> h,
                                    std::string path, watch* w) {
  if (auto why = path_problem(path); !why.empty())
    return refuse<child_list>(*impl, std::move(h), errc::bad_path, why);
  auto op = impl->make_op<child_list>(std::move(h));
  if (w) op->watch = impl->arm(*w, path, ZWATCHTYPE_CHILD);
  std::unique_lock wire(impl->watch_wire_mutex(), std::defer_lock);
  if (w) wire.lock();
  impl->submit(std::move(op), [&](zhandle_t* zh, pending_op<child_list>* raw) {
    if (!raw->watch)
      return zoo_aget_children2(zh, path.c_str(), 0, &detail::on_children_reply, raw);
    return zoo_awget_children2(zh, path.c_str(), &session_impl::on_watch_event,
                               session_impl::watch_context(*raw->watch), &detail::on_children_reply,
                               raw);
  });
}

void session::detail_start_remove(impl_ptr impl, detail::void_completion h, std::string path,
                                  std::int32_t version) {
  if (auto why = path_problem(path); !why.empty())
    return refuse<void>(*impl, std::move(h), errc::bad_path, why);
  impl->submit(impl->make_op<void>(std::move(h)), [&](zhandle_t* zh, pending_op<void>* raw) {
    return zoo_adelete(zh, path.c_str(), version, &detail::on_void_reply, raw);
  });
}

void session::detail_start_sync(impl_ptr impl, detail::void_completion h, std::string path) {
  if (auto why = path_problem(path); !why.empty())
    return refuse<void>(*impl, std::move(h), errc::bad_path, why);
  impl->submit(impl->make_op<void>(std::move(h)), [&](zhandle_t* zh, pending_op<void>* raw) {
    return zoo_async(zh, path.c_str(), &detail::on_sync_reply, raw);
  });
}

void session::detail_start_wait_state(impl_ptr impl, detail::void_completion h,
                                      session_state state) {
  impl->start_wait_state(std::move(h), state);
}

}  // namespace zkcoord
