// SPDX-License-Identifier: Apache-2.0
// What a job command holds while its COMMAND runs, behind one interface: a grant (`zkcoord
// lock`, `elect`, `semaphore`: contention.hpp) or a group membership (`zkcoord register`).
// The job runner (job_runner.hpp) drives either through the same phases.
#pragma once

#include "exit_code.hpp"

#include <zkcoord/error.hpp>

#include <chrono>
#include <functional>
#include <optional>
#include <string>
#include <vector>

namespace zkcoord::cli {

class job_claim {
 public:
  /// nullopt when the claim is made; otherwise what ends the tool (status and message).
  using claimed_handler = std::function<void(std::optional<cli_error>)>;
  /// Called once when the claim is lost while the job runs, with the reason for people.
  using lost_handler = std::function<void(std::string reason)>;

  virtual ~job_claim() = default;

  /// "lock /p", "leadership of /p", "registration /g/id": for messages.
  virtual std::string noun() const = 0;
  /// What a stop signal before the claim interrupts: "the lock was acquired".
  virtual std::string pending_event() const = 0;
  /// Claims (acquires, joins); the handler runs once.
  virtual void claim(claimed_handler on_claimed) = 0;
  /// The variables the job gets beside its environment (the token, the node).
  virtual std::vector<std::string> job_environment() const = 0;
  /// The one line `--hold` prints on stdout when the claim is made.
  virtual std::string granted_line() const = 0;
  /// True when the guard must enforce lease_deadline() (an exclusive grant); false when nobody
  /// is granted anything when the claim lapses.
  virtual bool has_lease() const = 0;
  /// When the guard kills the job unless renewed.
  virtual std::chrono::steady_clock::time_point lease_deadline() const = 0;
  /// Starts watching for the loss of the claim.
  virtual void watch_loss(lost_handler on_lost) = 0;
  /// Whether there is still something to release.
  virtual bool held() const = 0;
  /// Gives the claim up (deletes the node); `done` runs once, with what went wrong if anything.
  virtual void release(std::function<void(error_code)> done) = 0;
  /// The node, for log lines.
  virtual std::string node() const = 0;
  /// Lets go of every handle into the library, before its session closes.
  virtual void drop() = 0;
};

}  // namespace zkcoord::cli
