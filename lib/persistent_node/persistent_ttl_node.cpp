// SPDX-License-Identifier: Apache-2.0
// persistent_ttl_node: Curator's PersistentTtlNode layout. The parent is a persistent_with_ttl
// node kept by a persistent_node that never deletes it; its `touch` child (also a TTL node) is
// set, or created, right after each create of the parent and then every ttl / 2.
#include "persistent_node/persistent_node_state.hpp"

#include "session/session_requests.hpp"

#include <zkcoord/detail/session_access.hpp>

#include <boost/asio/steady_timer.hpp>

#include <spdlog/spdlog.h>

#include <algorithm>

namespace zkcoord::detail {

class persistent_ttl_node_state : public std::enable_shared_from_this<persistent_ttl_node_state> {
 public:
  persistent_ttl_node_state(session& s, std::string path, std::chrono::milliseconds ttl,
                            std::string data)
      : node(s, path, std::move(data),
             persistent_node_options{.mode = create_mode::persistent_with_ttl,
                                     .protected_name = false,
                                     .ttl = ttl,
                                     .acl_entries = {},
                                     .create_parents = true,
                                     .remove_on_close = false}),
        path_(std::move(path)),
        touch_path_(path_ + "/" + persistent_ttl_node::touch_name),
        ttl_(ttl),
        impl_(session_access::impl(s)),
        timer_(impl_->executor()) {}

  void start() {
    if (node.state_->problem()) return;  // refused: nothing to touch
    node.state_->on_kept([weak = weak_from_this()] {
      if (auto self = weak.lock()) self->touch();
    });
    schedule();
  }

  void close() {
    {
      std::lock_guard lock(mutex_);
      closed_ = true;
      timer_.cancel();
    }
    node.close();
  }

  persistent_node node;
  const std::string path_;
  const std::string touch_path_;
  const std::chrono::milliseconds ttl_;

 private:
  std::chrono::milliseconds interval() const {
    return std::max(ttl_ / 2, std::chrono::milliseconds(1));
  }

  void schedule() {
    std::lock_guard lock(mutex_);
    if (closed_) return;
    timer_.expires_after(interval());
    timer_.async_wait([weak = weak_from_this()](error_code ec) {
      if (ec) return;
      if (auto self = weak.lock()) {
        self->touch();
        self->schedule();
      }
    });
  }

  // setData on the child; created (a TTL node, Curator's create().orSetData()) when missing.
  // A missing parent is left to the persistent_node; other errors wait for the next touch.
  void touch() {
    {
      std::lock_guard lock(mutex_);
      if (closed_) return;
    }
    request_set(*impl_, any_session, touch_path_, "", any_version,
                [self = shared_from_this()](error_code ec, node_stat) {
                  if (ec == zk_errc::no_node) return self->create_touch();
                  if (ec)
                    self->impl_->logger()->debug("ttl node {}: touch failed: {}", self->path_,
                                                 ec.message());
                });
  }

  void create_touch() {
    {
      std::lock_guard lock(mutex_);
      if (closed_) return;
    }
    session_access::create(
        impl_,
        [self = shared_from_this()](error_code ec, created_node) {
          if (ec && ec != zk_errc::node_exists && ec != zk_errc::no_node)
            self->impl_->logger()->debug("ttl node {}: creating {} failed: {}", self->path_,
                                         self->touch_path_, ec.message());
        },
        touch_path_, "",
        create_options{.mode = create_mode::persistent_with_ttl, .acl_entries = {}, .ttl = ttl_});
  }

  const std::shared_ptr<session_impl> impl_;
  std::mutex mutex_;
  boost::asio::steady_timer timer_;
  bool closed_ = false;
};

}  // namespace zkcoord::detail

namespace zkcoord {

persistent_ttl_node::persistent_ttl_node(session& s, std::string path,
                                         std::chrono::milliseconds ttl, std::string data)
    : state_(std::make_shared<detail::persistent_ttl_node_state>(s, std::move(path), ttl,
                                                                 std::move(data))) {
  state_->start();
}

persistent_ttl_node::~persistent_ttl_node() {
  close();
}

persistent_ttl_node::persistent_ttl_node(persistent_ttl_node&&) noexcept = default;

persistent_ttl_node& persistent_ttl_node::operator=(persistent_ttl_node&& other) noexcept {
  if (this != &other) {
    close();
    state_ = std::move(other.state_);
  }
  return *this;
}

const std::string& persistent_ttl_node::path() const noexcept {
  static const std::string empty;
  return state_ ? state_->path_ : empty;
}

std::chrono::milliseconds persistent_ttl_node::ttl() const noexcept {
  return state_ ? state_->ttl_ : std::chrono::milliseconds(0);
}

void persistent_ttl_node::close() {
  if (state_) state_->close();
}

persistent_node& persistent_ttl_node::node() const noexcept {
  return state_->node;
}

}  // namespace zkcoord
