// SPDX-License-Identifier: Apache-2.0
// Test-matrix row 15: the holder's wall clock jumps (libfaketime preloaded into the holder
// process, its realtime clock moved by +2 h, -2 h and +1 day while it holds the lock; its
// monotonic clock is left alone, as an NTP step leaves it). Nothing may change: no suspension,
// no loss, the waiter in this process is not granted, the holder's write is accepted with its
// token; once the holder dies, the waiter is granted within T + 1 s as usual.
// The library and the C client time everything on the steady clock; this shows it.
// libfaketime also rewrites absolute timerfd deadlines as if every timerfd ran on the realtime
// clock, which stalls Asio's (monotonic) timers under an offset: a small preload ahead of it
// restores the kernel's timerfd behaviour (test/integration/monotonic_timerfd.c), as a real
// clock step leaves monotonic timers alone.
#include <zkcoord/lock.hpp>

#include <zkcoord/testing/test_cluster.hpp>

#include "support/file_fence_store.hpp"
#include "support/holder_child.hpp"
#include "support/io_thread.hpp"
#include "support/piped_child.hpp"
#include "support/tuple_future.hpp"

#include <boost/asio/use_future.hpp>

#define BOOST_TEST_MODULE lock_clock_jump
#include <boost/test/unit_test.hpp>

#include <signal.h>

#include <ctime>
#include <fstream>
#include <thread>

using namespace zkcoord;
using namespace std::chrono_literals;
namespace asio = boost::asio;
using steady = std::chrono::steady_clock;
using test::field;

namespace {

// Debian's libfaketime (installed by scripts/install-deps): the multi-threaded variant.
const std::string libfaketime = "/usr/lib/x86_64-linux-gnu/faketime/libfaketimeMT.so.1";

// The child's realtime offset, read by libfaketime at every clock call.
struct fake_clock {
  explicit fake_clock(const std::filesystem::path& dir) : file(dir / "faketime") { set("+0"); }
  void set(const std::string& offset) { std::ofstream(file, std::ios::trunc) << offset << "\n"; }
  // With the preload that keeps timerfds on the kernel's clock (monotonic_timerfd.c) unless
  // `timerfd_preload` is false.
  std::vector<std::string> environment(bool timerfd_preload = true) const {
    const std::string preload =
        timerfd_preload ? std::string(ZKCOORD_MONOTONIC_TIMERFD) + ":" + libfaketime : libfaketime;
    return {"LD_PRELOAD=" + preload, "FAKETIME_TIMESTAMP_FILE=" + file.string(),
            "FAKETIME_NO_CACHE=1", "FAKETIME_DONT_FAKE_MONOTONIC=1"};
  }
  std::filesystem::path file;
};

}  // namespace

BOOST_AUTO_TEST_CASE(wall_clock_jumps_change_nothing) {
  testing::test_cluster cluster;
  test::temp_dir dir("zkcoord-row15");
  test::file_fence_store store(dir.path / "store");
  fake_clock clock(dir.path);

  // The preload works: `date` under it is two hours ahead (else this test proves nothing).
  clock.set("+2h");
  {
    test::piped_child date({"date", "+%s"}, clock.environment());
    const auto line = date.read_line(10s);
    BOOST_REQUIRE_MESSAGE(line.has_value(), "date printed nothing under " << libfaketime);
    const long long ahead = std::stoll(*line) - static_cast<long long>(std::time(nullptr));
    BOOST_REQUIRE_MESSAGE(ahead > 7000 && ahead < 7400, "libfaketime not in effect: " << ahead);
  }
  clock.set("+0");

  const std::string path = testing::unique_path("clock-jump");
  test::piped_child child({ZKCOORD_LOCK_HOLDER_CHILD, cluster.connect_string(), path,
                           (dir.path / "store").string(), "2000"},
                          clock.environment());
  const auto held_line = child.read_line(30s);
  BOOST_REQUIRE_MESSAGE(held_line.has_value(), "the child did not report holding the lock");
  const std::int64_t token = std::stoll(field(*held_line, "token"));
  const auto t = std::chrono::milliseconds(std::stoll(field(*held_line, "timeout_ms")));

  test::io_thread io;
  session s(io.executor(), {.connect = cluster.connect_string(), .session_timeout = 10s});
  test::get(s.async_connect(asio::use_future));
  lock waiter(s, path);
  auto granted = waiter.async_acquire(test::tuple_future);

  for (const char* offset : {"+2h", "-2h", "+1d", "-1d", "+0"}) {
    clock.set(offset);
    std::this_thread::sleep_for(t);  // every offset for a full session timeout
  }
  BOOST_TEST((granted.wait_for(0ms) == std::future_status::timeout), "the waiter was granted");

  child.write_line("write");
  const auto write_line = child.read_line(20s);
  BOOST_REQUIRE(write_line.has_value());
  BOOST_TEST_MESSAGE("child after the jumps: " << *write_line);
  BOOST_TEST(field(*write_line, "write") == "accepted");
  BOOST_TEST(field(*write_line, "owns") == "1");
  BOOST_TEST(store.snapshot().highest == token);

  // The holder dies without closing its session: the server expires it after T as usual.
  const auto killed_at = steady::now();
  child.signal(SIGKILL);
  BOOST_REQUIRE(granted.wait_for(t * 5) == std::future_status::ready);
  const auto after = steady::now() - killed_at;
  auto [ec, held] = granted.get();
  BOOST_REQUIRE(!ec);
  BOOST_TEST(held.token().value() > token);
  BOOST_TEST_MESSAGE("waiter granted " << after / 1ms << " ms after the holder was killed");
  BOOST_TEST((after <= t + 1s));
}

// What the holder's preload is for. Under libfaketime alone an Asio timer that is already due
// when armed does not fire (libfaketime moves the absolute deadline of Asio's monotonic timerfd
// by the fake offset, as if it were a realtime timer): every timer of that io_context stalls.
// With the preload ahead of libfaketime it fires at once under every offset the case above
// uses, as it does with no libfaketime at all and under a real clock step.
BOOST_AUTO_TEST_CASE(the_holders_preload_keeps_asio_timers_on_the_monotonic_clock) {
  test::temp_dir dir("zkcoord-row15-probe");
  fake_clock clock(dir.path);
  for (const char* offset : {"+2h", "-2h", "+1d", "-1d", "+0"}) {
    BOOST_TEST_CONTEXT("offset " << offset) {
      clock.set(offset);
      test::piped_child probe({ZKCOORD_DUE_TIMER_PROBE}, clock.environment());
      BOOST_TEST(probe.read_line(10s).value_or("no answer") == "fired");
    }
  }
  clock.set("-1d");
  test::piped_child alone({ZKCOORD_DUE_TIMER_PROBE}, clock.environment(false));
  BOOST_TEST_MESSAGE("libfaketime alone, -1d: " << alone.read_line(10s).value_or("no answer"));
}
