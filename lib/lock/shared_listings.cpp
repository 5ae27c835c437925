// Batching the lock path listings of one session: see shared_listings.hpp.
#include "lock/shared_listings.hpp"

#include <boost/asio/post.hpp>

namespace zkcoord::detail {

void shared_listings::request(session_impl& impl, session_pin pin, const std::string& path,
                              listener l) {
  key k{pin, path};
  std::shared_ptr<batch> b;
  {
    std::lock_guard lock(mutex_);
    auto& slot = open_[k];
    if (slot) return slot->listeners.push_back(std::move(l));
    slot = b = std::make_shared<batch>();
    b->listeners.push_back(std::move(l));
  }
  boost::asio::post(impl.tracked_executor(), [weak = impl.weak_from_this(), k = std::move(k), b] {
    if (auto impl = weak.lock()) return impl->lock_listings().send(*impl, k, b);
    for (auto& l : b->listeners) l(make_error_code(errc::closed), nullptr);
  });
}

void shared_listings::send(session_impl& impl, const key& k, const std::shared_ptr<batch>& b) {
  {
    std::lock_guard lock(mutex_);
    open_.erase(k);  // requests from now on start a new batch
  }
  pinned_children(impl, k.first, k.second, [b](error_code ec, child_list list) {
    std::shared_ptr<const lock_queue> queue;
    if (!ec) queue = std::make_shared<const lock_queue>(list.names);
    for (auto& l : b->listeners) l(ec, queue);
  });
}

}  // namespace zkcoord::detail
