// SPDX-License-Identifier: Apache-2.0
// What one run of the lesson asks for, in the lesson's own units, and whether it can run:
// checked before anything starts (a bad request costs no process and no znode).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

namespace zkcoord::cli::try_it {

/// How the two workers protect the last seat.
enum class protection {
  lock,        ///< a zkcoord lock, writes unconditional (fencing off)
  fenced,      ///< a zkcoord lock, writes carry its token: UPDATE ... WHERE fence < token
  conditional  ///< no lock at all: UPDATE ... WHERE holder IS NULL
};

const char* to_string(protection p) noexcept;
/// "lock", "fenced" or "conditional"; nullopt otherwise.
std::optional<protection> parse_protection(std::string_view name) noexcept;

struct lesson_params {
  int lease_s = 10;  ///< lesson seconds: the session timeout A and B ask for
  int pause_s = 15;  ///< lesson seconds A stays frozen between its check and its write
  protection mode = protection::lock;
  int scale_ms = 200;  ///< real milliseconds per lesson second (1000: real time)

  std::chrono::milliseconds lease() const { return std::chrono::milliseconds(lease_s * scale_ms); }
  std::chrono::milliseconds pause() const { return std::chrono::milliseconds(pause_s * scale_ms); }
};

/// The accepted ranges (the page gets them in its `hello` event).
struct lesson_limits {
  static constexpr int min_lease_s = 1, max_lease_s = 60;
  static constexpr int min_pause_s = 0, max_pause_s = 120;
  static constexpr int min_scale_ms = 50, max_scale_ms = 1000;
  /// A ZooKeeper session shorter than this is not useful; longer ones make a long wait.
  static constexpr int min_real_lease_ms = 800, max_real_lease_ms = 60000;
};

/// Why `p` cannot run, in words for the page ("" when it can).
std::string lesson_params_problem(const lesson_params& p);

/// Parses the page's request body, {"lease_s": 10, "pause_s": 15, "mode": "lock",
/// "scale_ms": 200}; every member optional (the defaults above). Returns the params, or the
/// problem in words (malformed JSON, a member of the wrong type, out of range).
struct parsed_params {
  lesson_params params;
  std::string problem;
};
parsed_params parse_lesson_request(std::string_view body);

}  // namespace zkcoord::cli::try_it
