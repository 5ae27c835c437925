// SPDX-License-Identifier: Apache-2.0
// What a job command contends for, behind one interface: the exclusive lock, a read or write
// lock (`zkcoord lock [--read|--write]`) or leadership (`zkcoord elect`). Every one of them
// ends in the same ownership handle, so the grant claim (lock_command.cpp) does not care which.
#pragma once

#include "command_line.hpp"

#include <zkcoord/ownership.hpp>
#include <zkcoord/session.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <optional>
#include <string>

namespace zkcoord::cli {

class contention {
 public:
  using granted_handler = std::function<void(error_code, ownership)>;

  /// The recipe object `cl` asks for, on `zk`.
  static std::unique_ptr<contention> for_command(session& zk, const command_line& cl);
  virtual ~contention() = default;

  /// Starts the acquire (campaign): without `timeout` waits until granted; with 0 tries once
  /// (errc::busy); otherwise gives up after it (errc::timeout).
  virtual void acquire(std::optional<std::chrono::milliseconds> timeout,
                       granted_handler handler) = 0;
  /// "lock /p", "read lock /p", "write lock /p", "leadership of /p": for messages.
  virtual std::string noun() const = 0;
};

}  // namespace zkcoord::cli
