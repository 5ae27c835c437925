// SPDX-License-Identifier: Apache-2.0
#include "seat_booking/orchestrator.hpp"

#include "common/run_directory.hpp"
#include "common/timeline.hpp"
#include "common/worker_fleet.hpp"
#include "seat_booking/seats_db.hpp"

#include <csignal>
#include <cstdio>
#include <memory>
#include <stdexcept>

namespace seat_booking {
namespace {

using clock = std::chrono::steady_clock;

std::string worker_name(std::size_t index) {
  char text[16];
  std::snprintf(text, sizeof text, "fan_%02zu", index + 1);
  return text;
}

/// The orchestrator's side of a run: the workers, the pause, and what they reported.
class booking_run {
 public:
  booking_run(const run_options& options, const std::string& connect)
      : options_(options), dir_("zkcoord-seat-booking"), fleet_(dir_.path(), worker_name) {
    if (options.keep) dir_.keep();
    seats_db(database()).create(options.seats);
    worker_options worker{.mode = options.mode,
                          .db = database().string(),
                          .connect = connect,
                          .lock_path = "/zkcoord-examples/seat-booking-" +
                                       examples::run_directory::random_name() + "/" + show_id,
                          .delay = options.delay,
                          .session_timeout = options.session_timeout,
                          .handshake = options.pause.count() > 0,
                          .customer = {},
                          .broken_fence_check = false};
    for (int i = 1; i <= options.workers; ++i) {
      worker.id = i;
      fleet_.spawn(worker_argv(worker));
    }
  }

  std::filesystem::path database() const { return dir_.path() / "seats.db"; }

  /// Waits until every worker is ready, then starts them all at once.
  void start() {
    dir_.keep();  // until the run ends well: the logs say why it did not
    fleet_.wait_ready(std::chrono::seconds(30),
                      [this](std::size_t, const std::string& line) { note_session_timeout(line); });
    timeline_.print("orchestrator", std::to_string(fleet_.size()) +
                                        " booking processes ready (mode " +
                                        to_string(options_.mode) + "): start");
    fleet_.send_all("start");
  }

  /// Prints the timeline until every worker has exited; returns how many failed.
  int follow() {
    const auto deadline = clock::now() + std::chrono::seconds(60) + options_.pause;
    while (!fleet_.all_exited()) {
      if (clock::now() > deadline)
        throw std::runtime_error("the run took too long (logs in " + dir_.path().string() + ")");
      for (auto& [index, line] : fleet_.poll(std::chrono::milliseconds(20))) on_event(index, line);
      if (paused_ && clock::now() >= resume_at_) resume();
    }
    const auto failed = fleet_.failed();
    for (const std::size_t i : failed) {
      timeline_.print(worker_name(i), "exited with status " +
                                          std::to_string(*fleet_.at(i).poll_exit()) + " (log in " +
                                          dir_.path().string() + ")");
    }
    if (failed.empty() && !options_.keep) dir_.discard();
    return static_cast<int>(failed.size());
  }

  int stale_rejected() const { return stale_rejected_; }

 private:
  void note_session_timeout(const std::string& ready_line) {
    const auto at = ready_line.find("timeout_ms=");
    if (at == std::string::npos || warned_) return;
    const auto timeout = std::chrono::milliseconds(std::stol(ready_line.substr(at + 11)));
    if (options_.pause.count() > 0 && options_.pause <= timeout) {
      warned_ = true;
      timeline_.print("orchestrator",
                      "note: the pause is not longer than the negotiated session "
                      "timeout (" +
                          std::to_string(timeout.count()) +
                          " ms): the paused holder keeps its lock");
    }
  }

  void on_event(std::size_t index, const std::string& line) {
    timeline_.print(worker_name(index), line);
    if (line.starts_with("rejected")) ++stale_rejected_;
    if (!line.starts_with("checked") || !options_.pause.count()) return;
    auto& worker = fleet_.at(index);
    if (paused_once_) {
      worker.send_line("go");
      return;
    }
    // The first customer who found a free seat is frozen between its check and its write.
    paused_once_ = true;
    paused_ = index;
    resume_at_ = clock::now() + options_.pause;
    worker.signal(SIGSTOP);
    worker.send_line("go");  // read once it runs again
    timeline_.print("orchestrator", "SIGSTOP " + worker_name(index) + " (pid " +
                                        std::to_string(worker.pid()) + ") for " +
                                        std::to_string(options_.pause.count()) +
                                        " ms, between its check and its write");
  }

  void resume() {
    fleet_.at(*paused_).signal(SIGCONT);
    timeline_.print("orchestrator", "SIGCONT " + worker_name(*paused_) +
                                        ": it resumes where it stopped, about to write");
    paused_.reset();
  }

  const run_options& options_;
  examples::run_directory dir_;
  examples::worker_fleet fleet_;
  examples::timeline timeline_;
  std::optional<std::size_t> paused_;
  clock::time_point resume_at_;
  bool paused_once_ = false;
  bool warned_ = false;
  int stale_rejected_ = 0;
};

void print_outcome(seats_db& db) {
  std::printf("\nseats at the end:\n");
  for (const auto& seat : db.seats()) {
    std::printf("  %-4s %-8s fence=%lld\n", seat.seat.c_str(),
                seat.holder ? seat.holder->c_str() : "(free)", static_cast<long long>(seat.fence));
  }
  std::printf("confirmations sent:\n");
  for (const auto& c : db.confirmations()) {
    std::printf("  %-7s %-4s %s\n", c.customer.c_str(), c.seat.c_str(),
                c.honoured ? "ok" : "OVERSOLD: the seat belongs to someone else");
  }
}

}  // namespace

int run_orchestrator(const run_options& options, const std::string& connect) {
  std::signal(SIGPIPE, SIG_IGN);
  booking_run run(options, connect);
  run.start();
  const int failed = run.follow();
  seats_db db(run.database());
  print_outcome(db);
  const auto outcome = db.outcome();
  std::printf("mode=%s seats=%d sold=%d confirmations=%d stale_rejected=%d oversold=%d\n",
              to_string(options.mode), outcome.seats, outcome.sold, outcome.confirmations,
              run.stale_rejected(), outcome.oversold);
  std::fflush(stdout);
  return failed == 0 ? 0 : 1;
}

}  // namespace seat_booking
