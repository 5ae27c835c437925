// The check-first multi behind every fenced write.
#include "recipe/fenced_outcome.hpp"

namespace zkcoord::detail {

std::vector<multi_op> fenced_ops(const std::string& lock_node, std::int32_t lock_node_version,
                                 std::vector<multi_op> ops) {
  std::vector<multi_op> all;
  all.reserve(ops.size() + 1);
  all.emplace_back(op::check{lock_node, lock_node_version});
  for (auto& o : ops) all.push_back(std::move(o));
  return all;
}

error_code fenced_outcome(error_code multi_ec, std::vector<op_result>& results) {
  if (results.empty()) return multi_ec;  // no per-op outcome: e.g. connection loss
  const error_code check_ec = results.front().ec;
  results.erase(results.begin());
  // When another op fails, the check is only rolled back (runtime_inconsistency).
  if (check_ec && check_ec != zk_errc::runtime_inconsistency) {
    return make_error_code(errc::lock_lost);
  }
  return multi_ec;
}

}  // namespace zkcoord::detail
