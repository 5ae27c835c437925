// SPDX-License-Identifier: Apache-2.0
#include <zkcoord/testing/expire_session.hpp>

#include <zkcoord/session.hpp>

#include <zookeeper/zookeeper.h>

#include <algorithm>
#include <condition_variable>
#include <cstring>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>

#include "session/c_client_log.hpp"
#include "session/session_impl.hpp"
#include "testing/harness_log.hpp"
#include "testing/st_pump.hpp"

namespace zkcoord::testing {
namespace {

// A value one thread sets and another waits on.
template <class T>
class observed {
 public:
  void set(T value) {
    {
      std::lock_guard lock(mutex_);
      value_ = value;
    }
    changed_.notify_all();
  }
  T get() {
    std::lock_guard lock(mutex_);
    return value_;
  }
  /// Waits until `pred(value)` holds, at most `bound`; returns the value then.
  template <class Pred>
  T wait_for(std::chrono::milliseconds bound, Pred pred) {
    std::unique_lock lock(mutex_);
    changed_.wait_for(lock, bound, [&] { return pred(value_); });
    return value_;
  }

 private:
  std::mutex mutex_;
  std::condition_variable changed_;
  T value_{};
};

// The second handle's session state, set by its watcher (the C client's thread on mt).
void on_event(zhandle_t*, int type, int state, const char*, void* context) {
  if (type == ZOO_SESSION_EVENT) static_cast<observed<int>*>(context)->set(state);
}

bool connected_or_expired(int state) {
  return state == ZOO_CONNECTED_STATE || state == ZOO_EXPIRED_SESSION_STATE;
}

// Opens a handle on the session, waits until it is connected or told the session expired,
// closes it, and returns the state it reached.
int open_and_close(const std::string& connect, const clientid_t& id,
                   std::chrono::milliseconds session_timeout, std::chrono::milliseconds wait) {
  observed<int> state;
  zhandle_t* zh =
      zookeeper_init2(connect.c_str(), on_event, static_cast<int>(session_timeout.count()), &id,
                      &state, 0, zkcoord::detail::c_client_log_line);
  if (zh == nullptr) {
    throw std::runtime_error("zkcoord::testing::expire_session: zookeeper_init failed for " +
                             connect);
  }
#ifndef THREADED
  // libzookeeper_st: the handle runs on this thread, the watcher inside.
  zkcoord::testing::detail::st_pump_for(
      zh, [&] { return connected_or_expired(state.get()); }, wait);
  const int reached = state.get();
#else
  const int reached = state.wait_for(wait, connected_or_expired);
#endif
  // Closing sends closeSession: the server ends the session for every handle on it.
  zookeeper_close(zh);
  return reached;
}

}  // namespace

void expire_session(const session& s, std::chrono::milliseconds timeout) {
  const auto credentials = zkcoord::detail::credentials_of(s);
  if (credentials.id == 0) {
    throw std::runtime_error("zkcoord::testing::expire_session: the session has no id yet");
  }
  clientid_t id{};
  id.client_id = credentials.id;
  std::memcpy(id.passwd, credentials.password.data(),
              std::min(credentials.password.size(), sizeof id.passwd));

  // What is expired is an idle session: a request in flight when the handle lets go would end
  // with connection_loss instead of the expiry the caller waits for.
  // So wait until none has been in flight for a while (a recipe's next request follows its
  // previous reply at once); give up waiting after `timeout` (an event loop the caller paused
  // holds its replies unread) and expire it anyway.
  const auto quiet_by = std::chrono::steady_clock::now() + timeout;
  for (int quiet_polls = 0; quiet_polls < 10 && std::chrono::steady_clock::now() < quiet_by;) {
    quiet_polls = zkcoord::detail::requests_in_flight(s) == 0 ? quiet_polls + 1 : 0;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }

  // Keep the session's own handle away while the second one closes the session: if it
  // reconnected first, the server would refuse the close as coming from a moved session.
  // The C client ignores a new list that differs only in ports, so the address itself must
  // differ from every server's: a loopback address on which nothing listens. The C client
  // drops its connection within the call.
  const std::string hosts = credentials.connect.substr(0, credentials.connect.find('/'));
  const char* nowhere =
      hosts.find("127.0.0.2") == std::string::npos ? "127.0.0.2:1" : "127.0.0.3:1";
  // Set once the session has told its state listeners it lost its connection.
  auto cut = std::make_shared<observed<bool>>();
  const state_subscription told = zkcoord::detail::subscribe_state(s, [cut](session_state st) {
    if (st != session_state::connected) cut->set(true);
  });
  const bool was_connected = s.state() == session_state::connected;
  zkcoord::detail::replace_servers(s, nowhere);
  struct restore_servers {
    const session& s;
    const std::string& hosts;
    ~restore_servers() { zkcoord::detail::replace_servers(s, hosts); }
  } restore{s, hosts};
  // In a partition the cut comes a session timeout before the server ends the session: the
  // session is suspended and its state listeners (a leader's term, a lock's lost signal) hear
  // of it long before anyone else can be granted what it held. Keep that order here: wait
  // until the suspension reached our listener, which the session calls after every listener
  // subscribed before it. A caller's paused event loop never runs it: bounded.
  if (was_connected && !cut->wait_for(std::min(timeout, std::chrono::milliseconds(2000)),
                                      [](bool b) { return b; })) {
    detail::harness_log().debug("session {:#x}: its listeners were not told of the cut",
                                credentials.id);
  }

  // Each round opens a handle on the session: if the server says it expired, we are done;
  // otherwise closing that handle ends the session -- unless the session's own handle moved
  // it back in between (then the close is refused as coming from a moved session), so repeat.
  const auto give_up_at = std::chrono::steady_clock::now() + timeout;
  for (int round = 1;; ++round) {
    const int reached = open_and_close(credentials.connect, id, s.negotiated_timeout(), timeout);
    if (reached == ZOO_EXPIRED_SESSION_STATE) {
      detail::harness_log().debug("session {:#x} expired after {} round(s)", credentials.id,
                                  round - 1);
      return;
    }
    if (reached != ZOO_CONNECTED_STATE) {
      throw std::runtime_error(
          "zkcoord::testing::expire_session: the second handle did not "
          "connect to " +
          credentials.connect);
    }
    if (std::chrono::steady_clock::now() > give_up_at) {
      throw std::runtime_error("zkcoord::testing::expire_session: the session kept moving back");
    }
  }
}

}  // namespace zkcoord::testing
