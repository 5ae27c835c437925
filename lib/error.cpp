// SPDX-License-Identifier: Apache-2.0
// Error categories: messages for every code and the mapping of codes to conditions.
#include "zk_result.hpp"

#include <zkcoord/error.hpp>

#include <ostream>
#include <string>

namespace zkcoord {
namespace {

const char* zk_message(zk_errc e) {
  switch (e) {
    case zk_errc::system_error:
      return "ZooKeeper client system error";
    case zk_errc::runtime_inconsistency:
      return "rolled back: another operation of the multi failed";
    case zk_errc::data_inconsistency:
      return "ZooKeeper data inconsistency";
    case zk_errc::connection_loss:
      return "connection to ZooKeeper lost (outcome unknown)";
    case zk_errc::marshalling_error:
      return "ZooKeeper marshalling error";
    case zk_errc::unimplemented:
      return "operation not implemented by the server";
    case zk_errc::operation_timeout:
      return "ZooKeeper operation timed out (outcome unknown)";
    case zk_errc::bad_arguments:
      return "invalid arguments";
    case zk_errc::invalid_state:
      return "ZooKeeper handle in invalid state";
    case zk_errc::new_config_no_quorum:
      return "new configuration has no quorum";
    case zk_errc::reconfig_in_progress:
      return "reconfiguration in progress";
    case zk_errc::ssl_connection_error:
      return "SSL connection error";
    case zk_errc::api_error:
      return "ZooKeeper API error";
    case zk_errc::no_node:
      return "node does not exist";
    case zk_errc::no_auth:
      return "not authorised by the node's ACL";
    case zk_errc::bad_version:
      return "version mismatch";
    case zk_errc::no_children_for_ephemerals:
      return "ephemeral nodes may not have children";
    case zk_errc::node_exists:
      return "node already exists";
    case zk_errc::not_empty:
      return "node has children";
    case zk_errc::session_expired:
      return "ZooKeeper session expired";
    case zk_errc::invalid_callback:
      return "invalid callback";
    case zk_errc::invalid_acl:
      return "invalid ACL";
    case zk_errc::auth_failed:
      return "authentication failed";
    case zk_errc::closing:
      return "ZooKeeper handle is closing";
    case zk_errc::nothing:
      return "no server responses to process";
    case zk_errc::session_moved:
      return "session moved to another server";
    case zk_errc::not_read_only:
      return "write request sent to a read-only server";
    case zk_errc::ephemeral_on_local_session:
      return "ephemeral node on a local session";
    case zk_errc::no_watcher:
      return "no such watch";
    case zk_errc::reconfig_disabled:
      return "reconfiguration disabled";
    case zk_errc::session_closed_require_sasl_auth:
      return "server requires SASL authentication";
    case zk_errc::throttled:
      return "request throttled by the server";
  }
  return "unknown ZooKeeper error";
}

const char* zkcoord_message(errc e) {
  switch (e) {
    case errc::lock_lost:
      return "the lock was lost";
    case errc::not_held:
      return "the lock is not held";
    case errc::already_held:
      return "this lock object already holds or is acquiring the lock";
    case errc::timeout:
      return "timed out";
    case errc::bad_path:
      return "invalid ZooKeeper path";
    case errc::bad_connect_string:
      return "invalid connect string (expected host:port[,host:port...][/chroot])";
    case errc::unreachable:
      return "no ZooKeeper server answered in time";
    case errc::closed:
      return "the session was closed";
    case errc::not_connected:
      return "the session was not started (call async_connect first)";
    case errc::data_too_large:
      return "node data exceeds ZooKeeper's size limit";
    case errc::busy:
      return "the lock is held by another contender";
    case errc::bad_argument:
      return "invalid argument";
    case errc::unknown_host:
      return "no host name of the connect string could be resolved";
    case errc::recipe_mismatch:
      return "the path holds nodes of another recipe (a lock, latch, read-write lock or semaphore)";
    case errc::already_registered:
      return "another live session is registered under this member id (it frees once that "
             "session ends or leaves)";
    case errc::bad_counter_data:
      return "the counter's node data has the wrong length (expected 4 or 8 big-endian bytes, "
             "as the counter was declared)";
    case errc::ttl_nodes_disabled:
      return "the server refused a TTL node: TTL nodes need the server started with "
             "-Dzookeeper.extendedTypesEnabled=true (a JVM flag, e.g. in SERVER_JVMFLAGS; not a "
             "zoo.cfg setting)";
  }
  return "unknown zkcoord error";
}

bool is_connection_loss(int v) {
  return v == static_cast<int>(zk_errc::connection_loss) ||
         v == static_cast<int>(zk_errc::operation_timeout);
}

bool is_permanent_zk(zk_errc e) {
  switch (e) {
    case zk_errc::no_auth:
    case zk_errc::bad_arguments:
    case zk_errc::invalid_acl:
    case zk_errc::auth_failed:
    case zk_errc::no_children_for_ephemerals:
    case zk_errc::unimplemented:
    case zk_errc::marshalling_error:
    case zk_errc::reconfig_disabled:
    case zk_errc::session_closed_require_sasl_auth:
    case zk_errc::ephemeral_on_local_session:
      return true;
    default:
      return false;
  }
}

bool is_permanent_own(errc e) {
  switch (e) {
    case errc::bad_path:
    case errc::bad_connect_string:
    case errc::data_too_large:
    case errc::bad_argument:
    case errc::recipe_mismatch:
    case errc::closed:
    case errc::not_connected:
    case errc::bad_counter_data:
    case errc::ttl_nodes_disabled:
      return true;
    default:
      return false;
  }
}

bool zk_matches(zk_errc e, condition c) {
  switch (c) {
    case condition::connection_loss:
      return is_connection_loss(static_cast<int>(e));
    case condition::session_expired:
      return e == zk_errc::session_expired;
    case condition::permanent:
      return is_permanent_zk(e);
    case condition::not_found:
      return e == zk_errc::no_node;
    case condition::already_exists:
      return e == zk_errc::node_exists;
    case condition::version_conflict:
      return e == zk_errc::bad_version;
    case condition::access_denied:
      return e == zk_errc::no_auth || e == zk_errc::auth_failed ||
             e == zk_errc::session_closed_require_sasl_auth;
    case condition::invalid_argument:
      return e == zk_errc::bad_arguments || e == zk_errc::invalid_acl;
    case condition::ownership_lost:
    case condition::timed_out:
    case condition::unavailable:
      return false;
  }
  return false;
}

bool own_matches(errc e, condition c) {
  switch (c) {
    case condition::permanent:
      return is_permanent_own(e);
    case condition::already_exists:
      return e == errc::already_registered;
    case condition::ownership_lost:
      return e == errc::lock_lost;
    case condition::timed_out:
      return e == errc::timeout;
    case condition::invalid_argument:
      return e == errc::bad_path || e == errc::bad_connect_string || e == errc::bad_argument ||
             e == errc::data_too_large;
    case condition::unavailable:
      return e == errc::unreachable || e == errc::unknown_host;
    case condition::connection_loss:
    case condition::session_expired:
    case condition::not_found:
    case condition::version_conflict:
    case condition::access_denied:
      return false;
  }
  return false;
}

class zookeeper_category_impl : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "zookeeper"; }
  std::string message(int ev) const override { return zk_message(static_cast<zk_errc>(ev)); }
  bool equivalent(int code, const boost::system::error_condition& cond) const noexcept override {
    return cond.category() == condition_category() &&
           zk_matches(static_cast<zk_errc>(code), static_cast<condition>(cond.value()));
  }
};

class zkcoord_category_impl : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "zkcoord"; }
  std::string message(int ev) const override { return zkcoord_message(static_cast<errc>(ev)); }
  bool equivalent(int code, const boost::system::error_condition& cond) const noexcept override {
    return cond.category() == condition_category() &&
           own_matches(static_cast<errc>(code), static_cast<condition>(cond.value()));
  }
};

class condition_category_impl : public boost::system::error_category {
 public:
  const char* name() const noexcept override { return "zkcoord.condition"; }
  std::string message(int ev) const override {
    switch (static_cast<condition>(ev)) {
      case condition::connection_loss:
        return "connection loss (outcome unknown, retryable)";
      case condition::session_expired:
        return "session expired";
      case condition::permanent:
        return "permanent error (retrying cannot succeed)";
      case condition::not_found:
        return "node not found";
      case condition::already_exists:
        return "already exists";
      case condition::version_conflict:
        return "version conflict (the node changed)";
      case condition::access_denied:
        return "access denied";
      case condition::ownership_lost:
        return "ownership lost";
      case condition::timed_out:
        return "timed out";
      case condition::invalid_argument:
        return "invalid argument";
      case condition::unavailable:
        return "no ZooKeeper server available";
    }
    return "unknown condition";
  }
};

}  // namespace

const boost::system::error_category& zookeeper_category() noexcept {
  static const zookeeper_category_impl instance;
  return instance;
}
const boost::system::error_category& zkcoord_category() noexcept {
  static const zkcoord_category_impl instance;
  return instance;
}
const boost::system::error_category& condition_category() noexcept {
  static const condition_category_impl instance;
  return instance;
}

error_code make_error_code(zk_errc e) noexcept {
  return {static_cast<int>(e), zookeeper_category()};
}
error_code make_error_code(errc e) noexcept {
  return {static_cast<int>(e), zkcoord_category()};
}
boost::system::error_condition make_error_condition(condition c) noexcept {
  return {static_cast<int>(c), condition_category()};
}

std::ostream& operator<<(std::ostream& os, condition c) {
  return os << condition_category().message(static_cast<int>(c));
}

std::ostream& operator<<(std::ostream& os, zk_errc e) {
  return os << make_error_code(e);
}
std::ostream& operator<<(std::ostream& os, errc e) {
  return os << make_error_code(e);
}

error_code from_zk_result(int rc) noexcept {
  if (rc == 0) return {};
  if (rc == static_cast<int>(zk_errc::closing)) return make_error_code(errc::closed);
  return make_error_code(static_cast<zk_errc>(rc));
}

bool is_unanswered(int rc) noexcept {
  switch (static_cast<zk_errc>(rc)) {
    case zk_errc::connection_loss:
    case zk_errc::operation_timeout:
    case zk_errc::closing:
    case zk_errc::session_expired:
    case zk_errc::invalid_state:
    case zk_errc::runtime_inconsistency:
      return true;
    default:
      return false;
  }
}

error_code from_request_result(int rc) noexcept {
  if (rc == static_cast<int>(zk_errc::runtime_inconsistency))
    return make_error_code(zk_errc::connection_loss);
  return from_zk_result(rc);
}

}  // namespace zkcoord
