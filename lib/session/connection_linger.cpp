// SPDX-License-Identifier: Apache-2.0
// connection_linger.hpp: a second descriptor of the connection, read until the server closes.
#include "connection_linger.hpp"

#include <cerrno>
#include <utility>

#include <fcntl.h>
#include <poll.h>
#include <unistd.h>

namespace zkcoord::detail {

connection_linger::connection_linger(int fd) noexcept
    : fd_(fd < 0 ? -1 : ::fcntl(fd, F_DUPFD_CLOEXEC, 0)) {}

connection_linger::connection_linger(connection_linger&& other) noexcept
    : fd_(std::exchange(other.fd_, -1)) {}

connection_linger& connection_linger::operator=(connection_linger&& other) noexcept {
  if (this != &other) {
    release();
    fd_ = std::exchange(other.fd_, -1);
  }
  return *this;
}

connection_linger::~connection_linger() {
  release();
}

void connection_linger::release() noexcept {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
}

bool connection_linger::await_server_close(std::chrono::milliseconds bound) noexcept {
  if (fd_ < 0) return false;
  using clock = std::chrono::steady_clock;
  const auto deadline = clock::now() + bound;
  bool closed_by_server = false;
  char discard[4096];
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::milliseconds>(deadline - clock::now()).count();
    if (left <= 0) break;
    pollfd p{fd_, POLLIN, 0};
    const int ready = ::poll(&p, 1, static_cast<int>(left));
    if (ready < 0 && errno == EINTR) continue;
    if (ready <= 0) break;
    // The C client made the socket non-blocking; this descriptor shares that.
    const ssize_t n = ::read(fd_, discard, sizeof discard);
    if (n > 0) continue;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR)) continue;
    closed_by_server = n == 0;
    break;  // the end, or a reset: either way nothing more will come
  }
  release();
  return closed_by_server;
}

}  // namespace zkcoord::detail
