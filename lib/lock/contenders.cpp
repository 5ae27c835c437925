// async_contenders: list the lock path, read every contender's node (pipelined), and describe
// them in grant order.
#include "lock/contender_list.hpp"
#include "recipe/contender_queue.hpp"
#include "session/session_requests.hpp"

#include <zkcoord/lock.hpp>
#include <zkcoord/path.hpp>

#include <spdlog/spdlog.h>

namespace zkcoord::detail {
namespace {

// One async_contenders call: the listing, the reads still outstanding and what they found.
struct contenders_call {
  contenders_call(completion<std::vector<contender>> h, handler_executor ex)
      : handler(std::move(h)), executor(std::move(ex)) {}
  std::mutex mutex;
  completion<std::vector<contender>> handler;
  handler_executor executor;
  std::vector<std::string> children;
  std::map<std::string, node_data> read;
  std::size_t remaining = 0;
  error_code failure;

  void complete(error_code ec, std::vector<contender> out) {
    complete_via(executor, std::move(handler), ec, std::move(out));
  }
  void on_read(const std::string& name, error_code ec, node_data data) {
    std::unique_lock lock(mutex);
    if (!ec) {
      read.emplace(name, std::move(data));
    } else if (ec != zk_errc::no_node && !failure) {
      failure = ec;  // a vanished node is left out; anything else fails the call
    }
    if (--remaining != 0) return;
    lock.unlock();
    if (failure) return complete(failure, {});
    complete({}, make_contenders(children, read, std::chrono::system_clock::now()));
  }
};

void read_contenders(session_impl& impl, const std::string& lock_path,
                     const std::shared_ptr<contenders_call>& call) {
  const contender_queue queue(call->children);
  if (queue.empty()) return call->complete({}, {});
  call->remaining = queue.nodes().size();
  for (const auto& node : queue.nodes()) {
    request_get(impl, any_session, join_path(lock_path, node.name), nullptr,
                [call, name = node.name](error_code ec, node_data data) {
                  call->on_read(name, ec, std::move(data));
                });
  }
}

}  // namespace

void start_contenders(const std::shared_ptr<session_impl>& session, std::string lock_path,
                      completion<std::vector<contender>> handler) {
  auto call = std::make_shared<contenders_call>(std::move(handler), session->tracked_executor());
  if (const std::string why = path_problem(lock_path); !why.empty()) {
    session->logger()->warn("contenders: lock path refused: {}", why);
    return call->complete(make_error_code(errc::bad_path), {});
  }
  std::weak_ptr<session_impl> weak = session;
  request_children(*session, any_session, lock_path, nullptr,
                   [weak, call, lock_path](error_code ec, child_list list) {
                     if (ec == zk_errc::no_node) return call->complete({}, {});
                     if (ec) return call->complete(ec, {});
                     auto impl = weak.lock();
                     if (!impl) return call->complete(make_error_code(errc::closed), {});
                     std::lock_guard lock(call->mutex);
                     call->children = std::move(list.names);
                     read_contenders(*impl, lock_path, call);
                   });
}

}  // namespace zkcoord::detail
