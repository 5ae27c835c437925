// SPDX-License-Identifier: Apache-2.0
// Where the session's credentials come from (--auth-file, --auth, $ZKCOORD_AUTH) and which ACL
// the nodes `lock` creates get. Resolved after parsing and before connecting: the parser stays
// free of I/O, and a secret never has to be on the command line, where `ps` shows it.
#pragma once

#include "command_line.hpp"

#include <zkcoord/types.hpp>

#include <string>
#include <string_view>
#include <utility>
#include <vector>

namespace zkcoord::cli {

/// "digest:USER:PASSWORD" (the password may hold ':') -> (USER, PASSWORD). The usage error
/// names `source` ("ZKCOORD_AUTH", "auth file F"), never the text, which may be a secret.
std::pair<std::string, std::string> parse_auth_spec(std::string_view spec, std::string_view source);

/// The one line of an auth file (a trailing newline is dropped). Refused with a usage error
/// when the file cannot be read, is not owned by this user, or is readable or writable by
/// group or others (as ssh refuses a private key: the message names the mode).
std::string read_auth_file(const std::string& path);

/// Fills cl.global.digest and cl.global.acl for `lock` and `locks` (nothing else connects):
/// credentials from --auth-file or --auth (not both), else from `env_auth` ($ZKCOORD_AUTH;
/// nullptr or "" when unset). The ACL default is world_read with credentials and open without;
/// creator_all and world_read without credentials are a usage error (ZooKeeper's creator
/// entry names the authenticated identity). Returns the warnings to print (--auth on argv).
std::vector<std::string> resolve_credentials(command_line& cl, const char* env_auth);

/// The ZooKeeper ACL of a choice.
acl acl_entries(acl_choice choice);

const char* acl_choice_name(acl_choice choice);

}  // namespace zkcoord::cli
