// SPDX-License-Identifier: Apache-2.0
// Drives one run of a command that runs COMMAND (lock_run, register_run) on its io_context
// until it is done, and turns its end into zkcoord's exit status.
#pragma once

#include "exit_code.hpp"

#include <boost/asio/io_context.hpp>

#include <chrono>

namespace zkcoord::cli {

/// `Run` has start(), done(), status() and message(). Returns the status, or throws cli_error
/// with the message when there is one.
template <class Run>
int run_to_the_end(boost::asio::io_context& io, Run& run) {
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
