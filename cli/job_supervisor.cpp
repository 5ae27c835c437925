// SPDX-License-Identifier: Apache-2.0
#include "job_supervisor.hpp"

#include "exit_code.hpp"

#include <boost/asio/buffer.hpp>

#include <sys/socket.h>
#include <sys/uio.h>

#include <cerrno>
#include <cstring>

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

std::int64_t to_ns(std::chrono::steady_clock::time_point t) {
  if (t == std::chrono::steady_clock::time_point::min()) return INT64_MIN;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t.time_since_epoch()).count();
}

}  // namespace

job_supervisor::job_supervisor(const asio::any_io_executor& ex, guard_process guard)
    : guard_(std::move(guard)), socket_(ex, guard_.release_socket()) {}

// The socket closes before guard_ reaps the guard: closing is what tells it to finish.
job_supervisor::~job_supervisor() {
  boost::system::error_code ignored;
  socket_.close(ignored);
}

void job_supervisor::send(const guard_message& m, const std::string& payload) {
  iovec parts[2] = {{const_cast<guard_message*>(&m), sizeof m},
                    {const_cast<char*>(payload.data()), payload.size()}};
  msghdr msg{};
  msg.msg_iov = parts;
  msg.msg_iovlen = payload.empty() ? 1 : 2;
  // Never blocks: a guard that does not read is gone, and its end of the socket with it (a
  // lost renewal only makes the guard act earlier).
  ssize_t n;
  do {
    n = ::sendmsg(socket_.native_handle(), &msg, MSG_NOSIGNAL | MSG_DONTWAIT);
  } while (n < 0 && errno == EINTR);
}

void job_supervisor::spawn(const std::vector<std::string>& extra_env,
                           std::chrono::milliseconds grace,
                           std::chrono::steady_clock::time_point lease_deadline,
                           report_handler on_report) {
  std::string payload;
  for (const auto& e : extra_env) payload.append(e).push_back('\0');
  last_deadline_ = to_ns(lease_deadline);
  on_report_ = std::move(on_report);
  auto grace_ms = static_cast<std::int32_t>(std::min<std::int64_t>(grace.count(), INT32_MAX));
  send({static_cast<std::uint32_t>(guard_request::spawn), grace_ms, last_deadline_}, payload);
  read_next();
}

void job_supervisor::renew(std::chrono::steady_clock::time_point deadline) {
  auto ns = to_ns(deadline);
  if (ns == last_deadline_) return;
  last_deadline_ = ns;
  send({static_cast<std::uint32_t>(guard_request::renew), 0, ns});
}

void job_supervisor::forward_signal(int sig) {
  send({static_cast<std::uint32_t>(guard_request::forward_signal), sig, 0});
}

void job_supervisor::terminate() {
  send({static_cast<std::uint32_t>(guard_request::terminate), 0, 0});
}

void job_supervisor::read_next() {
  socket_.async_read_some(
      asio::buffer(&incoming_, sizeof incoming_),
      [this, life = std::weak_ptr<int>(life_)](boost::system::error_code ec, std::size_t n) {
        if (life.expired() || ec == asio::error::operation_aborted) return;
        if (ec || n == 0) return on_report_(true, {});
        if (n == sizeof incoming_) on_report_(false, incoming_);
        if (!life.expired()) read_next();  // the handler may destroy us
      });
}

}  // namespace zkcoord::cli
