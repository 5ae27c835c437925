// SPDX-License-Identifier: Apache-2.0
// What the server says one session watches ("wchc" of the file's server), for tests that check
// a waiter watches the one node it should.
#pragma once

#include <zkcoord/testing/four_letter.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include "support/lock_fixture.hpp"

#include <cstdint>
#include <cstdio>
#include <string>

namespace zkcoord::test {

/// The paths the server has watches on for this session, as one text block ("" if none).
inline std::string watches_of(std::int64_t session_id) {
  auto& server = lock_cluster()->local_server();
  const std::string all = testing::four_letter("127.0.0.1", server.port(), "wchc");
  char id[32];
  std::snprintf(id, sizeof id, "0x%llx", static_cast<unsigned long long>(session_id));
  const auto at = all.find(id);
  if (at == std::string::npos) return "";
  const auto end = all.find("0x", at + 2);
  return all.substr(at, end == std::string::npos ? std::string::npos : end - at);
}

}  // namespace zkcoord::test
