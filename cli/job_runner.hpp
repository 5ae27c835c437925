// SPDX-License-Identifier: Apache-2.0
// Runs COMMAND while a claim (job_claim.hpp) holds: `zkcoord lock`, `elect`, `semaphore` and
// `register` are this one runner with different claims.
#pragma once

#include "command_line.hpp"
#include "job_claim.hpp"
#include "job_guard.hpp"

#include <zkcoord/session.hpp>

#include <spdlog/logger.h>

#include <functional>
#include <memory>
#include <optional>

namespace zkcoord::cli {

/// Makes the claim on the runner's session.
using claim_factory = std::function<std::unique_ptr<job_claim>(
    session& zk, const std::shared_ptr<spdlog::logger>& logger)>;

/// Connects with `options`, makes the claim, runs the job under `guard` (none with --hold),
/// releases, and returns the exit status; throws cli_error for failures that end the tool with
/// a message.
int run_job(const command_line& cl, session_options options,
            const std::shared_ptr<spdlog::logger>& logger, const claim_factory& make_claim,
            std::optional<guard_process> guard);

}  // namespace zkcoord::cli
