// SPDX-License-Identifier: Apache-2.0
#include <zkcoord/testing/four_letter.hpp>

#include <arpa/inet.h>
#include <netdb.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <sstream>

namespace zkcoord::testing {
namespace {

using steady = std::chrono::steady_clock;

int remaining_ms(steady::time_point deadline) {
  const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - steady::now());
  return left.count() > 0 ? static_cast<int>(left.count()) : 0;
}

bool wait_for(int fd, short events, steady::time_point deadline) {
  pollfd p{fd, events, 0};
  int r = 0;
  do {
    r = ::poll(&p, 1, remaining_ms(deadline));
  } while (r < 0 && errno == EINTR);
  return r > 0;
}

int connect_with_deadline(const std::string& host, std::uint16_t port,
                          steady::time_point deadline) {
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  if (::inet_pton(AF_INET, host == "localhost" ? "127.0.0.1" : host.c_str(), &addr.sin_addr) != 1) {
    return -1;
  }
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_NONBLOCK | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) == 0) return fd;
  int err = errno;
  if (err == EINPROGRESS && wait_for(fd, POLLOUT, deadline)) {
    socklen_t len = sizeof err;
    ::getsockopt(fd, SOL_SOCKET, SO_ERROR, &err, &len);
    if (err == 0) return fd;
  }
  ::close(fd);
  return -1;
}

}  // namespace

std::string four_letter(const std::string& host, std::uint16_t port, const std::string& command,
                        std::chrono::milliseconds timeout) {
  const auto deadline = steady::now() + timeout;
  const int fd = connect_with_deadline(host, port, deadline);
  if (fd < 0) return {};
  std::string answer;
  if (::send(fd, command.data(), command.size(), MSG_NOSIGNAL) ==
      static_cast<ssize_t>(command.size())) {
    char buf[4096];
    while (wait_for(fd, POLLIN, deadline)) {
      const ssize_t n = ::recv(fd, buf, sizeof buf, 0);
      if (n <= 0) break;  // the server closes after answering
      answer.append(buf, static_cast<std::size_t>(n));
    }
  }
  ::close(fd);
  return answer;
}

std::string server_mode(const std::string& host, std::uint16_t port,
                        std::chrono::milliseconds timeout) {
  std::istringstream answer(four_letter(host, port, "srvr", timeout));
  const std::string key = "Mode: ";
  for (std::string line; std::getline(answer, line);) {
    if (line.rfind(key, 0) == 0) return line.substr(key.size());
  }
  return {};
}

}  // namespace zkcoord::testing
