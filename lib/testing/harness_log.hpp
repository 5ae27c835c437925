// SPDX-License-Identifier: Apache-2.0
// The harness's own spdlog logger ("zkcoord.testing", stderr). Internal.
#pragma once

#include <spdlog/spdlog.h>

#include <memory>

namespace zkcoord::testing::detail {

spdlog::logger& harness_log();

}  // namespace zkcoord::testing::detail
