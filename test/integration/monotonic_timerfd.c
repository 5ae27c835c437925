// SPDX-License-Identifier: Apache-2.0
// Preloaded before libfaketime into integration_lock_clock_jump's holder: timerfd_settime
// straight to the kernel.
//
// libfaketime (0.9.10) rewrites every absolute timerfd_settime as if the timer ran on
// CLOCK_REALTIME: it subtracts the fake offset from the deadline, whatever clock the timer was
// created on. Boost.Asio's reactor keeps its timers on a CLOCK_MONOTONIC timerfd and arms it
// with an absolute 1 ns when a timer is already due; under an offset of -1 day that becomes
// "monotonic + 1 day" (under + offsets the call fails with EINVAL), and no timer of the
// io_context fires any more: the session's pings and heartbeats stop and the server expires it.
// A real clock step never moves a CLOCK_MONOTONIC timer; this shim gives the process back the
// kernel's behaviour for timerfds, so the test measures the library, not libfaketime.
// (Reproduced with a lone Asio timer due at once: it never fires under libfaketime -1d or +2h,
// and fires with this shim ahead of it.)
#include <sys/syscall.h>
#include <sys/timerfd.h>
#include <unistd.h>

int timerfd_settime(int fd, int flags, const struct itimerspec* new_value,
                    struct itimerspec* old_value) {
  return (int)syscall(SYS_timerfd_settime, fd, flags, new_value, old_value);
}

int timerfd_gettime(int fd, struct itimerspec* curr_value) {
  return (int)syscall(SYS_timerfd_gettime, fd, curr_value);
}
