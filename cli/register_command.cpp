// SPDX-License-Identifier: Apache-2.0
#include "register_command.hpp"

#include "executable.hpp"
#include "exit_code.hpp"
#include "job_runner.hpp"
#include "locks_format.hpp"
#include "registration_data.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

#include <zkcoord/membership.hpp>
#include <zkcoord/session.hpp>

#include <spdlog/spdlog.h>
#include <boost/asio/error.hpp>

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

// What `zkcoord register` holds while the command runs: a group membership, registered again
// by the library after an expiry or a deletion. Nobody is granted anything when it lapses, so
// there is no lease for the guard to enforce.
class membership_claim final : public job_claim {
 public:
  membership_claim(session& zk, const command_line& cl, std::string data,
                   std::shared_ptr<spdlog::logger> logger)
      : zk_(zk),
        cl_(cl),
        data_(std::move(data)),
        noun_("registration " + (cl.path == "/" ? "" : cl.path) + "/" + cl.member_id),
        logger_(std::move(logger)) {}

  std::string noun() const override { return noun_; }
  std::string pending_event() const override { return "the " + noun_ + " was made"; }

  void claim(claimed_handler on_claimed) override {
    async_join(zk_, cl_.path, cl_.member_id, data_,
               [this, on_claimed = std::move(on_claimed)](error_code ec, membership m) {
                 if (dropped_) return;  // the runner has finished
                 if (ec) return on_claimed(error_for(ec, "cannot make the " + noun_));
                 member_ = std::move(m);
                 logger_->info("registered {} (session 0x{:x})", member_.path(),
                               member_.current().session_id);
                 on_claimed(std::nullopt);
               });
  }

  std::vector<std::string> job_environment() const override {
    return {"ZKCOORD_MEMBER_NODE=" + member_.path()};
  }
  std::string granted_line() const override { return "registered " + member_.path(); }
  bool has_lease() const override { return false; }
  std::chrono::steady_clock::time_point lease_deadline() const override { return no_lease(); }

  // Each re-registration is told, because others may have acted on the member's absence. The
  // library gives the member up only when another session took the id while we were absent,
  // or on a permanent error: then the command no longer runs registered.
  void watch_loss(lost_handler on_lost) override {
    member_.async_wait_reregistered(
        [this, on_lost = std::move(on_lost)](error_code ec, registration r) mutable {
          if (ec == boost::asio::error::operation_aborted) return;
          if (ec) return on_lost(ec.message());
          report("re-registered " + member_.path() + " because " + why_registered(r) +
                 " (registration " + std::to_string(r.number) + ", session " +
                 hex_session(r.session_id) + ")");
          watch_loss(std::move(on_lost));
        });
  }

  bool held() const override { return member_.active(); }
  void release(std::function<void(error_code)> done) override {
    member_.async_leave(std::move(done));
  }
  std::string node() const override { return member_.path(); }
  void drop() override {
    dropped_ = true;
    member_ = membership();
  }

 private:
  session& zk_;
  const command_line& cl_;
  std::string data_;
  std::string noun_;
  std::shared_ptr<spdlog::logger> logger_;
  membership member_;
  bool dropped_ = false;
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
  auto logger = make_logger(cl.global.verbose);
  // Unlike `lock`, the session is renewed after an expiry: the member is registered again on
  // the new one by the library.
  session_options options = make_session_options(cl.global, logger);
  options.renew_after_expiry = true;
  return run_job(
      cl, std::move(options), logger,
      [&cl, &data](session& zk, const std::shared_ptr<spdlog::logger>& log) {
        return std::make_unique<membership_claim>(zk, cl, std::move(data), log);
      },
      std::move(guard));
}

}  // namespace zkcoord::cli
