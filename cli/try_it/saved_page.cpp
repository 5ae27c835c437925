// SPDX-License-Identifier: Apache-2.0
#include "try_it/saved_page.hpp"

namespace zkcoord::cli::try_it {

std::string saved_page(const std::vector<std::string>& events) {
  std::string json = "{\"events\":[";
  for (std::size_t i = 0; i < events.size(); ++i) {
    if (i) json += ',';
    json += events[i];
  }
  json += "]}";
  // Inside <script>, "</script" or "<!--" in a string would end or confuse the element;
  // "\u003c" is the same character to JSON.
  std::string safe;
  safe.reserve(json.size());
  for (char c : json) {
    if (c == '<')
      safe += "\\u003c";
    else
      safe += c;
  }
  std::string page(page_html());
  const std::string block =
      "<script id=\"saved-run\" type=\"application/json\">" + safe + "</script>\n";
  const auto body_end = page.rfind("</body>");
  page.insert(body_end == std::string::npos ? page.size() : body_end, block);
  return page;
}

}  // namespace zkcoord::cli::try_it
