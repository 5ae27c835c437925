// SPDX-License-Identifier: Apache-2.0
#include "register_command.hpp"

#include "chroot_check.hpp"
#include "duration.hpp"
#include "executable.hpp"
#include "exit_code.hpp"
#include "job_outcome.hpp"
#include "job_supervisor.hpp"
#include "locks_format.hpp"
#include "registration_data.hpp"
#include "run_to_the_end.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

#include <zkcoord/membership.hpp>
#include <zkcoord/session.hpp>

#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>
#include <boost/asio/steady_timer.hpp>

#include <signal.h>
#include <string.h>

#include <optional>
#include <utility>

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

// The registration is not exclusive: nobody is granted anything when it lapses, so the guard
// has no lease to enforce (a frozen zkcoord is registered again when it wakes, and says so).
// Ten years rather than time_point::max(): the guard adds to the time left before dividing.
std::chrono::steady_clock::time_point no_lease() {
  return std::chrono::steady_clock::now() + std::chrono::hours(24 * 365 * 10);
}

std::string why_registered(const registration& r) {
  switch (r.cause) {
    case registration_cause::session_expired:
      return "the session expired";
    case registration_cause::node_deleted:
      return "its node was deleted";
    case registration_cause::joined:
      break;
  }
  return "joined";
}

// One run of `zkcoord register`, as a chain of handlers on one io_context:
// connecting -> joining -> starting -> running -> leaving -> done. SIGINT/SIGTERM/SIGHUP abort
// the first two phases (status 128+N) and are forwarded to the job afterwards. The job runs
// under the guard (job_guard.hpp), as `lock`'s does, so that it never outlives zkcoord.
class register_run {
 public:
  register_run(asio::io_context& io, const command_line& cl, std::string data, guard_process guard)
      : cl_(cl),
        data_(std::move(data)),
        noun_("registration " + (cl.path == "/" ? "" : cl.path) + "/" + cl.member_id),
        logger_(make_logger(cl.global.verbose)),
        zk_(io.get_executor(), session_options_for(cl, logger_)),
        // No lease report: the guard gets no lease to enforce (no_lease()).
        outcome_(cl.child_argv.at(0), cl.grace, {}, logger_),
        job_(std::in_place, io.get_executor(), std::move(guard)),
        stop_signals_(io, SIGINT, SIGTERM, SIGHUP),
        leave_timer_(io) {}

  void start() {
    wait_stop_signal();
    zk_.async_connect([this](error_code ec) { on_connected(ec); });
  }

  bool done() const noexcept { return phase_ == phase::done; }
  int status() const noexcept { return status_; }
  const std::string& message() const noexcept { return message_; }

 private:
  enum class phase { connecting, joining, starting, running, leaving, done };

  // Unlike `lock`, the session is renewed after an expiry: the member is registered again on
  // the new one by the library.
  static session_options session_options_for(const command_line& cl,
                                             std::shared_ptr<spdlog::logger> logger) {
    session_options options = make_session_options(cl.global, std::move(logger));
    options.renew_after_expiry = true;
    return options;
  }

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
      case phase::joining:
        // Closing the session deletes our node at once, if it was created.
        finish(signal_exit_status(sig), std::string("interrupted by ") + ::sigabbrev_np(sig) +
                                            " before the " + noun_ + " was made");
        break;
      case phase::starting:
      case phase::running:
        logger_->info("forwarding SIG{} to the command", ::sigabbrev_np(sig));
        job_->forward_signal(sig);
        break;
      default:
        break;  // the job has ended; the leave is bounded anyway
    }
  }

  void on_connected(error_code ec) {
    if (phase_ != phase::connecting) return;
    if (ec) return fail(error_for(ec, "cannot connect to " + cl_.global.connect));
    // Through a missing chroot every path is missing: say so before creating anything.
    zk_.async_exists("/", [this](error_code e, std::optional<node_stat> root) {
      if (phase_ != phase::connecting) return;
      if (auto problem = chroot_error(e, root, cl_.global.connect)) return fail(*problem);
      phase_ = phase::joining;
      async_join(zk_, cl_.path, cl_.member_id, data_,
                 [this](error_code je, membership m) { joined(je, std::move(m)); });
    });
  }

  void joined(error_code ec, membership m) {
    if (phase_ != phase::joining) return;
    if (ec) return fail(error_for(ec, "cannot make the " + noun_));
    member_ = std::move(m);
    const registration first = member_.current();
    logger_->info("registered {} (session 0x{:x})", member_.path(), first.session_id);
    phase_ = phase::starting;
    job_->spawn({"ZKCOORD_MEMBER_NODE=" + member_.path()}, cl_.grace, no_lease(),
                [this](bool eof, const guard_message& msg) { on_guard_report(eof, msg); });
    wait_reregistered();
  }

  // Each re-registration is told, because others may have acted on the member's absence.
  void wait_reregistered() {
    member_.async_wait_reregistered([this](error_code ec, registration r) {
      if (ec == asio::error::operation_aborted ||
          (phase_ != phase::starting && phase_ != phase::running))
        return;
      if (ec) return on_ended(ec);
      report("re-registered " + member_.path() + " because " + why_registered(r) +
             " (registration " + std::to_string(r.number) + ", session " +
             hex_session(r.session_id) + ")");
      wait_reregistered();
    });
  }

  // The library gave up the member (another session took the id while we were absent, a
  // permanent error): the command no longer runs registered.
  void on_ended(error_code ec) {
    outcome_.mark_lost();
    report(noun_ + " lost (" + ec.message() + "): sending SIGTERM to the command, SIGKILL in " +
           format_duration(cl_.grace));
    job_->terminate();
  }

  void on_guard_report(bool eof, const guard_message& m) {
    if (phase_ != phase::starting && phase_ != phase::running) return;
    auto ended = outcome_.read(eof, m);
    if (outcome_.started()) phase_ = phase::running;
    if (ended) end_job(ended->status, std::move(ended->message));
  }

  void end_job(int status, std::string message) {
    status_ = status;
    message_ = std::move(message);
    leave();
  }

  // Bounded: the tool must end even when ZooKeeper is gone; closing the session afterwards
  // deletes our node anyway whenever the server still hears us.
  void leave() {
    phase_ = phase::leaving;
    if (!member_.active()) return finish(status_, message_);
    member_.async_leave([this](error_code ec) {
      if (phase_ != phase::leaving) return;
      if (ec) logger_->warn("leave of {}: {}", member_.path(), ec.message());
      finish(status_, message_);
    });
    leave_timer_.expires_after(
        std::min<std::chrono::milliseconds>(cl_.global.session_timeout, std::chrono::seconds(5)));
    leave_timer_.async_wait([this](error_code ec) {
      if (ec || phase_ != phase::leaving) return;
      logger_->warn("leave of {} did not complete in time; closing the session", member_.path());
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
    leave_timer_.cancel();
    // Before the node goes: should anything of the job still run, the guard kills it now.
    job_.reset();
    // The library's member state holds work on the io_context while a handle to it lives.
    member_ = membership();
    zk_.close();
  }

  const command_line& cl_;
  std::string data_;
  std::string noun_;
  std::shared_ptr<spdlog::logger> logger_;
  session zk_;
  job_outcome outcome_;
  membership member_;
  std::optional<job_supervisor> job_;
  asio::signal_set stop_signals_;
  asio::steady_timer leave_timer_;
  phase phase_ = phase::connecting;
  int status_ = exit_code::internal;
  std::string message_;
};

std::int64_t now_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace

int run_register_command(const command_line& cl) {
  // Before anything connects: bad data or a typo in COMMAND costs no node.
  std::string data = registration_data(cl, now_ms());
  job_spec job{find_executable(cl.child_argv.at(0)), cl.child_argv};
  // Before any thread exists (the ZooKeeper client starts its own): the guard is a fork.
  auto guard = guard_process::start(std::move(job));
  asio::io_context io;
  register_run run(io, cl, std::move(data), std::move(guard));
  return run_to_the_end(io, run);
}

}  // namespace zkcoord::cli
