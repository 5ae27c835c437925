// SPDX-License-Identifier: Apache-2.0
// Lock path listings of one session, shared between its waiters and parsed once.
//
// Why: a waiter lists the lock path after its create and after every wake-up. 10,000
// acquisitions queued at once on one lock would otherwise receive 10,000 listings of up to
// 10,000 names each (quadratic memory and parsing); shared, they receive two.
//
// How: a request for a path with no listing in flight is sent at once (the common case: no
// delay, the listing leaves right behind our create). While one is in flight, the requests for
// the same path are collected and sent as ONE getChildren from a handler posted by the first
// of them, i.e. after every request that joined; each joiner gets that listing.
//
// Why it is correct: a listing must only be taken after the request that asked for it (after
// our create, after the predecessor's deletion was seen). Every listing is sent after each of
// its requests was made, and the session's requests are answered in order, so it reflects
// every joiner's create. A request made once its batch has left joins the next one.
#pragma once

#include "recipe/contender_queue.hpp"
#include "session/session_requests.hpp"

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
  /// The listing (null on error) and its reply's stamp (session_impl::deletion_proofs).
  using listener =
      std::function<void(error_code, std::shared_ptr<const contender_queue>, std::uint64_t)>;

  /// Lists `path` on `impl` (pinned to `pin`): at once if no listing of it is in flight,
  /// otherwise together with the other requests made until the batch leaves. `l` is called on
  /// the session's executor with the listing (null on error).
  void request(session_impl& impl, session_pin pin, const std::string& path, listener l);

 private:
  using key = std::pair<session_pin, std::string>;
  struct batch {
    std::vector<listener> listeners;
  };
  struct path_state {
    int in_flight = 0;            // listings sent, no reply yet
    std::shared_ptr<batch> open;  // collecting, sent by a posted flush
  };
  void flush(session_impl& impl, const key& k, const std::shared_ptr<batch>& b);
  void send(session_impl& impl, const key& k, const std::shared_ptr<batch>& b);
  void landed(const key& k);

  std::mutex mutex_;
  std::map<key, path_state> paths_;  // paths with a listing in flight or collecting
};

}  // namespace zkcoord::detail
