// SPDX-License-Identifier: Apache-2.0
// The try-it server's state, on its io_context: the run that runs (one at a time, on a
// thread of its own), the events of the current or last run (replayed to a page that
// connects), and the pages listening to the event stream.
#pragma once

#include "try_it/lesson_params.hpp"

#include <zkcoord/session.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/json/object.hpp>

#include <atomic>
#include <filesystem>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <vector>

namespace zkcoord::cli::try_it {

struct board_setup {
  std::string connect;        ///< the workers' ZooKeeper
  bool local_server = false;  ///< `connect` is the throwaway local ZooKeeper
  zkcoord::session* observer = nullptr;
  std::filesystem::path home;  ///< runs go to home/run-N (only the last one is kept)
  bool broken_fence_check = false;
};

class lesson_board {
 public:
  /// One "data: ...\n\n" message of the event stream for every event (called on the
  /// io_context's thread); false when the listener is gone.
  using listener = std::function<bool(const std::string& message)>;

  lesson_board(boost::asio::io_context& io, board_setup setup);
  ~lesson_board();  ///< stops a run that runs and waits for it

  /// Starts a run: "" when it started, else why not (`busy` tells a run already running).
  struct start_result {
    int run = 0;
    std::string problem;
    bool busy = false;
  };
  start_result start(const lesson_params& params);

  /// Sends `hello` and the current (or last) run's events, then every new one.
  void listen(listener l);
  /// The last finished run's page; "" before one.
  const std::string& saved_page() const noexcept { return saved_page_; }
  /// The events of the last run (JSON texts), for --html.
  const std::vector<std::string>& events() const noexcept { return events_; }
  bool running() const noexcept { return running_; }
  /// Called on the io_context when a run ended (after its `finished` or `failed`).
  void on_run_end(std::function<void()> f) { run_end_ = std::move(f); }

 private:
  void publish(boost::json::object event);   // any thread
  void record(std::string json, bool last);  // io thread
  std::string hello() const;
  void join_run();

  boost::asio::io_context& io_;
  board_setup setup_;
  int runs_ = 0;
  bool running_ = false;
  std::vector<std::string> events_;
  std::vector<listener> listeners_;
  std::string saved_page_;
  std::atomic<bool> stop_{false};
  std::thread run_thread_;
  std::function<void()> run_end_;
};

/// data: <json>\n\n
std::string stream_message(const std::string& json);

}  // namespace zkcoord::cli::try_it
