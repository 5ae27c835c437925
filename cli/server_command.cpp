// SPDX-License-Identifier: Apache-2.0
#include "server_command.hpp"

#include "exit_code.hpp"
#include "zookeeper_session.hpp"

#include <zkcoord/testing/server.hpp>

#include <spdlog/sinks/stdout_sinks.h>
#include <spdlog/spdlog.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>

#include <signal.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <functional>
#include <iostream>
#include <memory>
#include <optional>
#include <thread>

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

std::string first_line(const std::string& text) {
  return text.substr(0, text.find('\n'));
}

// A blocking read on its own thread: stdin may be a file or /dev/null, which epoll refuses.
// Detached, as it may still sit in read() at exit; it shares the io_context so that a late
// post is harmless (nothing runs it any more).
void stop_at_stdin_eof(const std::shared_ptr<asio::io_context>& io, asio::signal_set& signals) {
  std::thread([io, &signals] {
    char buf[256];
    while (true) {
      ssize_t n = ::read(STDIN_FILENO, buf, sizeof buf);
      if (n == 0 || (n < 0 && errno != EINTR)) break;
    }
    asio::post(*io, [&signals] { signals.cancel(); });
  }).detach();
}

// How the JVM ended, if it has: read without reaping it (WNOWAIT), so the harness's own
// bookkeeping still sees the exit. Empty while it runs (or is merely stopped).
std::string how_it_ended(pid_t pid) {
  siginfo_t info{};
  if (pid <= 0 ||
      ::waitid(P_PID, static_cast<id_t>(pid), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
      info.si_pid != pid)
    return {};
  if (info.si_code == CLD_EXITED) return "exited with status " + std::to_string(info.si_status);
  return std::string("was killed by SIG") + ::sigabbrev_np(info.si_status);
}

// A SIGCHLD may come from any child; only the JVM's exit ends the command.
void watch_jvm(asio::signal_set& child_exits, pid_t pid, std::function<void(std::string)> died) {
  child_exits.async_wait(
      [&child_exits, pid, died = std::move(died)](boost::system::error_code ec, int) mutable {
        if (ec) return;
        if (std::string how = how_it_ended(pid); !how.empty()) return died(std::move(how));
        watch_jvm(child_exits, pid, std::move(died));
      });
}

}  // namespace

void quiet_harness_log(bool verbose) {
  if (spdlog::get("zkcoord.testing")) return;
  auto logger = std::make_shared<spdlog::logger>("zkcoord.testing",
                                                 std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_pattern("%H:%M:%S.%e %n %l: %v");
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::warn);
  spdlog::register_logger(logger);
}

int run_server_command(const command_line& cl) {
  quiet_harness_log(cl.global.verbose);
  auto io = std::make_shared<asio::io_context>();
  // Before the JVM starts: a signal during the start-up must stop it, not kill us with it.
  asio::signal_set signals(*io, SIGINT, SIGTERM, SIGHUP);
  // Also before: a JVM that dies at once must not go unnoticed.
  asio::signal_set child_exits(*io, SIGCHLD);
  std::optional<testing::server> server;
  try {
    server.emplace();
  } catch (const std::exception& e) {
    throw cli_error(exit_code::os_error, "cannot start a local ZooKeeper: " + first_line(e.what()));
  }
  std::cout << server->connect_string() << std::endl;
  if (cl.global.verbose)
    report("ZooKeeper " + server->connect_string() + " in " + server->directory().string() +
           " (pid " + std::to_string(server->pid()) + "); stop with Ctrl-C");
  int status = exit_code::ok;
  signals.async_wait([&](boost::system::error_code ec, int sig) {
    child_exits.cancel();
    if (!ec && cl.global.verbose) report(std::string("SIG") + ::sigabbrev_np(sig) + ": stopping");
  });
  // A script holding our connect string must learn at once that nothing serves it any more.
  const pid_t jvm = server->pid();
  watch_jvm(child_exits, jvm, [&](std::string how) {
    report("the local ZooKeeper (pid " + std::to_string(jvm) + ") " + how + "; stopping");
    status = exit_code::os_error;
    signals.cancel();
  });
  if (cl.until_eof) stop_at_stdin_eof(io, signals);
  io->run();
  server->stop();
  return status;
}

}  // namespace zkcoord::cli
