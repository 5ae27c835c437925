// SPDX-License-Identifier: Apache-2.0
// The check-first multi behind every fenced write.
#include "recipe/fenced_outcome.hpp"

namespace zkcoord::detail {

std::vector<multi_op> fenced_ops(const std::vector<fenced_node>& nodes, std::vector<multi_op> ops) {
  std::vector<multi_op> all;
  all.reserve(nodes.size() + ops.size());
  for (const auto& node : nodes) all.emplace_back(op::check{node.path, node.version});
  for (auto& o : ops) all.push_back(std::move(o));
  return all;
}

error_code fenced_outcome(error_code multi_ec, std::vector<op_result>& results,
                          std::size_t checks) {
  if (results.size() < checks) return multi_ec;  // no per-op outcome: e.g. connection loss
  // Only a check's own verdict means "nothing was written": a node of ours is gone (no_node)
  // or changed (bad_version). When another op fails the checks are merely rolled back
  // (runtime_inconsistency); when the connection drops the C client copies the loss into
  // every op's result, and the multi may or may not have been applied: report it as it is.
  bool lost = false;
  error_code first_check_ec;
  for (std::size_t i = 0; i < checks; ++i) {
    const error_code check_ec = results[i].ec;
    if (check_ec == zk_errc::no_node || check_ec == zk_errc::bad_version) lost = true;
    if (check_ec && !first_check_ec) first_check_ec = check_ec;
  }
  results.erase(results.begin(), results.begin() + static_cast<std::ptrdiff_t>(checks));
  if (lost) return make_error_code(errc::lock_lost);
  return multi_ec ? multi_ec : first_check_ec;
}

}  // namespace zkcoord::detail
