// Session-pinned requests: the pin is checked under the session's handle lock, so a request
// cannot slip onto a handle that was replaced after expiry (the renewed session's id only
// becomes current once its handle connected, and `expired` is set before the old handle goes).
#include "lock/lock_requests.hpp"

#include "session/c_types.hpp"
#include "session/session_replies.hpp"

namespace zkcoord::detail {
namespace {

// Sends `call(zh, raw_op)` if the session is still `pin`; otherwise the op fails as if the
// handle had been invalidated (session_expired, or closed after close()).
template <class T, class Handler, class Call>
void send_pinned(session_impl& impl, session_pin pin, Handler&& handler, Call&& call) {
  auto op = impl.make_op<T>(std::forward<Handler>(handler));
  impl.submit(std::move(op), [&](zhandle_t* zh, pending_op<T>* raw) {
    if (!session_is(impl, pin)) return static_cast<int>(ZINVALIDSTATE);
    return call(zh, raw);
  });
}

}  // namespace

bool session_is(const session_impl& impl, session_pin pin) noexcept {
  const session_state s = impl.state();
  const bool live = s == session_state::connected || s == session_state::reconnected ||
                    s == session_state::suspended;
  return live && (pin == 0 || impl.session_id() == pin);
}

void pinned_create(session_impl& impl, session_pin pin, const std::string& path,
                   const std::string& data, create_mode mode, completion<created_node> handler) {
  c_acl acl(impl.options().default_acl);  // serialised by the call: may go after it
  send_pinned<created_node>(impl, pin, std::move(handler), [&](zhandle_t* zh, auto* raw) {
    return zoo_acreate2(zh, path.c_str(), data.data(), static_cast<int>(data.size()), acl.get(),
                        to_zk_mode(mode), &on_create_reply, raw);
  });
}

void pinned_children(session_impl& impl, session_pin pin, const std::string& path,
                     completion<child_list> handler) {
  send_pinned<child_list>(impl, pin, std::move(handler), [&](zhandle_t* zh, auto* raw) {
    return zoo_aget_children2(zh, path.c_str(), 0, &on_children_reply, raw);
  });
}

void pinned_sync(session_impl& impl, session_pin pin, const std::string& path,
                 void_completion handler) {
  send_pinned<void>(impl, pin, std::move(handler), [&](zhandle_t* zh, auto* raw) {
    return zoo_async(zh, path.c_str(), &on_sync_reply, raw);
  });
}

void pinned_exists(session_impl& impl, session_pin pin, const std::string& path,
                   completion<std::optional<node_stat>> handler) {
  send_pinned<std::optional<node_stat>>(
      impl, pin, std::move(handler), [&](zhandle_t* zh, auto* raw) {
        return zoo_aexists(zh, path.c_str(), 0, &on_exists_reply, raw);
      });
}

void pinned_get(session_impl& impl, session_pin pin, const std::string& path, watch* w,
                completion<node_data> handler) {
  auto op = impl.make_op<node_data>(std::move(handler));
  if (w) op->watch = impl.arm(*w, path, ZWATCHTYPE_DATA);
  std::unique_lock wire(impl.watch_wire_mutex(), std::defer_lock);
  if (w) wire.lock();
  impl.submit(std::move(op), [&](zhandle_t* zh, pending_op<node_data>* raw) {
    if (!session_is(impl, pin)) return static_cast<int>(ZINVALIDSTATE);
    if (!raw->watch) return zoo_aget(zh, path.c_str(), 0, &on_get_reply, raw);
    return zoo_awget(zh, path.c_str(), &session_impl::on_watch_event,
                     session_impl::watch_context(*raw->watch), &on_get_reply, raw);
  });
}

void pinned_remove(session_impl& impl, session_pin pin, const std::string& path,
                   void_completion handler) {
  send_pinned<void>(impl, pin, std::move(handler), [&](zhandle_t* zh, auto* raw) {
    return zoo_adelete(zh, path.c_str(), any_version, &on_void_reply, raw);
  });
}

}  // namespace zkcoord::detail
