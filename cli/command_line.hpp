// What the user asked for: the command, its operands and options, parsed and validated before
// anything touches the network (a bad argument never costs a connection attempt).
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace zkcoord::cli {

enum class command_kind { none, help, lock, locks, server };

/// Options every ZooKeeper-facing command takes.
struct global_options {
  /// --connect, else $ZKCOORD_CONNECT, else zkCli's default.
  std::string connect = "127.0.0.1:2181";
  std::chrono::milliseconds session_timeout{10000};
  /// How long to wait for the first connection; default: the session timeout.
  std::optional<std::chrono::milliseconds> connect_timeout;
  /// --auth user:password (digest).
  std::optional<std::pair<std::string, std::string>> digest;
  bool verbose = false;
};

struct command_line {
  command_kind command = command_kind::none;
  /// --help given (or `help CMD`): print the command's help instead of running it.
  bool help = false;
  global_options global;
  /// lock: the lock path; locks: where to look ("/" when omitted).
  std::string path;
  /// lock: give up after this long; 0 means try once.
  std::optional<std::chrono::milliseconds> timeout;
  /// lock: SIGTERM -> SIGKILL delay when the lock is lost.
  std::chrono::milliseconds grace{5000};
  /// lock: the command and its arguments.
  std::vector<std::string> child_argv;
  /// locks: machine-readable output.
  bool json = false;
  /// server: also stop when stdin reaches end of file.
  bool until_eof = false;
};

/// Parses argv[1..]. `env_connect` is $ZKCOORD_CONNECT (nullptr when unset). Throws
/// cli_error(usage) with a one-line message on any malformed argument.
command_line parse_command_line(const std::vector<std::string>& args, const char* env_connect);

const char* command_name(command_kind kind);

}  // namespace zkcoord::cli
