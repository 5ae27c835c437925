// SPDX-License-Identifier: Apache-2.0
// Connect strings taken apart and put back together with numeric addresses, and the
// resolution of their host names with Asio's resolver (resolve_hosts.hpp).
#include "resolve_hosts.hpp"

#include <boost/asio/dispatch.hpp>

#include <spdlog/spdlog.h>

#include <cctype>
#include <charconv>

namespace zkcoord::detail {

namespace {

std::string quoted(std::string_view s) {
  std::string out(1, '"');
  out.append(s).append(1, '"');
  return out;
}

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

using boost::asio::ip::tcp;

/// One resolution of a connect string: the answers per host, in the connect string's order.
struct resolution {
  connect_parts parts;
  std::vector<std::vector<tcp::endpoint>> found;  // per host of parts.hosts
  std::vector<std::string> failures;              // "host: why"
  std::size_t pending = 0;
  std::optional<tcp::resolver> resolver;
  std::shared_ptr<spdlog::logger> log;
  resolved_handler done;

  void finish() {
    std::vector<tcp::endpoint> servers;
    for (const auto& endpoints : found)
      servers.insert(servers.end(), endpoints.begin(), endpoints.end());
    std::string failed;
    for (const auto& f : failures) failed.append(failed.empty() ? "" : "; ").append(f);
    if (servers.empty()) {
      log->error("no host name of the connect string resolves ({})", failed);
      return done(make_error_code(errc::unknown_host), {});
    }
    if (!failures.empty())
      log->warn("connecting without the hosts that do not resolve ({})", failed);
    done({}, format_connect_string(servers, parts.chroot));
  }
};

void resolve_one(const std::shared_ptr<resolution>& r, std::size_t i, tcp::resolver::flags flags) {
  const host_port& h = r->parts.hosts[i];
  r->resolver->async_resolve(
      h.host, std::to_string(h.port), flags,
      [r, i, flags](error_code ec, const tcp::resolver::results_type& results) {
        const host_port& hp = r->parts.hosts[i];
        // As the C client: AI_ADDRCONFIG first, and without it when the resolver refused the
        // flag (not when the name is unknown).
        if ((ec || results.empty()) && (flags & tcp::resolver::address_configured) &&
            ec != boost::asio::error::host_not_found &&
            ec != boost::asio::error::host_not_found_try_again &&
            ec != boost::asio::error::operation_aborted)
          return resolve_one(r, i, tcp::resolver::numeric_service);
        if (!ec && results.empty()) ec = make_error_code(boost::asio::error::host_not_found);
        if (ec) {
          r->failures.push_back(hp.host + ": " + ec.message());
        } else {
          for (const auto& entry : results) r->found[i].push_back(entry.endpoint());
        }
        if (--r->pending == 0) r->finish();
      });
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
  error_code ec;
  const auto address = boost::asio::ip::make_address(std::string(host), ec);
  if (ec) return std::nullopt;
  return address;
}

std::string format_connect_string(const std::vector<tcp::endpoint>& servers,
                                  std::string_view chroot) {
  std::string out;
  for (const auto& server : servers) {
    if (!out.empty()) out += ',';
    out.append(server.address().to_string()).append(1, ':').append(std::to_string(server.port()));
  }
  out.append(chroot);
  return out;
}

void resolve_connect_string(const boost::asio::any_io_executor& ex, std::string_view connect,
                            std::shared_ptr<spdlog::logger> log, resolved_handler done) {
  auto r = std::make_shared<resolution>();
  r->log = std::move(log);
  r->done = std::move(done);
  if (std::string why = parse_connect_string(connect, r->parts); !why.empty()) {
    r->log->error("cannot connect: {}", why);
    return boost::asio::dispatch(ex,
                                 [r] { r->done(make_error_code(errc::bad_connect_string), {}); });
  }
  r->found.resize(r->parts.hosts.size());
  std::vector<std::size_t> names;
  for (std::size_t i = 0; i < r->parts.hosts.size(); ++i) {
    const host_port& h = r->parts.hosts[i];
    if (const auto address = numeric_host(h.host))
      r->found[i].emplace_back(*address, h.port);
    else
      names.push_back(i);
  }
  if (names.empty()) return boost::asio::dispatch(ex, [r] { r->finish(); });
  // Only now a resolver: its first async_resolve starts Asio's resolver thread (one per
  // execution context, shared by every session on it).
  r->resolver.emplace(ex);
  r->pending = names.size();
  for (const std::size_t i : names)
    resolve_one(r, i, tcp::resolver::numeric_service | tcp::resolver::address_configured);
}

}  // namespace zkcoord::detail
