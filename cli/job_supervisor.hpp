// SPDX-License-Identifier: Apache-2.0
// zkcoord's side of the job guard (job_guard.hpp): requests sent over the socket, reports
// read from it on the io_context.
#pragma once

#include "guard_protocol.hpp"
#include "job_guard.hpp"

#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/posix/stream_descriptor.hpp>

#include <chrono>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace zkcoord::cli {

class job_supervisor {
 public:
  /// Called for each report, then with `eof` true once the guard's socket closed (after
  /// `finished`, or because the guard died). May destroy the supervisor.
  using report_handler = std::function<void(bool eof, const guard_message&)>;

  job_supervisor(const boost::asio::any_io_executor& ex, guard_process guard);
  ~job_supervisor();

  /// Asks the guard to start the job; reports follow (started or spawn_failed first).
  void spawn(const std::vector<std::string>& extra_env, std::chrono::milliseconds grace,
             std::chrono::steady_clock::time_point lease_deadline, report_handler on_report);
  /// The lease now runs until `deadline`; the guard kills the job when it passes.
  void renew(std::chrono::steady_clock::time_point deadline);
  void forward_signal(int sig);
  /// The lock is lost: SIGTERM to the job now, SIGKILL after the grace.
  void terminate();

 private:
  void send(const guard_message& m, const std::string& payload = {});
  void read_next();

  guard_process guard_;
  boost::asio::posix::stream_descriptor socket_;
  guard_message incoming_;
  report_handler on_report_;
  std::int64_t last_deadline_ = 0;
  std::shared_ptr<int> life_ = std::make_shared<int>();
};

}  // namespace zkcoord::cli
