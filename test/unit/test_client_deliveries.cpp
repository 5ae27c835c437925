// SPDX-License-Identifier: Apache-2.0
// What the C client's callbacks hand on (session/client_deliveries.hpp): outside a round of the
// single-threaded driver it is posted; inside one it is kept in order and, when the round is
// over, run at once where its executor runs on this thread, posted elsewhere.
#include "session/client_deliveries.hpp"

#include <boost/asio/append.hpp>
#include <boost/asio/bind_executor.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/strand.hpp>

#define BOOST_TEST_MODULE client_deliveries
#include <boost/test/unit_test.hpp>

#include <stdexcept>
#include <string>
#include <vector>

namespace asio = boost::asio;
using zkcoord::detail::deliver_from_client;
using zkcoord::detail::delivery_batch;

BOOST_AUTO_TEST_CASE(without_a_round_a_delivery_is_posted_never_run_at_once) {
  asio::io_context io;
  bool ran = false;
  asio::post(io, [&] {
    deliver_from_client(io.get_executor(), [&] { ran = true; });
    BOOST_TEST(!ran);  // not inside the call, even on a thread running the executor
  });
  io.run();
  BOOST_TEST(ran);
}

BOOST_AUTO_TEST_CASE(a_round_runs_its_deliveries_in_order_once_it_is_over_and_without_the_queue) {
  asio::io_context io;
  std::vector<std::string> seen;
  asio::post(io, [&] {
    {
      delivery_batch round;
      deliver_from_client(io.get_executor(), [&] { seen.push_back("reply 1"); });
      deliver_from_client(io.get_executor(), [&] { seen.push_back("watch event"); });
      deliver_from_client(
          io.get_executor(),
          asio::append([&](int v) { seen.push_back("reply " + std::to_string(v)); }, 2));
      BOOST_TEST(seen.empty());  // nothing runs while the round is open
      round.close();
      // What a delivered handler hands on after the round is posted, after the rest.
      deliver_from_client(io.get_executor(), [&] { seen.push_back("posted later"); });
      round.run();
      // Run inside run(): the queue was not involved.
      BOOST_TEST(seen == (std::vector<std::string>{"reply 1", "watch event", "reply 2"}),
                 boost::test_tools::per_element());
    }
  });
  io.run();
  BOOST_TEST(seen.size() == 4u);
  BOOST_TEST(seen.back() == "posted later");
}

BOOST_AUTO_TEST_CASE(a_handler_bound_to_an_executor_not_running_here_is_posted_to_it) {
  asio::io_context io, other;
  bool ran = false;
  asio::post(io, [&] {
    delivery_batch round;
    deliver_from_client(io.get_executor(),
                        asio::bind_executor(other.get_executor(), [&] { ran = true; }));
    round.close();
    round.run();
    BOOST_TEST(!ran);
  });
  io.run();
  BOOST_TEST(!ran);
  other.run();
  BOOST_TEST(ran);
}

BOOST_AUTO_TEST_CASE(a_handler_bound_to_a_strand_runs_on_that_strand) {
  asio::io_context io;
  auto strand = asio::make_strand(io);
  bool on_strand = false;
  asio::post(io, [&] {
    delivery_batch round;
    deliver_from_client(
        io.get_executor(),
        asio::append(
            asio::bind_executor(strand, [&](int) { on_strand = strand.running_in_this_thread(); }),
            7));
    round.close();
    round.run();
  });
  io.run();
  BOOST_TEST(on_strand);
}

BOOST_AUTO_TEST_CASE(a_throwing_handler_loses_none_of_the_others) {
  asio::io_context io;
  std::vector<int> seen;
  asio::post(io, [&] {
    delivery_batch round;
    deliver_from_client(io.get_executor(), [&] { seen.push_back(1); });
    deliver_from_client(io.get_executor(), [&] {
      seen.push_back(2);
      throw std::runtime_error("handler failed");
    });
    deliver_from_client(io.get_executor(), [&] { seen.push_back(3); });
    deliver_from_client(io.get_executor(), [&] { seen.push_back(4); });
    round.close();
    round.run();
  });
  // As from io_context::run: the exception reaches the caller of run() (the io_context keeps it
  // until the running handler returns); what comes after it in the round still runs.
  BOOST_CHECK_THROW(io.run(), std::runtime_error);
  io.restart();
  io.run();
  BOOST_TEST(seen == (std::vector<int>{1, 2, 3, 4}), boost::test_tools::per_element());
}

BOOST_AUTO_TEST_CASE(a_round_that_ends_early_posts_what_it_kept) {
  asio::io_context io;
  int ran = 0;
  asio::post(io, [&] {
    {
      delivery_batch round;
      deliver_from_client(io.get_executor(), [&] { ++ran; });
    }  // left without run(): e.g. an exception in the round
    BOOST_TEST(ran == 0);
    BOOST_TEST(delivery_batch::current() == nullptr);
  });
  io.run();
  BOOST_TEST(ran == 1);
}

BOOST_AUTO_TEST_CASE(a_round_inside_a_round_hands_back_to_the_outer_one) {
  asio::io_context io;
  asio::post(io, [&] {
    delivery_batch outer;
    {
      delivery_batch inner;
      BOOST_TEST(delivery_batch::current() == &inner);
      inner.close();
      inner.run();
    }
    BOOST_TEST(delivery_batch::current() == &outer);
    outer.close();
    BOOST_TEST(delivery_batch::current() == nullptr);
  });
  io.run();
}
