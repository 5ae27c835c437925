#include "help.hpp"

namespace zkcoord::cli {
namespace {

constexpr std::string_view global_help = R"(
ZooKeeper options (lock, locks):
  --connect HOSTS          host:port[,host:port...][/chroot]; default $ZKCOORD_CONNECT,
                           else 127.0.0.1:2181
  --session-timeout D      requested session timeout (default 10s)
  --connect-timeout D      give up connecting after D (default: the session timeout)
  --auth-file FILE         digest credentials from FILE, one line digest:USER:PASSWORD;
                           refused unless only its owner can read and write it (chmod 600)
  --auth USER:PASSWORD     digest credentials on the command line: visible to every local
                           user in ps, so zkcoord warns; prefer the two others
Credentials: --auth-file or --auth (not both), else $ZKCOORD_AUTH (digest:USER:PASSWORD).
ZooKeeper accepts any digest password when connecting: a wrong one is another identity,
refused (77) by the first ACL that names the right one. No TLS or SASL: Debian's ZooKeeper
C client is built without them.
  -v, --verbose            debug logging on stderr
  -h, --help               this help
Durations: an integer and a unit: 500ms, 5s, 2m, 1h; --session-timeout, --connect-timeout
and --timeout at most 24h, --grace at most 1h.
)";

constexpr std::string_view overview = R"(usage: zkcoord [options] COMMAND [ARGS...]

Commands:
  lock PATH [--timeout D] [--grace D] [--] COMMAND [ARGS...]
                           run COMMAND while holding the lock at PATH
  locks [PATH] [--json]    show holders and waiters of the locks at and under PATH
  server [--until-eof]     run a throwaway local ZooKeeper; prints its connect string
  help [COMMAND]           help of a command

Exit status: 64 usage error, 68 a host name of --connect does not resolve, 69 ZooKeeper
unreachable or session lost, 70 internal error, 71 could not fork / start the local server,
or it died, 75 lock timeout, 76 lock lost while the command ran, 77 permission denied by
ZooKeeper, 78 the chroot of --connect does not exist; `lock` otherwise exits with the
command's status (126 cannot execute, 127 not found, 128+N killed by signal N).
)";

constexpr std::string_view lock_help = R"(usage: zkcoord lock PATH [options] [--] COMMAND [ARGS...]

Acquires the lock at PATH (the Apache Curator InterProcessMutex layout, so Curator and kazoo
clients contend on the same path), runs COMMAND with stdin/stdout/stderr inherited and
  ZKCOORD_FENCING_TOKEN  the lock's fencing token (decimal czxid of the lock node)
  ZKCOORD_LOCK_NODE      the full path of the lock node
in its environment, releases the lock when COMMAND exits and exits with COMMAND's status.
COMMAND runs in its own process group under a guard process (zkcoord-guard), so that nothing
of it (COMMAND and all its descendants, setsid included) runs once the lock is gone:
  - zkcoord killed: the guard kills the whole job at once;
  - zkcoord frozen (SIGSTOP, starved): the guard kills it (SIGKILL) at the session's lease
    deadline, before the server can expire the session and grant the lock to someone else;
  - lock lost while the lease runs (lock node deleted): SIGTERM, SIGKILL after the grace
    period, exit 76;
  - COMMAND exits leaving processes behind: SIGTERM, SIGKILL after the grace, then release.
SIGINT, SIGTERM and SIGHUP sent to zkcoord are forwarded to the group. Out of reach: a
frozen machine (the guard freezes too), work handed outside the process tree, a write already
sent. So pass ZKCOORD_FENCING_TOKEN to your storage and have it reject lower tokens.

Options:
  --timeout D              give up (exit 75) if not granted within D; 0s: try once
  --grace D                SIGTERM -> SIGKILL delay after the lock is lost, or for what
                           COMMAND leaves running when it exits (default 5s)
  --acl open|creator-all|world-read
                           ACL of the lock node and of the parents zkcoord creates:
                           world-read (the default with credentials): anyone may list and
                           read, only this principal may create, delete or write; creator-all:
                           only this principal, also to read; open (the default without
                           credentials): anyone may do anything, also delete the node
  --describe TEXT          recorded in the lock node instead of COMMAND's name

The lock node's data, readable by every client the ACL lets read: host name, pid, session
id, start time of zkcoord's process, and COMMAND's name (argv[0] without its directory; never
its arguments) or the --describe TEXT.

PATH: at most 1024 bytes and 32 levels, not in /zookeeper (the server's own tree).

Exit status: COMMAND's (128+N if killed by signal N), or 64 usage, 68 unknown host,
69 unreachable or session lost while waiting, 75 timeout, 76 lock lost while COMMAND ran,
77 permission denied, 78 the chroot does not exist, 126 cannot execute, 127 not found,
128+N interrupted by signal N while waiting.
)";

constexpr std::string_view locks_help = R"(usage: zkcoord locks [PATH] [options]

Lists the contenders of the lock at PATH and of every lock below it (default PATH: /), the
holder first: fencing token, session id, holder data (host, pid, app id; Curator and kazoo
contenders show their raw node data) and age. Subtrees below PATH are walked once; lock nodes
themselves are not descended into, and /zookeeper is skipped.

Options:
  --json                   one JSON object: {"locks":[{"path":..,"contenders":[..]}]}

Exit status: 0 (also when there are no locks), 64 usage, 68 unknown host, 69 unreachable,
77 permission denied, 78 the chroot of --connect does not exist.
)";

constexpr std::string_view server_help = R"(usage: zkcoord server [--until-eof]

Starts a throwaway standalone ZooKeeper (the Debian `zookeeper` package's jars, a free port on
127.0.0.1, a temp data dir, tickTime 200ms) and prints its connect string as the first line of
stdout. Runs until SIGINT, SIGTERM or SIGHUP, then stops the server and removes its directory.
The server also dies if zkcoord is killed; if the server dies (killed, out of memory),
zkcoord says so on stderr and exits 71 at once.

Options:
  --until-eof              also stop when stdin reaches end of file (for a parent process
                           holding a pipe)
  -v, --verbose            debug logging on stderr

Exit status: 0 after a clean stop, 64 usage, 71 the server could not start or died.
)";

}  // namespace

std::string_view help_text(command_kind kind) {
  switch (kind) {
    case command_kind::lock:
      return lock_help;
    case command_kind::locks:
      return locks_help;
    case command_kind::server:
      return server_help;
    case command_kind::help:
    case command_kind::none:
      break;
  }
  return overview;
}

std::string_view global_options_help() {
  return global_help;
}

}  // namespace zkcoord::cli
