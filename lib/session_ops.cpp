// The session's operations: validate, submit to the C client, convert the reply, complete on
// the caller's executor.
#include "session_impl.hpp"

#include "c_types.hpp"

#include <zkcoord/path.hpp>

#include <spdlog/spdlog.h>

namespace zkcoord {

using detail::pending_op;
using detail::session_impl;

namespace {

template <class T>
std::unique_ptr<pending_op<T>> take(const void* data) {
  return std::unique_ptr<pending_op<T>>(static_cast<pending_op<T>*>(const_cast<void*>(data)));
}

// Completes an op whose arguments were refused before anything was sent, logging why.
template <class T, class Handler>
void refuse(session_impl& impl, Handler&& handler, errc why, const std::string& message) {
  impl.logger()->warn("{}", message);
  session_impl::fail(impl.make_op<T>(std::forward<Handler>(handler)), make_error_code(why));
}

// The watch registration outcome of a reply: the C client registers an exists watch on ZOK and
// ZNONODE, the others only on ZOK.
void settle_watch(const detail::op_base& op, int rc, bool exists_watch) {
  if (!op.watch) return;
  if (rc == ZOK || (exists_watch && rc == ZNONODE)) return;
  op.impl->forget_watch(*op.watch);
  op.watch->finish(std::nullopt, from_zk_result(rc));
}

void on_create_reply(int rc, const char* path, const Stat* stat, const void* data) {
  auto op = take<created_node>(data);
  op->note_reply(rc);
  created_node out;
  if (rc == ZOK) {
    out.path = path;
    out.stat = detail::to_node_stat(*stat);
  }
  op->finish(from_zk_result(rc), std::move(out));
}

void on_get_reply(int rc, const char* value, int len, const Stat* stat, const void* data) {
  auto op = take<node_data>(data);
  op->note_reply(rc);
  settle_watch(*op, rc, false);
  node_data out;
  if (rc == ZOK) {
    if (value && len > 0) out.data.assign(value, static_cast<std::size_t>(len));
    out.stat = detail::to_node_stat(*stat);
  }
  op->finish(from_zk_result(rc), std::move(out));
}

void on_set_reply(int rc, const Stat* stat, const void* data) {
  auto op = take<node_stat>(data);
  op->note_reply(rc);
  op->finish(from_zk_result(rc), rc == ZOK ? detail::to_node_stat(*stat) : node_stat{});
}

void on_exists_reply(int rc, const Stat* stat, const void* data) {
  auto op = take<std::optional<node_stat>>(data);
  op->note_reply(rc);
  settle_watch(*op, rc, true);
  if (rc == ZNONODE) return op->finish({}, std::nullopt);
  op->finish(from_zk_result(rc),
             rc == ZOK ? std::optional(detail::to_node_stat(*stat)) : std::nullopt);
}

void on_children_reply(int rc, const String_vector* names, const Stat* stat, const void* data) {
  auto op = take<child_list>(data);
  op->note_reply(rc);
  settle_watch(*op, rc, false);
  child_list out;
  if (rc == ZOK) {
    out.names.reserve(static_cast<std::size_t>(names->count));
    for (int i = 0; i < names->count; ++i) out.names.emplace_back(names->data[i]);
    out.stat = detail::to_node_stat(*stat);
  }
  op->finish(from_zk_result(rc), std::move(out));
}

void on_void_reply(int rc, const void* data) {
  auto op = take<void>(data);
  op->note_reply(rc);
  op->finish(from_zk_result(rc));
}

void on_sync_reply(int rc, const char*, const void* data) {
  on_void_reply(rc, data);
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
                        detail::to_zk_mode(options.mode), &on_create_reply, raw);
  });
}

void session::detail_start_get(impl_ptr impl, detail::completion<node_data> h, std::string path,
                               watch* w) {
  if (auto why = path_problem(path); !why.empty())
    return refuse<node_data>(*impl, std::move(h), errc::bad_path, why);
  auto op = impl->make_op<node_data>(std::move(h));
  if (w) op->watch = impl->arm(*w, path, ZWATCHTYPE_DATA);
  impl->submit(std::move(op), [&](zhandle_t* zh, pending_op<node_data>* raw) {
    if (!raw->watch) return zoo_aget(zh, path.c_str(), 0, &on_get_reply, raw);
    return zoo_awget(zh, path.c_str(), &session_impl::on_watch_event,
                     session_impl::watch_context(*raw->watch), &on_get_reply, raw);
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
                                 version, &on_set_reply, raw);
               });
}

void session::detail_start_exists(impl_ptr impl, detail::completion<std::optional<node_stat>> h,
                                  std::string path, watch* w) {
  using result = std::optional<node_stat>;
  if (auto why = path_problem(path); !why.empty())
    return refuse<result>(*impl, std::move(h), errc::bad_path, why);
  auto op = impl->make_op<result>(std::move(h));
  if (w) op->watch = impl->arm(*w, path, ZWATCHTYPE_DATA);
  impl->submit(std::move(op), [&](zhandle_t* zh, pending_op<result>* raw) {
    if (!raw->watch) return zoo_aexists(zh, path.c_str(), 0, &on_exists_reply, raw);
    return zoo_awexists(zh, path.c_str(), &session_impl::on_watch_event,
                        session_impl::watch_context(*raw->watch), &on_exists_reply, raw);
  });
}

void session::detail_start_children(impl_ptr impl, detail::completion<child_list> h,
                                    std::string path, watch* w) {
  if (auto why = path_problem(path); !why.empty())
    return refuse<child_list>(*impl, std::move(h), errc::bad_path, why);
  auto op = impl->make_op<child_list>(std::move(h));
  if (w) op->watch = impl->arm(*w, path, ZWATCHTYPE_CHILD);
  impl->submit(std::move(op), [&](zhandle_t* zh, pending_op<child_list>* raw) {
    if (!raw->watch) return zoo_aget_children2(zh, path.c_str(), 0, &on_children_reply, raw);
    return zoo_awget_children2(zh, path.c_str(), &session_impl::on_watch_event,
                               session_impl::watch_context(*raw->watch), &on_children_reply, raw);
  });
}

void session::detail_start_remove(impl_ptr impl, detail::void_completion h, std::string path,
                                  std::int32_t version) {
  if (auto why = path_problem(path); !why.empty())
    return refuse<void>(*impl, std::move(h), errc::bad_path, why);
  impl->submit(impl->make_op<void>(std::move(h)), [&](zhandle_t* zh, pending_op<void>* raw) {
    return zoo_adelete(zh, path.c_str(), version, &on_void_reply, raw);
  });
}

void session::detail_start_sync(impl_ptr impl, detail::void_completion h, std::string path) {
  if (auto why = path_problem(path); !why.empty())
    return refuse<void>(*impl, std::move(h), errc::bad_path, why);
  impl->submit(impl->make_op<void>(std::move(h)), [&](zhandle_t* zh, pending_op<void>* raw) {
    return zoo_async(zh, path.c_str(), &on_sync_reply, raw);
  });
}

void session::detail_start_wait_state(impl_ptr impl, detail::void_completion h,
                                      session_state state) {
  impl->start_wait_state(std::move(h), state);
}

}  // namespace zkcoord
