// SPDX-License-Identifier: Apache-2.0
// The seat-booking worker's event lines, read as the page's events and as facts for the
// verdict. Sans-I/O: a line in, an event (a JSON object without run and t_ms) out.
#pragma once

#include "try_it/lesson_verdict.hpp"

#include <boost/json/object.hpp>

#include <optional>
#include <string_view>

namespace zkcoord::cli::try_it {

/// "4294967329" -> 4294967329 (tokens are printed in decimal everywhere); nullopt when it is
/// not a whole decimal number.
std::optional<std::int64_t> parse_token(std::string_view text);

/// Reads one line of worker `worker` ('A' or 'B') of a run in mode `facts.params.mode`:
/// records what the verdict needs in `facts` and returns the event for the page (nullopt for
/// lines the page does not show).
std::optional<boost::json::object> read_worker_line(char worker, std::string_view line,
                                                    run_facts& facts);

}  // namespace zkcoord::cli::try_it
