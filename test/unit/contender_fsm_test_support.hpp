// Helpers for tests that drive the lock state machine: naming its actions and picking them.
#pragma once

#include "recipe/contender_fsm.hpp"

#include <boost/test/unit_test.hpp>

#include <memory>
#include <ostream>
#include <string>
#include <typeindex>
#include <vector>

namespace zkcoord::detail {
inline std::ostream& operator<<(std::ostream& os, contender_fsm::state s) {
  return os << to_string(s);
}
}  // namespace zkcoord::detail

namespace zkcoord::detail::testing {

/// A listing of the lock path as the driver feeds it to the machine.
inline std::shared_ptr<const contender_queue> listing(const std::vector<std::string>& names) {
  return std::make_shared<const contender_queue>(names);
}

inline const char* action_name(const contender_action_t& action) {
  using namespace contender_action;
  return std::visit(
      [](const auto& a) -> const char* {
        using A = std::decay_t<decltype(a)>;
        if constexpr (std::is_same_v<A, create_node>) return "create_node";
        if constexpr (std::is_same_v<A, create_parents>) return "create_parents";
        if constexpr (std::is_same_v<A, list_children>) return "list_children";
        if constexpr (std::is_same_v<A, read_node>) return "read_node";
        if constexpr (std::is_same_v<A, watch_node>) return "watch_node";
        if constexpr (std::is_same_v<A, delete_node>) return "delete_node";
        if constexpr (std::is_same_v<A, drop_watch>) return "drop_watch";
        if constexpr (std::is_same_v<A, complete_acquire>) return "complete_acquire";
        if constexpr (std::is_same_v<A, set_in_doubt>) return "set_in_doubt";
        if constexpr (std::is_same_v<A, report_lost>) return "report_lost";
        if constexpr (std::is_same_v<A, complete_release>) return "complete_release";
        if constexpr (std::is_same_v<A, finished>) return "finished";
      },
      action);
}

/// "create_node list_children": the kinds of the actions, in order.
inline std::string kinds(const contender_actions& actions) {
  std::string out;
  for (const auto& a : actions) {
    if (!out.empty()) out += ' ';
    out += action_name(a);
  }
  return out;
}

/// The one action of type A among `actions` (fails the test if there is not exactly one).
template <class A>
const A& the(const contender_actions& actions) {
  const A* found = nullptr;
  int count = 0;
  for (const auto& a : actions) {
    if (const A* p = std::get_if<A>(&a)) {
      found = p;
      ++count;
    }
  }
  BOOST_REQUIRE_MESSAGE(count == 1, "expected one " << typeid(A).name() << " in [" << kinds(actions)
                                                    << "], found " << count);
  return *found;
}

/// Formats a sequence as ZooKeeper does ("%010d" in Java, sign inside the width).
inline std::string sequence_suffix(std::int32_t seq) {
  if (seq >= 0) {
    std::string digits = std::to_string(seq);
    return std::string(10 - digits.size(), '0') + digits;
  }
  std::string digits = std::to_string(-static_cast<std::int64_t>(seq));
  if (digits.size() < 9) digits = std::string(9 - digits.size(), '0') + digits;
  return "-" + digits;
}

}  // namespace zkcoord::detail::testing
