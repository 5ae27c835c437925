// SPDX-License-Identifier: Apache-2.0
// The zkcoord command-line tool: parse, dispatch, turn every failure into one line on stderr
// and a documented exit status (exit_code.hpp).
#include "barrier_command.hpp"
#include "command_line.hpp"
#include "counter_command.hpp"
#include "credentials.hpp"
#include "exit_code.hpp"
#include "help.hpp"
#include "leader_command.hpp"
#include "lock_command.hpp"
#include "locks_command.hpp"
#include "members_command.hpp"
#include "register_command.hpp"
#include "server_command.hpp"
#include "try_it/try_it_command.hpp"
#include "watch_command.hpp"
#include "zookeeper_session.hpp"

#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <vector>

namespace {

using namespace zkcoord::cli;

int print_help(command_kind kind) {
  std::cout << help_text(kind);
  if (kind != command_kind::server && kind != command_kind::help && kind != command_kind::try_it)
    std::cout << global_options_help();
  return exit_code::ok;
}

int run(const command_line& cl) {
  if (cl.version && !cl.help) {
    std::cout << "zkcoord " << ZKCOORD_VERSION << "\n";
    return exit_code::ok;
  }
  if (cl.help) return print_help(cl.command);
  switch (cl.command) {
    case command_kind::lock:
    case command_kind::elect:
    case command_kind::semaphore:
      return run_lock_command(cl);
    case command_kind::leader:
      return run_leader_command(cl);
    case command_kind::locks:
      return run_locks_command(cl);
    case command_kind::register_member:
      return run_register_command(cl);
    case command_kind::members:
      return run_members_command(cl);
    case command_kind::server:
      return run_server_command(cl);
    case command_kind::try_it:
      return run_try_it_command(cl);
    case command_kind::counter:
      return run_counter_command(cl);
    case command_kind::barrier:
      return run_barrier_command(cl);
    case command_kind::watch:
      return run_watch_command(cl);
    default:
      return print_help(command_kind::none);
  }
}

}  // namespace

int main(int argc, char** argv) {
  // A worker of a try-it run: started by the run itself, never by a person.
  if (argc > 1 && std::string(argv[1]) == "try-it-worker")
    return run_try_it_worker(argc - 1, argv + 1);
  try {
    std::vector<std::string> args(argv + 1, argv + argc);
    command_line cl = parse_command_line(args, std::getenv("ZKCOORD_CONNECT"));
    for (const auto& warning : resolve_credentials(cl, std::getenv("ZKCOORD_AUTH")))
      report("warning: " + warning);
    return run(cl);
  } catch (const cli_error& e) {
    report(e.what());
    return e.status();
  } catch (const std::exception& e) {
    report(std::string("internal error: ") + e.what());
    return exit_code::internal;
  }
}
