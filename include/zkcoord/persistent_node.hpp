// SPDX-License-Identifier: Apache-2.0
// Nodes kept present: persistent_node (Apache Curator's PersistentNode) re-creates its node after
// a deletion, a reconnect and a session expiry, and persistent_ttl_node (Curator's
// PersistentTtlNode) keeps a TTL node alive by touching a child while it runs, so the server
// reaps it after its ttl once the process is gone. docs/persistent_nodes.md says what each
// promises and which Curator bugs they avoid.
#pragma once

#include <zkcoord/detail/completion.hpp>
#include <zkcoord/error.hpp>
#include <zkcoord/export.hpp>
#include <zkcoord/ops.hpp>
#include <zkcoord/session.hpp>
#include <zkcoord/types.hpp>

#include <boost/asio/async_result.hpp>
#include <boost/asio/deferred.hpp>

#include <chrono>
#include <memory>
#include <optional>
#include <string>

namespace zkcoord {

namespace detail {
class persistent_node_state;
class persistent_ttl_node_state;
}  // namespace detail

struct persistent_node_options {
  /// Any create mode but container. Sequential modes: the first create picks the sequence
  /// number; every re-create uses that same path (non-sequential), as Curator does.
  create_mode mode = create_mode::ephemeral;
  /// Curator's withProtection(): the node's name gets the prefix "_c_<uuid>-", by which a
  /// create whose reply was lost finds its node again instead of making a second one.
  bool protected_name = false;
  /// For the *_with_ttl modes: in [1 ms, max_node_ttl].
  std::chrono::milliseconds ttl{0};
  /// Empty: the session's default ACL.
  acl acl_entries = {};
  /// Missing parents are created as CONTAINER nodes (Curator's creatingParentContainersIfNeeded).
  bool create_parents = true;
  /// close() and the destructor delete the node, ephemeral or not (Curator's close()).
  bool remove_on_close = true;
};

/// Curator's PersistentNode on `path`: zkcoord keeps the node present while the object lives.
/// - It is created at once (in the background); wait with async_wait_for_initial_create.
/// - A node already at the path is taken over and overwritten with our data (setData), never
///   deleted (CURATOR-154).
/// - It is created again when someone deletes it (an exists watch), and on the session that
///   replaces an expired one.
/// - After a reconnect the data is written again (CURATOR-241).
/// - With protected_name, a create whose reply was lost looks for its own node by the
///   protection prefix before creating again; once the node's path is known, every re-create
///   uses that path (CURATOR-190).
/// - Errors that retrying cannot fix (errc::ttl_nodes_disabled, zk_errc::no_auth, ...) stop
///   the attempts until the next reconnect, deletion or new session, and are reported to
///   waits: never a busy loop of creates.
/// The accessors may be called from any thread; operations complete on the handler's
/// associated executor (default: the session's).
class ZKCOORD_EXPORT persistent_node {
 public:
  /// Starts keeping the node. Throws nothing: a bad path or ttl is reported by the waits
  /// (errc::bad_path, errc::bad_argument), and nothing is created.
  persistent_node(session& s, std::string path, std::string data,
                  persistent_node_options options = {});
  /// close(): deletes the node in the background (if remove_on_close) and drops the watch.
  ~persistent_node();
  persistent_node(persistent_node&&) noexcept;
  persistent_node& operator=(persistent_node&&) noexcept;

  /// The path given (without protection prefix or sequence).
  const std::string& base_path() const noexcept;
  /// The node's actual path once it has been created ("" before).
  std::string actual_path() const;
  /// The data the node is kept with (the latest set_data).
  std::string data() const;

  /// Completes once the node has been created (or taken over and written) the first time:
  /// void(error_code). Errors: errc::timeout after `timeout`, errc::bad_path, errc::bad_argument,
  /// errc::data_too_large, errc::ttl_nodes_disabled, permanent server errors (zk_errc::no_auth),
  /// errc::closed (the node or the session closed), operation_aborted (cancelled).
  template <class Token = boost::asio::deferred_t>
  auto async_wait_for_initial_create(std::chrono::milliseconds timeout, Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::persistent_node_state> state,
           std::chrono::milliseconds t) {
          start_wait_initial(std::move(state), t, detail::void_completion(std::move(handler)));
        },
        token, state_, timeout);
  }

  /// Replaces the data (setData on the node, in place) and completes once the node holds it
  /// (or a newer value); a node created later is created with it. void(error_code). Errors:
  /// errc::data_too_large, errc::closed, the reason the node cannot be made.
  template <class Token = boost::asio::deferred_t>
  auto async_set_data(std::string data, Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::persistent_node_state> state, std::string d) {
          start_set_data(std::move(state), std::move(d),
                         detail::void_completion(std::move(handler)));
        },
        token, state_, std::move(data));
  }

  /// Stops keeping the node and deletes it (if remove_on_close; retried across reconnects
  /// until it succeeds or the session ends). Completes once it is gone: void(error_code).
  /// Idempotent; success when there was nothing to delete.
  template <class Token = boost::asio::deferred_t>
  auto async_close(Token&& token = {}) {
    return boost::asio::async_initiate<Token, void(error_code)>(
        [](auto handler, std::shared_ptr<detail::persistent_node_state> state) {
          start_close(std::move(state), detail::void_completion(std::move(handler)));
        },
        token, state_);
  }
  /// async_close without waiting.
  void close();

 private:
  friend class detail::persistent_ttl_node_state;
  static void start_wait_initial(std::shared_ptr<detail::persistent_node_state> state,
                                 std::chrono::milliseconds timeout,
                                 detail::void_completion handler);
  static void start_set_data(std::shared_ptr<detail::persistent_node_state> state, std::string data,
                             detail::void_completion handler);
  static void start_close(std::shared_ptr<detail::persistent_node_state> state,
                          detail::void_completion handler);
  std::shared_ptr<detail::persistent_node_state> state_;
};

/// Curator's PersistentTtlNode layout on `path`:
/// - `path` is a persistent_with_ttl node holding the data, kept by a persistent_node (created
///   again after a deletion; overwritten if it exists). Closing never deletes it.
/// - `path/touch` is a persistent_with_ttl child, set (or created) at once and then every
///   ttl / 2. While it exists the server never reaps the parent; once nobody touches it, the
///   server deletes it after ttl, then the parent (a TTL node with no children and no change
///   for ttl). So the node lives while we run and goes about 1-2 ttl after we stop.
/// Needs the server's -Dzookeeper.extendedTypesEnabled=true (else errc::ttl_nodes_disabled).
class ZKCOORD_EXPORT persistent_ttl_node {
 public:
  /// The child's name, as Curator's DEFAULT_CHILD_NODE_NAME.
  static constexpr const char* touch_name = "touch";

  /// Starts at once. `ttl` in [2 ms, max_node_ttl] (else the waits fail with errc::bad_argument).
  persistent_ttl_node(session& s, std::string path, std::chrono::milliseconds ttl,
                      std::string data);
  /// Stops touching; deletes nothing (the server reaps the nodes after the ttl).
  ~persistent_ttl_node();
  persistent_ttl_node(persistent_ttl_node&&) noexcept;
  persistent_ttl_node& operator=(persistent_ttl_node&&) noexcept;

  const std::string& path() const noexcept;
  std::chrono::milliseconds ttl() const noexcept;
  /// As persistent_node::async_wait_for_initial_create, for the parent node.
  template <class Token = boost::asio::deferred_t>
  auto async_wait_for_initial_create(std::chrono::milliseconds timeout, Token&& token = {}) {
    return node().async_wait_for_initial_create(timeout, std::forward<Token>(token));
  }
  /// Replaces the parent's data: void(error_code).
  template <class Token = boost::asio::deferred_t>
  auto async_set_data(std::string data, Token&& token = {}) {
    return node().async_set_data(std::move(data), std::forward<Token>(token));
  }
  /// Stops keeping and touching (idempotent); the nodes stay until the server reaps them.
  void close();

 private:
  persistent_node& node() const noexcept;
  std::shared_ptr<detail::persistent_ttl_node_state> state_;
};

}  // namespace zkcoord
