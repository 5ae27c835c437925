// SPDX-License-Identifier: Apache-2.0
// Pipelined container parents, and their removal after a failed attempt.
#include "session/container_parents.hpp"

#include <spdlog/spdlog.h>

#include <mutex>
#include <optional>

namespace zkcoord::detail {
namespace {

// "/a", "/a/b", "/a/b/c" for "/a/b/c": created in that order, pipelined.
std::vector<std::string> path_and_ancestors(const std::string& path) {
  std::vector<std::string> out;
  for (std::size_t slash = path.find('/', 1); slash != std::string::npos;
       slash = path.find('/', slash + 1))
    out.push_back(path.substr(0, slash));
  if (path != "/") out.push_back(path);
  return out;
}

// Collects the outcome of the pipelined creates.
struct parents_outcome {
  std::mutex mutex;
  std::vector<std::string> paths;
  std::vector<error_code> results;
  std::size_t remaining;
  parents_done done;
  parents_outcome(std::vector<std::string> p, parents_done d)
      : paths(std::move(p)), results(paths.size()), remaining(paths.size()), done(std::move(d)) {}

  void record(std::size_t i, error_code ec) {
    error_code first;
    std::vector<std::string> created;
    {
      std::lock_guard lock(mutex);
      results[i] = ec;
      if (--remaining != 0) return;
      for (const auto& r : results) {
        if (r && r != zk_errc::node_exists) {
          first = r;
          break;
        }
      }
      for (std::size_t k = 0; k < paths.size(); ++k)
        if (!results[k]) created.push_back(paths[k]);
    }
    done(first, std::move(created));
  }
};

}  // namespace

void request_container_parents(session_impl& impl, session_pin pin, const std::string& path,
                               parents_done done) {
  auto outcome = std::make_shared<parents_outcome>(path_and_ancestors(path), std::move(done));
  for (std::size_t i = 0; i < outcome->paths.size(); ++i) {
    request_create(impl, pin, outcome->paths[i], "", create_mode::container, {},
                   [outcome, i](error_code ec, created_node) { outcome->record(i, ec); });
  }
}

void remove_container_parents(session_impl& impl, session_pin pin,
                              const std::vector<std::string>& created,
                              std::shared_ptr<spdlog::logger> logger, const char* what) {
  for (auto it = created.rbegin(); it != created.rend(); ++it) {
    request_remove(impl, pin, *it, any_version, [logger, what, path = *it](error_code ec) {
      if (ec && ec != zk_errc::not_empty && ec != zk_errc::no_node)
        logger->debug("removing the parent {} created by {}: {}", path, what, ec.message());
    });
  }
}

}  // namespace zkcoord::detail
