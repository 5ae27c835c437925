// From a library error_code to the tool's exit status and one-line message.
#pragma once

#include "exit_code.hpp"

#include <zkcoord/error.hpp>

#include <string_view>

namespace zkcoord::cli {

/// The exit status for `ec` (e.g. unreachable -> 69, no_auth -> 77) and the message
/// "<doing>: <what went wrong>".
cli_error error_for(const error_code& ec, std::string_view doing);

}  // namespace zkcoord::cli
