// SPDX-License-Identifier: Apache-2.0
// The C client's return codes as error codes: the one place where its numbers enter zkcoord.
#pragma once

#include <zkcoord/error.hpp>

namespace zkcoord {

/// Maps a C client return code to an error_code (ZOK maps to success).
error_code from_zk_result(int rc) noexcept;

/// Whether a whole request's completion code says that no answer came from the server: the
/// connection was lost or dropped, the handle closed or gave up, the session ended. Such a
/// request's outcome is unknown and its completion proves no contact with the server.
/// ZRUNTIMEINCONSISTENCY is one of them: as a whole request's code (never a multi's, where the
/// C client reports the failing op's code) it means the C client met a reply it could not
/// match to the request sent, dropped the connection and failed every pending request with it.
bool is_unanswered(int rc) noexcept;

/// A whole request's completion code as an error_code: from_zk_result, except that the C
/// client's dropped connection (ZRUNTIMEINCONSISTENCY, see is_unanswered) is reported as what
/// it is to the caller, a connection loss with the outcome unknown.
error_code from_request_result(int rc) noexcept;

}  // namespace zkcoord
