// SPDX-License-Identifier: Apache-2.0
// libFuzzer's entry point for one target, chosen at build time (ZKCOORD_FUZZ_ENTRY).
#include "fuzz_targets.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  zkcoord::fuzz::ZKCOORD_FUZZ_ENTRY(data, size);
  return 0;
}
