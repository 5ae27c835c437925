// SPDX-License-Identifier: Apache-2.0
#include "testing/free_ports.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <random>
#include <stdexcept>

namespace zkcoord::testing::detail {

int listen_on_loopback(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (fd < 0) return -1;
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(port);
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::bind(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0 || ::listen(fd, 64) != 0) {
    ::close(fd);
    return -1;
  }
  return fd;
}

std::vector<std::uint16_t> pick_free_ports(std::size_t count) {
  static thread_local std::mt19937 rng{std::random_device{}()};
  std::uniform_int_distribution<int> dist(20000, 32000);
  std::vector<std::uint16_t> ports;
  std::vector<int> held;  // kept open until all are chosen, so no port is returned twice
  for (int attempt = 0; ports.size() < count && attempt < 1000; ++attempt) {
    const auto port = static_cast<std::uint16_t>(dist(rng));
    if (std::find(ports.begin(), ports.end(), port) != ports.end()) continue;
    const int fd = listen_on_loopback(port);
    if (fd < 0) continue;
    held.push_back(fd);
    ports.push_back(port);
  }
  for (int fd : held) ::close(fd);
  if (ports.size() < count) throw std::runtime_error("zkcoord::testing: no free ports found");
  return ports;
}

}  // namespace zkcoord::testing::detail
