// SPDX-License-Identifier: Apache-2.0
// Runs an io_context on a background thread for the lifetime of a test, so tests can block
// on use_future results.
#pragma once

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

namespace zkcoord::test {

class io_thread {
 public:
  io_thread() : work_(ioc_.get_executor()), thread_([this] { ioc_.run(); }) {}
  ~io_thread() {
    work_.reset();
    ioc_.stop();
    thread_.join();
  }
  boost::asio::io_context::executor_type executor() { return ioc_.get_executor(); }
  boost::asio::io_context& context() { return ioc_; }

 private:
  boost::asio::io_context ioc_;
  boost::asio::executor_work_guard<boost::asio::io_context::executor_type> work_;
  std::thread thread_;
};

/// f.get() with a generous liveness bound, so a hang fails the test instead of stalling CI.
template <class T>
T get(std::future<T>& f, std::chrono::seconds bound = std::chrono::seconds(30)) {
  if (f.wait_for(bound) != std::future_status::ready)
    throw std::runtime_error("operation did not complete within the liveness bound");
  return f.get();
}
template <class T>
T get(std::future<T>&& f, std::chrono::seconds bound = std::chrono::seconds(30)) {
  return get(f, bound);
}

}  // namespace zkcoord::test
