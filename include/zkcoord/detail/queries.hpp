// SPDX-License-Identifier: Apache-2.0
// Internal to zkcoord: the library calls behind async_contenders, async_participants and
// async_join. Not part of the API; may change in any release.
#pragma once

#include <zkcoord/detail/completion.hpp>
#include <zkcoord/export.hpp>

#include <memory>
#include <string>
#include <vector>

namespace zkcoord {
struct contender;
struct participant;
class membership;
}  // namespace zkcoord

namespace zkcoord::detail {

ZKCOORD_EXPORT void start_contenders(const std::shared_ptr<session_impl>& session,
                                     std::string lock_path,
                                     completion<std::vector<contender>> handler);
ZKCOORD_EXPORT void start_participants(const std::shared_ptr<session_impl>& session,
                                       std::string election_path,
                                       completion<std::vector<participant>> handler);
ZKCOORD_EXPORT void start_join(const std::shared_ptr<session_impl>& session, std::string group_path,
                               std::string id, std::string data, completion<membership> handler);

}  // namespace zkcoord::detail
