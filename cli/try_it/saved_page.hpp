// SPDX-License-Identifier: Apache-2.0
// The page itself (cli/try_it/page.html, embedded at build time) and a saved run: the same
// page with the run's events inside it, which it draws without a server.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace zkcoord::cli::try_it {

/// The page as served at "/".
std::string_view page_html();

/// The page with <script id="saved-run" type="application/json">{"events":[...]}</script>
/// before </body>; `events` are JSON texts. Self-contained: it loads nothing.
std::string saved_page(const std::vector<std::string>& events);

}  // namespace zkcoord::cli::try_it
