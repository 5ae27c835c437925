// SPDX-License-Identifier: Apache-2.0
#include "command_line.hpp"
#include "counter_command.hpp"

#include "argument_limits.hpp"
#include "duration.hpp"
#include "exit_code.hpp"

#include <zkcoord/membership.hpp>
#include <zkcoord/path.hpp>

#include <algorithm>
#include <array>
#include <string_view>

namespace zkcoord::cli {
namespace {

// Which commands accept an option (bit per command_kind).
constexpr unsigned bit(command_kind k) {
  return 1u << static_cast<unsigned>(k);
}
constexpr unsigned zk_commands = bit(command_kind::lock) | bit(command_kind::locks) |
                                 bit(command_kind::elect) | bit(command_kind::leader) |
                                 bit(command_kind::register_member) | bit(command_kind::members) |
                                 bit(command_kind::semaphore) | bit(command_kind::counter) |
                                 bit(command_kind::barrier) | bit(command_kind::watch);
// The commands that take --connect (and $ZKCOORD_CONNECT).
constexpr unsigned connecting_commands = zk_commands | bit(command_kind::try_it);
constexpr unsigned try_it = bit(command_kind::try_it);
// The commands that run a job while they own something.
constexpr unsigned job_commands =
    bit(command_kind::lock) | bit(command_kind::elect) | bit(command_kind::semaphore);
// The commands that run COMMAND: the job commands, and `register` (which owns nothing others
// contend for, but keeps its registration while COMMAND runs).
constexpr unsigned command_runners = job_commands | bit(command_kind::register_member);
// The commands whose operands are followed by COMMAND [ARGS...].
constexpr unsigned argv_commands = command_runners | bit(command_kind::barrier);
constexpr unsigned all_commands = ~0u;

struct option_spec {
  std::string_view long_name;
  char short_name;
  bool takes_value;
  unsigned commands;
};

constexpr std::array<option_spec, 31> option_specs{{
    {"--connect", 0, true, connecting_commands},
    {"--session-timeout", 0, true, zk_commands},
    {"--connect-timeout", 0, true, zk_commands},
    {"--auth", 0, true, zk_commands},
    {"--auth-file", 0, true, zk_commands},
    {"--acl", 0, true, command_runners},
    {"--describe", 0, true, bit(command_kind::lock) | bit(command_kind::semaphore)},
    {"--verbose", 'v', false, all_commands},
    {"--help", 'h', false, all_commands},
    {"--version", 0, false, bit(command_kind::none)},
    {"--timeout", 0, true, job_commands | bit(command_kind::barrier)},
    {"--grace", 0, true, command_runners},
    {"--read", 0, false, bit(command_kind::lock)},
    {"--write", 0, false, bit(command_kind::lock)},
    {"--id", 0, true, bit(command_kind::elect)},
    {"--leases", 0, true, bit(command_kind::semaphore)},
    {"--hold", 0, false, job_commands},
    {"--watch", 0, false,
     bit(command_kind::locks) | bit(command_kind::leader) | bit(command_kind::members)},
    {"--json", 0, false,
     bit(command_kind::locks) | bit(command_kind::leader) | bit(command_kind::members) |
         bit(command_kind::watch)},
    {"--data", 0, true, bit(command_kind::register_member)},
    {"--service-json", 0, true, bit(command_kind::register_member)},
    {"--until-eof", 0, false, bit(command_kind::server)},
    {"--port", 0, true, try_it},
    {"--html", 0, true, try_it},
    {"--lease", 0, true, try_it},
    {"--pause", 0, true, try_it},
    {"--mode", 0, true, try_it},
    {"--scale", 0, true, try_it},
    {"--bytes", 0, true, bit(command_kind::counter)},
    {"--members", 0, true, bit(command_kind::barrier)},
    {"--depth", 0, true, bit(command_kind::watch)},
}};

const option_spec* find_option(std::string_view name) {
  for (const auto& spec : option_specs) {
    if (spec.long_name == name) return &spec;
    if (spec.short_name && name.size() == 2 && name[0] == '-' && name[1] == spec.short_name)
      return &spec;
  }
  return nullptr;
}

// "-vh": one dash, then more than one letter.
bool is_short_flag_group(std::string_view arg) {
  return arg.size() > 2 && arg[0] == '-' && arg[1] != '-' && arg.find('=') == std::string::npos;
}

command_kind command_of(std::string_view word) {
  if (word == "lock") return command_kind::lock;
  if (word == "locks") return command_kind::locks;
  if (word == "server") return command_kind::server;
  if (word == "elect") return command_kind::elect;
  if (word == "leader") return command_kind::leader;
  if (word == "register") return command_kind::register_member;
  if (word == "members") return command_kind::members;
  if (word == "semaphore") return command_kind::semaphore;
  if (word == "try-it") return command_kind::try_it;
  if (word == "counter") return command_kind::counter;
  if (word == "barrier") return command_kind::barrier;
  if (word == "watch") return command_kind::watch;
  if (word == "help") return command_kind::help;
  throw usage_error("unknown command '" + std::string(word) +
                    "' (commands: lock, locks, elect, leader, semaphore, register, members, "
                    "counter, barrier, watch, server, try-it)");
}

// --port, --lease, --pause, --scale: a whole number in [low, high] (the lesson's own ranges
// are checked again, with their reasons, when the run is set up).
int parse_whole(std::string_view name, const std::string& value, int low, int high) {
  const bool digits =
      !value.empty() && value.size() <= 6 &&
      std::all_of(value.begin(), value.end(), [](char c) { return c >= '0' && c <= '9'; });
  const int n = digits ? std::stoi(value) : -1;
  if (n < low || n > high)
    throw usage_error("invalid " + std::string(name) + " '" + value +
                      "' (expected a whole number from " + std::to_string(low) + " to " +
                      std::to_string(high) + ")");
  return n;
}

std::pair<std::string, std::string> parse_auth(const std::string& value) {
  auto colon = value.find(':');
  if (colon == std::string::npos || colon == 0)
    throw usage_error("invalid --auth (expected user:password)");
  return {value.substr(0, colon), value.substr(colon + 1)};
}

acl_choice parse_acl(const std::string& value) {
  if (value == "open") return acl_choice::open;
  if (value == "creator-all") return acl_choice::creator_all;
  if (value == "world-read") return acl_choice::world_read;
  throw usage_error("invalid --acl '" + value + "' (expected open, creator-all or world-read)");
}

// How many operands come before COMMAND: PATH, and for `register` the member id.
std::size_t operands_before_command(const command_line& cl) {
  return cl.command == command_kind::register_member ? 2 : 1;
}

struct option_use {
  const option_spec* spec;
  std::string value;
};

// Applies one option; options may precede the command word, so their fit to the command is
// checked afterwards by check_applicable.
void apply(command_line& cl, const option_use& use) {
  auto name = use.spec->long_name;
  if (name == "--connect") {
    if (auto problem = connect_string_problem(use.value); !problem.empty())
      throw usage_error("invalid --connect '" + use.value + "': " + problem);
    cl.global.connect = use.value;
    cl.try_it.connect_given = true;
  } else if (name == "--bytes") {
    cl.counter.bytes = parse_counter_bytes(use.value);
  } else if (name == "--session-timeout") {
    cl.global.session_timeout = parse_duration_option(name, use.value);
    if (cl.global.session_timeout.count() == 0)
      throw usage_error("--session-timeout must be greater than 0");
    check_at_most(name, cl.global.session_timeout, max_session_timeout);
  } else if (name == "--connect-timeout") {
    cl.global.connect_timeout = parse_duration_option(name, use.value);
    if (cl.global.connect_timeout->count() == 0)
      throw usage_error("--connect-timeout must be greater than 0");
    check_at_most(name, *cl.global.connect_timeout, max_wait);
  } else if (name == "--auth") {
    cl.global.digest = parse_auth(use.value);
  } else if (name == "--auth-file") {
    if (use.value.empty()) throw usage_error("--auth-file needs a file name");
    cl.global.auth_file = use.value;  // read after parsing (credentials.cpp): no I/O here
  } else if (name == "--acl") {
    cl.global.acl = parse_acl(use.value);
  } else if (name == "--describe") {
    // Bounded: it goes into the lock node, whose data ZooKeeper limits to about 1 MB.
    if (use.value.size() > max_describe_size)
      throw usage_error("--describe is longer than " + std::to_string(max_describe_size) +
                        " bytes");
    cl.describe = use.value;
  } else if (name == "--verbose") {
    cl.global.verbose = true;
  } else if (name == "--help") {
    cl.help = true;
  } else if (name == "--version") {
    cl.version = true;
  } else if (name == "--timeout") {
    cl.timeout = parse_duration_option(name, use.value);
    check_at_most(name, *cl.timeout, max_wait);
  } else if (name == "--grace") {
    cl.grace = parse_duration_option(name, use.value);
    check_at_most(name, cl.grace, max_grace);
  } else if (name == "--read" || name == "--write") {
    const lock_side side = name == "--read" ? lock_side::read : lock_side::write;
    if (cl.side != lock_side::exclusive && cl.side != side)
      throw usage_error("--read and --write exclude each other");
    cl.side = side;
  } else if (name == "--id") {
    if (auto problem = participant_id_problem(use.value); !problem.empty())
      throw usage_error("invalid --id: " + problem);
    cl.participant_id = use.value;
  } else if (name == "--leases") {
    cl.max_leases = static_cast<std::uint32_t>(
        parse_whole(name, use.value, 1, static_cast<int>(max_semaphore_leases)));
  } else if (name == "--hold") {
    cl.hold = true;
  } else if (name == "--watch") {
    cl.watch = true;
  } else if (name == "--json") {
    cl.json = true;
  } else if (name == "--until-eof") {
    cl.until_eof = true;
  } else if (name == "--port") {
    cl.try_it.port = static_cast<std::uint16_t>(parse_whole(name, use.value, 0, 65535));
  } else if (name == "--html") {
    if (use.value.empty()) throw usage_error("--html needs a file name");
    cl.try_it.html_file = use.value;
  } else if (name == "--lease") {
    cl.try_it.lease_s = parse_whole(name, use.value, 1, 3600);
  } else if (name == "--pause") {
    cl.try_it.pause_s = parse_whole(name, use.value, 0, 3600);
  } else if (name == "--scale") {
    cl.try_it.scale_ms = parse_whole(name, use.value, 1, 100000);
  } else if (name == "--mode") {
    if (use.value != "lock" && use.value != "fenced" && use.value != "conditional")
      throw usage_error("invalid --mode '" + use.value +
                        "' (expected lock, fenced or conditional)");
    cl.try_it.mode = use.value;
  } else if (name == "--depth") {
    cl.depth = static_cast<std::size_t>(parse_whole(name, use.value, 0, 100000));
  } else if (name == "--members") {
    cl.barrier_members = static_cast<std::uint32_t>(parse_whole(name, use.value, 1, 100000));
  } else if (name == "--data" || name == "--service-json") {
    if (cl.member_data || cl.service_json)
      throw usage_error("--data and --service-json exclude each other (one node, one data)");
    if (name == "--service-json") {
      if (use.value.empty()) throw usage_error("--service-json needs a file name or JSON");
      cl.service_json = use.value;  // read after parsing (registration_data.cpp): no I/O here
    } else {
      if (use.value.size() > max_member_data_size)
        throw usage_error("--data is longer than " + std::to_string(max_member_data_size) +
                          " bytes");
      cl.member_data = use.value;
    }
  }
}

void check_applicable(const command_line& cl, const std::vector<option_use>& uses) {
  if (cl.command == command_kind::help || cl.command == command_kind::none) return;
  for (const auto& use : uses) {
    if (!(use.spec->commands & bit(cl.command)))
      throw usage_error(std::string(use.spec->long_name) + " does not apply to '" +
                        command_name(cl.command) + "'");
  }
}

// lock, elect, semaphore: either COMMAND runs while the grant lasts, or --hold keeps the
// grant until stdin closes; the options of the one make no sense with the other.
void check_job_or_hold(const command_line& cl, bool saw_double_dash, bool grace_given) {
  const std::string name = command_name(cl.command);
  if (cl.hold) {
    if (!cl.child_argv.empty() || saw_double_dash)
      throw usage_error(name + ": --hold takes no COMMAND (it holds until stdin closes or a " +
                        "signal comes; without --hold, COMMAND runs while the grant lasts)");
    if (grace_given)
      throw usage_error(name + ": --grace goes with COMMAND, not with --hold (nothing runs to " +
                        "be terminated)");
    return;
  }
  if (cl.child_argv.empty())
    throw usage_error(saw_double_dash ? name + ": missing command after --"
                                      : name + ": missing COMMAND after PATH (or --hold)");
}

void check_operands(command_line& cl, const std::vector<std::string>& operands,
                    bool saw_double_dash, bool grace_given) {
  if (cl.help && cl.command != command_kind::help) return;
  auto extra = [&](std::size_t allowed) {
    if (operands.size() > allowed)
      throw usage_error("unexpected argument '" + operands[allowed] + "'");
  };
  const std::string name = command_name(cl.command);
  switch (cl.command) {
    case command_kind::lock:
    case command_kind::elect:
    case command_kind::semaphore:
      if (operands.empty()) throw usage_error(name + ": missing PATH");
      cl.path = operands[0];
      extra(1);
      check_job_or_hold(cl, saw_double_dash, grace_given);
      if (cl.command == command_kind::elect && !cl.participant_id)
        throw usage_error("elect: missing --id ID (the participant id others see as leader)");
      if (cl.command == command_kind::semaphore && !cl.max_leases)
        throw usage_error("semaphore: missing --leases N (how many may hold it at once)");
      if (cl.command == command_kind::elect && cl.timeout && cl.timeout->count() == 0)
        throw usage_error("elect: --timeout must be greater than 0 (an election has no try)");
      break;
    case command_kind::leader:
    case command_kind::members:
    case command_kind::watch:
      if (operands.empty()) throw usage_error(name + ": missing PATH");
      cl.path = operands[0];
      extra(1);
      break;
    case command_kind::register_member:
      if (operands.size() < 2)
        throw usage_error(operands.empty() ? "register: missing PATH" : "register: missing ID");
      cl.path = operands[0];
      cl.member_id = operands[1];
      extra(2);
      if (auto problem = member_id_problem(cl.member_id); !problem.empty())
        throw usage_error("register: invalid ID: " + problem);
      if (cl.child_argv.empty())
        throw usage_error(saw_double_dash ? "register: missing command after --"
                                          : "register: missing COMMAND after ID");
      break;
    case command_kind::counter:
      if (operands.empty()) throw usage_error("counter: missing PATH");
      cl.path = operands[0];
      cl.counter = parse_counter_operands({operands.begin() + 1, operands.end()}, cl.counter.bytes);
      break;
    case command_kind::barrier:
      if (operands.empty()) throw usage_error("barrier: missing PATH");
      cl.path = operands[0];
      extra(1);
      if (!cl.barrier_members)
        throw usage_error("barrier: missing --members N (how many enter the barrier together)");
      if (cl.timeout && cl.timeout->count() == 0)
        throw usage_error("barrier: --timeout must be greater than 0 (a barrier has no try)");
      if (cl.child_argv.empty())
        throw usage_error(saw_double_dash ? "barrier: missing command after --"
                                          : "barrier: missing COMMAND after PATH");
      break;
    case command_kind::locks:
      cl.path = operands.empty() ? "/" : operands[0];
      extra(1);
      break;
    case command_kind::try_it: {
      extra(0);
      const auto& t = cl.try_it;
      const bool run_options = t.lease_s || t.pause_s || t.scale_ms || t.mode;
      if (run_options && t.html_file.empty())
        throw usage_error(
            "try-it: --lease, --pause, --mode and --scale go with --html (on the page, choose "
            "them there)");
      if (!t.html_file.empty() && t.port != 0)
        throw usage_error("try-it: --port and --html exclude each other (--html serves no page)");
      break;
    }
    case command_kind::help:
      // `help CMD` is `CMD --help`.
      extra(1);
      cl.command = operands.empty() ? command_kind::none : command_of(operands[0]);
      if (cl.command == command_kind::help) cl.command = command_kind::none;
      cl.help = true;
      return;
    default:
      extra(0);
  }
  if (bit(cl.command) & zk_commands) {
    // The problem names the path itself.
    if (auto problem = path_problem(cl.path); !problem.empty()) throw usage_error(problem);
  }
  if (bit(cl.command) & command_runners) {
    if (auto problem = lock_path_limit_problem(cl.path, cl.global.connect); !problem.empty())
      throw usage_error(name + ": " + problem);
  }
}

}  // namespace

const char* command_name(command_kind kind) {
  switch (kind) {
    case command_kind::lock:
      return "lock";
    case command_kind::locks:
      return "locks";
    case command_kind::server:
      return "server";
    case command_kind::elect:
      return "elect";
    case command_kind::leader:
      return "leader";
    case command_kind::register_member:
      return "register";
    case command_kind::members:
      return "members";
    case command_kind::semaphore:
      return "semaphore";
    case command_kind::try_it:
      return "try-it";
    case command_kind::counter:
      return "counter";
    case command_kind::barrier:
      return "barrier";
    case command_kind::watch:
      return "watch";
    case command_kind::help:
      return "help";
    case command_kind::none:
      break;
  }
  return "zkcoord";
}

command_line parse_command_line(const std::vector<std::string>& args, const char* env_connect) {
  command_line cl;
  std::vector<option_use> uses;
  std::vector<std::string> operands;
  bool saw_double_dash = false;
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "--" && !saw_double_dash) {
      // Ends our options only once the command word is known: `zkcoord -- lock /p -- cmd`
      // would otherwise run "--" as the command.
      if (cl.command == command_kind::none)
        throw usage_error(
            "'--' before the command word (lock, locks, elect, leader, semaphore, register, "
            "members, server)");
      saw_double_dash = true;
      if (bit(cl.command) & argv_commands) {
        cl.child_argv.assign(args.begin() + static_cast<std::ptrdiff_t>(i) + 1, args.end());
        break;
      }
      continue;
    }
    // `counter /c add -5`: a negative number is an operand, not an option.
    if (cl.command == command_kind::counter && is_negative_number(arg)) {
      operands.push_back(arg);
      continue;
    }
    if (!saw_double_dash && is_short_flag_group(arg)) {
      // `-vh` is `-v -h`: only flags without a value group.
      for (char flag : arg.substr(1)) {
        const option_spec* spec = find_option(std::string{'-', flag});
        if (!spec || spec->takes_value)
          throw usage_error("unknown option '-" + std::string(1, flag) + "' in '" + arg + "'");
        uses.push_back({spec, {}});
      }
      continue;
    }
    if (!saw_double_dash && arg.size() > 1 && arg[0] == '-') {
      auto eq = arg.find('=');
      std::string name = arg.substr(0, eq);
      const option_spec* spec = find_option(name);
      if (!spec) throw usage_error("unknown option '" + name + "'");
      option_use use{spec, {}};
      if (spec->takes_value) {
        if (eq != std::string::npos)
          use.value = arg.substr(eq + 1);
        else if (i + 1 < args.size())
          use.value = args[++i];
        else
          throw usage_error(std::string(spec->long_name) + " needs a value");
      } else if (eq != std::string::npos) {
        throw usage_error(std::string(spec->long_name) + " takes no value");
      }
      uses.push_back(std::move(use));
      continue;
    }
    // `lock PATH [options] COMMAND...` (`register PATH ID ...`): everything from COMMAND's
    // first word on belongs to the command, so its own options (`-c`, `--x`) are never taken
    // for ours.
    if ((bit(cl.command) & argv_commands) && operands.size() >= operands_before_command(cl)) {
      cl.child_argv.assign(args.begin() + static_cast<std::ptrdiff_t>(i), args.end());
      break;
    }
    if (cl.command == command_kind::none)
      cl.command = command_of(arg);
    else
      operands.push_back(arg);
  }
  check_applicable(cl, uses);
  const bool uses_zookeeper = (bit(cl.command) & connecting_commands) != 0;
  if (uses_zookeeper && env_connect && *env_connect) {
    if (auto problem = connect_string_problem(env_connect); !problem.empty())
      throw usage_error(std::string("invalid ZKCOORD_CONNECT '") + env_connect + "': " + problem);
    cl.global.connect = env_connect;
    cl.try_it.connect_given = true;
  }
  for (const auto& use : uses) apply(cl, use);  // --connect overrides the environment
  if (cl.command == command_kind::none) {
    if (!cl.help && !cl.version)
      throw usage_error(
          "missing command (lock, locks, elect, leader, semaphore, register, members, counter, "
          "server, try-it; "
          "see --help)");
    return cl;
  }
  const bool grace_given = std::any_of(
      uses.begin(), uses.end(), [](const option_use& u) { return u.spec->long_name == "--grace"; });
  check_operands(cl, operands, saw_double_dash, grace_given);
  return cl;
}

}  // namespace zkcoord::cli
