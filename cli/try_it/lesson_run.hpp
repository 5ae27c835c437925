// SPDX-License-Identifier: Apache-2.0
// One run of the lesson, for real: two seat-booking worker processes (A and B) book C14 in
// one SQLite file through zkcoord locks on the server; A is frozen with SIGSTOP between its
// check and its write. Blocking: the try-it server runs it on a thread of its own and gets
// its events through `emit` (any thread).
#pragma once

#include "try_it/lesson_params.hpp"

#include <zkcoord/session.hpp>

#include <boost/json/object.hpp>

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>

namespace zkcoord::cli::try_it {

struct lesson_setup {
  int run = 1;
  lesson_params params;
  std::string connect;  ///< ZooKeeper for the workers
  /// The server process's own session, connected (lock modes): it watches A's lock node to
  /// show when the server expired A's session. Used on its executor only.
  zkcoord::session* observer = nullptr;
  std::filesystem::path directory;  ///< created for the run (database, worker logs)
  bool broken_fence_check = false;  ///< the browser test's wrong-verdict case only
  /// Set when the server stops: the run ends with `failed` and its workers are killed.
  const std::atomic<bool>* stop = nullptr;
};

using event_sink = std::function<void(boost::json::object)>;

/// Runs to the end (or fails: a `failed` event) and returns once both workers are gone. Every
/// event carries `run` and `t_ms`. The database stays in setup.directory.
void run_lesson(const lesson_setup& setup, const event_sink& emit);

}  // namespace zkcoord::cli::try_it
