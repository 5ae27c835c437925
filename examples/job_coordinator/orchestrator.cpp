// SPDX-License-Identifier: Apache-2.0
#include "job_coordinator/orchestrator.hpp"

#include "common/run_directory.hpp"
#include "common/timeline.hpp"
#include "common/worker_fleet.hpp"
#include "job_coordinator/job_store.hpp"

#include <csignal>
#include <cstdio>
#include <optional>
#include <stdexcept>

namespace job_coordinator {
namespace {

using clock = std::chrono::steady_clock;

std::string worker_name(std::size_t index) {
  return "worker-" + std::to_string(index + 1);
}

/// What the orchestrator saw and did.
struct fault_counts {
  int killed = 0;
  int paused = 0;
  std::string killed_worker = "none";  ///< and when (epoch ms; 0 if none): the take-over figures
  std::int64_t killed_at_ms = 0;
  std::string paused_worker = "none";  ///< the one paused mid-run
  std::int64_t paused_at_ms = 0;
  std::int64_t first_fault_ms = 0;  ///< until then all workers were alive
  int duplicate_emails = 0;
  int stale_rejected = 0;
  int stopped = 0;
};

class coordinator_run {
 public:
  coordinator_run(const run_options& options, const std::string& connect)
      : options_(options), dir_("zkcoord-job-coordinator"), fleet_(dir_.path(), worker_name) {
    std::vector<std::string> jobs;
    for (int j = 0; j < options.schedule.jobs; ++j) jobs.push_back(job_name(j));
    job_store(database()).create(jobs);
    worker_options worker{
        .db = database().string(),
        .connect = connect,
        .lock_root = "/zkcoord-examples/job-coordinator-" + examples::run_directory::random_name(),
        .schedule = options.schedule,
        .work = options.work,
        .session_timeout = options.session_timeout,
        .handshake = options.faults};
    for (int i = 1; i <= options.workers; ++i) {
      worker.id = i;
      fleet_.spawn(worker_argv(worker));
    }
  }

  std::filesystem::path database() const { return dir_.path() / "jobs.db"; }

  /// Starts the workers; returns the schedule they share.
  std::vector<job_run> start() {
    dir_.keep();  // until the run ends well: the logs say why it did not
    fleet_.wait_ready(std::chrono::seconds(30));
    start_ms_ = now_ms() + 200;
    timeline_.print("orchestrator",
                    std::to_string(fleet_.size()) + " workers ready; " +
                        std::to_string(options_.schedule.jobs * options_.schedule.runs_per_job) +
                        " job runs scheduled, the first in 200 ms");
    fleet_.send_all("start " + std::to_string(start_ms_));
    schedule_shape shape = options_.schedule;
    shape.start_ms = start_ms_;
    return make_schedule(shape);
  }

  /// Prints the timeline and injects the faults until every worker has exited.
  void follow() {
    const auto deadline = clock::now() + std::chrono::seconds(90) + 3 * options_.pause;
    while (!fleet_.all_exited()) {
      if (clock::now() > deadline) {
        throw std::runtime_error("the run took too long (logs in " + dir_.path().string() + ")");
      }
      for (auto& [index, line] : fleet_.poll(std::chrono::milliseconds(20))) on_event(index, line);
      resume_due();
    }
  }

  /// Workers that failed (the killed one excepted).
  int failures() {
    int failed = 0;
    for (const std::size_t i : fleet_.failed()) {
      if (killed_ && *killed_ == i) continue;
      ++failed;
      timeline_.print(worker_name(i), "exited with status " +
                                          std::to_string(*fleet_.at(i).poll_exit()) + " (log in " +
                                          dir_.path().string() + ")");
    }
    if (failed == 0 && !options_.keep) dir_.discard();
    return failed;
  }

  const fault_counts& counts() const { return counts_; }

 private:
  bool eligible(std::size_t index) const {
    if (killed_ && *killed_ == index) return false;
    for (const auto& p : paused_) {
      if (p.first == index) return false;
    }
    return true;
  }

  void on_event(std::size_t index, const std::string& line) {
    timeline_.print(worker_name(index), line);
    if (line.starts_with("email-dropped")) ++counts_.duplicate_emails;
    if (line.starts_with("rejected")) ++counts_.stale_rejected;
    if (line.starts_with("stopped")) ++counts_.stopped;
    if (line.starts_with("email")) on_email(index);
    if (line.starts_with("committing")) on_committing(index);
    if (line.starts_with("committed")) ++commits_done_;
  }

  /// The faults start once `--faults-after` runs were committed (0: at once).
  bool faults_armed() const { return options_.faults && commits_done_ >= options_.faults_after; }

  // Mid-run faults, right after a worker sent a run's email and before its commit: the 3rd
  // email's worker (counted from when the faults are armed) is killed, the 7th's is paused.
  void on_email(std::size_t index) {
    if (!faults_armed()) return;
    ++emails_seen_;
    if (!eligible(index)) return;
    if (!killed_ && emails_seen_ >= 3) {
      fleet_.at(index).signal(SIGKILL);
      killed_ = index;
      ++counts_.killed;
      counts_.killed_worker = worker_name(index);
      counts_.killed_at_ms = fault_time();
      timeline_.print("orchestrator", "SIGKILL " + worker_name(index) + " mid-run");
    } else if (!paused_mid_run_ && emails_seen_ >= 7) {
      paused_mid_run_ = true;
      counts_.paused_worker = worker_name(index);
      counts_.paused_at_ms = fault_time();
      pause(index, "mid-run");
    }
  }

  // The 10th commit's worker (counted from when the faults are armed) is paused right before
  // it writes: its commit comes late. Not with --pauses 1.
  void on_committing(std::size_t index) {
    if (faults_armed()) ++commits_seen_;
    if (faults_armed() && options_.pauses == 2 && !paused_at_commit_ && commits_seen_ >= 10 &&
        eligible(index)) {
      paused_at_commit_ = true;
      fault_time();
      pause(index, "right before its commit");
    }
    fleet_.at(index).send_line("go");  // read when it runs (again)
  }

  std::int64_t fault_time() {
    const auto now = now_ms();
    if (counts_.first_fault_ms == 0) counts_.first_fault_ms = now;
    return now;
  }

  void pause(std::size_t index, const std::string& where) {
    fleet_.at(index).signal(SIGSTOP);
    paused_.emplace_back(index, clock::now() + options_.pause);
    ++counts_.paused;
    timeline_.print("orchestrator", "SIGSTOP " + worker_name(index) + " " + where + " for " +
                                        std::to_string(options_.pause.count()) + " ms");
  }

  void resume_due() {
    for (auto it = paused_.begin(); it != paused_.end();) {
      if (clock::now() < it->second) {
        ++it;
        continue;
      }
      fleet_.at(it->first).signal(SIGCONT);
      timeline_.print("orchestrator", "SIGCONT " + worker_name(it->first));
      it = paused_.erase(it);
    }
  }

  const run_options& options_;
  examples::run_directory dir_;
  examples::worker_fleet fleet_;
  examples::timeline timeline_;
  std::int64_t start_ms_ = 0;
  std::optional<std::size_t> killed_;
  std::vector<std::pair<std::size_t, clock::time_point>> paused_;
  bool paused_mid_run_ = false;
  bool paused_at_commit_ = false;
  int emails_seen_ = 0;
  int commits_seen_ = 0;
  int commits_done_ = 0;
  fault_counts counts_;
};

}  // namespace

int run_orchestrator(const run_options& options, const std::string& connect) {
  std::signal(SIGPIPE, SIG_IGN);
  coordinator_run run(options, connect);
  const auto schedule = run.start();
  run.follow();
  const int failed = run.failures();
  const auto tally = job_store(run.database()).tally(schedule);
  const auto& c = run.counts();
  const bool exactly_once = tally.missing == 0 && tally.duplicates == 0 &&
                            tally.runs_without_email == 0 && tally.emails == tally.runs;
  std::printf("\n%s: %d scheduled runs, %d effect rows, %d emails kept by the receiver\n",
              exactly_once ? "every scheduled run took effect exactly once" : "NOT exactly once",
              tally.runs, tally.effects, tally.emails);
  std::printf(
      "runs=%d effects=%d missing=%d duplicates=%d emails=%d duplicate_emails_dropped=%d "
      "stale_rejected=%d stopped_on_lost_lock=%d killed=%d paused=%d killed_worker=%s "
      "killed_at_ms=%lld paused_worker=%s paused_at_ms=%lld first_fault_ms=%lld\n",
      tally.runs, tally.effects, tally.missing, tally.duplicates, tally.emails, c.duplicate_emails,
      c.stale_rejected, c.stopped, c.killed, c.paused, c.killed_worker.c_str(),
      static_cast<long long>(c.killed_at_ms), c.paused_worker.c_str(),
      static_cast<long long>(c.paused_at_ms), static_cast<long long>(c.first_fault_ms));
  std::fflush(stdout);
  return failed == 0 && exactly_once ? 0 : 1;
}

}  // namespace job_coordinator
