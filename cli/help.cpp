// SPDX-License-Identifier: Apache-2.0
#include "help.hpp"

namespace zkcoord::cli {
namespace {

constexpr std::string_view global_help = R"(
ZooKeeper options (lock, locks, elect, leader, semaphore, register, members, counter, barrier,
watch):
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

constexpr std::string_view overview = R"(Usage: zkcoord [options] COMMAND [ARGS...]

Commands:
  lock PATH [--read|--write] [--timeout D] [--grace D] [--] COMMAND [ARGS...]
                           run COMMAND while holding the lock at PATH (or its read or
                           write lock)
  lock PATH --hold [--read|--write] [--timeout D]
                           print the grant ("granted TOKEN NODE") and hold the lock until
                           stdin closes or SIGINT/SIGTERM/SIGHUP comes
  locks [PATH] [--watch] [--json]
                           show holders and waiters of the locks at and under PATH (again
                           at each change with --watch)
  elect PATH --id ID [--timeout D] [--grace D] [--] COMMAND [ARGS...]
                           run COMMAND while leader of the election at PATH
  leader PATH [--watch] [--json]
                           show the leader of the election at PATH (each change with --watch)
  semaphore PATH --leases N [--timeout D] [--grace D] [--] COMMAND [ARGS...]
                           run COMMAND while holding one of the N leases of the semaphore
                           at PATH
  register PATH ID [--data TEXT|--service-json FILE-or-JSON] [--grace D] [--] COMMAND [ARGS...]
                           run COMMAND while registered as member ID of the group at PATH
  members PATH [--watch] [--json]
                           show the members of the group at PATH (each change with --watch)
  counter PATH [get | add N | set N | cas OLD NEW] [--bytes 4|8]
                           read or change the counter at PATH (Curator's
                           DistributedAtomicLong, or with --bytes 4 DistributedAtomicInteger)
  barrier PATH --members N [--timeout D] [--] COMMAND [ARGS...]
                           enter the double barrier at PATH with N members, run COMMAND,
                           leave it together with the others
  watch PATH [--depth N] [--json]
                           print the tree at PATH, then a line per change, until
                           SIGINT/SIGTERM/SIGHUP (a tree cache)
  server [--until-eof]     run a throwaway local ZooKeeper; prints its connect string
  try-it [--port N]        the lesson on locks and fencing tokens in a browser: two workers,
                           one lock, the last seat; every run real (prints the page's URL)
  help [COMMAND]           help of a command
  --version                print zkcoord's version and exit

Exit status:
  64 usage error, 65 PATH holds another recipe's nodes (a latch under a lock, a
lock under an election, ...), 68 a host name of --connect does not resolve, 69 ZooKeeper
unreachable or session lost, 70 internal error, 71 could not fork / start the local server,
or it died, 75 lock (leadership) timeout or member ID already registered by another session,
76 lock (leadership, registration) lost while the command ran or while held (--hold), 77 permission denied by
ZooKeeper, 78 the chroot of --connect does not exist; `lock`, `elect` and `register`
otherwise exit with the command's status (126 cannot execute, 127 not found, 128+N killed by
signal N).
)";

constexpr std::string_view lock_help = R"(Usage: zkcoord lock PATH [options] [--] COMMAND [ARGS...]
       zkcoord lock PATH --hold [options]

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

With --hold instead of COMMAND (for shell scripts: coproc, exec 3< <(zkcoord lock ...)),
zkcoord prints one line on stdout once the lock is granted,
  granted TOKEN NODE       e.g. "granted 4294967302 /jobs/a/_c_...-lock-0000000000"
(TOKEN decimal, as ZKCOORD_FENCING_TOKEN; NODE last, so `read -r _ token node` takes it
whole), holds the lock until stdin reaches end of file or SIGINT, SIGTERM or SIGHUP comes,
then releases it and exits 0. If the lock is lost while held (session expired, lock node
deleted), it says so on stderr and exits 76 at once, closing its stdout. A stdin that cannot
be polled (/dev/null, a regular file) counts as closed: use a pipe.

Options:
  --hold                   no COMMAND: print the grant and hold it (see above)
  --read, --write          the read or the write lock of PATH instead of the exclusive lock
                           (Curator's InterProcessReadWriteLock layout: readers share, a
                           writer excludes everyone, a reader behind a waiting writer waits).
                           Only the write lock's token excludes; a read token orders.
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

Exit status:
  COMMAND's (128+N if killed by signal N); with --hold 0 once released. Or 64 usage, 65
  PATH holds another recipe's nodes (e.g. read-write lock nodes under the exclusive lock),
  68 unknown host, 69 unreachable or session lost while waiting, 75 timeout, 76 lock lost
  while COMMAND ran (or while held with --hold), 77 permission denied, 78 the chroot does
  not exist, 126 cannot execute, 127 not found, 128+N interrupted by signal N while waiting.
)";

constexpr std::string_view locks_help = R"(Usage: zkcoord locks [PATH] [options]

Lists the contenders of the lock at PATH and of every lock below it (default PATH: /), the
holder first: fencing token, session id, holder data (host, pid, app id; Curator and kazoo
contenders show their raw node data) and age. Subtrees below PATH are walked once; lock nodes
themselves are not descended into, and /zookeeper is skipped.

Options:
  --watch                  print the listing again at every change of the lock tree (a
                           lock node created or deleted at or under PATH), until SIGINT,
                           SIGTERM or SIGHUP (then exit 0); each listing ends with a line
                           "--" (text) or is one JSON line
  --json                   one JSON object: {"locks":[{"path":..,"contenders":[..]}]}

Exit status: 0 (also when there are no locks), 64 usage, 68 unknown host, 69 unreachable,
77 permission denied, 78 the chroot of --connect does not exist.
)";

constexpr std::string_view elect_help =
    R"txt(Usage: zkcoord elect PATH --id ID [options] [--] COMMAND [ARGS...]
       zkcoord elect PATH --id ID --hold [options]

Joins the election at PATH as participant ID (Apache Curator's LeaderLatch layout: a
LeaderLatch on the same path takes part in the same election and reports ID as leader) and
runs COMMAND once elected, for as long as it leads, exactly as `zkcoord lock` runs its
command: under the guard, with
  ZKCOORD_FENCING_TOKEN  the leadership term's token (decimal czxid of our election node)
  ZKCOORD_LOCK_NODE      the full path of our election node
in its environment; leadership lost -> SIGTERM, SIGKILL after the grace period, exit 76;
COMMAND exits -> we leave the election (the next participant leads) and exit with its status.

Options:
  --hold                   no COMMAND: print "granted TOKEN NODE" once elected and lead
                           until stdin closes or a signal comes, as `lock --hold` holds
  --id ID                  the participant id (required; no '/', no control characters,
                           at most 1024 bytes): what `zkcoord leader` and Curator's
                           getLeader() report
  --timeout D              give up (exit 75) if not elected within D (greater than 0)
  --grace D                SIGTERM -> SIGKILL delay after leadership is lost (default 5s)
  --acl open|creator-all|world-read
                           ACL of our election node and of the parents zkcoord creates

PATH: as for `lock`. Exit status: as for `lock`.
)txt";

constexpr std::string_view semaphore_help =
    R"txt(Usage: zkcoord semaphore PATH --leases N [options] [--] COMMAND [ARGS...]
       zkcoord semaphore PATH --leases N --hold [options]

Takes one of the N leases of the semaphore at PATH (Apache Curator's InterProcessSemaphoreV2
layout: leases under PATH/leases, its internal lock under PATH/locks, so Curator semaphores
with the same N share the leases) and runs COMMAND while it holds it, exactly as
`zkcoord lock` runs its command (the guard, the signals, the grace), with
  ZKCOORD_FENCING_TOKEN  the lease's token (decimal czxid of our lease node): unique and
                         increasing, but up to N leases are held at once, so it excludes
                         nobody (with N = 1 it fences as a lock's token)
  ZKCOORD_LOCK_NODE      the full path of our lease node
COMMAND exits -> the lease is returned and we exit with its status.
Every participant of PATH must use the same N: nothing on the server records it, and one
with a larger N admits more holders.

Options:
  --hold                   no COMMAND: print "granted TOKEN NODE" once a lease is taken and
                           hold it until stdin closes or a signal comes, as `lock --hold`
  --leases N               how many may hold the semaphore at once, 1 to 10000 (required)
  --timeout D              give up (exit 75) if no lease within D; 0s: try once
  --grace D                SIGTERM -> SIGKILL delay after the lease is lost, or for what
                           COMMAND leaves running when it exits (default 5s)
  --acl open|creator-all|world-read
                           ACL of our nodes and of the parents zkcoord creates (see lock)
  --describe TEXT          recorded in our nodes instead of COMMAND's name

Exit status: COMMAND's (128+N if killed by signal N), or 64 usage (also a missing, zero or
malformed --leases), 65 PATH/leases or PATH/locks holds another recipe's nodes, 68 unknown
host, 69 unreachable or session lost while waiting, 75 timeout, 76 lease lost while COMMAND
ran, 77 permission denied, 78 the chroot does not exist, 126 cannot execute, 127 not found.
)txt";

constexpr std::string_view barrier_help =
    R"txt(Usage: zkcoord barrier PATH --members N [options] [--] COMMAND [ARGS...]

Enters the double barrier at PATH (Apache Curator's DistributedDoubleBarrier and kazoo's
DoubleBarrier layout: ephemeral member nodes PATH/<uuid>, and PATH/ready once N are there, so
Curator and kazoo members mix with ours), runs COMMAND with stdin/stdout/stderr inherited and
  ZKCOORD_BARRIER_NODE   the full path of our member node
in its environment once all N members are in, then leaves: waits until the other members
have left too, and exits with COMMAND's status. SIGINT, SIGTERM and SIGHUP are passed on to
COMMAND while it runs; before, they end zkcoord (our member node goes with the session).
Every member of PATH must use the same N: nothing on the server records it.

Options:
  --members N              how many members enter together, 1 to 100000 (required)
  --timeout D              give up (exit 75) if the barrier is not entered within D, or the
                           others have not left within D after COMMAND; our node is deleted

Exit status: COMMAND's (128+N if killed by signal N), or 64 usage (also a missing, zero or
malformed --members), 68 unknown host, 69 unreachable or session lost, 75 timeout entering
or leaving (after COMMAND ran, the message gives its status), 77 permission denied, 78 the
chroot does not exist, 126 cannot execute, 127 not found.
)txt";

constexpr std::string_view leader_help = R"txt(Usage: zkcoord leader PATH [--watch] [--json]

Prints the leader of the election at PATH without taking part: its id, term token, session
and node, and how many participants there are ("no leader of PATH (no participant)" if none).
The leader is the first participant in ZooKeeper's order, as Curator's getLeader() says.

Options:
  --watch                  print again at every change of the participants, until SIGINT,
                           SIGTERM or SIGHUP (then exit 0)
  --json                   {"path":..,"leader":{..} or null,"participants":[..]} per line

Exit status: 0, 64 usage, 68 unknown host, 69 unreachable or session lost, 77 permission
denied, 78 the chroot of --connect does not exist, 65 PATH holds another recipe's nodes
(a lock's, say).
)txt";

constexpr std::string_view register_help =
    R"txt(Usage: zkcoord register PATH ID [options] [--] COMMAND [ARGS...]

Registers as member ID of the group at PATH (the ephemeral node PATH/ID: Apache Curator's
GroupMember layout) and runs COMMAND for as long as it is registered, under the guard as
`zkcoord lock` runs its command, with
  ZKCOORD_MEMBER_NODE    the full path of the member node
in its environment; removes the node when COMMAND exits and exits with COMMAND's status.
zkcoord keeps the node while COMMAND runs: after a session expiry it is created again on a
new session, after someone deletes it, at once; each time a line on stderr says so and why
("re-registered PATH/ID because the session expired (registration 2, session 0x..)"), since
others may have acted on the member's absence. A node another live session holds under ID is
never deleted or taken over: exit 75 before COMMAND runs; should another session take ID
while we were away, the registration is lost: SIGTERM, SIGKILL after the grace, exit 76.
A frozen zkcoord does not stop COMMAND (a member excludes nobody): it registers again when
it runs.

Options:
  --data TEXT              the node's data (default empty; at most 65536 bytes)
  --service-json FILE-or-JSON
                           the node's data is a Curator x-discovery ServiceInstance: JSON
                           text (starting with '{') or a file holding it. PATH is then
                           BASE/NAME: "name" and "id", when given, must be NAME and ID
                           (filled in when absent, as is registrationTimeUTC); serviceType
                           DYNAMIC only. Written as Curator's JsonInstanceSerializer writes it
  --grace D                SIGTERM -> SIGKILL delay after the registration is lost, or for
                           what COMMAND leaves running when it exits (default 5s)
  --acl open|creator-all|world-read
                           ACL of the member node and of the parents zkcoord creates

ID: a node name (no '/', not "." or "..", at most 255 bytes). PATH: as for `lock`.
Exit status: COMMAND's (128+N if killed by signal N), or 64 usage (also a bad ID, bad
--service-json, data too large), 68 unknown host, 69 unreachable or session lost before the
node was made, 75 ID already registered by another live session, 76 registration lost while
COMMAND ran, 77 permission denied, 78 the chroot does not exist, 126 cannot execute,
127 not found.
)txt";

constexpr std::string_view members_help = R"txt(Usage: zkcoord members PATH [--watch] [--json]

Prints the members of the group at PATH (every child of PATH; Curator GroupMember and
x-discovery instances included) without joining: id, session (0x0: not ephemeral), since (the
node's creation, server clock, UTC) and data, control bytes escaped ("no members of PATH" if
none).

Options:
  --watch                  after the list, print a line at every change ("joined ID (...)",
                           "left ID", "updated ID (...)": new data, or its node re-created),
                           until SIGINT, SIGTERM or SIGHUP (then exit 0)
  --json                   {"path":..,"members":[{"id","session","since","since_ms","czxid",
                           "data"}]} per line (with --watch, one line per state)

Exit status: 0, 64 usage, 68 unknown host, 69 unreachable or session lost, 77 permission
denied, 78 the chroot of --connect does not exist.
)txt";

constexpr std::string_view watch_help = R"txt(Usage: zkcoord watch PATH [--depth N] [--json]

Follows the tree at PATH with a tree cache (zkcoord::tree_cache, read-only: it writes nothing)
and prints it once whole, one line per node in path order ("PATH [N bytes] DATA", data
control bytes escaped and cut at 80 bytes), then one line per change: "added PATH [N bytes]
DATA", "updated PATH [N bytes] DATA", "removed PATH", and the session's "suspended",
"reconnected", "lost" (session expired; the tree is read again) and "initialized" (whole
again), until SIGINT, SIGTERM or SIGHUP (then exit 0). A missing PATH prints "no node at
PATH" and its creation is followed.

Options:
  --depth N                follow N levels below PATH, 0 to 100000 (default: all; 0 is PATH
                           alone, 1 PATH and its children)
  --json                   one JSON object per line: {"event":"node"|"added"|"updated"|
                           "removed","path","size","data","czxid","mzxid","version"} for nodes,
                           {"event":"suspended"|...} for the session's events

Exit status: 0, 64 usage (a bad PATH or --depth), 68 unknown host, 69 unreachable or session
closed, 77 permission denied, 78 the chroot of --connect does not exist.
)txt";

constexpr std::string_view counter_help =
    R"txt(Usage: zkcoord counter PATH [get | add N | set N | cas OLD NEW] [--bytes 4|8]

Reads or changes the counter at PATH in Apache Curator's layout: a persistent node holding a
big-endian number (a missing node or empty data is 0; a change creates the node). Prints the
value: get (the default) the value read; add, set and cas the value written. N may be
negative. Each change is a compare-and-set against the value just read, tried again (up to
100 times) while other writers change the node first; cas tries once.

Options:
  --bytes 4|8              8 (default): Curator's DistributedAtomicLong; 4: its
                           DistributedAtomicInteger, SharedCount and kazoo's
                           Counter(support_curator=True)

Exit status: 0, 1 cas found another value than OLD (nothing written; the message says which),
64 usage (also a number that does not fit), 65 the node holds another number of bytes,
68 unknown host, 69 unreachable or session lost (the outcome of a change cut off by a lost
connection is unknown), 75 other writers changed the counter first every time, 77 permission
denied.
)txt";

constexpr std::string_view server_help = R"(Usage: zkcoord server [--until-eof]

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

constexpr std::string_view try_it_help = R"(Usage: zkcoord try-it [--connect HOSTS] [--port N]
       zkcoord try-it --html FILE [--lease S] [--pause S] [--mode MODE] [--scale MS]
                      [--connect HOSTS]

The lesson on locks and fencing tokens, in a browser: two workers, one lock, the last seat
C14. Worker A takes the lock, reads C14 free and is frozen (SIGSTOP) for the pause; if the
pause outlasts its lease (its ZooKeeper session timeout), B is granted the lock with a higher
fencing token and sells C14; then A wakes and writes. Every run is real: two worker
processes, real zkcoord locks on a real ZooKeeper, one SQLite file.

Serves one page on 127.0.0.1 and prints its URL as the first line of stdout; runs until
SIGINT, SIGTERM or SIGHUP. Without --connect (or $ZKCOORD_CONNECT) it starts a throwaway local
ZooKeeper first. Nothing is left behind when it stops, however it stops (SIGKILL included):
no worker process, no znode, no file.

Options:
  --connect HOSTS          the ZooKeeper the workers use (default: a throwaway local one)
  --port N                 listen on 127.0.0.1:N (default: a free port)
  --html FILE              no page server: run once and write that run as a self-contained
                           HTML page to FILE (prints FILE); with:
  --lease S                the lease in lesson seconds, 1 to 60 (default 10)
  --pause S                A's pause in lesson seconds, 0 to 120 (default 15)
  --mode MODE              lock (fencing off, the default), fenced, or conditional (no lock:
                           UPDATE ... WHERE holder IS NULL)
  --scale MS               real milliseconds per lesson second, 50 to 1000 (default 200;
                           1000 is real time); the real lease must be 0.8 s to 60 s
  -v, --verbose            debug logging on stderr

Exit status: 0 after a clean stop (with --html: the run reached its verdict), 64 usage, 69
ZooKeeper unreachable (with --html: the run failed), 71 the local server could not start.
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
    case command_kind::try_it:
      return try_it_help;
    case command_kind::elect:
      return elect_help;
    case command_kind::leader:
      return leader_help;
    case command_kind::semaphore:
      return semaphore_help;
    case command_kind::barrier:
      return barrier_help;
    case command_kind::register_member:
      return register_help;
    case command_kind::members:
      return members_help;
    case command_kind::counter:
      return counter_help;
    case command_kind::watch:
      return watch_help;
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
