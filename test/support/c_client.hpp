// SPDX-License-Identifier: Apache-2.0
// A minimal blocking ZooKeeper C-client handle for harness tests, independent of zkcoord's
// session so that a session bug cannot hide or fake a harness bug. On libzookeeper_mt
// (THREADED) the C client's synchronous calls; on libzookeeper_st (zkcoord built with
// -DZKCOORD_ZK_CLIENT=st: no binary may link both) asynchronous calls driven on the calling
// thread until they complete (testing/st_pump.hpp).
#pragma once

#include <zookeeper/zookeeper.h>

#include "testing/st_pump.hpp"

#include <chrono>
#include <mutex>
#include <stdexcept>
#include <string>
#include <thread>

namespace zkcoord::test {

class c_client {
 public:
  /// Connects and waits (up to `timeout`) until connected; throws otherwise.
  explicit c_client(const std::string& connect, int session_timeout_ms = 4000,
                    std::chrono::milliseconds timeout = std::chrono::seconds(15)) {
    // Once: the level is a process-wide variable that running handles' threads read without a
    // lock, so setting it again while another handle runs is a data race (TSan).
    static std::once_flag quiet_once;
    std::call_once(quiet_once, [] { zoo_set_debug_level(ZOO_LOG_LEVEL_ERROR); });
    zh_ = zookeeper_init(connect.c_str(), nullptr, session_timeout_ms, nullptr, nullptr, 0);
    if (!zh_) throw std::runtime_error("zookeeper_init failed for " + connect);
    if (!wait_connected(timeout)) {
      zookeeper_close(zh_);
      throw std::runtime_error("could not connect to " + connect);
    }
  }
  ~c_client() { zookeeper_close(zh_); }
  c_client(const c_client&) = delete;
  c_client& operator=(const c_client&) = delete;

#ifdef THREADED
  bool wait_connected(std::chrono::milliseconds timeout) {
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    while (zoo_state(zh_) != ZOO_CONNECTED_STATE) {
      if (std::chrono::steady_clock::now() >= deadline) return false;
      std::this_thread::sleep_for(std::chrono::milliseconds(10));
    }
    return true;
  }
  /// ZOK or the C client's error code.
  int create(const std::string& path, const std::string& data = "", int flags = 0) {
    return zoo_create(zh_, path.c_str(), data.data(), static_cast<int>(data.size()),
                      &ZOO_OPEN_ACL_UNSAFE, flags, nullptr, 0);
  }
  /// ZOK when the node exists, ZNONODE when not, else the error.
  int exists(const std::string& path) {
    struct Stat stat;
    return zoo_exists(zh_, path.c_str(), 0, &stat);
  }
  /// The handle's state (ZOO_CONNECTED_STATE, ...), after `run` of letting it work.
  int state(std::chrono::milliseconds run = std::chrono::milliseconds(20)) {
    std::this_thread::sleep_for(run);
    return zoo_state(zh_);
  }
#else
  bool wait_connected(std::chrono::milliseconds timeout) {
    return testing::detail::st_pump_for(
        zh_, [&] { return zoo_state(zh_) == ZOO_CONNECTED_STATE; }, timeout);
  }
  int create(const std::string& path, const std::string& data = "", int flags = 0) {
    return complete([&](int* out) {
      return zoo_acreate(
          zh_, path.c_str(), data.data(), static_cast<int>(data.size()), &ZOO_OPEN_ACL_UNSAFE,
          flags,
          [](int rc, const char*, const void* d) { *static_cast<int*>(const_cast<void*>(d)) = rc; },
          out);
    });
  }
  int exists(const std::string& path) {
    return complete([&](int* out) {
      return zoo_aexists(
          zh_, path.c_str(), 0,
          [](int rc, const Stat*, const void* d) { *static_cast<int*>(const_cast<void*>(d)) = rc; },
          out);
    });
  }
  int state(std::chrono::milliseconds run = std::chrono::milliseconds(20)) {
    testing::detail::st_pump_for(
        zh_, [] { return false; }, run);
    return zoo_state(zh_);
  }
#endif
  zhandle_t* handle() const noexcept {
    return zh_;
  }

 private:
#ifndef THREADED
  /// Sends a request with `send(&rc)` and runs the handle until its completion set rc.
  template <class Send>
  int complete(Send&& send) {
    constexpr int pending = 1;  // no ZooKeeper result is positive
    int rc = pending;
    const int sent = send(&rc);
    if (sent != ZOK) return sent;
    testing::detail::st_pump_for(
        zh_, [&] { return rc != pending; }, std::chrono::seconds(60));
    return rc;
  }
#endif
  zhandle_t* zh_ = nullptr;
};

}  // namespace zkcoord::test
