// SPDX-License-Identifier: Apache-2.0
// The janitor: a process forked before any thread, that removes the try-it server's files
// when the server is gone however it ended (SIGKILL included). The workers and the local
// ZooKeeper die with the server (PR_SET_PDEATHSIG); their files are all under `home`.
#pragma once

#include <filesystem>

namespace zkcoord::cli::try_it {

class janitor {
 public:
  /// Forks the janitor for `home`. Call before any thread is started. Throws
  /// std::system_error.
  explicit janitor(std::filesystem::path home);
  /// Lets the janitor go: it removes `home` (what is left of it) and exits.
  ~janitor();
  janitor(const janitor&) = delete;
  janitor& operator=(const janitor&) = delete;

 private:
  int fd_ = -1;
};

}  // namespace zkcoord::cli::try_it
