// SPDX-License-Identifier: Apache-2.0
// Batching the lock path listings of one session: see shared_listings.hpp.
#include "recipe/shared_listings.hpp"

#include <boost/asio/post.hpp>

namespace zkcoord::detail {

void shared_listings::request(session_impl& impl, session_pin pin, const std::string& path,
                              listener l) {
  key k{pin, path};
  std::shared_ptr<batch> b;
  bool now = false;
  {
    std::lock_guard lock(mutex_);
    auto& p = paths_[k];
    if (p.open) return p.open->listeners.push_back(std::move(l));
    b = std::make_shared<batch>();
    b->listeners.push_back(std::move(l));
    now = p.in_flight == 0;
    if (now) {
      ++p.in_flight;
    } else {
      p.open = b;
    }
  }
  if (now) return send(impl, k, b);
  boost::asio::post(impl.tracked_executor(), [weak = impl.weak_from_this(), k = std::move(k), b] {
    if (auto impl = weak.lock()) return impl->layer_state<shared_listings>().flush(*impl, k, b);
    for (auto& l : b->listeners) l(make_error_code(errc::closed), nullptr, 0);
  });
}

void shared_listings::flush(session_impl& impl, const key& k, const std::shared_ptr<batch>& b) {
  {
    std::lock_guard lock(mutex_);
    auto& p = paths_[k];
    p.open.reset();  // requests from now on start a new batch
    ++p.in_flight;
  }
  send(impl, k, b);
}

void shared_listings::send(session_impl& impl, const key& k, const std::shared_ptr<batch>& b) {
  request_stamped_children(
      impl, k.first, k.second,
      [weak = impl.weak_from_this(), k, b](error_code ec, stamped_listing listed) {
        if (auto impl = weak.lock()) impl->layer_state<shared_listings>().landed(k);
        std::shared_ptr<const contender_queue> queue;
        if (!ec) queue = std::make_shared<const contender_queue>(listed.list.names);
        for (auto& l : b->listeners) l(ec, queue, listed.deletion_proofs);
      });
}

void shared_listings::landed(const key& k) {
  std::lock_guard lock(mutex_);
  const auto it = paths_.find(k);
  if (it == paths_.end()) return;
  if (--it->second.in_flight == 0 && !it->second.open) paths_.erase(it);
}

}  // namespace zkcoord::detail
