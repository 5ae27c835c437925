// SPDX-License-Identifier: Apache-2.0
// The counters' byte layouts, the move-forward rule, and the plan of one compare-and-set.
#include "counter/counter_codec.hpp"

namespace zkcoord::detail {

std::string encode_counter(std::int64_t value, int width) {
  const auto bits = static_cast<std::uint64_t>(value);
  std::string out(static_cast<std::size_t>(width), '\0');
  for (int i = 0; i < width; ++i) {
    out[static_cast<std::size_t>(i)] = static_cast<char>((bits >> (8 * (width - 1 - i))) & 0xffu);
  }
  return out;
}

decoded_counter decode_counter(std::string_view data, int width, std::int64_t empty_value) {
  if (data.empty()) return {error_code{}, empty_value};
  if (data.size() != static_cast<std::size_t>(width)) {
    return {make_error_code(errc::bad_counter_data), 0};
  }
  std::uint64_t bits = 0;
  for (const char c : data) bits = (bits << 8) | static_cast<unsigned char>(c);
  if (width == 4) {
    return {error_code{}, static_cast<std::int32_t>(static_cast<std::uint32_t>(bits))};
  }
  return {error_code{}, static_cast<std::int64_t>(bits)};
}

bool moves_forward(const std::optional<versioned_count>& cached, const versioned_count& fresh) {
  return !cached || fresh.mzxid > cached->mzxid;
}

std::int64_t wrap_to_width(std::int64_t value, int width) {
  if (width == 4) return static_cast<std::int32_t>(static_cast<std::uint32_t>(value));
  return value;
}

atomic_step plan_atomic_step(const atomic_request& request, std::int64_t current, int width) {
  using kind = atomic_request::kind;
  switch (request.what) {
    case kind::get:
      return {.write = false, .succeeded = true, .new_value = current};
    case kind::add: {
      // Unsigned arithmetic: wraps around like Java's, without signed overflow.
      const auto sum =
          static_cast<std::uint64_t>(current) + static_cast<std::uint64_t>(request.operand);
      return {.write = true,
              .succeeded = false,
              .new_value = wrap_to_width(static_cast<std::int64_t>(sum), width)};
    }
    case kind::try_set:
      return {
          .write = true, .succeeded = false, .new_value = wrap_to_width(request.operand, width)};
    case kind::compare_and_set:
      if (current != wrap_to_width(request.expected, width)) {
        return {.write = false, .succeeded = false, .new_value = current};
      }
      return {
          .write = true, .succeeded = false, .new_value = wrap_to_width(request.operand, width)};
  }
  return {};
}

bool retries(const atomic_request& request) noexcept {
  return request.what != atomic_request::kind::compare_and_set;
}

}  // namespace zkcoord::detail
