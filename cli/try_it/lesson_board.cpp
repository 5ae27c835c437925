// SPDX-License-Identifier: Apache-2.0
#include "try_it/lesson_board.hpp"

#include "try_it/lesson_run.hpp"
#include "try_it/saved_page.hpp"

#include <boost/asio/post.hpp>
#include <boost/json/serialize.hpp>

#include <system_error>

namespace zkcoord::cli::try_it {

namespace asio = boost::asio;
using boost::json::object;

std::string stream_message(const std::string& json) {
  return "data: " + json + "\n\n";
}

lesson_board::lesson_board(asio::io_context& io, board_setup setup)
    : io_(io), setup_(std::move(setup)) {}

lesson_board::~lesson_board() {
  stop_ = true;
  join_run();
}

void lesson_board::join_run() {
  if (run_thread_.joinable()) run_thread_.join();
}

lesson_board::start_result lesson_board::start(const lesson_params& params) {
  if (running_)
    return {runs_,
            "a run is already running (run " + std::to_string(runs_) + "); wait for its verdict",
            true};
  if (auto problem = lesson_params_problem(params); !problem.empty()) return {0, problem, false};
  join_run();  // the last run's thread has ended: its last event came through the io_context
  std::error_code ignored;
  if (runs_ > 0)
    std::filesystem::remove_all(setup_.home / ("run-" + std::to_string(runs_)), ignored);
  const int run = ++runs_;
  lesson_setup lesson{.run = run,
                      .params = params,
                      .connect = setup_.connect,
                      .observer = setup_.observer,
                      .directory = setup_.home / ("run-" + std::to_string(run)),
                      .broken_fence_check = setup_.broken_fence_check,
                      .stop = &stop_};
  std::filesystem::create_directories(lesson.directory);
  running_ = true;
  events_.clear();
  run_thread_ = std::thread(
      [this, lesson] { run_lesson(lesson, [this](object e) { publish(std::move(e)); }); });
  return {run, {}, false};
}

void lesson_board::publish(object event) {
  const auto type = event["type"].as_string();
  const bool last = type == "finished" || type == "failed";
  asio::post(io_, [this, json = boost::json::serialize(event), last]() mutable {
    record(std::move(json), last);
  });
}

void lesson_board::record(std::string json, bool last) {
  events_.push_back(json);
  const auto message = stream_message(json);
  std::erase_if(listeners_, [&](listener& l) { return !l(message); });
  if (!last) return;
  running_ = false;
  saved_page_ = try_it::saved_page(events_);
  if (run_end_) run_end_();
}

std::string lesson_board::hello() const {
  using L = lesson_limits;
  const lesson_params defaults;
  return boost::json::serialize(
      object{{"type", "hello"},
             {"limits", object{{"lease_s", {L::min_lease_s, L::max_lease_s}},
                               {"pause_s", {L::min_pause_s, L::max_pause_s}},
                               {"scale_ms", {L::min_scale_ms, L::max_scale_ms}},
                               {"real_lease_ms", {L::min_real_lease_ms, L::max_real_lease_ms}}}},
             {"defaults", object{{"lease_s", defaults.lease_s},
                                 {"pause_s", defaults.pause_s},
                                 {"mode", to_string(defaults.mode)},
                                 {"scale_ms", defaults.scale_ms}}},
             {"running", running_},
             {"connect", setup_.connect},
             {"local_server", setup_.local_server}});
}

void lesson_board::listen(listener l) {
  if (!l(stream_message(hello()))) return;
  for (const auto& e : events_)
    if (!l(stream_message(e))) return;
  listeners_.push_back(std::move(l));
}

}  // namespace zkcoord::cli::try_it
