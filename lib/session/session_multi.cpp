// SPDX-License-Identifier: Apache-2.0
// multi: ZooKeeper transactions. The op keeps every buffer the C client writes into until the
// reply has been converted.
#include "session_multi.hpp"

#include "c_types.hpp"
#include "zk_result.hpp"

#include <zkcoord/path.hpp>

#include <spdlog/spdlog.h>

#include <deque>

namespace zkcoord {
namespace {

struct multi_state : detail::pending_op<std::vector<op_result>> {
  std::vector<multi_op> ops;
  std::vector<zoo_op_t> c_ops;
  std::vector<zoo_op_result_t> c_results;
  std::vector<std::string> created_paths;
  std::vector<Stat> stats;
  std::deque<detail::c_acl> acls;  // deque: c_acl must not move
};

std::string problem_of(const multi_op& op) {
  return std::visit(
      [](const auto& o) -> std::string {
        using T = std::decay_t<decltype(o)>;
        if constexpr (std::is_same_v<T, op::create>) {
          const bool seq = is_sequential(o.options.mode);
          if (has_ttl(o.options.mode) || o.options.ttl.count() != 0)
            return "TTL node \"" + o.path +
                   "\" in a multi: unsupported (the C client sends no ttl)";
          if (o.data.size() > detail::max_data_size)
            return "data for \"" + o.path + "\" exceeds 1 MiB";
          return path_problem(o.path, seq);
        } else if constexpr (std::is_same_v<T, op::set>) {
          if (o.data.size() > detail::max_data_size)
            return "data for \"" + o.path + "\" exceeds 1 MiB";
          return path_problem(o.path);
        } else {
          return path_problem(o.path);
        }
      },
      op);
}

void prepare(multi_state& m, const acl& default_acl) {
  const std::size_t n = m.ops.size();
  m.c_ops.resize(n);
  m.c_results.resize(n);
  m.created_paths.resize(n);
  m.stats.resize(n);
  for (std::size_t i = 0; i < n; ++i) {
    zoo_op_t* c = &m.c_ops[i];
    std::visit(
        [&](auto& o) {
          using T = std::decay_t<decltype(o)>;
          if constexpr (std::is_same_v<T, op::check>) {
            zoo_check_op_init(c, o.path.c_str(), o.version);
          } else if constexpr (std::is_same_v<T, op::create>) {
            auto& acl = m.acls.emplace_back(o.options.acl_entries.empty() ? default_acl
                                                                          : o.options.acl_entries);
            m.created_paths[i].assign(o.path.size() + 32, '\0');
            zoo_create_op_init(c, o.path.c_str(), o.data.data(), static_cast<int>(o.data.size()),
                               acl.get(), detail::to_zk_mode(o.options.mode),
                               m.created_paths[i].data(),
                               static_cast<int>(m.created_paths[i].size()));
          } else if constexpr (std::is_same_v<T, op::set>) {
            zoo_set_op_init(c, o.path.c_str(), o.data.data(), static_cast<int>(o.data.size()),
                            o.version, &m.stats[i]);
          } else {
            zoo_delete_op_init(c, o.path.c_str(), o.version);
          }
        },
        m.ops[i]);
  }
}

void on_multi_reply(int rc, const void* data) {
  std::unique_ptr<multi_state> m(static_cast<multi_state*>(const_cast<void*>(data)));
  m->note_reply(rc);
  std::vector<op_result> results(m->ops.size());
  for (std::size_t i = 0; i < m->ops.size(); ++i) {
    // The server reports ops before the failing one as OK although they were rolled back.
    const int err =
        rc != ZOK && m->c_results[i].err == ZOK ? ZRUNTIMEINCONSISTENCY : m->c_results[i].err;
    results[i].ec = from_zk_result(err);
    if (err != ZOK) continue;
    if (std::holds_alternative<op::create>(m->ops[i])) {
      results[i].path = m->created_paths[i].c_str();
    } else if (std::holds_alternative<op::set>(m->ops[i])) {
      results[i].stat = detail::to_node_stat(m->stats[i]);
    }
  }
  m->finish(m->outcome(rc), std::move(results));
}

}  // namespace

void session::detail_start_multi(const std::shared_ptr<detail::session_impl>& impl,
                                 detail::completion<std::vector<op_result>> h,
                                 std::vector<multi_op> ops) {
  detail::start_multi(impl, std::move(h), std::move(ops));
}

void detail::start_multi(const std::shared_ptr<detail::session_impl>& impl,
                         detail::completion<std::vector<op_result>> h, std::vector<multi_op> ops) {
  auto m = std::make_unique<multi_state>();
  m->impl = impl.get();
  m->executor = impl->tracked_executor();
  detail::assign_handler(m->handler, std::move(h));
  for (const auto& op : ops) {
    if (auto why = problem_of(op); !why.empty()) {
      impl->logger()->warn("multi refused: {}", why);
      const bool too_large = why.find("exceeds") != std::string::npos;
      const bool ttl = why.starts_with("TTL node");
      return detail::session_impl::fail(std::move(m),
                                        make_error_code(too_large ? errc::data_too_large
                                                        : ttl     ? errc::bad_argument
                                                                  : errc::bad_path));
    }
  }
  if (ops.empty()) return m->finish({}, {});
  m->ops = std::move(ops);
  prepare(*m, impl->options().default_acl);
  impl->submit(&detail::request_counters::multis, std::move(m),
               [](zhandle_t* zh, multi_state* raw) {
                 // On an expired (or auth-failed) handle zoo_amulti's path check fails before it
                 // sets the request path, which it then frees anyway (an uninitialized pointer:
                 // heap corruption, seen as a crash after a fenced write from a leader whose
                 // session had just expired), and it returns ZMARSHALLINGERROR. Refuse here as the
                 // other calls do themselves. (A handle that expires between this check and the
                 // call can still hit it.)
                 if (zoo_state(zh) < 0) return static_cast<int>(ZINVALIDSTATE);
                 return zoo_amulti(zh, static_cast<int>(raw->c_ops.size()), raw->c_ops.data(),
                                   raw->c_results.data(), &on_multi_reply, raw);
               });
}

}  // namespace zkcoord
