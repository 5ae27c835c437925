// SPDX-License-Identifier: Apache-2.0
#include "lock_command.hpp"

#include "contention.hpp"
#include "duration.hpp"
#include "executable.hpp"
#include "exit_code.hpp"
#include "job_runner.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

#include <zkcoord/ownership.hpp>
#include <zkcoord/session.hpp>

#include <spdlog/spdlog.h>
#include <boost/asio/error.hpp>

#include <utility>

namespace zkcoord::cli {
namespace {

// What `zkcoord lock`, `elect` and `semaphore` hold while the command runs: a grant of the
// recipe that the contention picks, with its fencing token and its lease.
class grant_claim final : public job_claim {
 public:
  grant_claim(session& zk, const command_line& cl, std::shared_ptr<spdlog::logger> logger)
      : zk_(zk),
        cl_(cl),
        logger_(std::move(logger)),
        contention_(contention::for_command(zk, cl)) {}

  std::string noun() const override { return contention_->noun(); }

  std::string pending_event() const override {
    switch (cl_.command) {
      case command_kind::elect:
        return "the leadership was won";
      case command_kind::semaphore:
        return "the lease was acquired";
      default:
        return "the lock was acquired";
    }
  }

  void claim(claimed_handler on_claimed) override {
    on_claimed_ = std::move(on_claimed);
    contention_->acquire(cl_.timeout,
                         [this](error_code e, ownership held) { acquired(e, std::move(held)); });
  }

  std::vector<std::string> job_environment() const override {
    return {"ZKCOORD_FENCING_TOKEN=" + std::to_string(held_.token().value()),
            "ZKCOORD_LOCK_NODE=" + held_.path()};
  }

  std::string granted_line() const override {
    return "granted " + std::to_string(held_.token().value()) + ' ' + held_.path();
  }

  bool has_lease() const override { return true; }

  // The session's, not the lock's: after a loss by deletion the grace still applies while
  // the session lives; after an expiry it is min(), and the guard kills the job at once.
  // (One session: the tool never renews it after an expiry.) A tenth of the timeout early,
  // for the guard's own delay on a loaded machine. With renewals every eighth of the timeout
  // a healthy session's lease stays about half the timeout ahead (docs/session.md), so the
  // margin never costs a healthy job.
  std::chrono::steady_clock::time_point lease_deadline() const override {
    auto deadline = zk_.lease_deadline();
    if (deadline == std::chrono::steady_clock::time_point::min()) return deadline;
    return deadline - zk_.negotiated_timeout() / 10;
  }

  void watch_loss(lost_handler on_lost) override {
    held_.async_wait_lost([on_lost = std::move(on_lost)](error_code e) {
      if (e == boost::asio::error::operation_aborted || e == errc::not_held) return;
      on_lost(loss_reason(e));
    });
  }

  bool held() const override { return held_.owns(); }
  void release(std::function<void(error_code)> done) override {
    held_.async_release(std::move(done));
  }
  std::string node() const override { return held_.path(); }

  void drop() override {
    contention_.reset();
    held_ = ownership();
  }

 private:
  void acquired(error_code ec, ownership held) {
    if (!contention_) return;  // dropped: the runner has finished
    if (ec == errc::timeout || ec == errc::busy)
      return on_claimed_(cli_error(
          exit_code::lock_timeout,
          (cl_.command == command_kind::semaphore
               ? "every lease of semaphore " + cl_.path + " is taken"
               : contention_->noun() + " is held by another contender") +
              (ec == errc::timeout ? " (gave up after " + format_duration(*cl_.timeout) + ")"
                                   : "")));
    if (ec) return on_claimed_(error_for(ec, "cannot acquire " + contention_->noun()));
    held_ = std::move(held);
    logger_->info("acquired {} with fencing token {}", held_.path(), held_.token().value());
    // The guard needs a lease that holds when our server is cut off from the quorum: only
    // quorum-acknowledged replies extend it (docs/session.md, "The lease"), renewed from now
    // until the job is done. Not while waiting: a waiting session that wants its lease expires
    // itself when a leader fail-over outlasts the lease.
    lease_ = zk_.keep_lease();
    if (lease_deadline() > std::chrono::steady_clock::now() + zk_.negotiated_timeout() / 4)
      return on_claimed_(std::nullopt);
    // A grant after a long wait arrives as a watch event, which proves nothing: the lease
    // still counts from our node's create. A write that a quorum acknowledges proves it now.
    zk_.async_multi({op::check{"/", any_version}}, [this](error_code e, std::vector<op_result>) {
      if (e) return on_claimed_(error_for(e, "cannot renew the session's lease after the grant"));
      on_claimed_(std::nullopt);
    });
  }

  session& zk_;
  const command_line& cl_;
  std::shared_ptr<spdlog::logger> logger_;
  std::unique_ptr<contention> contention_;
  ownership held_;
  lease_keeper lease_;  // renewals while the job runs
  claimed_handler on_claimed_;
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
  auto logger = make_logger(cl.global.verbose);
  return run_job(
      cl, make_session_options(cl.global, logger), logger,
      [&cl](session& zk, const std::shared_ptr<spdlog::logger>& log) {
        return std::make_unique<grant_claim>(zk, cl, log);
      },
      std::move(guard));
}

}  // namespace zkcoord::cli
