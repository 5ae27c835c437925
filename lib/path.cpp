// SPDX-License-Identifier: Apache-2.0
// Path and connect-string validation, following ZooKeeper's PathUtils rules.
#include <zkcoord/path.hpp>

#include <charconv>
#include <cstdint>

namespace zkcoord {
namespace {

// Code points ZooKeeper refuses: U+0000-U+001F, U+007F-U+009F, U+D800-U+F8FF, U+FFF0-U+FFFF,
// and everything past U+FFFF: the server checks Java's UTF-16 units, where such a code point is
// a surrogate pair, and its low surrogate (U+DC00-U+DFFF) is in the refused range.
bool refused_code_point(std::uint32_t cp) {
  return cp <= 0x1f || (cp >= 0x7f && cp <= 0x9f) || (cp >= 0xd800 && cp <= 0xf8ff) || cp >= 0xfff0;
}

// Decodes one UTF-8 sequence at s[i]; returns its length, 0 if malformed. Overlong forms are
// malformed: the server's decoder turns them into U+FFFD, which it refuses.
std::size_t decode_utf8(std::string_view s, std::size_t i, std::uint32_t& cp) {
  const auto b0 = static_cast<unsigned char>(s[i]);
  std::size_t len = b0 < 0x80         ? 1
                    : (b0 >> 5) == 6  ? 2
                    : (b0 >> 4) == 14 ? 3
                    : (b0 >> 3) == 30 ? 4
                                      : 0;
  if (len == 0 || i + len > s.size()) return 0;
  cp = len == 1 ? b0 : len == 2 ? (b0 & 0x1f) : len == 3 ? (b0 & 0x0f) : (b0 & 0x07);
  for (std::size_t k = 1; k < len; ++k) {
    const auto b = static_cast<unsigned char>(s[i + k]);
    if ((b >> 6) != 2) return 0;
    cp = (cp << 6) | (b & 0x3f);
  }
  constexpr std::uint32_t smallest[] = {0, 0, 0x80, 0x800, 0x10000};
  if (cp < smallest[len]) return 0;
  return len;
}

std::string quoted(std::string_view path) {
  std::string out = "\"";
  for (char c : path) {
    if (c == '\0') {
      out += "\\0";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string problem_in_names(std::string_view path) {
  std::size_t start = 1;
  while (start <= path.size()) {
    std::size_t end = path.find('/', start);
    if (end == std::string_view::npos) end = path.size();
    const std::string_view name = path.substr(start, end - start);
    if (name.empty() && end < path.size()) return "empty node name (\"//\")";
    if (name == "." || name == "..") return "relative name \"" + std::string(name) + "\"";
    start = end + 1;
  }
  for (std::size_t i = 0; i < path.size();) {
    std::uint32_t cp = 0;
    const std::size_t len = decode_utf8(path, i, cp);
    if (len == 0) return "malformed UTF-8 at byte " + std::to_string(i);
    if (refused_code_point(cp)) {
      return cp == 0 ? "embedded NUL at byte " + std::to_string(i)
                     : "forbidden character at byte " + std::to_string(i);
    }
    i += len;
  }
  return {};
}

}  // namespace

std::string path_problem(std::string_view path, bool sequential) {
  std::string why;
  if (path.empty()) {
    why = "path is empty";
  } else if (path.front() != '/') {
    why = "path must start with '/'";
  } else if (path.size() > 1 && path.back() == '/' && !sequential) {
    why = "path must not end with '/'";
  } else {
    why = problem_in_names(sequential ? std::string(path) + "1" : std::string(path));
  }
  return why.empty() ? why : "invalid path " + quoted(path) + ": " + why;
}

std::string connect_string_problem(std::string_view connect) {
  const auto slash = connect.find('/');
  const std::string_view hosts = connect.substr(0, slash);
  if (hosts.empty()) return "connect string \"" + std::string(connect) + "\" names no host";
  std::size_t start = 0;
  while (start <= hosts.size()) {
    std::size_t end = hosts.find(',', start);
    if (end == std::string_view::npos) end = hosts.size();
    const std::string_view host = hosts.substr(start, end - start);
    const auto colon = host.rfind(':');
    std::string entry(1, '"');  // built by append: GCC 12 warns falsely on "lit" + string
    entry.append(host).append(1, '"');
    if (host.empty()) return "connect string has an empty host entry";
    if (colon == std::string_view::npos || colon == 0)
      return "host " + entry + " must be host:port";
    int port = 0;
    const auto port_text = host.substr(colon + 1);
    const auto [ptr, ec] =
        std::from_chars(port_text.data(), port_text.data() + port_text.size(), port);
    if (ec != std::errc{} || ptr != port_text.data() + port_text.size() || port < 1 || port > 65535)
      return "host " + entry + " has an invalid port";
    start = end + 1;
  }
  if (slash != std::string_view::npos) {
    const std::string chroot_problem = path_problem(connect.substr(slash));
    if (!chroot_problem.empty()) return "chroot: " + chroot_problem;
  }
  return {};
}

std::string join_path(std::string_view parent, std::string_view child) {
  std::string out(parent);
  if (out.empty() || out.back() != '/') out += '/';
  out += child;
  return out;
}

std::string parent_path(std::string_view path) {
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos || slash == 0) return "/";
  return std::string(path.substr(0, slash));
}

}  // namespace zkcoord
