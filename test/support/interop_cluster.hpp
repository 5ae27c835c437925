// SPDX-License-Identifier: Apache-2.0
// The one ZooKeeper of an interop test binary (a Boost.Test global fixture that first compiles
// the binary's Curator program), and a zkcoord session connected to it.
#pragma once

#include "curator_java.hpp"
#include "io_thread.hpp"

#include <zkcoord/session.hpp>
#include <zkcoord/testing/test_cluster.hpp>

#include <boost/asio/use_future.hpp>

#include <filesystem>
#include <memory>
#include <string>

namespace zkcoord::test {

/// Derive a global fixture from it: `struct fixture : test::interop_cluster { fixture() :
/// interop_cluster(sources / "Program.java", work / "classes") {} };`. One per binary.
class interop_cluster {
 public:
  interop_cluster(const std::filesystem::path& curator_source, const std::filesystem::path& classes,
                  testing::server_options options = {})
      : cluster_(std::move(options)) {
    compile_curator_program(curator_source, classes);
    instance_ = &cluster_;
  }
  ~interop_cluster() { instance_ = nullptr; }
  interop_cluster(const interop_cluster&) = delete;
  interop_cluster& operator=(const interop_cluster&) = delete;

  static testing::test_cluster& cluster() { return *instance_; }
  static std::string connect_string() { return instance_->connect_string(); }

 private:
  testing::test_cluster cluster_;
  static inline testing::test_cluster* instance_ = nullptr;
};

/// A session on the interop cluster (`options.connect` is filled in), connected, with its own
/// io thread.
struct connected_client {
  explicit connected_client(session_options options = {}) {
    options.connect = interop_cluster::connect_string();
    s = std::make_unique<session>(io.executor(), std::move(options));
    get(s->async_connect(boost::asio::use_future));
  }
  io_thread io;
  std::unique_ptr<session> s;
};

}  // namespace zkcoord::test
