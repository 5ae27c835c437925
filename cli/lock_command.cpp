#include "lock_command.hpp"

#include "child_process.hpp"
#include "duration.hpp"
#include "exit_code.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

#include <zkcoord/lock.hpp>
#include <zkcoord/session.hpp>

#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <signal.h>
#include <string.h>

#include <optional>

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

// Shown as the app id in `zkcoord locks`, so people can tell which command holds a lock.
std::string app_id_for(const std::vector<std::string>& argv) {
  std::string id = "zkcoord lock:";
  for (const auto& arg : argv) {
    if (id.size() > 200) return id + " ...";
    id += ' ' + arg;
  }
  return id;
}

// One run of `zkcoord lock`, as a chain of handlers on one io_context:
// connecting -> acquiring -> running -> releasing -> done. SIGINT/SIGTERM/SIGHUP abort the
// first two phases (status 128+N) and are forwarded to the command during the third.
class lock_run {
 public:
  lock_run(asio::io_context& io, const command_line& cl)
      : cl_(cl),
        logger_(make_logger(cl.global.verbose)),
        zk_(io.get_executor(), make_session_options(cl.global, logger_)),
        stop_signals_(io, SIGINT, SIGTERM, SIGHUP),
        // Registered before the command is forked, so its exit cannot go unnoticed.
        child_signals_(io, SIGCHLD),
        grace_timer_(io),
        release_timer_(io) {}

  void start() {
    wait_stop_signal();
    state_sub_ = zk_.subscribe([this](session_state s) { on_state(s); });
    zk_.async_connect([this](error_code ec) { on_connected(ec); });
  }

  bool done() const noexcept { return phase_ == phase::done; }
  int status() const noexcept { return status_; }
  const std::string& message() const noexcept { return message_; }

 private:
  enum class phase { connecting, acquiring, running, releasing, done };

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
        finish(signal_exit_status(sig), std::string("interrupted by ") + ::sigabbrev_np(sig) +
                                            " before the lock was acquired");
        break;
      case phase::running:
        logger_->info("forwarding SIG{} to the command", ::sigabbrev_np(sig));
        child_->signal_group(sig);
        break;
      default:
        break;  // the command has ended; the release is bounded anyway
    }
  }

  void on_state(session_state s) {
    if (phase_ == phase::running && s == session_state::suspended)
      logger_->warn("lost contact with ZooKeeper: the lock is in doubt until reconnected");
  }

  void on_connected(error_code ec) {
    if (phase_ != phase::connecting) return;
    if (ec) return fail(error_for(ec, "cannot connect to " + cl_.global.connect));
    logger_->debug("connected, session 0x{:x}", zk_.session_id());
    phase_ = phase::acquiring;
    lock_.emplace(zk_, cl_.path, lock_options{.app_id = app_id_for(cl_.child_argv)});
    auto on_acquired = [this](error_code e, held_lock held) { acquired(e, std::move(held)); };
    if (!cl_.timeout)
      lock_->async_acquire(on_acquired);
    else if (cl_.timeout->count() == 0)
      lock_->async_try_acquire(on_acquired);
    else
      lock_->async_acquire(*cl_.timeout, on_acquired);
  }

  void acquired(error_code ec, held_lock held) {
    if (phase_ != phase::acquiring) return;
    if (ec == errc::timeout || ec == errc::busy)
      return finish(
          exit_code::lock_timeout,
          "lock " + cl_.path + " is held by another contender" +
              (ec == errc::timeout ? " (gave up after " + format_duration(*cl_.timeout) + ")"
                                   : ""));
    if (ec) return fail(error_for(ec, "cannot acquire lock " + cl_.path));
    held_ = std::move(held);
    logger_->info("acquired {} with fencing token {}", held_.path(), held_.token().value());
    try {
      child_.emplace(child_process::spawn(
          cl_.child_argv, {"ZKCOORD_FENCING_TOKEN=" + std::to_string(held_.token().value()),
                           "ZKCOORD_LOCK_NODE=" + held_.path()}));
    } catch (const cli_error& e) {
      status_ = e.status();
      message_ = e.what();
      return release();
    }
    phase_ = phase::running;
    wait_child();
    held_.async_wait_lost([this](error_code e) { on_lost(e); });
  }

  void wait_child() {
    child_signals_.async_wait([this](error_code ec, int) {
      if (ec || phase_ != phase::running) return;
      if (auto exit_status = child_->try_reap()) return on_child_exit(*exit_status);
      wait_child();
    });
  }

  void on_lost(error_code ec) {
    if (phase_ != phase::running || ec == asio::error::operation_aborted || ec == errc::not_held)
      return;
    lost_ = true;
    report("lock " + cl_.path + " lost (" + ec.message() +
           "): sending SIGTERM to the command, SIGKILL in " + format_duration(cl_.grace));
    child_->signal_group(SIGTERM);
    child_->signal_group(SIGCONT);  // a stopped command cannot act on SIGTERM
    grace_timer_.expires_after(cl_.grace);
    grace_timer_.async_wait([this](error_code e) {
      if (e || phase_ != phase::running) return;
      report("the command outlived the grace period: sending SIGKILL");
      child_->signal_group(SIGKILL);
    });
  }

  void on_child_exit(int exit_status) {
    grace_timer_.cancel();
    child_.reset();
    logger_->info("the command exited with status {}", exit_status);
    status_ = lost_ ? exit_code::lock_lost : exit_status;
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
    child_signals_.cancel();
    grace_timer_.cancel();
    release_timer_.cancel();
    lock_.reset();
    // The library's lock state holds work on the io_context while a handle to it lives.
    held_ = held_lock();
    state_sub_.reset();
    zk_.close();
  }

  const command_line& cl_;
  std::shared_ptr<spdlog::logger> logger_;
  session zk_;
  state_subscription state_sub_;
  std::optional<zkcoord::lock> lock_;
  held_lock held_;
  std::optional<child_process> child_;
  asio::signal_set stop_signals_;
  asio::signal_set child_signals_;
  asio::steady_timer grace_timer_;
  asio::steady_timer release_timer_;
  phase phase_ = phase::connecting;
  bool lost_ = false;
  int status_ = exit_code::internal;
  std::string message_;
};

}  // namespace

int run_lock_command(const command_line& cl) {
  asio::io_context io;
  lock_run run(io, cl);
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
