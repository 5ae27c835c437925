// SPDX-License-Identifier: Apache-2.0
// `zkcoord barrier`: connect, enter the double barrier (signals end zkcoord, and our member
// node goes with the session), run COMMAND with the signals passed on to it, then leave and
// exit with COMMAND's status. The session is driven while COMMAND runs (its wait has a thread
// of its own). The barrier needs no guard process: nothing is granted
// exclusively, so nothing has to be stopped when the session ends while COMMAND runs.
#include "barrier_command.hpp"

#include "chroot_check.hpp"
#include "executable.hpp"
#include "exit_code.hpp"
#include "zookeeper_errors.hpp"
#include "zookeeper_session.hpp"

#include <zkcoord/barrier.hpp>
#include <zkcoord/session.hpp>

#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>

#include <spdlog/spdlog.h>

#include <spawn.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <exception>
#include <optional>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace asio = boost::asio;

namespace zkcoord::cli {
namespace {

std::atomic<pid_t> running_child{0};

extern "C" void forward_to_child(int sig) {
  if (const pid_t pid = running_child.load(); pid > 0) ::kill(pid, sig);
}

// Runs COMMAND with ZKCOORD_BARRIER_NODE in its environment; SIGINT, SIGTERM and SIGHUP are
// passed on to it. Returns its exit status (128+N when killed by signal N).
int run_command(const std::string& executable, const std::vector<std::string>& argv,
                const std::string& node) {
  std::vector<std::string> env_storage;
  for (char** e = environ; *e; ++e) {
    if (std::string_view(*e).rfind("ZKCOORD_BARRIER_NODE=", 0) != 0) env_storage.emplace_back(*e);
  }
  env_storage.push_back("ZKCOORD_BARRIER_NODE=" + node);
  std::vector<char*> envp, args;
  for (auto& e : env_storage) envp.push_back(e.data());
  envp.push_back(nullptr);
  std::vector<std::string> argv_storage(argv);
  for (auto& a : argv_storage) args.push_back(a.data());
  args.push_back(nullptr);

  struct sigaction forward {};
  forward.sa_handler = forward_to_child;
  ::sigemptyset(&forward.sa_mask);
  struct sigaction old_int {
  }, old_term{}, old_hup{};
  ::sigaction(SIGINT, &forward, &old_int);
  ::sigaction(SIGTERM, &forward, &old_term);
  ::sigaction(SIGHUP, &forward, &old_hup);
  pid_t pid = 0;
  const int rc =
      ::posix_spawn(&pid, executable.c_str(), nullptr, nullptr, args.data(), envp.data());
  int status = 0;
  if (rc == 0) {
    running_child = pid;
    while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {
    }
    running_child = 0;
  }
  ::sigaction(SIGINT, &old_int, nullptr);
  ::sigaction(SIGTERM, &old_term, nullptr);
  ::sigaction(SIGHUP, &old_hup, nullptr);
  if (rc != 0) {
    throw cli_error(rc == ENOENT ? exit_code::command_not_found : exit_code::cannot_execute,
                    "cannot run " + argv.at(0) + ": " + ::strerror(rc));
  }
  if (WIFSIGNALED(status)) return signal_exit_status(WTERMSIG(status));
  return WEXITSTATUS(status);
}

}  // namespace

int run_barrier_command(const command_line& cl) {
  // Before anything connects: a typo in COMMAND costs no member node.
  const std::string executable = find_executable(cl.child_argv.at(0));
  const std::string noun = "the barrier " + cl.path;
  auto logger = make_logger(cl.global.verbose);
  asio::io_context io;
  session_options options = make_session_options(cl.global, logger);
  // An expiry takes our member node: the barrier is not carried over to a new session.
  options.renew_after_expiry = false;
  session zk(io.get_executor(), options);
  double_barrier barrier(zk, cl.path, *cl.barrier_members);

  std::optional<cli_error> failure;
  bool done = false;
  auto finish = [&](std::optional<cli_error> why) {
    if (done) return;
    done = true;
    failure = std::move(why);
  };
  auto run_until_done = [&] {
    while (!done && io.run_one()) {
    }
  };

  // Enter. A signal before the barrier opens ends zkcoord; closing the session deletes our node.
  {
    asio::signal_set signals(io, SIGINT, SIGTERM, SIGHUP);
    signals.async_wait([&](error_code ec, int sig) {
      if (ec) return;
      finish(cli_error(signal_exit_status(sig), std::string("interrupted by ") +
                                                    ::sigabbrev_np(sig) + " before " + noun +
                                                    " was entered"));
    });
    auto on_entered = [&](error_code ec) {
      if (ec) return finish(error_for(ec, "cannot enter " + noun));
      logger->info("entered {} ({} members)", cl.path, *cl.barrier_members);
      finish(std::nullopt);
    };
    zk.async_connect([&](error_code ec) {
      if (ec) return finish(error_for(ec, "cannot connect to " + cl.global.connect));
      // Through a missing chroot every path is missing: say so before creating anything.
      zk.async_exists("/", [&](error_code e, std::optional<node_stat> root) {
        if (auto problem = chroot_error(e, root, cl.global.connect)) return finish(*problem);
        if (cl.timeout)
          barrier.async_enter(*cl.timeout, on_entered);
        else
          barrier.async_enter(on_entered);
      });
    });
    run_until_done();
    signals.cancel();
  }
  if (failure) {
    zk.close();
    io.run_for(std::chrono::seconds(2));
    throw *failure;
  }

  // COMMAND runs on a thread of its own while this one runs the io_context: the session must
  // keep being driven meanwhile. Built on libzookeeper_st (docs/session.md, "Threading model")
  // the io_context is what sends the session's pings, so waiting for COMMAND here would let the
  // session expire, and our member node go, under any COMMAND that outlasts the session timeout.
  const std::string node = cl.path + (cl.path == "/" ? "" : "/") + barrier.node_name();
  int status = 0;
  std::exception_ptr command_failed;
  {
    auto work = asio::make_work_guard(io);
    bool ran = false;
    io.restart();
    std::thread waiter([&] {
      try {
        status = run_command(executable, cl.child_argv, node);
      } catch (...) {
        command_failed = std::current_exception();
      }
      asio::post(io, [&] {
        ran = true;
        work.reset();
      });
    });
    while (!ran && io.run_one()) {
    }
    waiter.join();
  }
  if (command_failed) std::rethrow_exception(command_failed);

  // Leave, bounded by --timeout when given.
  io.restart();
  done = false;
  auto on_left = [&](error_code ec) {
    if (ec)
      return finish(error_for(ec, "COMMAND exited with " + std::to_string(status) +
                                      ", but leaving " + noun + " failed"));
    finish(std::nullopt);
  };
  if (cl.timeout)
    barrier.async_leave(*cl.timeout, on_left);
  else
    barrier.async_leave(on_left);
  run_until_done();
  zk.close();
  io.run_for(std::chrono::seconds(2));
  if (failure) throw *failure;
  return status;
}

}  // namespace zkcoord::cli
