// SPDX-License-Identifier: Apache-2.0
// The counters' sans-I/O rules: the big-endian byte layouts Curator and kazoo use, the rule
// that a cached shared_count only moves forward, and what one compare-and-set attempt of a
// distributed atomic counter writes.
#pragma once

#include <zkcoord/counter.hpp>
#include <zkcoord/error.hpp>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace zkcoord::detail {

/// `value` as `width` (4 or 8) big-endian bytes; a 4-byte encoding keeps the low 32 bits.
std::string encode_counter(std::int64_t value, int width);

/// The value held in `data`: `width` big-endian bytes, or empty data, which reads as
/// `empty_value`. Any other length: errc::bad_counter_data.
struct decoded_counter {
  error_code ec;
  std::int64_t value = 0;
};
decoded_counter decode_counter(std::string_view data, int width, std::int64_t empty_value);

/// Whether a value read or written (`fresh`) may replace the cached one: nothing cached yet,
/// or a strictly larger mzxid (CURATOR-688). Versions are never compared: they wrap around,
/// and version 0 is a real version (CURATOR-329).
bool moves_forward(const std::optional<versioned_count>& cached, const versioned_count& fresh);

/// Whether ZooKeeper can check `version` in a set: -1 means "any version", so a node whose
/// version wrapped around to -1 cannot be set conditionally.
constexpr bool checkable_version(std::int32_t version) noexcept {
  return version != -1;
}

/// The value `width` bytes wrap `value` to, as Java's int or long arithmetic does.
std::int64_t wrap_to_width(std::int64_t value, int width);

/// What one attempt of a distributed atomic operation does with the value it read.
struct atomic_step {
  bool write = false;          ///< false: complete now (a get, or a compare_and_set mismatch)
  bool succeeded = false;      ///< when not writing: the operation's outcome
  std::int64_t new_value = 0;  ///< when writing: the value to write (wrapped to the width)
};
atomic_step plan_atomic_step(const atomic_request& request, std::int64_t current, int width);

/// Whether an operation that failed its compare-and-set may try again (compare_and_set never
/// retries; the others until max_tries).
bool retries(const atomic_request& request) noexcept;

}  // namespace zkcoord::detail
