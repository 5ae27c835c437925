// SPDX-License-Identifier: Apache-2.0
// Connect strings put back together with numeric addresses, and the resolution of their host
// names with Asio's resolver (resolve_hosts.hpp). Parsing: connect_string.hpp.
#include "resolve_hosts.hpp"

#include <boost/asio/dispatch.hpp>

#include <spdlog/spdlog.h>

namespace zkcoord::detail {

namespace {

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
