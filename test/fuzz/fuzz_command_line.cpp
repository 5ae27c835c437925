// SPDX-License-Identifier: Apache-2.0
// Fuzz target: the CLI's argument parser (cli/command_line).
//
// Input: a flags byte (bit 0: $ZKCOORD_CONNECT is set, to the first piece), then the
// '\0'-separated arguments. Properties: the parser fails only with a one-line usage error;
// what it accepts is usable as is (valid connect string and path, a command to run, positive
// session timeout), so nothing fails later on an argument it let through; and a command line
// rendered back from the result parses to the same result.
#include "fuzz_check.hpp"
#include "fuzz_input.hpp"
#include "fuzz_targets.hpp"

#include "command_line.hpp"
#include "exit_code.hpp"

#include <zkcoord/path.hpp>

#include <algorithm>

namespace zkcoord::fuzz {
namespace {

using cli::command_kind;
using cli::command_line;

std::string describe(const std::vector<std::string>& args) {
  std::string out = "[";
  for (const auto& a : args) out += printable(a) + " ";
  return out + "]";
}

bool same(const command_line& a, const command_line& b) {
  return a.command == b.command && a.help == b.help && a.global.connect == b.global.connect &&
         a.global.session_timeout == b.global.session_timeout &&
         a.global.connect_timeout == b.global.connect_timeout &&
         a.global.digest == b.global.digest && a.global.auth_file == b.global.auth_file &&
         a.global.acl == b.global.acl && a.describe == b.describe &&
         a.global.verbose == b.global.verbose && a.path == b.path && a.timeout == b.timeout &&
         a.grace == b.grace && a.child_argv == b.child_argv && a.json == b.json &&
         a.until_eof == b.until_eof;
}

const char* acl_name(cli::acl_choice choice) {
  switch (choice) {
    case cli::acl_choice::creator_all:
      return "creator-all";
    case cli::acl_choice::world_read:
      return "world-read";
    case cli::acl_choice::open:
      break;
  }
  return "open";
}

std::string ms(std::chrono::milliseconds d) {
  return std::to_string(d.count()) + "ms";
}

// The arguments that say everything `cl` holds, each option in its "--name=value" form.
std::vector<std::string> render(const command_line& cl) {
  std::vector<std::string> args{cli::command_name(cl.command)};
  const bool zookeeper = cl.command == command_kind::lock || cl.command == command_kind::locks;
  if (zookeeper) {
    args.push_back("--connect=" + cl.global.connect);
    args.push_back("--session-timeout=" + ms(cl.global.session_timeout));
    if (cl.global.connect_timeout)
      args.push_back("--connect-timeout=" + ms(*cl.global.connect_timeout));
    if (cl.global.digest)
      args.push_back("--auth=" + cl.global.digest->first + ":" + cl.global.digest->second);
    if (!cl.global.auth_file.empty()) args.push_back("--auth-file=" + cl.global.auth_file);
  }
  if (cl.global.verbose) args.push_back("-v");
  if (cl.command == command_kind::lock) {
    if (cl.timeout) args.push_back("--timeout=" + ms(*cl.timeout));
    if (cl.global.acl) args.push_back(std::string("--acl=") + acl_name(*cl.global.acl));
    if (cl.describe) args.push_back("--describe=" + *cl.describe);
    args.push_back("--grace=" + ms(cl.grace));
  }
  if (cl.json) args.push_back("--json");
  if (cl.until_eof) args.push_back("--until-eof");
  if (zookeeper) args.push_back(cl.path);
  if (cl.command == command_kind::lock) {
    args.push_back("--");
    args.insert(args.end(), cl.child_argv.begin(), cl.child_argv.end());
  }
  return args;
}

void check_usable(const command_line& cl, const std::vector<std::string>& args) {
  const std::string subject = " for " + describe(args);
  ZKCOORD_FUZZ_CHECK(cl.command != command_kind::help, "command 'help' left unresolved" + subject);
  ZKCOORD_FUZZ_CHECK(cl.command != command_kind::none || cl.help,
                     "no command and no help" + subject);
  ZKCOORD_FUZZ_CHECK(connect_string_problem(cl.global.connect).empty(),
                     "accepted connect string " + printable(cl.global.connect) + subject);
  ZKCOORD_FUZZ_CHECK(cl.global.session_timeout.count() > 0, "session timeout <= 0" + subject);
  for (auto d : {cl.global.connect_timeout, cl.timeout, std::optional(cl.grace)}) {
    ZKCOORD_FUZZ_CHECK(!d || (d->count() >= 0 && d->count() <= (std::int64_t{1} << 50)),
                       "duration out of range" + subject);
  }
  ZKCOORD_FUZZ_CHECK(!cl.global.digest || !cl.global.digest->first.empty(),
                     "empty --auth user" + subject);
  ZKCOORD_FUZZ_CHECK(!cl.describe || cl.describe->size() <= cli::max_describe_size,
                     "--describe longer than its bound" + subject);
  if (cl.help) return;  // only help is printed: operands are not needed
  if (cl.command == command_kind::lock || cl.command == command_kind::locks) {
    ZKCOORD_FUZZ_CHECK(path_problem(cl.path).empty(),
                       "accepted path " + printable(cl.path) + subject);
  }
  if (cl.command == command_kind::lock) {
    ZKCOORD_FUZZ_CHECK(!cl.child_argv.empty(), "lock without a command" + subject);
    ZKCOORD_FUZZ_CHECK(cl.child_argv.size() < args.size() &&
                           std::equal(cl.child_argv.rbegin(), cl.child_argv.rend(), args.rbegin()),
                       "the command is not the arguments' tail" + subject);
  } else {
    ZKCOORD_FUZZ_CHECK(cl.child_argv.empty(), "a command outside 'lock'" + subject);
  }
  if (cl.command == command_kind::server) {
    ZKCOORD_FUZZ_CHECK(cl.path.empty(), "'server' with a path" + subject);
  }
}

// Parses, turning anything but a usage error into a property violation.
std::optional<command_line> parse(const std::vector<std::string>& args, const char* env) {
  try {
    return cli::parse_command_line(args, env);
  } catch (const cli::cli_error& e) {
    const std::string message = e.what();
    ZKCOORD_FUZZ_CHECK(e.status() == cli::exit_code::usage,
                       "status " + std::to_string(e.status()) + " for " + describe(args));
    ZKCOORD_FUZZ_CHECK(!message.empty(), "empty usage message for " + describe(args));
    return std::nullopt;
  } catch (const property_violation&) {
    throw;
  } catch (const std::exception& e) {
    violated(__FILE__, __LINE__,
             std::string("parse_command_line threw ") + e.what() + " for " + describe(args));
  }
}

}  // namespace

void fuzz_command_line(const std::uint8_t* data, std::size_t size) {
  fuzz_input input(data, size);
  const auto flags = input.take_integer<std::uint8_t>();
  std::optional<std::string> env;
  if (flags & 1) env = input.take_until('\0');
  const std::vector<std::string> args = input.split_rest('\0');
  const auto cl = parse(args, env ? env->c_str() : nullptr);
  if (!cl) return;
  check_usable(*cl, args);
  if (cl->help) return;
  const std::vector<std::string> rendered = render(*cl);
  const auto again = parse(rendered, nullptr);
  ZKCOORD_FUZZ_CHECK(again && same(*again, *cl),
                     describe(args) + " and its rendering " + describe(rendered) + " differ");
}

}  // namespace zkcoord::fuzz
