// SPDX-License-Identifier: Apache-2.0
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
  // Only the check's own verdict means "nothing was written": our node is gone (no_node) or
  // changed (bad_version). When another op fails the check is merely rolled back
  // (runtime_inconsistency); when the connection drops the C client copies the loss into
  // every op's result, and the multi may or may not have been applied: report it as it is.
  if (check_ec == zk_errc::no_node || check_ec == zk_errc::bad_version) {
    return make_error_code(errc::lock_lost);
  }
  return multi_ec ? multi_ec : check_ec;
}

}  // namespace zkcoord::detail
