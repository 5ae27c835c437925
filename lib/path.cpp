// SPDX-License-Identifier: Apache-2.0
// Path and connect-string validation, following ZooKeeper's PathUtils rules.
#include <zkcoord/path.hpp>

#include "connect_string.hpp"

#include <cctype>
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
  detail::connect_parts parts;
  if (std::string why = detail::parse_connect_string(connect, parts); !why.empty()) return why;
  if (!parts.chroot.empty()) {
    const std::string chroot_problem = path_problem(parts.chroot);
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

namespace zkcoord::detail {
namespace {

bool parse_port(std::string_view text, std::uint16_t& port) {
  int value = 0;
  const auto [ptr, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (ec != std::errc{} || ptr != text.data() + text.size() || value < 1 || value > 65535)
    return false;
  port = static_cast<std::uint16_t>(value);
  return true;
}

/// One host entry ("zk1:2181", "[::1]:2181", "::1:2181") into `out`; why not, or "".
std::string parse_entry(std::string_view entry, host_port& out) {
  while (!entry.empty() && std::isspace(static_cast<unsigned char>(entry.front())))
    entry.remove_prefix(1);
  if (entry.empty()) return "connect string has an empty host entry";
  std::string_view host;
  std::string_view port;
  if (entry.front() == '[') {
    const auto close = entry.find(']');
    if (close == std::string_view::npos) return "host " + quoted(entry) + " has no closing ']'";
    host = entry.substr(1, close - 1);
    if (close + 1 >= entry.size() || entry[close + 1] != ':')
      return "host " + quoted(entry) + " must be [address]:port";
    port = entry.substr(close + 2);
    const auto address = numeric_host(host);
    if (!address || !address->is_v6())
      return "host " + quoted(entry) + ": brackets hold an IPv6 address";
  } else {
    const auto colon = entry.rfind(':');
    if (colon == std::string_view::npos || colon == 0)
      return "host " + quoted(entry) + " must be host:port";
    host = entry.substr(0, colon);
    port = entry.substr(colon + 1);
  }
  if (host.empty()) return "host " + quoted(entry) + " must be host:port";
  if (!parse_port(port, out.port)) return "host " + quoted(entry) + " has an invalid port";
  out.host = std::string(host);
  return {};
}

}  // namespace

std::string parse_connect_string(std::string_view connect, connect_parts& out) {
  out = {};
  const auto slash = connect.find('/');
  const std::string_view hosts = connect.substr(0, slash);
  if (slash != std::string_view::npos) out.chroot = std::string(connect.substr(slash));
  if (hosts.empty()) return "connect string " + quoted(connect) + " names no host";
  std::size_t start = 0;
  for (;;) {
    std::size_t end = hosts.find(',', start);
    if (end == std::string_view::npos) end = hosts.size();
    host_port h;
    if (std::string why = parse_entry(hosts.substr(start, end - start), h); !why.empty()) {
      out = {};
      return why;
    }
    out.hosts.push_back(std::move(h));
    if (end == hosts.size()) break;
    start = end + 1;
  }
  return {};
}

std::optional<boost::asio::ip::address> numeric_host(std::string_view host) {
  boost::system::error_code ec;
  const auto address = boost::asio::ip::make_address(std::string(host), ec);
  if (ec) return std::nullopt;
  return address;
}

}  // namespace zkcoord::detail
