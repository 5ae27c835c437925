// SPDX-License-Identifier: Apache-2.0
#include <zkcoord/testing/tcp_proxy.hpp>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <functional>
#include <future>
#include <list>
#include <mutex>
#include <optional>
#include <stdexcept>
#include <system_error>
#include <thread>
#include <vector>

#include "testing/free_ports.hpp"
#include "testing/harness_log.hpp"
#include "testing/zk_frames.hpp"

namespace zkcoord::testing {
namespace {

void close_socket(int& fd, bool reset) {
  if (fd < 0) return;
  if (reset) {
    const linger abortive{1, 0};  // close with RST, as a crashed peer or a cut cable would
    ::setsockopt(fd, SOL_SOCKET, SO_LINGER, &abortive, sizeof abortive);
  }
  ::close(fd);
  fd = -1;
}

// One proxied connection: bytes read but not yet written, per direction.
struct connection {
  int client = -1;
  int server = -1;
  std::string to_server;
  std::string to_client;
  detail::zk_frames requests;
  detail::zk_frames replies;
  std::optional<std::int32_t> dropping_reply_to;  // xid whose reply ends the connection
  bool done = false;
  bool reset = false;
};

}  // namespace

class tcp_proxy::impl {
 public:
  impl(std::string host, std::uint16_t port) : target_host_(std::move(host)), target_port_(port) {
    for (int attempt = 0; listener_ < 0 && attempt < 20; ++attempt) {
      port_ = detail::pick_free_ports(1).front();
      listener_ = detail::listen_on_loopback(port_);
    }
    if (listener_ < 0) throw std::runtime_error("zkcoord::testing::tcp_proxy: cannot listen");
    ::fcntl(listener_, F_SETFL, O_NONBLOCK);
    wake_ = ::eventfd(0, EFD_NONBLOCK | EFD_CLOEXEC);
    thread_ = std::thread([this] { loop(); });
  }

  ~impl() {
    execute([this] { stopping_ = true; });
    thread_.join();
    for (auto& c : connections_) close_connection(c, true);
    close_socket(listener_, false);
    ::close(wake_);
  }

  std::uint16_t port() const noexcept { return port_; }
  std::size_t accepted() const noexcept { return accepted_; }

  // Runs `command` on the proxy thread between two polls and waits for it.
  void execute(std::function<void()> command) {
    std::packaged_task<void()> task(std::move(command));
    auto done = task.get_future();
    {
      std::lock_guard lock(mutex_);
      commands_.push_back(std::move(task));
    }
    const std::uint64_t one = 1;
    [[maybe_unused]] auto ignored = ::write(wake_, &one, sizeof one);
    done.get();
  }

  void drop_all() {
    for (auto& c : connections_) close_connection(c, true);
    connections_.clear();
  }
  void set_blackhole(bool on) { blackhole_ = on; }
  void set_hold_replies(bool on) { hold_replies_ = on; }
  std::chrono::steady_clock::time_point last_forwarded_to_server() const {
    return std::chrono::steady_clock::time_point(
        std::chrono::steady_clock::duration(last_to_server_.load()));
  }
  void arm_drop_reply() { drop_armed_ = true; }
  void set_refuse(bool on) {
    if (on) {
      close_socket(listener_, false);
    } else if (listener_ < 0) {
      listener_ = detail::listen_on_loopback(port_);
      if (listener_ < 0) throw std::system_error(errno, std::system_category(), "tcp_proxy listen");
      ::fcntl(listener_, F_SETFL, O_NONBLOCK);
    }
  }

 private:
  void loop() {
    std::vector<pollfd> fds;
    while (!stopping_) {
      fds.clear();
      fds.push_back({wake_, POLLIN, 0});
      fds.push_back({listener_, POLLIN, 0});  // fd -1 is ignored by poll
      for (auto& c : connections_) {
        fds.push_back({c.client, events(c.to_server, c.to_client, !hold_replies_), 0});
        fds.push_back({c.server, events(c.to_client, c.to_server), 0});
      }
      if (::poll(fds.data(), fds.size(), -1) < 0) continue;  // EINTR
      std::size_t i = 2;
      for (auto& c : connections_) {
        transfer(c, fds[i].revents, fds[i + 1].revents);
        i += 2;
      }
      connections_.remove_if([this](connection& c) {
        if (c.done) close_connection(c, c.reset);
        return c.done;
      });
      if (fds[1].revents & POLLIN) accept_one();
      if (fds[0].revents & POLLIN) run_commands();
    }
  }

  // Read only when the other side's buffer is empty (back-pressure); nothing while blackholed.
  short events(const std::string& outgoing_from_here, const std::string& pending_to_here,
               bool may_write = true) const {
    if (blackhole_) return 0;
    short e = 0;
    if (outgoing_from_here.empty()) e |= POLLIN;
    if (may_write && !pending_to_here.empty()) e |= POLLOUT;
    return e;
  }

  void transfer(connection& c, short client_events, short server_events) {
    if ((client_events | server_events) & (POLLERR | POLLNVAL)) c.done = c.reset = true;
    if (c.done) return;
    if (client_events & (POLLIN | POLLHUP)) read_from_client(c);
    if (!c.done && (server_events & (POLLIN | POLLHUP))) read_from_server(c);
    if (!c.done && flush(c.server, c.to_server, c))
      last_to_server_ = std::chrono::steady_clock::now().time_since_epoch().count();
    if (!c.done && !hold_replies_) flush(c.client, c.to_client, c);
  }

  void read_from_client(connection& c) {
    char buf[65536];
    const ssize_t n = ::recv(c.client, buf, sizeof buf, 0);
    if (n <= 0) {
      end_on_read_failure(c, n);
      return;
    }
    c.requests.feed(buf, static_cast<std::size_t>(n), [&](std::uint64_t index, std::int32_t xid) {
      if (drop_armed_ && index > 0 && xid > 0 && !c.dropping_reply_to) {
        drop_armed_ = false;
        c.dropping_reply_to = xid;
        c.to_client.clear();
      }
    });
    c.to_server.append(buf, static_cast<std::size_t>(n));
  }

  void read_from_server(connection& c) {
    char buf[65536];
    const ssize_t n = ::recv(c.server, buf, sizeof buf, 0);
    if (n <= 0) {
      end_on_read_failure(c, n);
      return;
    }
    c.replies.feed(buf, static_cast<std::size_t>(n), [&](std::uint64_t index, std::int32_t xid) {
      if (c.dropping_reply_to && index > 0 && xid == *c.dropping_reply_to) c.done = c.reset = true;
    });
    if (!c.dropping_reply_to) c.to_client.append(buf, static_cast<std::size_t>(n));
  }

  // EOF closes the connection gracefully; an error resets it.
  static void end_on_read_failure(connection& c, ssize_t n) {
    if (n == 0) c.done = true;
    if (n < 0 && errno != EAGAIN && errno != EINTR) c.done = c.reset = true;
  }

  // Returns whether any byte went out.
  bool flush(int fd, std::string& pending, connection& c) {
    if (pending.empty() || blackhole_) return false;
    const ssize_t n = ::send(fd, pending.data(), pending.size(), MSG_NOSIGNAL);
    if (n > 0) pending.erase(0, static_cast<std::size_t>(n));
    if (n < 0 && errno != EAGAIN && errno != EINTR) c.done = c.reset = true;
    return n > 0;
  }

  void accept_one() {
    const int client = ::accept4(listener_, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (client < 0) return;
    ++accepted_;
    connection c;
    c.client = client;
    c.server = connect_target();
    if (c.server < 0) {
      close_socket(c.client, true);  // target down: the client sees the connection reset
      return;
    }
    connections_.push_back(std::move(c));
  }

  int connect_target() const {
    sockaddr_in addr{};
    addr.sin_family = AF_INET;
    addr.sin_port = htons(target_port_);
    const std::string host = target_host_ == "localhost" ? "127.0.0.1" : target_host_;
    if (::inet_pton(AF_INET, host.c_str(), &addr.sin_addr) != 1) return -1;
    int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd >= 0 && ::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof addr) != 0) {
      close_socket(fd, false);
    }
    if (fd >= 0) ::fcntl(fd, F_SETFL, O_NONBLOCK);
    return fd;
  }

  void close_connection(connection& c, bool reset) {
    close_socket(c.client, reset);
    close_socket(c.server, reset);
  }

  void run_commands() {
    std::uint64_t count = 0;
    [[maybe_unused]] auto ignored = ::read(wake_, &count, sizeof count);
    std::vector<std::packaged_task<void()>> batch;
    {
      std::lock_guard lock(mutex_);
      batch.swap(commands_);
    }
    for (auto& command : batch) command();
  }

  const std::string target_host_;
  const std::uint16_t target_port_;
  std::uint16_t port_ = 0;
  int listener_ = -1;
  int wake_ = -1;
  std::atomic<std::size_t> accepted_{0};
  // Touched only on the proxy thread (commands run there).
  std::list<connection> connections_;
  bool blackhole_ = false;
  bool hold_replies_ = false;
  std::atomic<std::chrono::steady_clock::rep> last_to_server_{0};
  bool drop_armed_ = false;
  bool stopping_ = false;
  std::mutex mutex_;
  std::vector<std::packaged_task<void()>> commands_;
  std::thread thread_;
};

tcp_proxy::tcp_proxy(std::string target_host, std::uint16_t target_port)
    : impl_(std::make_unique<impl>(std::move(target_host), target_port)) {}

tcp_proxy::~tcp_proxy() = default;

std::string tcp_proxy::connect_string() const {
  return "127.0.0.1:" + std::to_string(port());
}

std::uint16_t tcp_proxy::port() const noexcept {
  return impl_->port();
}

void tcp_proxy::drop_all() {
  impl_->execute([this] { impl_->drop_all(); });
}

void tcp_proxy::blackhole(bool on) {
  impl_->execute([this, on] { impl_->set_blackhole(on); });
}

void tcp_proxy::refuse(bool on) {
  impl_->execute([this, on] { impl_->set_refuse(on); });
}

void tcp_proxy::drop_next_reply_after_request() {
  impl_->execute([this] { impl_->arm_drop_reply(); });
}

void tcp_proxy::hold_replies(bool on) {
  impl_->execute([this, on] { impl_->set_hold_replies(on); });
}

std::chrono::steady_clock::time_point tcp_proxy::last_forwarded_to_server() const {
  return impl_->last_forwarded_to_server();
}

std::size_t tcp_proxy::connections_accepted() const {
  return impl_->accepted();
}

}  // namespace zkcoord::testing
