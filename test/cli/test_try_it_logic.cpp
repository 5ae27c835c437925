// SPDX-License-Identifier: Apache-2.0
// The try-it page's decisions without a server or a process: which runs may start, how the
// seat-booking worker's lines read as events, and the verdict from what really happened.
#include "try_it/lesson_params.hpp"
#include "try_it/lesson_verdict.hpp"
#include "try_it/saved_page.hpp"
#include "try_it/worker_events.hpp"

#define BOOST_TEST_MODULE try_it_logic
#include <boost/test/unit_test.hpp>

#include <boost/json/serialize.hpp>

using namespace zkcoord::cli::try_it;

namespace {

std::string type_of(const std::optional<boost::json::object>& e) {
  return e ? std::string(e->at("type").as_string()) : std::string("(none)");
}

// The facts of a run in `mode` after the lines each worker printed, in order.
run_facts read_run(protection mode, std::vector<std::pair<char, std::string>> lines) {
  run_facts f;
  f.params.mode = mode;
  for (auto& [w, line] : lines) read_worker_line(w, line, f);
  return f;
}

}  // namespace

BOOST_AUTO_TEST_CASE(the_lessons_presets_are_accepted) {
  for (auto [lease, pause] : {std::pair{10, 15}, std::pair{30, 45}}) {
    const auto parsed = parse_lesson_request("{\"lease_s\": " + std::to_string(lease) +
                                             ", \"pause_s\": " + std::to_string(pause) +
                                             ", \"mode\": \"fenced\", \"scale_ms\": 200}");
    BOOST_TEST(parsed.problem == "");
    BOOST_TEST(parsed.params.lease().count() == lease * 200);
    BOOST_TEST(parsed.params.pause().count() == pause * 200);
    BOOST_TEST(std::string(to_string(parsed.params.mode)) == "fenced");
  }
  BOOST_TEST(parse_lesson_request("{}").problem == "");  // every member has a default
}

BOOST_AUTO_TEST_CASE(bad_requests_say_what_is_wrong) {
  auto problem = [](std::string body) { return parse_lesson_request(body).problem; };
  BOOST_TEST(problem("{\"lease_s\": 500}").find("lease 500 s is out of range") !=
             std::string::npos);
  BOOST_TEST(problem("{\"pause_s\": -1}").find("pause -1 s is out of range") != std::string::npos);
  BOOST_TEST(problem("{\"lease_s\": 2, \"scale_ms\": 200}").find("400 ms of real time") !=
             std::string::npos);
  BOOST_TEST(problem("{\"lease_s\": 60, \"scale_ms\": 1000, \"pause_s\": 1}") == "");
  BOOST_TEST(problem("{\"lease_s\": 1.5}") == "lease_s must be a whole number");
  BOOST_TEST(problem("{\"lease_s\": \"10\"}") == "lease_s must be a whole number");
  BOOST_TEST(problem("{\"mode\": \"optimistic\"}").find("mode must be") != std::string::npos);
  BOOST_TEST(problem("{\"lease\": 10}") == "unknown member \"lease\"");
  BOOST_TEST(problem("[1]") == "the request must be a JSON object");
  BOOST_TEST(problem("{lease_s: 10").find("not JSON") != std::string::npos);
  BOOST_TEST(problem("").find("not JSON") != std::string::npos);
}

// Tokens are decimal everywhere: in the workers' lines as in `zkcoord lock`'s environment.
BOOST_AUTO_TEST_CASE(tokens_are_read_from_the_workers_decimal) {
  BOOST_TEST(*parse_token("4294967329") == 4294967329LL);
  BOOST_TEST(!parse_token("0x100000021"));
  BOOST_TEST(!parse_token(""));
  BOOST_TEST(!parse_token("18g"));
}

// The lines are the seat-booking worker's own (examples/seat_booking/worker.cpp).
BOOST_AUTO_TEST_CASE(worker_lines_become_events) {
  run_facts f;
  f.params.mode = protection::fenced;
  auto ready = read_worker_line('A', "ready session=0x1000a timeout_ms=2000", f);
  BOOST_TEST(type_of(ready) == "ready");
  BOOST_TEST(ready->at("timeout_ms").as_int64() == 2000);
  auto granted = read_worker_line('A', "holds the lock, fencing token 4294967329", f);
  BOOST_TEST(type_of(granted) == "granted");
  BOOST_TEST(granted->at("token").as_string() == "4294967329");
  BOOST_TEST(granted->at("worker").as_string() == "A");
  BOOST_TEST(*f.token_a == 4294967329LL);
  auto checked = read_worker_line('A', "checked C14: free", f);
  BOOST_TEST(type_of(checked) == "checked");
  BOOST_TEST(checked->at("seat").as_string() == "C14");
  auto rejected = read_worker_line(
      'A',
      "rejected C14: our token 4294967329 < its fence 4294967332, stale write updated 0 rows, "
      "no confirmation",
      f);
  BOOST_TEST(type_of(rejected) == "write");
  BOOST_TEST(rejected->at("accepted").as_bool() == false);
  BOOST_TEST(rejected->at("token").as_string() == "4294967329");
  BOOST_TEST(rejected->at("fence").as_string() == "4294967332");
  BOOST_TEST(type_of(read_worker_line('A', "releasing the lock", f)) == "released");
  auto failed = read_worker_line('A', "release-failed: lock lost (the lock had been lost)", f);
  BOOST_TEST(failed->at("message").as_string() == "lock lost (the lock had been lost)");
  BOOST_TEST(type_of(read_worker_line('A', "something else", f)) == "(none)");
}

BOOST_AUTO_TEST_CASE(an_overwrite_of_a_sale_is_oversold) {
  auto f = read_run(protection::lock,
                    {{'A', "holds the lock, fencing token 33"},
                     {'B', "holds the lock, fencing token 34"},
                     {'B', "wrote C14 sold to fan_b"},
                     {'B', "confirmed C14 to fan_b (confirmation sent)"},
                     {'A', "overwrote C14: it was sold to fan_b, now fan_a  <-- a late write"}});
  BOOST_TEST(f.writes.back().overwrote.value() == "fan_b");
  f.a_lease_expired = true;
  f.seats = {{"C14", "fan_a", 0}};
  f.confirmations = {{"fan_b", "C14", false}, {"fan_a", "C14", true}};
  const auto v = judge(f);
  BOOST_TEST(std::string(to_string(v.kind)) == "oversold");
  BOOST_TEST(v.text.starts_with("Two fans paid for one seat"));
  BOOST_TEST(v.text.find("token 33") != std::string::npos);
  BOOST_TEST(v.text.find("token 34") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_refused_stale_write_is_refused_with_both_tokens) {
  auto f = read_run(protection::fenced,
                    {{'A', "holds the lock, fencing token 33"},
                     {'B', "holds the lock, fencing token 34"},
                     {'B', "wrote C14 sold to fan_b with fence 34"},
                     {'A',
                      "rejected C14: our token 33 < its fence 34, stale write updated 0 "
                      "rows, no confirmation"}});
  f.seats = {{"C14", "fan_b", 34}};
  f.confirmations = {{"fan_b", "C14", true}};
  const auto v = judge(f);
  BOOST_TEST(std::string(to_string(v.kind)) == "refused");
  BOOST_TEST(v.text.starts_with(
      "A's late write carried token 33 after the database had seen 34: refused."));
}

// The verdict follows the database, not the mode: a fence check that let the stale write
// through shows as what it did.
BOOST_AUTO_TEST_CASE(a_fenced_run_whose_check_let_a_stale_write_through_is_oversold) {
  auto f = read_run(protection::fenced, {{'A', "holds the lock, fencing token 33"},
                                         {'B', "holds the lock, fencing token 34"},
                                         {'B', "wrote C14 sold to fan_b with fence 34"},
                                         {'A', "wrote C14 sold to fan_a with fence 33"}});
  f.seats = {{"C14", "fan_a", 33}};
  f.confirmations = {{"fan_b", "C14", false}, {"fan_a", "C14", true}};
  const auto v = judge(f);
  BOOST_TEST(std::string(to_string(v.kind)) == "oversold");
  BOOST_TEST(v.text.find("A's late write carried token 33 after the database had seen 34, and "
                         "the fence check let it through") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(no_lock_and_a_conditional_write_is_one_sale) {
  auto f = read_run(protection::conditional,
                    {{'B', "wrote C14 sold to fan_b (WHERE holder IS NULL)"},
                     {'A', "lost-race C14: taken meanwhile (0 rows updated), looking again"},
                     {'A', "sold-out: no free seat left, nothing booked"}});
  f.seats = {{"C14", "fan_b", 0}};
  f.confirmations = {{"fan_b", "C14", true}};
  const auto v = judge(f);
  BOOST_TEST(std::string(to_string(v.kind)) == "one-sale");
  BOOST_TEST(v.text.find("changed 0 rows") != std::string::npos);
}

BOOST_AUTO_TEST_CASE(a_pause_shorter_than_the_lease_is_one_sale_to_a) {
  auto f = read_run(protection::lock, {{'A', "holds the lock, fencing token 33"},
                                       {'A', "wrote C14 sold to fan_a"},
                                       {'B', "holds the lock, fencing token 35"},
                                       {'B', "sold-out: no free seat left, nothing booked"}});
  f.params.lease_s = 10;
  f.params.pause_s = 5;
  f.seats = {{"C14", "fan_a", 0}};
  f.confirmations = {{"fan_a", "C14", true}};
  const auto v = judge(f);
  BOOST_TEST(std::string(to_string(v.kind)) == "one-sale");
  BOOST_TEST(v.text.find("did not outlast its lease") != std::string::npos);
  f.seats = {{"C14", std::nullopt, 0}};
  f.confirmations.clear();
  BOOST_TEST(std::string(to_string(judge(f).kind)) == "no-sale");
}

BOOST_AUTO_TEST_CASE(a_saved_page_carries_its_events_safely) {
  const auto page = saved_page({R"({"type":"failed","message":"</script><b>"})"});
  BOOST_TEST(page.find(R"(<script id="saved-run" type="application/json">)") != std::string::npos);
  BOOST_TEST(page.find("</script><b>") == std::string::npos);
  BOOST_TEST(page.find(R"(\u003c/script>\u003cb>)") != std::string::npos);
  BOOST_TEST(page.find("saved-run") < page.rfind("</body>"));
}
