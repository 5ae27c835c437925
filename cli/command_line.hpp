// SPDX-License-Identifier: Apache-2.0
// What the user asked for: the command, its operands and options, parsed and validated before
// anything touches the network (a bad argument never costs a connection attempt).
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

namespace zkcoord::cli {

enum class command_kind {
  none,
  help,
  lock,
  locks,
  server,
  elect,
  leader,
  register_member,
  members,
  semaphore,
  try_it,
  counter,
  barrier,
  watch
};

/// lock: which lock of PATH (--read, --write; neither: the exclusive lock).
enum class lock_side { exclusive, read, write };

/// --acl: who may touch the nodes `lock` creates (its lock node and missing parents).
enum class acl_choice {
  open,         ///< world:anyone ALL (ZooKeeper's OPEN_ACL_UNSAFE)
  creator_all,  ///< the authenticated creator only (CREATOR_ALL_ACL)
  world_read,   ///< world:anyone READ, and ALL for the authenticated creator
};

/// Options every ZooKeeper-facing command takes.
struct global_options {
  /// --connect, else $ZKCOORD_CONNECT, else zkCli's default.
  std::string connect = "127.0.0.1:2181";
  std::chrono::milliseconds session_timeout{10000};
  /// How long to wait for the first connection; default: the session timeout.
  std::optional<std::chrono::milliseconds> connect_timeout;
  /// Digest credentials (user, password): --auth user:password on the command line; after
  /// parsing, resolve_credentials (credentials.hpp) fills it from --auth-file or $ZKCOORD_AUTH.
  std::optional<std::pair<std::string, std::string>> digest;
  /// --auth-file FILE: read by resolve_credentials, not by the parser.
  std::string auth_file;
  /// --acl; when not given, resolve_credentials picks the default (world_read with
  /// credentials, open without).
  std::optional<acl_choice> acl;
  bool verbose = false;
};

inline constexpr std::size_t max_describe_size = 1024;

/// try-it: the page's server, or with --html one run written as a page.
struct try_it_options {
  std::uint16_t port = 0;  ///< --port; 0: a free port
  /// --connect or $ZKCOORD_CONNECT was given; otherwise a throwaway local ZooKeeper.
  bool connect_given = false;
  std::string html_file;  ///< --html FILE: run once, write the page of that run, exit
  /// --lease S, --pause S, --mode lock|fenced|conditional, --scale MS (with --html)
  std::optional<int> lease_s, pause_s, scale_ms;
  std::optional<std::string> mode;
};

/// counter: what to do with the counter at PATH (`get`, `add N`, `set N`, `cas OLD NEW`).
struct counter_request {
  enum class action { get, add, set, cas } what = action::get;
  std::int64_t first = 0;   ///< add: N; set: N; cas: OLD
  std::int64_t second = 0;  ///< cas: NEW
  int bytes = 8;            ///< --bytes 4|8: DistributedAtomicInteger or DistributedAtomicLong
};

struct command_line {
  command_kind command = command_kind::none;
  /// --help given (or `help CMD`): print the command's help instead of running it.
  bool help = false;
  /// --version given (without a command): print the version instead.
  bool version = false;
  global_options global;
  /// lock, elect, leader, register, members: the recipe's path (register, members: the
  /// group's); locks: where to look ("/" when omitted).
  std::string path;
  /// lock: --read / --write (Curator's InterProcessReadWriteLock layout on PATH).
  lock_side side = lock_side::exclusive;
  /// elect: --id, the participant id written into our election node (Curator LeaderLatch's id).
  std::optional<std::string> participant_id;
  /// semaphore: --leases N, how many holders the semaphore at PATH admits at once (every
  /// participant of the path must use the same N: nothing on the server records it).
  std::optional<std::uint32_t> max_leases;
  /// lock, elect, semaphore: --hold, no COMMAND: print the grant, hold it until stdin closes
  /// or a signal comes.
  bool hold = false;
  /// locks, leader, members: --watch, print each change until interrupted.
  bool watch = false;
  /// lock, elect: give up after this long; 0 means try once (lock only).
  std::optional<std::chrono::milliseconds> timeout;
  /// lock, elect, register: SIGTERM -> SIGKILL delay when the lock (leadership, registration)
  /// is lost.
  std::chrono::milliseconds grace{5000};
  /// lock, elect, register: the command and its arguments.
  std::vector<std::string> child_argv;
  /// lock: --describe TEXT (at most max_describe_size bytes), recorded in the lock node
  /// instead of the command's name.
  std::optional<std::string> describe;
  /// locks, leader, members: machine-readable output.
  bool json = false;
  /// server: also stop when stdin reaches end of file.
  bool until_eof = false;
  /// register: the member id (checked with zkcoord::member_id_problem).
  std::string member_id;
  /// register: --data TEXT, the member node's data (at most max_member_data_size bytes).
  std::optional<std::string> member_data;
  /// register: --service-json FILE-or-JSON as given; read and checked after parsing
  /// (registration_data.hpp), so that the parser does no I/O.
  std::optional<std::string> service_json;
  try_it_options try_it;
  counter_request counter;
  /// barrier: --members N, how many members enter the double barrier at PATH together.
  std::optional<std::uint32_t> barrier_members;
  /// watch: --depth N, how many levels below PATH are followed (none: all).
  std::optional<std::size_t> depth;
};

/// Parses argv[1..]. `env_connect` is $ZKCOORD_CONNECT (nullptr when unset). Throws
/// cli_error(usage) with a one-line message on any malformed argument.
command_line parse_command_line(const std::vector<std::string>& args, const char* env_connect);

const char* command_name(command_kind kind);

}  // namespace zkcoord::cli
