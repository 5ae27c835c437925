// SPDX-License-Identifier: Apache-2.0
// Small blocking helpers of the election tests: the participants of an election path, their ids,
// and waiting until a campaign's node is listed.
#pragma once

#include <zkcoord/election.hpp>
#include <zkcoord/session.hpp>

#include "support/io_thread.hpp"
#include "support/tuple_future.hpp"

#include <boost/test/unit_test.hpp>

#include <chrono>
#include <future>
#include <string>
#include <thread>
#include <tuple>
#include <vector>

namespace zkcoord::test {

using campaign_future = std::future<std::tuple<error_code, leadership>>;

inline std::vector<participant> participants_of(session& s, const std::string& path) {
  auto [ec, list] = get(async_participants(s, path, tuple_future));
  BOOST_REQUIRE_MESSAGE(!ec, "async_participants: " << ec.message());
  return std::move(list);
}

inline std::vector<std::string> ids_of(const std::vector<participant>& list) {
  std::vector<std::string> ids;
  for (const auto& p : list) ids.push_back(p.id);
  return ids;
}

/// Waits (at most 10 s) until `path` lists `count` participants; fails the test otherwise.
inline void await_participant_count(session& reader, const std::string& path, std::size_t count) {
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (participants_of(reader, path).size() != count) {
    BOOST_REQUIRE_MESSAGE(std::chrono::steady_clock::now() < deadline,
                          path << " never listed " << count << " participants");
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

/// Campaigns `e` and waits until its node is listed, so that the queue order is known.
inline campaign_future campaign_queued(election& e, session& reader, const std::string& path) {
  const std::size_t before = participants_of(reader, path).size();
  auto f = e.async_campaign(tuple_future);
  await_participant_count(reader, path, before + 1);
  return f;
}

}  // namespace zkcoord::test
