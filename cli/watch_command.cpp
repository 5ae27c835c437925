// SPDX-License-Identifier: Apache-2.0
#include "watch_command.hpp"

#include "json.hpp"
#include "terminal_text.hpp"
#include "watch_loop.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

#include <boost/asio/as_tuple.hpp>
#include <boost/asio/use_awaitable.hpp>

#include <iostream>
#include <map>
#include <memory>

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

constexpr auto use_tuple = asio::as_tuple(asio::use_awaitable);
constexpr std::size_t shown_data = 80;

std::string node_text(const std::string& path, const std::string& data) {
  std::string out = escape_control_bytes(path) + " [" + std::to_string(data.size()) + " bytes]";
  if (!data.empty()) {
    out += ' ' + escape_control_bytes(data.substr(0, shown_data));
    if (data.size() > shown_data) out += "...";
  }
  return out;
}

std::string node_json(const char* event, const std::string& path, const std::string& data,
                      const node_stat& stat) {
  return std::string("{\"event\":\"") + event + "\",\"path\":" + json_string(path) +
         ",\"size\":" + std::to_string(data.size()) + ",\"data\":" + json_string(data) +
         ",\"czxid\":" + std::to_string(stat.czxid) + ",\"mzxid\":" + std::to_string(stat.mzxid) +
         ",\"version\":" + std::to_string(stat.version) + "}";
}

// The first call prints the tree as it was when the cache was first whole (built from the
// events up to `initialized`, so that nothing is printed twice or missed), each later call
// the next event.
show_next show_tree(session& zk, const command_line& cl) {
  struct state {
    state(session& zk, const std::string& path, cache_options o) : cache(zk, path, std::move(o)) {}
    tree_cache cache;
    bool first = true;
  };
  cache_options options;
  if (cl.depth) options.max_depth = *cl.depth;
  auto s = std::make_shared<state>(zk, cl.path, std::move(options));
  return [s, &cl]() -> asio::awaitable<void> {
    if (!s->first) {
      auto [ec, event] = co_await s->cache.async_next_event(use_tuple);
      if (ec) throw error_for(ec, "cannot follow " + cl.path);
      std::cout << format_cache_event(event, cl.json) << std::flush;
      co_return;
    }
    s->first = false;
    auto [ec] = co_await s->cache.async_start(use_tuple);
    if (ec) throw error_for(ec, "cannot read the tree at " + cl.path);
    std::map<std::string, cached_node> tree;
    for (;;) {
      auto [eec, event] = co_await s->cache.async_next_event(use_tuple);
      if (eec) throw error_for(eec, "cannot read the tree at " + cl.path);
      if (event.type == cache_event_type::initialized) break;
      if (event.type == cache_event_type::removed)
        tree.erase(event.path);
      else if (!event.path.empty())
        tree[event.path] = cached_node{event.data, event.stat};
    }
    if (tree.empty() && !cl.json)
      std::cout << "no node at " << escape_control_bytes(cl.path) << "\n";
    for (const auto& [path, node] : tree) std::cout << format_cache_node(path, node, cl.json);
    std::cout << std::flush;
  };
}

}  // namespace

std::string format_cache_node(const std::string& path, const cached_node& node, bool json) {
  return (json ? node_json("node", path, node.data, node.stat) : node_text(path, node.data)) + "\n";
}

std::string format_cache_event(const cache_event& event, bool json) {
  const char* type = to_string(event.type);
  if (event.path.empty())
    return json ? std::string("{\"event\":\"") + type + "\"}\n" : std::string(type) + "\n";
  if (json) return node_json(type, event.path, event.data, event.stat) + "\n";
  if (event.type == cache_event_type::removed)
    return std::string(type) + " " + escape_control_bytes(event.path) + "\n";
  return std::string(type) + " " + node_text(event.path, event.data) + "\n";
}

int run_watch_command(const command_line& cl) {
  session_options options = make_session_options(cl.global, make_logger(cl.global.verbose));
  // The cache reads the tree again on the session that follows an expiry.
  options.renew_after_expiry = true;
  command_line until_signal = cl;
  until_signal.watch = true;
  return run_watch_loop(until_signal, std::move(options),
                        [&cl](session& zk) { return show_tree(zk, cl); });
}

}  // namespace zkcoord::cli
