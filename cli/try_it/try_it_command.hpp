// SPDX-License-Identifier: Apache-2.0
// `zkcoord try-it`: the lesson's page on 127.0.0.1 (every run real: two worker processes, a
// real ZooKeeper, a real SQLite file), or with --html one run saved as a page.
#pragma once

#include "command_line.hpp"

namespace zkcoord::cli {

int run_try_it_command(const command_line& cl);

/// `zkcoord try-it-worker ...`: one seat-booking worker of a run (started by the run itself).
int run_try_it_worker(int argc, char** argv);

}  // namespace zkcoord::cli
