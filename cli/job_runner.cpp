// SPDX-License-Identifier: Apache-2.0
#include "job_runner.hpp"

#include "chroot_check.hpp"
#include "duration.hpp"
#include "exit_code.hpp"
#include "job_outcome.hpp"
#include "job_supervisor.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

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
#include <utility>

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

// How often the lease deadline is passed on to the job guard. Far below any session timeout
// (the server's minimum is 2 ticks); a late renewal only makes the guard act earlier.
constexpr std::chrono::milliseconds renew_period{50};

// One run of a job command, as a chain of handlers on one io_context:
// connecting -> claiming -> starting -> running -> releasing -> done. SIGINT/SIGTERM/SIGHUP
// abort the first two phases (status 128+N) and are forwarded to the job afterwards. The job
// itself runs under the guard (job_guard.hpp), which outlives zkcoord if it must. With --hold
// there is no job (and no guard): claiming -> holding -> releasing, until stdin closes or a
// stop signal comes.
class job_run {
 public:
  job_run(asio::io_context& io, const command_line& cl, session_options options,
          const std::shared_ptr<spdlog::logger>& logger, const claim_factory& make_claim,
          std::optional<guard_process> guard)
      : cl_(cl),
        logger_(logger),
        zk_(io.get_executor(), std::move(options)),
        claim_(make_claim(zk_, logger_)),
        outcome_(cl.child_argv.empty() ? std::string() : cl.child_argv[0], cl.grace,
                 claim_->has_lease()
                     ? claim_->noun() +
                           ": its lease ran out before zkcoord renewed it (zkcoord stopped or "
                           "starved, or ZooKeeper unreachable): the command was killed"
                     : std::string(),
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
  enum class phase { connecting, claiming, starting, running, holding, releasing, done };

  bool job_phase() const noexcept { return phase_ == phase::starting || phase_ == phase::running; }

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
      case phase::claiming:
        // Closing the session deletes our node at once, if it was created.
        finish(signal_exit_status(sig), std::string("interrupted by ") + ::sigabbrev_np(sig) +
                                            " before " + claim_->pending_event());
        break;
      case phase::starting:
      case phase::running:
        logger_->info("forwarding SIG{} to the command", ::sigabbrev_np(sig));
        job_->forward_signal(sig);
        break;
      case phase::holding:
        logger_->info("SIG{}: releasing {}", ::sigabbrev_np(sig), claim_->noun());
        end_hold();
        break;
      default:
        break;  // the job has ended; the release is bounded anyway
    }
  }

  void on_state(session_state s) {
    if ((job_phase() || phase_ == phase::holding) && s == session_state::suspended)
      logger_->warn("lost contact with ZooKeeper: the {} is in doubt until reconnected",
                    claim_->noun());
  }

  void on_connected(error_code ec) {
    if (phase_ != phase::connecting) return;
    if (ec) return fail(error_for(ec, "cannot connect to " + cl_.global.connect));
    logger_->debug("connected, session 0x{:x}", zk_.session_id());
    // Through a missing chroot every path is missing: say so before creating anything.
    zk_.async_exists("/", [this](error_code e, std::optional<node_stat> root) {
      if (phase_ != phase::connecting) return;
      if (auto problem = chroot_error(e, root, cl_.global.connect)) return fail(*problem);
      phase_ = phase::claiming;
      claim_->claim([this](std::optional<cli_error> problem) { claimed(std::move(problem)); });
    });
  }

  void claimed(std::optional<cli_error> problem) {
    if (phase_ != phase::claiming) return;
    if (problem) return fail(*problem);
    if (cl_.hold) return start_holding();
    phase_ = phase::starting;
    job_->spawn(claim_->job_environment(), cl_.grace, claim_->lease_deadline(),
                [this](bool eof, const guard_message& m) { on_guard_report(eof, m); });
    if (claim_->has_lease()) renew_lease();
    claim_->watch_loss([this](std::string reason) { on_lost(std::move(reason)); });
  }

  // --hold: one line for the script that reads us, then the claim is held until stdin ends.
  void start_holding() {
    phase_ = phase::holding;
    std::cout << claim_->granted_line() << std::endl;
    claim_->watch_loss([this](std::string reason) { on_lost(std::move(reason)); });
    // A copy of stdin, so that closing the descriptor leaves fd 0 alone. Epoll refuses what
    // cannot be polled (/dev/null, a regular file): such a stdin counts as closed.
    error_code ec;
    int fd = ::dup(STDIN_FILENO);
    if (fd >= 0) stdin_.assign(fd, ec);
    if (fd < 0 || ec) {
      if (fd >= 0 && !stdin_.is_open()) ::close(fd);
      logger_->info("stdin cannot be watched: releasing {}", claim_->noun());
      return end_hold();
    }
    read_stdin();
  }

  // Whatever arrives on stdin is read and ignored: only its end matters.
  void read_stdin() {
    stdin_.async_read_some(asio::buffer(stdin_buffer_), [this](error_code ec, std::size_t) {
      if (ec == asio::error::operation_aborted || phase_ != phase::holding) return;
      if (!ec) return read_stdin();
      logger_->info("stdin closed: releasing {}", claim_->noun());
      end_hold();
    });
  }

  void end_hold() {
    if (phase_ != phase::holding) return;
    error_code ignored;
    stdin_.close(ignored);
    end_job(exit_code::ok, {});
  }

  void renew_lease() {
    renew_timer_.expires_after(renew_period);
    renew_timer_.async_wait([this](error_code ec) {
      if (ec || !job_phase()) return;
      job_->renew(claim_->lease_deadline());
      renew_lease();
    });
  }

  void on_guard_report(bool eof, const guard_message& m) {
    if (!job_phase()) return;
    auto ended = outcome_.read(eof, m);
    if (outcome_.started()) phase_ = phase::running;
    if (ended) end_job(ended->status, std::move(ended->message));
  }

  void on_lost(std::string reason) {
    if (phase_ == phase::holding)
      return finish(exit_code::lock_lost, claim_->noun() + " lost while held (" + reason + ")");
    if (!job_phase()) return;
    outcome_.mark_lost();
    report(claim_->noun() + " lost (" + reason + "): sending SIGTERM to the command, SIGKILL in " +
           format_duration(cl_.grace));
    if (claim_->has_lease()) job_->renew(claim_->lease_deadline());
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
    if (!claim_->held()) return finish(status_, message_);
    claim_->release([this](error_code ec) {
      if (phase_ != phase::releasing) return;
      if (ec) logger_->warn("release of {}: {}", claim_->node(), ec.message());
      finish(status_, message_);
    });
    release_timer_.expires_after(
        std::min<std::chrono::milliseconds>(cl_.global.session_timeout, std::chrono::seconds(5)));
    release_timer_.async_wait([this](error_code ec) {
      if (ec || phase_ != phase::releasing) return;
      logger_->warn("release of {} did not complete in time; closing the session", claim_->node());
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
    // Before the node goes: should anything of the job still run, the guard kills it now.
    job_.reset();
    // The library's recipe state holds work on the io_context while a handle to it lives.
    claim_->drop();
    state_sub_.reset();
    zk_.close();
  }

  const command_line& cl_;
  std::shared_ptr<spdlog::logger> logger_;
  session zk_;
  state_subscription state_sub_;
  std::unique_ptr<job_claim> claim_;
  job_outcome outcome_;
  std::optional<job_supervisor> job_;
  asio::signal_set stop_signals_;
  asio::posix::stream_descriptor stdin_;  // --hold: its end releases the claim
  std::array<char, 512> stdin_buffer_{};
  asio::steady_timer renew_timer_;
  asio::steady_timer release_timer_;
  phase phase_ = phase::connecting;
  int status_ = exit_code::internal;
  std::string message_;
};

}  // namespace

int run_job(const command_line& cl, session_options options,
            const std::shared_ptr<spdlog::logger>& logger, const claim_factory& make_claim,
            std::optional<guard_process> guard) {
  asio::io_context io;
  job_run run(io, cl, std::move(options), logger, make_claim, std::move(guard));
  run.start();
  while (!run.done() && io.run_one()) {
  }
  // Lets the session's close complete; bounded, so that nothing left queued can keep the tool
  // from exiting with its answer.
  io.run_for(std::chrono::seconds(2));
  if (!run.message().empty()) throw cli_error(run.status(), run.message());
  return run.status();
}

}  // namespace zkcoord::cli
