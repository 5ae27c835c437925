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
#include <unistd.h>

#include <iostream>
#include <memory>
#include <optional>
#include <thread>

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

// The harness logs its progress on "zkcoord.testing" (info on stderr by default); here it is
// registered first so that only -v shows it and stdout stays the connect string alone.
void quiet_harness_log(bool verbose) {
  if (spdlog::get("zkcoord.testing")) return;
  auto logger = std::make_shared<spdlog::logger>("zkcoord.testing",
                                                 std::make_shared<spdlog::sinks::stderr_sink_mt>());
  logger->set_pattern("%H:%M:%S.%e %n %l: %v");
  logger->set_level(verbose ? spdlog::level::debug : spdlog::level::warn);
  spdlog::register_logger(logger);
}

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

}  // namespace

int run_server_command(const command_line& cl) {
  quiet_harness_log(cl.global.verbose);
  auto io = std::make_shared<asio::io_context>();
  // Before the JVM starts: a signal during the start-up must stop it, not kill us with it.
  asio::signal_set signals(*io, SIGINT, SIGTERM, SIGHUP);
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
  signals.async_wait([&](boost::system::error_code ec, int sig) {
    if (!ec && cl.global.verbose) report(std::string("SIG") + ::sigabbrev_np(sig) + ": stopping");
  });
  if (cl.until_eof) stop_at_stdin_eof(io, signals);
  io->run();
  server->stop();
  return exit_code::ok;
}

}  // namespace zkcoord::cli
