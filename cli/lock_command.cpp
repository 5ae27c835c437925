// SPDX-License-Identifier: Apache-2.0
#include "lock_command.hpp"

#include "chroot_check.hpp"
#include "contention.hpp"
#include "duration.hpp"
#include "executable.hpp"
#include "exit_code.hpp"
#include "job_outcome.hpp"
#include "job_supervisor.hpp"
#include "run_to_the_end.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

#include <zkcoord/ownership.hpp>
#include <zkcoord/session.hpp>

#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <signal.h>
#include <string.h>
#include <unistd.h>

#include <array>
#include <iostream>
#include <optional>
#include <utility>

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

// How often the lease deadline is passed on to the job guard. Far below any session timeout
// (the server's minimum is 2 ticks); a late renewal only makes the guard act earlier.
constexpr std::chrono::milliseconds renew_period{50};

// One run of `zkcoord lock`, `elect` or `semaphore` (the contention decides which recipe), as a
// chain of handlers on one io_context:
// connecting -> acquiring -> starting -> running -> releasing -> done. SIGINT/SIGTERM/SIGHUP
// abort the first two phases (status 128+N) and are forwarded to the job afterwards. The job
// itself runs under the guard (job_guard.hpp), which outlives zkcoord if it must. With --hold
// there is no job (and no guard): acquiring -> holding -> releasing, until stdin closes or a
// stop signal comes.
class lock_run {
 public:
  lock_run(asio::io_context& io, const command_line& cl, std::optional<guard_process> guard)
      : cl_(cl),
        logger_(make_logger(cl.global.verbose)),
        zk_(io.get_executor(), make_session_options(cl.global, logger_)),
        contention_(contention::for_command(zk_, cl)),
        outcome_(cl.child_argv.empty() ? std::string() : cl.child_argv[0], cl.grace,
                 contention_->noun() +
                     ": its lease ran out before zkcoord renewed it (zkcoord stopped or starved, "
                     "or ZooKeeper unreachable): the command was killed",
                 logger_),
        stop_signals_(io, SIGINT, SIGTERM, SIGHUP),
        stdin_(io),
        renew_timer_(io),
        release_timer_(io) {
    if (guard) job_.emplace(io.get_executor(), std::move(*guard));
  }

  void start() {
    wait_stop_signal();
    state_sub_ = zk_.subscribe([this](session_state s) { on_state(s); });
    zk_.async_connect([this](error_code ec) { on_connected(ec); });
  }

  bool done() const noexcept { return phase_ == phase::done; }
  int status() const noexcept { return status_; }
  const std::string& message() const noexcept { return message_; }

 private:
  enum class phase { connecting, acquiring, starting, running, holding, releasing, done };

  void wait_stop_signal() {
    stop_signals_.async_wait([this](error_code ec, int sig) {
      if (ec || phase_ == phase::done) return;
      on_stop_signal(sig);
      wait_stop_signal();
    });
  }

  void on_stop_signal(int sig) {
    switch (phase_) {
      case phase::connecting:
      case phase::acquiring:
        // Closing the session deletes our lock node at once, if it was created.
        finish(signal_exit_status(sig),
               std::string("interrupted by ") + ::sigabbrev_np(sig) + " before the " +
                   (cl_.command == command_kind::elect       ? "leadership was won"
                    : cl_.command == command_kind::semaphore ? "lease was acquired"
                                                             : "lock was acquired"));
        break;
      case phase::starting:
      case phase::running:
        logger_->info("forwarding SIG{} to the command", ::sigabbrev_np(sig));
        job_->forward_signal(sig);
        break;
      case phase::holding:
        logger_->info("SIG{}: releasing {}", ::sigabbrev_np(sig), contention_->noun());
        end_hold();
        break;
      default:
        break;  // the job has ended; the release is bounded anyway
    }
  }

  void on_state(session_state s) {
    if ((phase_ == phase::running || phase_ == phase::holding) && s == session_state::suspended)
      logger_->warn("lost contact with ZooKeeper: the {} is in doubt until reconnected",
                    contention_->noun());
  }

  void on_connected(error_code ec) {
    if (phase_ != phase::connecting) return;
    if (ec) return fail(error_for(ec, "cannot connect to " + cl_.global.connect));
    logger_->debug("connected, session 0x{:x}", zk_.session_id());
    // Through a missing chroot every path is missing: say so before creating anything.
    zk_.async_exists("/", [this](error_code e, std::optional<node_stat> root) {
      if (phase_ != phase::connecting) return;
      if (auto problem = chroot_error(e, root, cl_.global.connect)) return fail(*problem);
      start_acquiring();
    });
  }

  void start_acquiring() {
    phase_ = phase::acquiring;
    contention_->acquire(cl_.timeout,
                         [this](error_code e, ownership held) { acquired(e, std::move(held)); });
  }

  void acquired(error_code ec, ownership held) {
    if (phase_ != phase::acquiring) return;
    if (ec == errc::timeout || ec == errc::busy)
      return finish(
          exit_code::lock_timeout,
          (cl_.command == command_kind::semaphore
               ? "every lease of semaphore " + cl_.path + " is taken"
               : contention_->noun() + " is held by another contender") +
              (ec == errc::timeout ? " (gave up after " + format_duration(*cl_.timeout) + ")"
                                   : ""));
    if (ec) return fail(error_for(ec, "cannot acquire " + contention_->noun()));
    held_ = std::move(held);
    logger_->info("acquired {} with fencing token {}", held_.path(), held_.token().value());
    // The guard needs a lease that holds when our server is cut off from the quorum: only
    // quorum-acknowledged replies extend it (docs/session.md, "The lease"), renewed from now
    // until the job is done. Not while waiting: a waiting session that wants its lease expires
    // itself when a leader fail-over outlasts the lease.
    lease_ = zk_.keep_lease();
    if (lease_deadline() > std::chrono::steady_clock::now() + zk_.negotiated_timeout() / 4)
      return start_job();
    // A grant after a long wait arrives as a watch event, which proves nothing: the lease
    // still counts from our node's create. A write that a quorum acknowledges proves it now.
    zk_.async_multi({op::check{"/", any_version}}, [this](error_code e, std::vector<op_result>) {
      if (phase_ != phase::acquiring) return;
      if (e) return fail(error_for(e, "cannot renew the session's lease after the grant"));
      start_job();
    });
  }

  void start_job() {
    if (cl_.hold) return start_holding();
    phase_ = phase::starting;
    job_->spawn({"ZKCOORD_FENCING_TOKEN=" + std::to_string(held_.token().value()),
                 "ZKCOORD_LOCK_NODE=" + held_.path()},
                cl_.grace, lease_deadline(),
                [this](bool eof, const guard_message& m) { on_guard_report(eof, m); });
    renew_lease();
    held_.async_wait_lost([this](error_code e) { on_lost(e); });
  }

  // --hold: one line for the script that reads us, then the lock is held until stdin ends.
  void start_holding() {
    phase_ = phase::holding;
    std::cout << "granted " << held_.token().value() << ' ' << held_.path() << std::endl;
    held_.async_wait_lost([this](error_code e) { on_lost(e); });
    // A copy of stdin, so that closing the descriptor leaves fd 0 alone. Epoll refuses what
    // cannot be polled (/dev/null, a regular file): such a stdin counts as closed.
    error_code ec;
    int fd = ::dup(STDIN_FILENO);
    if (fd >= 0) stdin_.assign(fd, ec);
    if (fd < 0 || ec) {
      if (fd >= 0 && !stdin_.is_open()) ::close(fd);
      logger_->info("stdin cannot be watched: releasing {}", contention_->noun());
      return end_hold();
    }
    read_stdin();
  }

  // Whatever arrives on stdin is read and ignored: only its end matters.
  void read_stdin() {
    stdin_.async_read_some(asio::buffer(stdin_buffer_), [this](error_code ec, std::size_t) {
      if (ec == asio::error::operation_aborted || phase_ != phase::holding) return;
      if (!ec) return read_stdin();
      logger_->info("stdin closed: releasing {}", contention_->noun());
      end_hold();
    });
  }

  void end_hold() {
    if (phase_ != phase::holding) return;
    error_code ignored;
    stdin_.close(ignored);
    end_job(exit_code::ok, {});
  }

  // The session's, not the lock's: after a loss by deletion the grace still applies while
  // the session lives; after an expiry it is min(), and the guard kills the job at once.
  // (One session: the tool never renews it after an expiry.) A tenth of the timeout early,
  // for the guard's own delay on a loaded machine. With renewals every eighth of the timeout
  // a healthy session's lease stays about half the timeout ahead (docs/session.md), so the
  // margin never costs a healthy job.
  std::chrono::steady_clock::time_point lease_deadline() const {
    auto deadline = zk_.lease_deadline();
    if (deadline == std::chrono::steady_clock::time_point::min()) return deadline;
    return deadline - zk_.negotiated_timeout() / 10;
  }

  void renew_lease() {
    renew_timer_.expires_after(renew_period);
    renew_timer_.async_wait([this](error_code ec) {
      if (ec || (phase_ != phase::starting && phase_ != phase::running)) return;
      job_->renew(lease_deadline());
      renew_lease();
    });
  }

  void on_guard_report(bool eof, const guard_message& m) {
    if (phase_ != phase::starting && phase_ != phase::running) return;
    auto ended = outcome_.read(eof, m);
    if (outcome_.started()) phase_ = phase::running;
    if (ended) end_job(ended->status, std::move(ended->message));
  }

  void on_lost(error_code ec) {
    if (ec == asio::error::operation_aborted || ec == errc::not_held) return;
    if (phase_ == phase::holding)
      return finish(exit_code::lock_lost,
                    contention_->noun() + " lost while held (" + loss_reason(ec) + ")");
    if (phase_ != phase::starting && phase_ != phase::running) return;
    outcome_.mark_lost();
    report(contention_->noun() + " lost (" + loss_reason(ec) +
           "): sending SIGTERM to the command, SIGKILL in " + format_duration(cl_.grace));
    job_->renew(lease_deadline());
    job_->terminate();
  }

  void end_job(int status, std::string message) {
    renew_timer_.cancel();
    status_ = status;
    message_ = std::move(message);
    release();
  }

  // Bounded: the tool must end even when ZooKeeper is gone; closing the session afterwards
  // deletes our node anyway whenever the server still hears us.
  void release() {
    phase_ = phase::releasing;
    if (!held_.owns()) return finish(status_, message_);
    held_.async_release([this](error_code ec) {
      if (phase_ != phase::releasing) return;
      if (ec) logger_->warn("release of {}: {}", held_.path(), ec.message());
      finish(status_, message_);
    });
    release_timer_.expires_after(
        std::min<std::chrono::milliseconds>(cl_.global.session_timeout, std::chrono::seconds(5)));
    release_timer_.async_wait([this](error_code ec) {
      if (ec || phase_ != phase::releasing) return;
      logger_->warn("release of {} did not complete in time; closing the session", held_.path());
      finish(status_, message_);
    });
  }

  void fail(const cli_error& e) { finish(e.status(), e.what()); }

  void finish(int status, std::string message) {
    if (phase_ == phase::done) return;
    phase_ = phase::done;
    status_ = status;
    message_ = std::move(message);
    stop_signals_.cancel();
    renew_timer_.cancel();
    release_timer_.cancel();
    error_code ignored;
    stdin_.close(ignored);
    // Before the lock goes: should anything of the job still run, the guard kills it now.
    job_.reset();
    contention_.reset();
    // The library's lock state holds work on the io_context while a handle to it lives.
    held_ = ownership();
    state_sub_.reset();
    zk_.close();
  }

  const command_line& cl_;
  std::shared_ptr<spdlog::logger> logger_;
  session zk_;
  state_subscription state_sub_;
  std::unique_ptr<contention> contention_;
  job_outcome outcome_;
  ownership held_;
  std::optional<job_supervisor> job_;
  asio::signal_set stop_signals_;
  asio::posix::stream_descriptor stdin_;  // --hold: its end releases the lock
  std::array<char, 512> stdin_buffer_{};
  lease_keeper lease_;  // renewals while the job runs
  asio::steady_timer renew_timer_;
  asio::steady_timer release_timer_;
  phase phase_ = phase::connecting;
  int status_ = exit_code::internal;
  std::string message_;
};

}  // namespace

int run_lock_command(const command_line& cl) {
  std::optional<guard_process> guard;
  if (!cl.hold) {
    // Before anything connects: a typo in COMMAND costs no grant.
    job_spec job{find_executable(cl.child_argv.at(0)), cl.child_argv};
    // Before any thread exists (the ZooKeeper client starts its own): the guard is a fork.
    guard.emplace(guard_process::start(std::move(job)));
  }
  asio::io_context io;
  lock_run run(io, cl, std::move(guard));
  return run_to_the_end(io, run);
}

}  // namespace zkcoord::cli
