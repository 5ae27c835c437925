// SPDX-License-Identifier: Apache-2.0
// The seat-booking run: creates the seats database, starts one booking process per customer,
// prints their timeline, pauses the first holder when asked, and prints the outcome and the
// summary line.
#pragma once

#include "seat_booking/options.hpp"

namespace seat_booking {

/// Returns the process exit status (0 when every worker finished normally).
int run_orchestrator(const run_options& options, const std::string& connect);

}  // namespace seat_booking
