// SPDX-License-Identifier: Apache-2.0
#include "try_it/try_it_command.hpp"

#include "common/command_line.hpp"
#include "exit_code.hpp"
#include "seat_booking/options.hpp"
#include "seat_booking/worker.hpp"
#include "server_command.hpp"
#include "try_it/http_server.hpp"
#include "try_it/janitor.hpp"
#include "try_it/lesson_board.hpp"
#include "try_it/saved_page.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

#include <zkcoord/testing/server.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/signal_set.hpp>

#include <stdlib.h>
#include <unistd.h>

#include <fstream>
#include <iostream>
#include <optional>

namespace zkcoord::cli {
namespace {

namespace asio = boost::asio;
namespace fs = std::filesystem;
using try_it::lesson_board;
using try_it::lesson_params;

// Every file of the server, its runs and its local ZooKeeper goes under one directory; the
// harness and the runs make theirs in $TMPDIR, which points there from now on.
fs::path make_home() {
  const char* base = std::getenv("TMPDIR");
  std::string pattern = std::string(base && *base ? base : "/tmp") + "/zkcoord-try-it-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr)
    throw cli_error(exit_code::os_error,
                    "cannot create a directory like " + pattern + ": " + std::strerror(errno));
  ::setenv("TMPDIR", pattern.c_str(), 1);
  return pattern;
}

void start_local_server(std::optional<testing::server>& server) {
  testing::server_options o;
  o.tick_time = std::chrono::milliseconds(200);
  o.min_session_timeout = std::chrono::milliseconds(400);
  o.max_session_timeout = std::chrono::milliseconds(try_it::lesson_limits::max_real_lease_ms);
  o.container_check_interval = std::chrono::milliseconds(1000);
  o.force_sync = false;  // a throwaway server: its data outlives nothing
  try {
    server.emplace(o);
  } catch (const std::exception& e) {
    const std::string what = e.what();
    throw cli_error(exit_code::os_error,
                    "cannot start a local ZooKeeper: " + what.substr(0, what.find('\n')));
  }
}

void connect(asio::io_context& io, session& zk, const std::string& where) {
  std::optional<error_code> result;
  zk.async_connect([&](error_code ec) { result = ec; });
  while (!result && io.run_one() > 0) {
  }
  if (!result) throw cli_error(exit_code::internal, "the connection attempt never ended");
  if (*result) throw error_for(*result, "cannot connect to ZooKeeper at " + where);
}

lesson_params html_params(const try_it_options& t) {
  lesson_params p;
  if (t.lease_s) p.lease_s = *t.lease_s;
  if (t.pause_s) p.pause_s = *t.pause_s;
  if (t.scale_ms) p.scale_ms = *t.scale_ms;
  if (t.mode) p.mode = *try_it::parse_protection(*t.mode);
  if (auto problem = try_it::lesson_params_problem(p); !problem.empty())
    throw cli_error(exit_code::usage, "try-it: " + problem);
  return p;
}

// --html: one run, written as a page; the status says whether it reached a verdict.
int write_one_run(asio::io_context& io, lesson_board& board, const lesson_params& params,
                  const std::string& file) {
  board.on_run_end([&io] { io.stop(); });
  if (auto started = board.start(params); !started.problem.empty())
    throw cli_error(exit_code::usage, "try-it: " + started.problem);
  io.run();
  if (board.running()) return exit_code::internal;  // stopped by a signal
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out << board.saved_page();
  out.close();
  if (!out) throw cli_error(exit_code::os_error, "cannot write " + file);
  const bool finished =
      !board.events().empty() && board.events().back().find("\"finished\"") != std::string::npos;
  std::cout << file << std::endl;
  if (!finished) report("the run failed; " + file + " shows how far it came");
  return finished ? exit_code::ok : exit_code::unavailable;
}

}  // namespace

int run_try_it_command(const command_line& cl) {
  quiet_harness_log(cl.global.verbose);
  const auto& t = cl.try_it;
  const auto html = t.html_file.empty() ? std::optional<lesson_params>{} : html_params(t);
  const fs::path home = make_home();
  const try_it::janitor cleaner(home);  // before any thread: it removes `home` however we end
  asio::io_context io;
  // Before the JVM starts: a signal during the start-up must stop it, not kill us with it.
  asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
  std::optional<testing::server> local;
  std::string connect_string = cl.global.connect;
  if (!t.connect_given) {
    start_local_server(local);
    connect_string = local->connect_string();
  }
  global_options observer_options = cl.global;
  observer_options.connect = connect_string;
  session observer(io.get_executor(),
                   make_session_options(observer_options, make_logger(cl.global.verbose)));
  connect(io, observer, connect_string);

  int status = exit_code::ok;
  {
    lesson_board board(
        io, {.connect = connect_string,
             .local_server = local.has_value(),
             .observer = &observer,
             .home = home,
             .broken_fence_check = std::getenv("ZKCOORD_TRY_IT_BROKEN_FENCE") &&
                                   std::string(std::getenv("ZKCOORD_TRY_IT_BROKEN_FENCE")) == "1"});
    signals.async_wait([&](boost::system::error_code ec, int) {
      if (!ec) io.stop();
    });
    if (html) {
      status = write_one_run(io, board, *html, t.html_file);
    } else {
      try_it::http_server http(io, board, t.port);
      std::cout << "http://127.0.0.1:" << http.port() << "/" << std::endl;
      std::cerr << "zkcoord try-it: files in " << home.string() << " (removed at exit)\n"
                << "zkcoord try-it: ZooKeeper at " << connect_string
                << (local ? " (a throwaway local server)" : "")
                << "; open the URL above, stop with Ctrl-C" << std::endl;
      io.run();
    }
  }  // the board stops a run that still runs: its workers are killed
  observer.close();
  if (local) local->stop();
  std::error_code ignored;
  fs::remove_all(home, ignored);
  return status;
}

int run_try_it_worker(int argc, char** argv) {
  try {
    const examples::command_line args(argc, argv);
    return seat_booking::run_worker(seat_booking::parse_worker_options(args));
  } catch (const std::exception& e) {
    std::cerr << "zkcoord try-it-worker: " << e.what() << "\n";
    return 1;
  }
}

}  // namespace zkcoord::cli
