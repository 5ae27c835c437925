// SPDX-License-Identifier: Apache-2.0
#include "session/session_requests.hpp"

#include "session/c_types.hpp"
#include "session/session_replies.hpp"

namespace zkcoord::detail {
namespace {

// Sends `call(zh, raw_op)` if the session is still `pin`; otherwise the op fails as if the
// handle had been invalidated (session_expired, or closed after close()).
template <class Op, class Call>
void send(session_impl& impl, session_pin pin, request_kind kind, std::unique_ptr<Op> op,
          Call&& call) {
  impl.submit(kind, std::move(op), [&](zhandle_t* zh, Op* raw) {
    if (!session_is(impl, pin)) return static_cast<int>(ZINVALIDSTATE);
    return call(zh, raw);
  });
}

// An op that may arm a watch: armed before it is sent, and sent under the wire lock so that
// a removal of the path's watches never overtakes it.
template <class T, class Call>
void send_watching(session_impl& impl, session_pin pin, request_kind kind, const std::string& path,
                   watch* w, ZooWatcherType type, completion<T> handler, Call&& call) {
  auto op = impl.make_op<T>(std::move(handler));
  if (w) op->watch = impl.arm(*w, path, type);
  std::unique_lock wire(impl.watch_wire_mutex(), std::defer_lock);
  if (w) wire.lock();
  send(impl, pin, kind, std::move(op), std::forward<Call>(call));
}

}  // namespace

bool session_is(const session_impl& impl, session_pin pin) noexcept {
  if (pin == any_session) return true;
  const session_state s = impl.state();
  const bool live = s == session_state::connected || s == session_state::reconnected ||
                    s == session_state::suspended;
  return live && impl.session_id() == pin;
}

void request_create(session_impl& impl, session_pin pin, const std::string& path,
                    const std::string& data, create_mode mode, const acl& acl_entries,
                    completion<created_node> handler) {
  // Serialised by the call: may go after it.
  c_acl c(acl_entries.empty() ? impl.options().default_acl : acl_entries);
  send(impl, pin, &request_counters::creates, impl.make_op<created_node>(std::move(handler)),
       [&](zhandle_t* zh, auto* raw) {
         return zoo_acreate2(zh, path.c_str(), data.data(), static_cast<int>(data.size()), c.get(),
                             to_zk_mode(mode), &on_create_reply, raw);
       });
}

void request_create_ttl(session_impl& impl, session_pin pin, const std::string& path,
                        const std::string& data, create_mode mode, std::int64_t ttl_ms,
                        const acl& acl_entries, completion<created_node> handler) {
  c_acl c(acl_entries.empty() ? impl.options().default_acl : acl_entries);
  send(impl, pin, &request_counters::creates, impl.make_op<created_node>(std::move(handler)),
       [&](zhandle_t* zh, auto* raw) {
         return zoo_acreate2_ttl(zh, path.c_str(), data.data(), static_cast<int>(data.size()),
                                 c.get(), to_zk_mode(mode), ttl_ms, &on_create_ttl_reply, raw);
       });
}

void request_get(session_impl& impl, session_pin pin, const std::string& path, watch* w,
                 completion<node_data> handler) {
  send_watching<node_data>(impl, pin, &request_counters::gets, path, w, ZWATCHTYPE_DATA,
                           std::move(handler), [&](zhandle_t* zh, pending_op<node_data>* raw) {
                             if (!raw->watch)
                               return zoo_aget(zh, path.c_str(), 0, &on_get_reply, raw);
                             return zoo_awget(zh, path.c_str(), &session_impl::on_watch_event,
                                              session_impl::watch_context(*raw->watch),
                                              &on_get_reply, raw);
                           });
}

void request_set(session_impl& impl, session_pin pin, const std::string& path,
                 const std::string& data, std::int32_t version, completion<node_stat> handler) {
  send(impl, pin, &request_counters::sets, impl.make_op<node_stat>(std::move(handler)),
       [&](zhandle_t* zh, auto* raw) {
         return zoo_aset(zh, path.c_str(), data.data(), static_cast<int>(data.size()), version,
                         &on_set_reply, raw);
       });
}

void request_exists(session_impl& impl, session_pin pin, const std::string& path, watch* w,
                    completion<std::optional<node_stat>> handler) {
  using result = std::optional<node_stat>;
  send_watching<result>(impl, pin, &request_counters::exists, path, w, ZWATCHTYPE_DATA,
                        std::move(handler), [&](zhandle_t* zh, pending_op<result>* raw) {
                          if (!raw->watch)
                            return zoo_aexists(zh, path.c_str(), 0, &on_exists_reply, raw);
                          return zoo_awexists(zh, path.c_str(), &session_impl::on_watch_event,
                                              session_impl::watch_context(*raw->watch),
                                              &on_exists_reply, raw);
                        });
}

void request_children(session_impl& impl, session_pin pin, const std::string& path, watch* w,
                      completion<child_list> handler) {
  send_watching<child_list>(
      impl, pin, &request_counters::listings, path, w, ZWATCHTYPE_CHILD, std::move(handler),
      [&](zhandle_t* zh, pending_op<child_list>* raw) {
        if (!raw->watch) return zoo_aget_children2(zh, path.c_str(), 0, &on_children_reply, raw);
        return zoo_awget_children2(zh, path.c_str(), &session_impl::on_watch_event,
                                   session_impl::watch_context(*raw->watch), &on_children_reply,
                                   raw);
      });
}

void request_stamped_children(session_impl& impl, session_pin pin, const std::string& path,
                              completion<stamped_listing> handler) {
  send(impl, pin, &request_counters::listings, impl.make_op<stamped_listing>(std::move(handler)),
       [&](zhandle_t* zh, auto* raw) {
         return zoo_aget_children2(zh, path.c_str(), 0, &on_stamped_children_reply, raw);
       });
}

void request_remove(session_impl& impl, session_pin pin, const std::string& path,
                    std::int32_t version, void_completion handler) {
  auto op = impl.make_op_of<remove_op>(std::move(handler));
  op->session = pin;
  op->path = path;
  send(impl, pin, &request_counters::removes, std::move(op), [&](zhandle_t* zh, auto* raw) {
    return zoo_adelete(zh, path.c_str(), version, &on_remove_reply, raw);
  });
}

void request_sync(session_impl& impl, session_pin pin, const std::string& path,
                  void_completion handler) {
  send(impl, pin, &request_counters::syncs, impl.make_op<void>(std::move(handler)),
       [&](zhandle_t* zh, auto* raw) { return zoo_async(zh, path.c_str(), &on_sync_reply, raw); });
}

}  // namespace zkcoord::detail
