// SPDX-License-Identifier: Apache-2.0
// What `zkcoord register` writes into its member node: --data TEXT as it is, or the service
// instance of --service-json checked and written as Curator's x-discovery writes it. Resolved
// after parsing (the parser does no I/O) and before connecting (bad data costs no node).
#pragma once

#include "command_line.hpp"

#include <cstdint>
#include <string>

namespace zkcoord::cli {

/// The member node's data for `cl` (a register command line): "" without --data and
/// --service-json. --service-json takes JSON text (it starts with '{') or a file holding it;
/// the instance must decode (decode_service_instance), be DYNAMIC, and its name and id, when
/// set, must be PATH's last node name and ID (Curator looks for instance ID of service NAME
/// at BASE/NAME/ID); unset ones are filled in, and so is a missing registrationTimeUTC, with
/// `now_ms`. Throws usage_error naming what is wrong (a file that cannot be read, bad JSON, a
/// field that does not fit, data over max_member_data_size).
std::string registration_data(const command_line& cl, std::int64_t now_ms);

}  // namespace zkcoord::cli
