// SPDX-License-Identifier: Apache-2.0
// A real standalone ZooKeeper server for tests: its own JVM, temp data dir and free port.
#pragma once

#include <zkcoord/testing/server_options.hpp>

#include <sys/types.h>

#include <cstdint>
#include <filesystem>
#include <memory>
#include <string>

namespace zkcoord::testing {

namespace detail {
class temp_dir;
class zk_instance;
}  // namespace detail

/// Starts in the constructor and returns once the server serves requests; throws
/// std::runtime_error (with the tail of the server log) when it cannot start.
/// The destructor always stops the JVM and removes the temp dir. The JVM runs in its own
/// process group and gets SIGKILL if the test process dies.
/// Not thread-safe: call its members from one thread at a time.
class server {
 public:
  explicit server(server_options options = {});
  ~server();
  server(const server&) = delete;
  server& operator=(const server&) = delete;

  /// "127.0.0.1:PORT"; the port stays the same across restart().
  std::string connect_string() const;
  std::uint16_t port() const noexcept;
  /// The JVM's pid, or -1 while stopped.
  pid_t pid() const noexcept;
  /// The temp dir holding zoo.cfg, data/ and server.log.
  const std::filesystem::path& directory() const noexcept;

  /// SIGTERM (resuming it first if paused), waits for exit (SIGKILL after stop_timeout).
  void stop();
  /// SIGKILL, waits for exit.
  void kill();
  /// SIGSTOP / SIGCONT: the process stays, sockets stay open, nothing answers.
  void pause();
  void resume();
  /// Stops the server if it runs, starts it again on the same port and data dir and waits
  /// until it serves.
  void restart();
  /// True while the JVM process exists (also when paused).
  bool is_running();

 private:
  std::unique_ptr<detail::temp_dir> dir_;  // declared first: removed after the JVM stopped
  std::unique_ptr<detail::zk_instance> instance_;
};

}  // namespace zkcoord::testing
