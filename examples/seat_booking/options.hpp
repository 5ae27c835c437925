// SPDX-License-Identifier: Apache-2.0
// What one seat-booking run does: the mode, the fault to inject, the sizes and timings.
#pragma once

#include "common/command_line.hpp"

#include <chrono>
#include <optional>
#include <string>

namespace seat_booking {

enum class booking_mode { naive, lock, fenced, conditional };

const char* to_string(booking_mode mode) noexcept;
/// Throws std::invalid_argument for an unknown name.
booking_mode parse_mode(const std::string& name);
/// Modes that take a zkcoord lock before checking.
inline bool uses_lock(booking_mode mode) {
  return mode == booking_mode::lock || mode == booking_mode::fenced;
}

struct run_options {
  booking_mode mode = booking_mode::naive;
  int workers = 12;
  int seats = 5;
  /// Time between "it is free" and the write (payment, user think time).
  std::chrono::milliseconds delay{100};
  /// SIGSTOP the first worker that found a free seat for this long (0: no pause).
  std::chrono::milliseconds pause{0};
  std::chrono::milliseconds session_timeout{1500};
  bool keep = false;  ///< keep the run directory (database and worker logs)
};

/// Parses "MODE [--pause-holder S] [--delay-ms N] [--workers N] [--seats N]
/// [--session-timeout-ms N] [--keep]". Throws std::invalid_argument.
run_options parse_run_options(const examples::command_line& args);

/// What the orchestrator tells one worker process.
struct worker_options {
  booking_mode mode = booking_mode::naive;
  int id = 0;
  std::string db;
  std::string connect;
  std::string lock_path;
  std::chrono::milliseconds delay{100};
  std::chrono::milliseconds session_timeout{1500};
  bool handshake = false;  ///< wait for "go" after finding a free seat (pause orchestration)
  std::string customer;    ///< the customer's name; empty: fan_<id>
  /// `zkcoord try-it`'s test of a wrong verdict only (seats_db::write_fenced).
  bool broken_fence_check = false;
};

std::vector<std::string> worker_argv(const worker_options& options);
worker_options parse_worker_options(const examples::command_line& args);

}  // namespace seat_booking
