// SPDX-License-Identifier: Apache-2.0
// Group membership: a member is an ephemeral node `<group path>/<id>` holding opaque data
// (Apache Curator's GroupMember layout: EPHEMERAL, not sequential, not protected) that zkcoord
// keeps: re-created under the new session after an expiry and after someone deletes it, its
// data updated in place. A group_view follows the members of a group.
#pragma once

#include <zkcoord/detail/queries.hpp>
#include <zkcoord/detail/session_access.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/types.hpp>

#include <boost/asio/async_result.hpp>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

namespace zkcoord {

namespace detail {
class member_runner;
class group_viewer;
}  // namespace detail

/// The longest member id accepted, in bytes (the id is a node name: a file-system-like bound).
inline constexpr std::size_t max_member_id_size = 255;

/// Why `id` cannot be a member id ("" if it can): empty, "." or "..", longer than
/// max_member_id_size, holding '/' or a NUL byte, or a character ZooKeeper refuses in a path.
ZKCOORD_EXPORT std::string member_id_problem(std::string_view id);

/// Why a member's node is the one it is.
enum class registration_cause {
  joined,           ///< the join created it
  session_expired,  ///< the previous node went with an expired session: this is a new session's
  node_deleted,     ///< someone deleted the previous node
};
ZKCOORD_EXPORT const char* to_string(registration_cause c) noexcept;

/// One registration of a member: one node that held its id.
struct registration {
  std::uint64_t number = 0;  ///< 1 for the join, one more for each re-registration
  registration_cause cause = registration_cause::joined;
  std::int64_t session_id = 0;  ///< the session that owns the node (its ephemeralOwner)
  zxid czxid = 0;               ///< the node's create zxid: orders registrations of this id
  friend bool operator==(const registration&, const registration&) = default;
};

/// A joined member (move-only). While it is active, zkcoord keeps its node: after a session
/// expiry it is created again on the session that replaces it (session_options::
/// renew_after_expiry), and after someone deletes it, it is created again at once. Every such
/// re-registration is reported to async_wait_reregistered, because in between the member was
/// absent and other processes may have acted on that (taken over its work, for instance).
///
/// A member never deletes or takes over a node of another live session under its id: if one
/// is there when it (re-)registers, the member ends with errc::already_registered. A node left
/// by one of the member's own earlier sessions (the server has not expired that session yet)
/// is waited for, then replaced.
///
/// The destructor leaves (best effort: the delete is retried in the background until it
/// succeeds or the session ends). The accessors may be called from any thread; async
/// operations complete on the handler's associated executor (default: the session's).
class ZKCOORD_EXPORT membership {
 public:
  /// An empty handle: active() is false.
  membership() noexcept = default;
  ~membership();
  membership(membership&&) noexcept = default;
  /// Leaves the group this handle is a member of (best effort, as the destructor) first.
  membership& operator=(membership&& other) noexcept;
  membership(const membership&) = delete;
  membership& operator=(const membership&) = delete;

  /// The member id ("" for an empty handle).
  const std::string& id() const noexcept;
  /// The member's node path, `<group path>/<id>`.
  const std::string& path() const noexcept;
  /// The latest registration (number 0 on an empty handle).
  registration current() const;
  /// True from the join until the member has left or ended.
  bool active() const noexcept;
  explicit operator bool() const noexcept { return active(); }

  /// Completes with the next registration not yet reported by this handle: at once if the
  /// member was registered again since the last report (then with the latest; its `number`
  /// says how many happened), else at the next re-registration. Errors: the reason the member
  /// ended (errc::already_registered, zk_errc::session_expired when the session is not renewed,
  /// errc::closed, a permanent error such as zk_errc::no_auth), operation_aborted after a leave,
  /// when the handle is destroyed, or when cancelled (any type). Several waits may be pending;
  /// they complete together. Signature: void(error_code, registration).
  template <class Token = boost::asio::deferred_t>
  auto async_wait_reregistered(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code, registration)>(
        [](auto handler, std::shared_ptr<detail::member_runner> state) {
          start_wait_reregistered(std::move(state),
                                  detail::completion<registration>(std::move(handler)));
        },
        token, state_);
  }

  /// Replaces the node's data (setData, in place: the node, its czxid and session stay) and
  /// completes once the node holds it; a node created again later holds the latest data.
  /// Errors: errc::data_too_large, the reason the member ended, operation_aborted after a
  /// leave. Not cancellable (the update goes on). Signature: void(error_code).
  template <class Token = boost::asio::deferred_t>
  auto async_set_data(std::string data, Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::member_runner> state, std::string d) {
          start_set_data(std::move(state), std::move(d),
                         detail::void_completion(std::move(handler)));
        },
        token, state_, std::move(data));
  }

  /// Leaves the group: deletes our node (checked to be ours first) and completes once it is
  /// gone. Success also when the node was already gone or went with the session's expiry;
  /// errc::closed if the session was closed; errc::not_held on an empty or already left handle.
  /// Connection loss does not fail it: the delete is retried after reconnect. Not cancellable.
  /// Signature: void(error_code).
  template <class Token = boost::asio::deferred_t>
  auto async_leave(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::member_runner> state) {
          start_leave(std::move(state), detail::void_completion(std::move(handler)));
        },
        token, state_);
  }

 private:
  friend class detail::member_runner;
  explicit membership(std::shared_ptr<detail::member_runner> state) noexcept;
  static void start_wait_reregistered(std::shared_ptr<detail::member_runner> state,
                                      detail::completion<registration> handler);
  static void start_set_data(std::shared_ptr<detail::member_runner> state, std::string data,
                             detail::void_completion handler);
  static void start_leave(std::shared_ptr<detail::member_runner> state,
                          detail::void_completion handler);

  std::shared_ptr<detail::member_runner> state_;
};

/// Joins the group at `group_path` as `id` with `data` (opaque bytes, at most ZooKeeper's node
/// size): creates the ephemeral node `<group_path>/<id>` (missing parents as CONTAINER nodes)
/// and completes once it exists, with the member handle. Errors: errc::bad_argument (a bad id:
/// member_id_problem, logged), errc::bad_path, errc::data_too_large, errc::not_connected,
/// errc::closed, zk_errc::session_expired (the session ended before the node was made; a join
/// is never carried over to the next session), errc::already_registered (another live session
/// holds a node under this id, or a member of this session already has this id),
/// operation_aborted (cancelled: any type), permanent errors (zk_errc::no_auth, ...). A join
/// that does not complete with a member leaves no node behind (deleted in the background if
/// it was made; only ever a node of this session).
/// Signature: void(error_code, membership).
template <class Token = boost::asio::deferred_t>
auto async_join(session& s, std::string group_path, std::string id, std::string data,
                Token&& token = {}) {
  return boost::asio::async_initiate<Token, void(error_code, membership)>(
      [](auto handler, std::shared_ptr<detail::session_impl> impl, std::string path,
         std::string member_id, std::string member_data) {
        detail::start_join(impl, std::move(path), std::move(member_id), std::move(member_data),
                           detail::completion<membership>(std::move(handler)));
      },
      token, detail::session_access::impl(s), std::move(group_path), std::move(id),
      std::move(data));
}

/// One member of a group as a group_view reports it: a child of the group path.
struct member_info {
  std::string id;               ///< the child's name
  std::string data;             ///< its data, as the member wrote it (opaque bytes)
  std::int64_t session_id = 0;  ///< its ephemeralOwner (0: not ephemeral, e.g. a persistent node)
  zxid czxid = 0;               ///< when it joined: its create zxid (orders joins)
  std::int64_t ctime_ms = 0;    ///< when it joined: server clock, ms since the epoch
  friend bool operator==(const member_info&, const member_info&) = default;
};

/// Follows the members of the group at `group_path`. Every view of one group on one session
/// object shares one set of watches (a children watch on the group and a data watch on each
/// member), whatever the number of views; they stay armed between waits, each re-armed by the
/// read it covers, so no change is missed between two waits. Changes that cancel out before
/// they are read (a member that came and went) are not reported.
///
/// Every child of the group is a member, whatever it holds (its data is reported as it is; a
/// persistent child shows with session_id 0). A missing group is an empty one, and its creation
/// is noticed. Connection loss changes nothing the view reports (no flap: the members' nodes
/// are still there); after an expiry the view reads the group again on the new session.
class ZKCOORD_EXPORT group_view {
 public:
  group_view(session& s, std::string group_path);
  /// Aborts a pending wait (operation_aborted); the last view of a group removes its watches.
  ~group_view();
  group_view(group_view&&) noexcept;
  group_view& operator=(group_view&&) noexcept;
  group_view(const group_view&) = delete;
  group_view& operator=(const group_view&) = delete;

  const std::string& path() const noexcept;

  /// The first call completes once the group has been read, with its members sorted by id;
  /// each later call once they differ from what the previous call returned. Errors:
  /// errc::bad_path, errc::already_held (a wait of this view is pending), errc::closed,
  /// operation_aborted (cancelled, or the view destroyed), permanent errors (e.g.
  /// zk_errc::no_auth; the next call reads again). Signature:
  /// void(error_code, std::vector<member_info>).
  template <class Token = boost::asio::deferred_t>
  auto async_wait_change(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code, std::vector<member_info>)>(
        [](auto handler, std::shared_ptr<detail::group_viewer> state) {
          start_wait_change(std::move(state),
                            detail::completion<std::vector<member_info>>(std::move(handler)));
        },
        token, state_);
  }

 private:
  static void start_wait_change(std::shared_ptr<detail::group_viewer> state,
                                detail::completion<std::vector<member_info>> handler);

  std::shared_ptr<detail::group_viewer> state_;
};

}  // namespace zkcoord
