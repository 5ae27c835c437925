// SPDX-License-Identifier: Apache-2.0
// One booking process: a customer who tries to book one seat, in the run's mode. It reports
// each step as a line on stdout (the orchestrator's timeline) and waits for "start" first.
#pragma once

#include "seat_booking/options.hpp"

namespace seat_booking {

/// Returns the process exit status.
int run_worker(const worker_options& options);

}  // namespace seat_booking
