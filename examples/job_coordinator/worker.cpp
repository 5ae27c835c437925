// SPDX-License-Identifier: Apache-2.0
#include "job_coordinator/worker.hpp"

#include "common/session_runner.hpp"
#include "common/worker_channel.hpp"
#include "job_coordinator/home.hpp"
#include "job_coordinator/job_store.hpp"

#include <zkcoord/lock.hpp>
#include <zkcoord/membership.hpp>

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/experimental/awaitable_operators.hpp>
#include <boost/asio/redirect_error.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/asio/this_coro.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <cstdio>

#include <unistd.h>

namespace job_coordinator {
namespace asio = boost::asio;
using namespace asio::experimental::awaitable_operators;
namespace {

using clock = std::chrono::steady_clock;

/// The group the workers are members of, next to the jobs' locks.
std::string workers_group(const worker_options& o) {
  return o.lock_root + "/workers";
}

asio::awaitable<void> sleep_for(clock::duration d) {
  asio::steady_timer timer(co_await asio::this_coro::executor, d);
  co_await timer.async_wait(asio::use_awaitable);
}

class job_worker {
 public:
  job_worker(const worker_options& options, zkcoord::session& zk)
      : options_(options),
        zk_(zk),
        store_(options.db),
        name_("worker-" + std::to_string(options.id)),
        view_(zk, workers_group(options)) {}

  /// Joins the workers' group and reads it once; then "ready".
  asio::awaitable<void> join() {
    member_ =
        co_await zkcoord::async_join(zk_, workers_group(options_), name_,
                                     "pid=" + std::to_string(::getpid()), asio::use_awaitable);
    members_ = ids(co_await view_.async_wait_change(asio::use_awaitable));
    report_view();
  }

  asio::awaitable<int> run() {
    const std::string start = examples::await_command();  // "start <first run, epoch ms>"
    if (!start.starts_with("start ")) co_return 1;
    options_.schedule.start_ms = std::stoll(start.substr(6));
    schedule_ = make_schedule(options_.schedule);
    // The walk ends the run; the view and the registration are followed while it goes (a
    // member that ended, e.g. already_registered, ends it too).
    auto ended = co_await (walk() || follow_view() || follow_registration());
    co_return ended.index() == 0 ? 0 : 1;
  }

 private:
  asio::awaitable<void> walk() {
    while (!all_done()) {
      for (int k = 0; k < options_.schedule.jobs; ++k) {
        const auto job = job_name((k + options_.id) % options_.schedule.jobs);
        // Only the job's home in our current view runs it. Two workers whose views differ may
        // both think they are home (or neither): the lock and the fence make the first a
        // skipped turn, the second a turn taken after the view settles.
        if (home_of(job, members_) != name_) continue;
        if (const auto due = next_due(job)) co_await try_run(*due);
      }
      co_await sleep_for(std::chrono::milliseconds(50));
    }
    examples::emit("finished: every scheduled run is done");
  }

  static std::vector<std::string> ids(const std::vector<zkcoord::member_info>& members) {
    std::vector<std::string> result;
    for (const auto& m : members) result.push_back(m.id);
    return result;
  }

  void report_view() const {
    int homes = 0;
    for (int j = 0; j < options_.schedule.jobs; ++j)
      homes += home_of(job_name(j), members_) == name_;
    std::string names;
    for (const auto& id : members_) names += (names.empty() ? "" : ",") + id;
    examples::emit("view " + names + " (home of " + std::to_string(homes) + " jobs)");
  }

  asio::awaitable<int> follow_view() {
    for (;;) {
      auto [ec, members] = co_await view_.async_wait_change(asio::as_tuple(asio::use_awaitable));
      if (ec == asio::error::operation_aborted) co_return 1;
      if (ec) {  // e.g. closed, or a permanent error: keep the last view, read again later
        examples::emit("view-error " + ec.message());
        co_await sleep_for(std::chrono::milliseconds(200));
        continue;
      }
      members_ = ids(members);
      report_view();
    }
  }

  asio::awaitable<int> follow_registration() {
    for (;;) {
      auto [ec, again] =
          co_await member_.async_wait_reregistered(asio::as_tuple(asio::use_awaitable));
      if (ec == asio::error::operation_aborted) co_return 1;  // the walk is done
      if (ec) {
        examples::emit("membership-ended " + ec.message());
        co_return 1;
      }
      // Others may have taken our jobs while we were absent: the fence rejects any run of ours
      // that a newer holder overtook.
      examples::emit("re-registered (" + std::string(zkcoord::to_string(again.cause)) +
                     ") session=" + std::to_string(again.session_id));
    }
  }

  bool all_done() {
    for (int j = 0; j < options_.schedule.jobs; ++j) {
      const auto job = job_name(j);
      if (next_run(job)) return false;
    }
    return true;
  }

  /// The job's first run after its last committed one.
  std::optional<job_run> next_run(const std::string& job) {
    const auto last = store_.last_run(job);
    for (const auto& run : schedule_) {
      if (run.job == job && run.due_ms > last) return run;
    }
    return std::nullopt;
  }

  std::optional<job_run> next_due(const std::string& job) {
    auto run = next_run(job);
    if (run && run->due_ms <= now_ms()) return run;
    return std::nullopt;
  }

  std::string label(const job_run& run) const {
    return run.job + "@+" + std::to_string(run.due_ms - options_.schedule.start_ms) + "ms";
  }

  asio::awaitable<void> try_run(const job_run& run) {
    zkcoord::lock job_lock(zk_, options_.lock_root + "/" + run.job, {.app_id = name_});
    auto [ec, held] = co_await job_lock.async_try_acquire(asio::as_tuple(asio::use_awaitable));
    if (ec == zkcoord::errc::busy) co_return;  // another worker runs this job now
    if (ec) {
      examples::emit("retry-later " + run.job + ": " + ec.message());
      co_await sleep_for(std::chrono::milliseconds(200));
      co_return;
    }
    const std::int64_t token = held.token().value();
    if (!store_.claim(run.job, token)) {
      examples::emit("rejected " + label(run) + ": a newer token " +
                     std::to_string(store_.fence(run.job)) + " already claimed the job, ours is " +
                     std::to_string(token));
    } else if (store_.last_run(run.job) < run.due_ms) {  // not done while we queued: ours
      examples::emit("took " + label(run) + " with token " + std::to_string(token));
      auto outcome = co_await (perform(held, run) || wait_lost(held));
      if (outcome.index() == 1) {
        examples::emit("stopped " + label(run) + ": lock lost mid-run (" +
                       std::get<1>(outcome).message() + "), the job stops here");
      }
    }
    zkcoord::error_code ignored;  // a lost lock's release fails; it is gone either way
    co_await held.async_release(asio::redirect_error(asio::use_awaitable, ignored));
  }

  asio::awaitable<zkcoord::error_code> wait_lost(zkcoord::held_lock& held) {
    auto [ec] = co_await held.async_wait_lost(asio::as_tuple(asio::use_awaitable));
    co_return ec;
  }

  /// Works for `duration` in short steps; false (and reported) when the lease ran out.
  asio::awaitable<bool> work(clock::duration duration, const zkcoord::held_lock& held,
                             const job_run& run) {
    const auto until = clock::now() + duration;
    while (clock::now() < until) {
      co_await sleep_for(
          std::min<clock::duration>(std::chrono::milliseconds(50), until - clock::now()));
      if (!held.owns() || held.valid_until() <= clock::now()) {
        examples::emit("stopped " + label(run) +
                       ": our lease ran out mid-run (were we paused?), the job stops here");
        co_return false;
      }
    }
    co_return true;
  }

  asio::awaitable<void> perform(const zkcoord::held_lock& held, const job_run& run) {
    const std::int64_t token = held.token().value();
    const std::int64_t started_ms = now_ms();
    if (!co_await work(options_.work / 2, held, run)) co_return;
    if (store_.send_email(run, token, name_)) {
      examples::emit("emailed " + label(run) + " (idempotency key " + run.key() + ")");
    } else {
      examples::emit("email-dropped " + label(run) + ": the receiver already had key " + run.key() +
                     ", duplicate dropped");
    }
    if (!co_await work(options_.work / 2, held, run)) co_return;
    const auto lease = held.valid_until() - clock::now();
    examples::emit(
        "committing " + label(run) + " (lease valid for another " +
        std::to_string(std::chrono::duration_cast<std::chrono::milliseconds>(lease).count()) +
        " ms)");
    if (options_.handshake) examples::await_command();  // the orchestrator may SIGSTOP us here
    if (store_.commit(run, token, name_, started_ms)) {
      examples::emit("committed " + label(run) + " with fence " + std::to_string(token));
    } else {
      examples::emit("rejected " + label(run) + ": stale commit, our token " +
                     std::to_string(token) + " < the job's fence " +
                     std::to_string(store_.fence(run.job)) + ", 0 rows written");
    }
  }

  worker_options options_;
  zkcoord::session& zk_;
  job_store store_;
  std::string name_;
  std::vector<job_run> schedule_;
  zkcoord::group_view view_;
  zkcoord::membership member_;
  std::vector<std::string> members_;  ///< member ids of our latest view, sorted
};

}  // namespace

int run_worker(worker_options options) {
  zkcoord::session_options session{.connect = options.connect,
                                   .session_timeout = options.session_timeout};
  return examples::run_with_session(session, [&](zkcoord::session& zk) -> asio::awaitable<int> {
    job_worker worker(options, zk);
    co_await worker.join();
    examples::emit("ready session=" + std::to_string(zk.session_id()));
    co_return co_await worker.run();
  });
}

}  // namespace job_coordinator
