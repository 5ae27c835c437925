// SPDX-License-Identifier: Apache-2.0
// The mapping from what the C client reports to the session's public states.
#include "session/session_state_machine.hpp"

#define BOOST_TEST_MODULE session_states
#include <boost/test/unit_test.hpp>

using namespace zkcoord;
using zkcoord::detail::client_report;
using zkcoord::detail::next_session_state;

struct transition {
  session_state before;
  client_report report;
  bool same_session;
  std::optional<session_state> after;
};

BOOST_AUTO_TEST_CASE(transitions) {
  using S = session_state;
  using R = client_report;
  const transition cases[] = {
      {S::connecting, R::connected, false, S::connected},
      {S::connected, R::connecting, true, S::suspended},
      {S::reconnected, R::connecting, true, S::suspended},
      {S::suspended, R::connected, true, S::reconnected},
      {S::suspended, R::connected, false, S::connected},   // a different session: not "re"
      {S::expired, R::connected, false, S::connected},     // the renewed session
      {S::connected, R::connected, true, std::nullopt},    // repeated report
      {S::connecting, R::connecting, true, std::nullopt},  // still trying the first time
      {S::suspended, R::connecting, true, std::nullopt},
      {S::suspended, R::expired, true, S::expired},
      {S::connected, R::expired, true, S::expired},
      {S::expired, R::expired, true, std::nullopt},  // server report after local expiry
      {S::closed, R::expired, true, std::nullopt},
      {S::closed, R::connected, true, std::nullopt},  // nothing after close
      {S::connecting, R::auth_failed, true, S::closed},
  };
  for (const auto& c : cases) {
    BOOST_TEST_CONTEXT(to_string(c.before) << " + report " << static_cast<int>(c.report)
                                           << " same=" << c.same_session) {
      const auto got = next_session_state(c.before, c.report, c.same_session);
      BOOST_TEST(got.has_value() == c.after.has_value());
      if (got && c.after) BOOST_TEST(to_string(*got) == to_string(*c.after));
    }
  }
}
