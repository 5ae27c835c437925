// SPDX-License-Identifier: Apache-2.0
// One listing of a recipe path: getChildren, then a pipelined getData per recipe node.
#include "recipe/node_listing.hpp"

#include "recipe/contender_queue.hpp"
#include "session/session_requests.hpp"

#include <zkcoord/path.hpp>

#include <mutex>

namespace zkcoord::detail {
namespace {

// One call: the listing, the reads still outstanding and what they found.
struct listing_call {
  listing_call(completion<node_listing> h, handler_executor ex)
      : handler(std::move(h)), executor(std::move(ex)) {}
  std::mutex mutex;
  completion<node_listing> handler;
  handler_executor executor;
  node_listing listing;
  std::size_t remaining = 0;
  error_code failure;

  void complete(error_code ec) {
    complete_via(executor, std::move(handler), ec, ec ? node_listing{} : std::move(listing));
  }
  void on_read(const std::string& name, error_code ec, node_data data) {
    std::unique_lock lock(mutex);
    if (!ec) {
      listing.read.emplace(name, std::move(data));
    } else if (ec != zk_errc::no_node && !failure) {
      failure = ec;  // a vanished node is left out; anything else fails the call
    }
    if (--remaining != 0) return;
    lock.unlock();
    complete(failure);
  }
};

void read_nodes(session_impl& impl, const std::string& path,
                const std::shared_ptr<listing_call>& call) {
  const contender_queue queue(call->listing.children);
  if (queue.empty()) return call->complete({});
  call->remaining = queue.nodes().size();
  for (const auto& node : queue.nodes()) {
    request_get(impl, any_session, join_path(path, node.name), nullptr,
                [call, name = node.name](error_code ec, node_data data) {
                  call->on_read(name, ec, std::move(data));
                });
  }
}

}  // namespace

void list_recipe_nodes(const std::shared_ptr<session_impl>& session, const std::string& path,
                       watch* children_watch, completion<node_listing> handler) {
  auto call = std::make_shared<listing_call>(std::move(handler), session->tracked_executor());
  std::weak_ptr<session_impl> weak = session;
  request_children(*session, any_session, path, children_watch,
                   [weak, call, path](error_code ec, child_list list) {
                     if (ec == zk_errc::no_node) return call->complete({});
                     if (ec) return call->complete(ec);
                     auto impl = weak.lock();
                     if (!impl) return call->complete(make_error_code(errc::closed));
                     std::lock_guard lock(call->mutex);
                     call->listing.path_exists = true;
                     call->listing.children = std::move(list.names);
                     read_nodes(*impl, path, call);
                   });
}

}  // namespace zkcoord::detail
