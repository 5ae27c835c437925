// SPDX-License-Identifier: Apache-2.0
// The fuzz targets' bodies: plain functions, shared by the libFuzzer binaries (libfuzzer_main.cpp)
// and the corpus replay unit test. Each throws property_violation when a property breaks.
#pragma once

#include <cstddef>
#include <cstdint>

namespace zkcoord::fuzz {

/// path_problem, connect_string_problem, join_path, parent_path against ZooKeeper's rules.
void fuzz_path(const std::uint8_t* data, std::size_t size);
/// parse_lock_sequence, protected node names, contender_queue ordering, make_contenders.
void fuzz_lock_name(const std::uint8_t* data, std::size_t size);
/// decode_holder_data on any bytes; encode -> decode is the identity.
void fuzz_holder_data(const std::uint8_t* data, std::size_t size);
/// The CLI's parse_command_line: usage errors only, and what it accepts is usable.
void fuzz_command_line(const std::uint8_t* data, std::size_t size);
/// decode_service_instance on any bytes; decode -> encode -> decode is the identity.
void fuzz_service_instance(const std::uint8_t* data, std::size_t size);

}  // namespace zkcoord::fuzz
