// One getChildren per (session, lock path) at a time, shared by every lock attempt of the
// session that asked for that path's listing before it was sent, and parsed once.
//
// Why: a waiter lists the lock path after its create and after every wake-up. 10,000
// acquisitions queued at once on one lock would otherwise receive 10,000 listings of up to
// 10,000 names each (quadratic memory and parsing); shared, they receive one.
//
// Why it is correct: a listing must only be taken after the request that asked for it (after
// our create, after the predecessor's deletion was seen). The shared getChildren is sent after
// every request that joined it (it leaves from a handler posted by the first one) and the
// session's requests are answered in order, so it reflects every joiner's create. A request
// made once the getChildren has left starts a new batch.
#pragma once

#include "lock/lock_requests.hpp"
#include "lock/queue.hpp"

#include <functional>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <utility>
#include <vector>

namespace zkcoord::detail {

class shared_listings {
 public:
  using listener = std::function<void(error_code, std::shared_ptr<const lock_queue>)>;

  /// Lists `path` on `impl` (pinned to `pin`) once the current handler has returned, together
  /// with every other request for the same path made until then. `l` is called on the
  /// session's executor with the listing (null on error).
  void request(session_impl& impl, session_pin pin, const std::string& path, listener l);

 private:
  using key = std::pair<session_pin, std::string>;
  struct batch {
    std::vector<listener> listeners;
  };
  void send(session_impl& impl, const key& k, const std::shared_ptr<batch>& b);

  std::mutex mutex_;
  std::map<key, std::shared_ptr<batch>> open_;  // not sent yet
};

}  // namespace zkcoord::detail
