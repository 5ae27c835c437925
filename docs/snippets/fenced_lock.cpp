// SPDX-License-Identifier: Apache-2.0
// The README's fenced-lock snippet as a program: two fans book seat C14 in turn under the seat's
// lock, each write carrying its fencing token; then the first fan's late write (as if it had
// been paused past its session) is refused by the table. Exit status 1 on any error.
//   zkcoord_snippet_fenced_lock CONNECT
#include <boost/asio.hpp>

#include <cstdint>
#include <iostream>
#include <string>

namespace asio = boost::asio;
using namespace std::chrono_literals;

// [snippet:book]
#include <zkcoord/lock.hpp>

#include "seats_table.hpp"  // an SQLite table that keeps each seat's highest token

asio::awaitable<bool> book(zkcoord::session& zk, seats_table& db, std::string fan) {
  zkcoord::lock seat_lock(zk, "/locks/shows/sh_88/C14");
  zkcoord::held_lock held = co_await seat_lock.async_acquire(5s, asio::use_awaitable);
  // The czxid of our lock node: grows with every grant, across leader fail-over and
  // re-creation of the lock's parent; never reset. Storage rejects anything lower.
  std::int64_t token = held.token().value();
  // UPDATE seats SET holder = :fan, fence = :token WHERE seat = 'C14' AND fence < :token
  if (db.update_if_fence_below("sh_88", "C14", fan, token) == 0)
    co_return false;  // we were paused past our session and lost the lock without knowing
  co_await held.async_release(asio::use_awaitable);  // or let the destructor release it
  co_return true;
}
// [end snippet]

asio::awaitable<void> two_fans_and_a_late_write(zkcoord::session& zk, seats_table& db) {
  co_await zk.async_connect(asio::use_awaitable);
  db.add_free_seat("sh_88", "C14");
  std::int64_t first_token = 0;
  for (const std::string fan : {"fan_a", "fan_b"}) {
    const bool booked = co_await book(zk, db, fan);
    const auto row = db.row("sh_88", "C14");
    std::cout << fan << (booked ? " booked" : " was refused") << " C14: holder=" << row.holder
              << " fence=" << row.fence << "\n";
    if (!booked) throw std::runtime_error(fan + " should have booked: nobody else holds the lock");
    if (first_token == 0) first_token = row.fence;
  }
  // fan_a's write again, with the token of the first grant: what a holder paused past its
  // session would send when it wakes up. The table has seen fan_b's larger token since.
  const int changed = db.update_if_fence_below("sh_88", "C14", "fan_a", first_token);
  std::cout << "late write by fan_a with token " << first_token << ": " << changed
            << " rows changed, holder=" << db.row("sh_88", "C14").holder << "\n";
}

int main(int argc, char** argv) {
  if (argc != 2) {
    std::cerr << "usage: " << argv[0] << " CONNECT\n";
    return 2;
  }
  asio::io_context io;
  zkcoord::session zk(io.get_executor(), {.connect = argv[1], .session_timeout = 10s});
  seats_table db;
  int status = 0;
  asio::co_spawn(io, two_fans_and_a_late_write(zk, db), [&](std::exception_ptr error) {
    try {
      if (error) std::rethrow_exception(error);
    } catch (const std::exception& e) {
      std::cerr << "fenced_lock: " << e.what() << "\n";
      status = 1;
    }
    zk.close();
  });
  io.run();
  return status;
}
