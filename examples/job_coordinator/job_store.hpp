// SPDX-License-Identifier: Apache-2.0
// The storage the jobs write to, one SQLite file shared by the workers:
//  - job_state: each job's progress, written only with a fencing token (fence < token);
//  - effects: the rows a run produces, committed with its job_state update (who ran it, and
//    when it started and committed, for the tests' spread and take-over figures);
//  - outbox: the "email" receiver, which cannot check tokens but drops a second message with
//    the same idempotency key (primary key).
#pragma once

#include "common/sqlite_db.hpp"
#include "job_coordinator/schedule.hpp"

#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

namespace job_coordinator {

/// How many times each scheduled run's effects exist.
struct effect_tally {
  int runs = 0;
  int effects = 0;     ///< effect rows
  int missing = 0;     ///< runs without an effect
  int duplicates = 0;  ///< effect rows beyond the first of their run
  int emails = 0;      ///< messages the receiver kept
  int runs_without_email = 0;
};

class job_store {
 public:
  explicit job_store(const std::filesystem::path& file);

  void create(const std::vector<std::string>& jobs);
  /// The due time of the job's last committed run (-1 before the first).
  std::int64_t last_run(const std::string& job);
  /// Delivers the run's email; false when the receiver already had one with that key.
  bool send_email(const job_run& run, std::int64_t token, const std::string& worker);
  /// Raises the job's fence to `token` when it is below it; false if a newer token already
  /// claimed the job (we are stale). Done before reading the job's state: from then on, a
  /// paused older holder can no longer commit in between our read and our commit.
  bool claim(const std::string& job, std::int64_t token);
  /// Records the run and its effect, only if no newer token claimed the job since we did.
  bool commit(const job_run& run, std::int64_t token, const std::string& worker,
              std::int64_t started_ms);
  std::int64_t fence(const std::string& job);

  effect_tally tally(const std::vector<job_run>& schedule);

 private:
  examples::sqlite_db db_;
};

}  // namespace job_coordinator
