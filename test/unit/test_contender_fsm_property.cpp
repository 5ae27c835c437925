// SPDX-License-Identifier: Apache-2.0
// Randomized property test of the contender state machine, run for every grant policy: the
// exclusive lock, the election, readers and writers mixed on one read-write lock path, and a
// semaphore's leases (N drawn per schedule in 1..3, 3 to 5 contenders, two more where sessions
// are shared, stray children that are no contender but count all the same).
// Several contenders drive their machines against a small in-memory model of one ZooKeeper
// recipe path, each on its own session or, in some schedules, two or three on one session
// (one session id, one connection: they are suspended, reconnect and expire together), each
// fed as the driver feeds it: through its own handoff_count on its session's deletion_log,
// which the model tells of every deletion the session has proof of, as the session layer
// does (a NodeDeleted of any watch of the session, the session's own successful delete; never
// a no_node reply), when the event or reply reaches the session and before it is handed on,
// numbering the proofs in that order and stamping each listing reply with the last number.
// Besides our machines' watches, a session has "observer" watches: another waiter of the
// session on a node, or a watch a machine dropped whose removal the server has not processed
// yet; they prove deletions and are fed to no machine.
// The model injects lost replies (the request applied or not), disconnects (suspended,
// reconnected), session expiry (reported as expired, or only as a new session) and close,
// foreign contenders of the same recipe coming and going (Curator and kazoo lock nodes,
// Curator LeaderLatch nodes, Curator __READ__/__WRIT__ nodes), in some schedules nodes of
// another recipe (a latch on a lock path, ...), nodes with our uuid prefix owned by another
// session, our node deleted or written by someone else, container garbage collection of the
// parent, counters near the 32-bit overflow, aborts and releases.
// The policy is judged by testing::reference_decision, not by grant_policy.cpp itself.
//
// Invariants checked as the schedule runs (the message names the one broken):
// - holders: on the server's truth, never more holders than the policy allows (one exclusive
//   holder, or any number of readers and no writer, or at most N leases), counted over our
//   holders and the foreign ones the model computes from the real children (a foreign lease
//   holds once it has seen at most N children: it lists at every change of the children);
// - acquire: a grant only when the policy, applied to the server's children at the time of
//   the listing that granted, grants our node (a wake-up is never a grant), and the node still
//   holds on the server's truth; a grant on the blocker's deletion without a listing (with
//   nodes ahead besides the blocker: by the session's count of deletions) only when the
//   policy grants our node on the server's children at that moment; never after the machine
//   saw its session end or after abort; the acquire completes exactly once, with an error the
//   world explains;
// - the session's count: what a waiter's count grew by since the listing it waits on never
//   exceeds the nodes of that listing ahead of its own that are gone (the log never counts a
//   node the listing did not have, nor one deletion twice);
// - each listing the machine decides on gets the policy's answer: granted; wait with exactly
//   one watch, on the node the policy names (exclusive: just ahead; a reader: the nearest
//   writer ahead, never every node); a lease on a full path: wait with exactly one child
//   watch (watch_children), and a watched listing still full keeps that watch and sends
//   nothing; a path holding another recipe's node: the acquire fails with
//   errc::recipe_mismatch and our node is deleted, never a grant;
// - nodes: a contender never owns two nodes; the machine never deletes, adopts or treats as its
//   own a node of another session or of another contender of its session; never creates after
//   its session ended; once finished with its session alive, no node of ours is left (abort,
//   try_once, release, mismatch);
// - watches: at most one armed per machine; none left behind;
// - loss: lost is reported exactly once when the held lock is lost (at once on session end;
//   after our node was deleted, before anything else settles), never when it is not lost,
//   never after release was asked, with the reason the world gave;
// - doubt: a held lock is in doubt as soon as the machine sees the suspension; on reconnect it
//   re-checks its own node (a waiter re-lists; a lease waiter with a new child watch) and the
//   doubt is cleared once the node is
//   confirmed; in_doubt() agrees with the set_in_doubt actions;
// - release: completes exactly once, with success only when our delete removed the node;
// - the machine acts no more once finished.
// Liveness, in the settle phase (no more faults, every session reconnected): once nothing is
// in flight, each holder watches its own node, each waiter is one the policy does not grant on
// the server's truth (its blockers have not all left) and watches the blocker the policy
// names (a lease waiter: the path has more than N children, and it watches them with one
// child watch); then holders release (or foreign holders leave, stray children go, or, when
// only our lease waiters fill the path, one of them gives up) one at a time, settling after
// each, until every machine has finished: the queue always progresses, never stuck.
// A failure prints the seed and the whole schedule; ZKCOORD_PROPERTY_SEED=N replays one seed.
#include "recipe/contender_fsm.hpp"
#include "recipe/deletion_log.hpp"
#include "recipe/handoff_count.hpp"

#define BOOST_TEST_MODULE contender_fsm_property
#include <boost/test/unit_test.hpp>

#include "recipe/node_name.hpp"

#include <zkcoord/path.hpp>
#include "contender_fsm_test_support.hpp"
#include "recipe/contender_queue.hpp"

#include <boost/asio/error.hpp>

#include <array>
#include <cstdlib>
#include <deque>
#include <functional>
#include <map>
#include <random>
#include <set>
#include <sstream>

using namespace zkcoord;
using namespace zkcoord::detail;
using zkcoord::detail::testing::action_name;
using zkcoord::detail::testing::listing;
using zkcoord::detail::testing::reference_decision;
using zkcoord::detail::testing::reference_verdict;
using zkcoord::detail::testing::sequence_suffix;

namespace {

const std::string lock_path = "/locks/p";
constexpr std::int64_t first_session = 0x1000;
constexpr std::int64_t first_foreign_session = 0x9000;  // Curator, kazoo, impostors
constexpr unsigned schedules = 10000;                   // per policy mix
constexpr int steps_per_schedule = 300;
// In this share of the schedules, nodes of another recipe come and go on the path (kept rare:
// they end every acquire that lists them, which the other invariants need to go on).
constexpr double mixed_recipe_share = 0.1;
// In this share of the schedules, some contenders share a session.
constexpr double shared_session_share = 0.5;

// The grant policies the contenders use, one mix per test case.
enum class policy_mix {
  exclusive_lock,  ///< every contender takes the exclusive lock ("lock-" nodes)
  election,        ///< every contender campaigns ("latch-" nodes)
  read_write,      ///< each contender a reader or a writer, on one read-write lock path
  semaphore,       ///< every contender takes a lease ("lease-" nodes), N per schedule
};

const char* to_string(policy_mix mix) {
  switch (mix) {
    case policy_mix::exclusive_lock:
      return "exclusive_lock";
    case policy_mix::election:
      return "election";
    case policy_mix::read_write:
      return "read_write";
    case policy_mix::semaphore:
      return "semaphore";
  }
  return "?";
}

std::uint32_t stream_of(policy_mix mix) {
  return static_cast<std::uint32_t>(mix) * 0x9e3779b9u;  // 0 for exclusive_lock
}

grant_policy policy_of(node_kind kind, std::uint32_t max_leases) {
  switch (kind) {
    case node_kind::lease:
      return grant_policy::semaphore(max_leases);
    case node_kind::latch:
      return grant_policy::election();
    case node_kind::read:
      return grant_policy::read_lock();
    case node_kind::write:
      return grant_policy::write_lock();
    default:
      return grant_policy::exclusive_lock();
  }
}

// The markers of the recipes that do not belong on a path of `mix` (foreign recipes).
std::vector<std::string> other_recipe_markers(policy_mix mix) {
  switch (mix) {
    case policy_mix::exclusive_lock:
      return {"-latch-", "-__READ__", "-__WRIT__", "-lease-"};
    case policy_mix::election:
      return {"-lock-", "__lock__", "-__READ__", "-__WRIT__", "-lease-"};
    case policy_mix::read_write:
      return {"-lock-", "__lock__", "-latch-", "-lease-"};
    case policy_mix::semaphore:
      return {"-lock-", "__lock__", "-latch-", "-__READ__", "-__WRIT__"};
  }
  return {};
}

// What the schedules of one mix exercised: a mix whose generator never reaches a case would
// pass without testing it.
struct coverage {
  unsigned grants = 0;
  unsigned shared_holds = 0;               // two or more readers held at once
  unsigned waits_on_foreign = 0;           // a waiter watched a foreign contender
  unsigned waits_on_reader = 0;            // a writer watched a reader
  unsigned reader_waits_past_readers = 0;  // a reader watched a writer with a reader between
  unsigned recipe_mismatches = 0;          // an acquire failed with recipe_mismatch
  unsigned settled_waiters = 0;            // waiters checked at a settle point
  unsigned lease_waits = 0;                // a lease waited: more than N children
  unsigned lease_waits_on_strays = 0;      // ... only because of children that are no contender
  unsigned lease_watches_kept = 0;         // a watched listing still full: the watch kept
  unsigned handoffs = 0;                   // granted on its blocker's deletion, no listing
  unsigned count_handoffs = 0;             // ... others ahead too: by the session's count
  unsigned shared_sessions = 0;            // schedules with contenders sharing a session
  unsigned deletion_proofs = 0;            // deletions the sessions' logs were told of
  unsigned observer_proofs = 0;            // ... by an observer watch
  unsigned counts_checked = 0;             // a waiter's count checked against its listing
};

// The name under which the model keeps a child watch among the node watches: no child has it.
const std::string children_watch = "/";

struct fake_node {
  std::int64_t owner;  // ephemeralOwner; 0 for a persistent non-lock child
  zxid czxid;
};

// One lock path on a linearizable server.
struct fake_server {
  bool parent_exists = true;
  std::uint32_t cversion = 0;  // ZooKeeper's int32 counter; wraps like it
  zxid last_zxid = 0x100000000;
  std::map<std::string, fake_node> children;
  std::uint64_t version = 0;               // counts creates and deletes of sequential children
  std::function<void()> children_changed;  // child watches fire, foreign leases look

  std::string create_sequential(const std::string& name_prefix, std::int64_t owner) {
    std::string name = name_prefix + sequence_suffix(static_cast<std::int32_t>(cversion++));
    children[name] = {owner, ++last_zxid};
    ++version;
    if (children_changed) children_changed();
    return name;
  }
  // A persistent child that is no contender ("config"): a semaphore counts it all the same.
  void create_plain(const std::string& name) {
    children[name] = {0, ++last_zxid};
    if (children_changed) children_changed();
  }
  // The nodes of one contender: owned by its session, with its prefix (an impostor has the
  // prefix and another owner; another contender of the session has the owner, not the prefix).
  int nodes_of(std::int64_t session, const std::string& prefix) const {
    int n = 0;
    for (const auto& [name, node] : children)
      n += node.owner == session && name.starts_with(prefix);
    return n;
  }
  bool owns(std::int64_t session, const std::string& name) const {
    const auto it = children.find(name);
    return it != children.end() && it->second.owner == session;
  }
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, node] : children) out.push_back(name);
    return out;
  }
};

enum class link { connected, disconnected, expired, closed };

struct client;

// One session of ours: one or more contenders (their machines share its id, its connection and
// its deletion log), and the watches of the session that none of our machines waits on.
struct sim_session {
  explicit sim_session(std::int64_t session_id) : id(session_id) {}

  std::int64_t id;
  std::shared_ptr<deletion_log> log = deletion_log::make();
  std::uint64_t proofs = 0;  // deletion proofs told so far (session_impl::deletion_proofs)
  std::map<std::string, std::uint64_t> proven;  // node name -> the number of its latest proof
  std::vector<client*> members;
  // Node watches of the session fed to no machine of ours (node names): another waiter of the
  // session watching that node, or a watch a machine dropped that the server still has (its
  // removal not processed yet). One-shot, as any watch; a deletion proves itself to the log.
  std::vector<std::string> observer_watches;
  std::vector<std::string> observed_while_away;  // deleted while disconnected: told on reconnect
};

// A watch that fired while the session was disconnected: its event comes after the reconnect.
struct fired_watch {
  std::uint64_t tag;
  bool deleted;      // NodeDeleted, not a change
  std::string name;  // the watched node (children_watch for a child watch)
};

struct client {
  client(std::size_t number, sim_session& on, node_kind creates, contender_config config)
      : index(number),
        home(&on),
        session(on.id),
        kind(creates),
        prefix(config.node_prefix),
        mode(config.mode),
        fsm(std::move(config)) {}

  bool granted() const { return !granted_node.empty(); }
  bool session_over() const { return state == link::expired || state == link::closed; }

  std::size_t index;  // among the simulation's clients
  sim_session* home;  // the session it is on (possibly with other contenders)
  std::int64_t session;
  node_kind kind;  // of the nodes it creates: lock, latch, read or write
  std::string prefix;
  wait_mode mode;
  contender_fsm fsm;
  handoff_count handoff;  // the driver's glue between the machine and its session's log

  // The connection as the model runs it (the same for every contender of the session).
  link state = link::connected;
  std::deque<contender_action_t> sent;           // requests the server has not processed yet
  std::vector<contender_action_t> waiting;       // requests issued while disconnected
  std::deque<contender_event_t> inbox;           // results and events not yet fed to the machine
  std::map<std::uint64_t, std::string> watches;  // armed, still wanted: tag -> node name
  std::set<std::uint64_t> dropped_watches;       // the driver no longer delivers these
  std::vector<fired_watch> fired_while_away;
  // The server's children when it executed each listing not yet fed (by tag): what a grant
  // from that listing is judged against.
  std::map<std::uint64_t, std::vector<std::string>> listed_truth;
  // The latest watch_children sent: in watching_children, the listing the machine decides on.
  std::uint64_t watched_listing_tag = 0;

  // What the machine reported.
  int acquire_completions = 0;
  int finished = 0;
  int release_completions = 0;
  int lost_reports = 0;
  bool in_doubt = false;     // per its set_in_doubt actions
  std::string granted_node;  // name of the node it was granted with

  // What the machine was told.
  bool saw_session_end = false;
  bool saw_suspended = false;     // fed suspended, and no reconnected since
  std::uint64_t recheck_tag = 0;  // the own-node read it asked for on reconnect while held
  bool aborted = false;
  error_code abort_reason;
  bool release_asked = false;
  bool listed_other_recipe = false;  // decided on a listing holding another recipe's node
  // At its last decision to wait: how many nodes ahead of its own blocked it besides the
  // blocker (the machine's others_ahead, computed here from the server's children).
  std::size_t others_ahead = 0;
  // At that decision: the session's count it was fed with the listing (nullopt: not counted),
  // the last proof that count took in (the reply's stamp, else all told by then), the nodes
  // of the listing ahead of its own, and the parent's generation.
  std::optional<std::uint64_t> count_at_listing;
  std::uint64_t listing_proofs = 0;
  std::vector<std::string> listing_ahead;
  unsigned listing_generation = 0;

  // What the world did.
  int creates_sent = 0;
  std::set<std::string> names_created;  // every name the server gave a node of ours
  bool node_deleted_by_other = false;   // someone else deleted a node of this contender
  std::map<std::string, std::uint64_t> deleted_by_other_at;  // node name -> the step it went
  std::map<std::uint64_t, std::uint64_t> fired_at;           // watch tag -> the step it fired at
  bool release_deleted_node = false;       // a delete of the release removed our node
  bool release_delete_reply_lost = false;  // ... and its reply was lost
};

// Event and action names for the schedule printed on failure.
const char* event_name(const contender_event_t& event) {
  static constexpr std::array names{"node_created",    "parents_created", "children_listed",
                                    "node_read",       "watch_fired",     "node_deleted",
                                    "session_changed", "abort_requested", "release_requested"};
  static_assert(names.size() == std::variant_size_v<contender_event_t>);
  return names[event.index()];
}

std::string describe(const contender_event_t& event) {
  std::ostringstream out;
  out << event_name(event);
  std::visit(
      [&](const auto& e) {
        if constexpr (requires { e.tag; }) out << " tag=" << e.tag;
        if constexpr (requires { e.ec; }) {
          if (e.ec) out << " ec=" << e.ec.message();
        }
        if constexpr (requires { e.state; }) out << ' ' << to_string(e.state);
        if constexpr (std::is_same_v<std::decay_t<decltype(e)>, contender_event::node_read>) {
          if (e.stat) out << " owner=0x" << std::hex << e.stat->ephemeral_owner << std::dec;
          if (!e.ec && !e.stat) out << " (no node)";
        }
        if constexpr (requires { e.path; }) out << ' ' << node_name_of(e.path);
        if constexpr (requires { e.children; }) {
          if (e.children) {
            for (const auto& n : e.children->nodes()) out << ' ' << n.name;
          }
        }
        if constexpr (requires { e.reason; }) out << ' ' << e.reason.message();
        if constexpr (requires { e.deleted; }) {
          if (e.deleted) out << " (deleted)";
        }
        if constexpr (requires { e.deletions_seen; }) {
          if (e.deletions_seen) out << " deletions_seen=" << *e.deletions_seen;
        }
        if constexpr (requires { e.deletion_stamp; }) {
          if (e.deletion_stamp) out << " stamp=" << *e.deletion_stamp;
        }
      },
      event);
  return out.str();
}

std::string describe(const contender_action_t& action) {
  std::ostringstream out;
  out << action_name(action);
  std::visit(
      [&](const auto& a) {
        if constexpr (requires { a.tag; }) out << " tag=" << a.tag;
        if constexpr (requires { a.after_reconnect; }) {
          if (a.after_reconnect) out << " after_reconnect";
        }
        if constexpr (requires { a.path; }) out << ' ' << node_name_of(a.path);
        if constexpr (requires { a.grant; }) {
          if (a.grant) out << ' ' << node_name_of(a.grant->path);
        }
        if constexpr (requires { a.ec; }) {
          if (a.ec) out << " ec=" << a.ec.message();
        }
        if constexpr (requires { a.reason; }) out << ' ' << a.reason.message();
        if constexpr (requires { a.in_doubt; }) out << (a.in_doubt ? " true" : " false");
      },
      action);
  return out.str();
}

// The path of a read or watch request, or "" for other actions.
std::string read_path(const contender_action_t& action) {
  if (auto* r = std::get_if<contender_action::read_node>(&action)) return r->path;
  if (auto* w = std::get_if<contender_action::watch_node>(&action)) return w->path;
  if (auto* w = std::get_if<contender_action::watch_own_node>(&action)) return w->path;
  return {};
}

std::uint64_t read_tag(const contender_action_t& action) {
  if (auto* r = std::get_if<contender_action::read_node>(&action)) return r->tag;
  if (auto* w = std::get_if<contender_action::watch_node>(&action)) return w->tag;
  if (auto* w = std::get_if<contender_action::watch_own_node>(&action)) return w->tag;
  return 0;
}

class simulation {
 public:
  // The exclusive_lock mix sets up its contenders with the same draws as this test did before
  // it had mixes; whether a schedule gets other recipes' nodes comes from a second generator,
  // so that choice shifts no draw of the schedule. The other mixes' seed N is another
  // stream (the election would otherwise replay the lock's schedules under other names).
  // The semaphore draws its N after the number of contenders (no other mix draws it).
  simulation(unsigned seed, policy_mix mix, coverage& seen)
      : seed_(seed), mix_(mix), seen_(seen), random_(seed ^ stream_of(mix)) {
    server_.children_changed = [this] { on_children_changed(); };
    std::mt19937 side(seed ^ 0x9e3779b9u);
    mixed_recipes_ = side() < mixed_recipe_share * 4294967296.0;
    if (chance(0.5)) server_.cversion = 0x7fffffffu - static_cast<std::uint32_t>(random_() % 8);
    // Readers and a writer, often; leases: enough of them to fill N = 3 and wait.
    const int extra = mix == policy_mix::read_write ? 1 : mix == policy_mix::semaphore ? 2 : 0;
    // In some schedules contenders share sessions (two or three on one, drawn from the second
    // generator, with two more contenders): each then sees deletions the others' watches and
    // deletes prove, and the session's events are theirs together.
    const bool sharing = side() < shared_session_share * 4294967296.0;
    const int contenders = 1 + extra + static_cast<int>(random_() % 3) + (sharing ? 2 : 0);
    if (mix == policy_mix::semaphore) max_leases_ = 1 + static_cast<std::uint32_t>(random_() % 3);
    for (int i = 0; i < contenders; ++i) {
      const bool joins =
          sharing && !sessions_.empty() && sessions_.back()->members.size() < 3 && side() % 4 != 0;
      if (!joins) {
        sessions_.push_back(std::make_unique<sim_session>(
            first_session + static_cast<std::int64_t>(sessions_.size())));
      }
      sim_session& on = *sessions_.back();
      const std::int64_t session = on.id;
      const wait_mode mode = chance(0.2) ? wait_mode::try_once : wait_mode::wait;
      const node_kind kind = mix == policy_mix::exclusive_lock ? node_kind::lock
                             : mix == policy_mix::election     ? node_kind::latch
                             : mix == policy_mix::semaphore    ? node_kind::lease
                             : chance(0.5)                     ? node_kind::read
                                                               : node_kind::write;
      const auto prefix =
          protected_node_prefix("c" + std::to_string(i) + "-" + std::to_string(random_()), kind);
      clients_.push_back(
          std::make_unique<client>(clients_.size(), on, kind,
                                   contender_config{lock_path, prefix, "host=h;pid=1;app=", session,
                                                    mode, policy_of(kind, max_leases_)}));
      on.members.push_back(clients_.back().get());
    }
    if (sessions_.size() < clients_.size()) ++seen_.shared_sessions;
    for (auto& c : clients_) {
      trace("start", *c);
      c->handoff.start(c->fsm, *c->home->log, c->session);
      perform(*c, c->fsm.start(), nullptr);
    }
  }

  void run(int steps) {
    for (int i = 0; i < steps; ++i) {
      random_step();
      check_every_step();
    }
    settle();
    check_final_state();
  }

 private:
  // ---- the world moves -------------------------------------------------------------------

  void random_step() {
    client& c = *clients_[random_() % clients_.size()];
    const int roll = static_cast<int>(random_() % 1000);
    if (roll < 280) return process_one(c);
    if (roll < 560) return deliver_one(c, chance(0.05));
    if (roll < 600) return disconnect(c);
    if (roll < 660) return reconnect(c);
    if (roll < 670) return end_session(c, link::expired);
    if (roll < 673) return end_session(c, link::closed);
    if (roll < 720) return foreign_contender_arrives();
    if (roll < 790) return foreign_contender_leaves(chance(0.7));
    if (roll < 800) return collect_empty_parent();
    if (roll < 820) return abort_acquire(c);
    if (roll < 865) return release(c);
    if (roll < 885) return someone_deletes_node_of(c);
    if (roll < 900) return someone_writes_node_of(c);
    if (roll < 915) return impostor_takes_prefix_of(c);
    if (roll < 925) return mixed_recipes_ ? other_recipe_arrives() : void();
    if (roll < 930) return quiet_spell();
    if (roll < 1000) return observer_watches(c);
  }

  // The server answers the oldest request of the contender (the requests of a session's
  // contenders interleave as the model draws: some order of the session's one queue). A delete
  // that removed our node proves that deletion to the session before its reply is handed on.
  // A listing's reply (the driver's plain getChildren, not the one after a sync, nor a lease's
  // watch_children) is stamped as it arrives with the proofs the session was told so far.
  void process_one(client& c) {
    if (c.state != link::connected || c.sent.empty()) return;
    auto request = std::move(c.sent.front());
    c.sent.pop_front();
    auto reply = execute(c, request);
    if (const auto* d = std::get_if<contender_event::node_deleted>(&reply); d && !d->ec) {
      const auto& path = std::get<contender_action::delete_node>(request).path;
      tell_deleted(*c.home, std::string(node_name_of(path)));
    }
    if (auto* listed = std::get_if<contender_event::children_listed>(&reply)) {
      const auto* asked = std::get_if<contender_action::list_children>(&request);
      if (asked && !asked->sync_first) listed->deletion_stamp = c.home->proofs;
    }
    c.inbox.push_back(std::move(reply));
  }

  // The session tells its deletion log, as the session layer tells its deletion observers on
  // the C client's thread: before the proving event or reply is handed on.
  void tell_deleted(sim_session& s, const std::string& name, bool by_observer = false) {
    s.log->node_deleted(s.id, join_path(lock_path, name), ++s.proofs);
    s.proven[name] = s.proofs;
    ++seen_.deletion_proofs;
    if (by_observer) ++seen_.observer_proofs;
  }

  // Another waiter of the session (none of ours) watches a node of the path: a getData with a
  // watch, armed when the server executes it. Its deletion then proves itself to the log.
  // Mostly a contender near the head of the queue (where such a waiter would watch), else any
  // child.
  void observer_watches(client& c) {
    if (c.state != link::connected || server_.children.empty()) return;
    if (c.home->observer_watches.size() >= 4) return;
    const contender_queue queue(server_.names());
    std::string name;
    if (!queue.nodes().empty() && chance(0.7)) {
      name = queue.nodes()[random_() % std::min<std::size_t>(queue.nodes().size(), 3)].name;
    } else {
      auto it = server_.children.begin();
      std::advance(it, static_cast<std::ptrdiff_t>(random_() % server_.children.size()));
      name = it->first;
    }
    c.home->observer_watches.push_back(name);
    trace("observer watch of its session on " + name, c);
  }

  // Results may be delivered out of order among themselves, but never across a session
  // event: the session reports its state changes in order with the replies around them.
  void deliver_one(client& c, bool out_of_order) {
    if (c.inbox.empty()) return;
    std::size_t reorderable = c.inbox.size();
    for (std::size_t i = 0; i < c.inbox.size(); ++i) {
      if (std::holds_alternative<contender_event::session_changed>(c.inbox[i])) {
        reorderable = std::max<std::size_t>(i, 1);
        break;
      }
    }
    const std::size_t at = out_of_order ? random_() % reorderable : 0;
    const contender_event_t event = c.inbox[at];
    c.inbox.erase(c.inbox.begin() + static_cast<std::ptrdiff_t>(at));
    feed(c, event);
  }

  // The session's connection breaks: every contender on it is cut off at once.
  void disconnect(client& who) {
    if (who.state != link::connected) return;
    for (client* c : who.home->members) c->state = link::disconnected;
    for (client* c : who.home->members) cut_off(*c);
  }

  void cut_off(client& c) {
    const bool creating = std::any_of(c.sent.begin(), c.sent.end(), [](const auto& r) {
      return std::holds_alternative<contender_action::create_node>(r);
    });
    if (creating && chance(0.3)) impostor_takes_prefix_of(c);  // recovery will meet it
    // Some requests reached the server before the connection broke; their replies are lost.
    const std::size_t applied = c.sent.empty() ? 0 : random_() % (c.sent.size() + 1);
    std::vector<contender_event_t> failures;
    for (std::size_t i = 0; i < c.sent.size(); ++i) {
      if (i < applied) {
        const auto lost_reply = execute(c, c.sent[i]);
        if (auto* d = std::get_if<contender_event::node_deleted>(&lost_reply)) {
          if (!d->ec && c.release_asked) c.release_delete_reply_lost = true;
        }
      }
      failures.push_back(failure_of(
          c.sent[i], chance(0.5) ? zk_errc::connection_loss : zk_errc::operation_timeout));
    }
    c.sent.clear();
    const std::size_t suspended_at = random_() % (failures.size() + 1);
    failures.insert(failures.begin() + static_cast<std::ptrdiff_t>(suspended_at),
                    contender_event::session_changed{session_state::suspended});
    for (auto& f : failures) c.inbox.push_back(std::move(f));
    trace("disconnect, " + std::to_string(applied) + " applied", c);
  }

  // The session reconnects, for every contender on it. The watches that fired meanwhile
  // fire now (the C client re-arms them, the server answers with their events), after the
  // reconnect and before the replies of the requests sent from now on: a deletion among them
  // proves itself to the log then (also for a watch a machine dropped since: the C client
  // still gets its event).
  void reconnect(client& who) {
    if (who.state != link::disconnected) return;
    sim_session& s = *who.home;
    for (const auto& name : s.observed_while_away) tell_deleted(s, name, true);
    s.observed_while_away.clear();
    for (client* c : s.members) {
      c->state = link::connected;
      c->inbox.push_back(contender_event::session_changed{session_state::reconnected});
      for (const auto& f : c->fired_while_away) {
        if (f.deleted) tell_deleted(s, f.name);
        if (!c->dropped_watches.count(f.tag))
          c->inbox.push_back(contender_event::watch_fired{f.tag, f.deleted});
      }
      c->fired_while_away.clear();
      for (auto& request : c->waiting) c->sent.push_back(std::move(request));
      c->waiting.clear();
      trace("reconnect", *c);
    }
  }

  // The session ends (expired or closed) for every contender on it: its nodes and watches go.
  void end_session(client& who, link how) {
    if (who.session_over()) return;
    sim_session& s = *who.home;
    const auto ec = how == link::expired ? make_error_code(zk_errc::session_expired)
                                         : make_error_code(errc::closed);
    for (client* c : s.members) {
      c->state = how;
      for (auto& r : c->sent) c->inbox.push_back(failure_of(r, ec));
      for (auto& r : c->waiting) c->inbox.push_back(failure_of(r, ec));
      c->sent.clear();
      c->waiting.clear();
      c->watches.clear();
      c->fired_while_away.clear();
    }
    s.observer_watches.clear();
    s.observed_while_away.clear();
    std::vector<std::string> gone;
    for (const auto& [name, node] : server_.children) {
      if (node.owner == s.id) gone.push_back(name);
    }
    for (const auto& name : gone) remove_node(name);
    // The session layer may report only the new session it started, not the expiry.
    const bool only_new_session = how == link::expired && chance(0.25);
    const session_state reported = how == link::closed ? session_state::closed
                                   : only_new_session  ? session_state::connected
                                                       : session_state::expired;
    for (client* c : s.members) {
      c->inbox.push_back(contender_event::session_changed{reported});
      trace(how == link::expired ? "expire" : "close", *c);
    }
  }

  // A contender of the same recipe from another client, or a child that is no contender.
  void foreign_contender_arrives() {
    if (!server_.parent_exists) return;
    const std::int64_t owner = foreign_session();
    const std::string curator = "_c_foreign" + std::to_string(owner);
    const int style = static_cast<int>(random_() % 3);
    if (style == 2) return server_.create_plain("config" + std::to_string(owner));
    switch (mix_) {
      case policy_mix::exclusive_lock:  // Curator's mutex, kazoo's Lock
        if (style == 0) server_.create_sequential(curator + "-lock-", owner);
        if (style == 1) server_.create_sequential("kz" + std::to_string(owner) + "__lock__", owner);
        return;
      case policy_mix::election:  // Curator's LeaderLatch
        server_.create_sequential(curator + "-latch-", owner);
        return;
      case policy_mix::read_write:  // Curator's InterProcessReadWriteLock
        server_.create_sequential(curator + (style == 0 ? "-__READ__" : "-__WRIT__"), owner);
        return;
      case policy_mix::semaphore:  // Curator's InterProcessSemaphoreV2
        server_.create_sequential(curator + "-lease-", owner);
        return;
    }
  }

  // A node of another recipe on the path (a latch on a lock path, a lock on an election
  // path, ...): every contender that lists it must refuse the path.
  void other_recipe_arrives() {
    if (!server_.parent_exists) return;
    const std::int64_t owner = foreign_session();
    const auto markers = other_recipe_markers(mix_);
    const auto& marker = markers[random_() % markers.size()];
    const auto name = server_.create_sequential("_c_other" + std::to_string(owner) + marker, owner);
    log_.push_back("another recipe's node " + name);
  }

  void foreign_contender_leaves(bool the_holder) {
    std::vector<std::string> foreign;
    const contender_queue queue(server_.names());
    for (const auto& node : queue.nodes()) {
      if (server_.children[node.name].owner >= first_foreign_session) foreign.push_back(node.name);
    }
    for (const auto& [name, node] : server_.children) {
      if (node.owner == 0 && chance(0.3)) foreign.push_back(name);  // non-lock children too
    }
    if (foreign.empty()) return;
    remove_node(the_holder ? foreign.front() : foreign[random_() % foreign.size()]);
  }

  void collect_empty_parent() {
    if (server_.parent_exists && server_.children.empty()) {
      server_.parent_exists = false;
      ++parent_generation_;
      log_.push_back("parent garbage-collected");
      fire_child_watches();  // a deleted node fires the child watches on it too
    }
  }

  void abort_acquire(client& c) {
    if (c.aborted || c.acquire_completions > 0) return;
    c.aborted = true;
    c.abort_reason = chance(0.5) ? error_code(boost::asio::error::operation_aborted)
                                 : make_error_code(errc::timeout);
    feed(c, contender_event::abort_requested{c.abort_reason});
  }

  void release(client& c) {
    if (!c.granted() || c.release_asked) return;
    c.release_asked = true;
    feed(c, contender_event::release_requested{});
  }

  // An administrator (or a buggy peer) deletes our node.
  void someone_deletes_node_of(client& c) {
    for (const auto& [name, node] : server_.children) {
      if (node.owner == c.session && name.starts_with(c.prefix)) {
        log_.push_back("someone deletes " + name);
        c.node_deleted_by_other = true;
        c.deleted_by_other_at[name] = ++world_step_;
        return remove_node(name);
      }
    }
  }

  // Someone sets the data of our node: its watch fires, the node stays ours.
  void someone_writes_node_of(client& c) {
    for (const auto& [name, node] : server_.children) {
      if (node.owner == c.session && name.starts_with(c.prefix)) {
        log_.push_back("someone writes " + name);
        return fire_watches(name);
      }
    }
  }

  // A node with this attempt's uuid prefix, owned by another session: recovery must not
  // adopt it (its ephemeralOwner is not ours).
  // Not under a name a node of ours had (the counter restarts with a re-created parent): a
  // uuid is never reused, so the machine rightly takes a name it created for its own.
  void impostor_takes_prefix_of(client& c) {
    if (!server_.parent_exists) return;
    const auto next = c.prefix + sequence_suffix(static_cast<std::int32_t>(server_.cversion));
    if (c.names_created.count(next)) return;
    const auto name = server_.create_sequential(c.prefix, foreign_session());
    log_.push_back("impostor creates " + name);
  }

  // ---- the server ------------------------------------------------------------------------

  contender_event_t execute(client& c, const contender_action_t& request) {
    using namespace contender_action;
    if (auto* r = std::get_if<create_node>(&request)) {
      if (!server_.parent_exists)
        return contender_event::node_created{r->tag, zk(zk_errc::no_node), {}, {}};
      const auto name =
          server_.create_sequential(std::string(node_name_of(r->path_prefix)), c.session);
      check(server_.nodes_of(c.session, c.prefix) <= 1, "a contender owns two nodes", c);
      c.names_created.insert(name);
      node_stat stat;
      stat.czxid = server_.children[name].czxid;
      stat.ephemeral_owner = c.session;
      return contender_event::node_created{r->tag, {}, join_path(lock_path, name), stat};
    }
    if (auto* r = std::get_if<create_parents>(&request)) {
      const bool existed = std::exchange(server_.parent_exists, true);
      if (!existed) server_.cversion = 0;  // a new parent starts counting again
      return contender_event::parents_created{
          r->tag, existed && chance(0.5) ? zk(zk_errc::node_exists) : error_code{}};
    }
    if (auto* r = std::get_if<list_children>(&request)) {
      if (!server_.parent_exists)
        return contender_event::children_listed{r->tag, zk(zk_errc::no_node), {}};
      auto names = server_.names();
      c.listed_truth[r->tag] = names;
      shuffle(names);  // the server lists children in no particular order
      return contender_event::children_listed{r->tag, {}, listing(names)};
    }
    if (auto* r = std::get_if<watch_children>(&request)) {
      // No parent: no_node and no watch left (ZooKeeper's getChildren).
      if (!server_.parent_exists)
        return contender_event::children_listed{r->tag, zk(zk_errc::no_node), {}};
      auto names = server_.names();
      c.listed_truth[r->tag] = names;
      if (!c.dropped_watches.count(r->tag)) c.watches[r->tag] = children_watch;
      shuffle(names);
      return contender_event::children_listed{r->tag, {}, listing(names)};
    }
    if (auto* r = std::get_if<read_node>(&request)) return read(r->tag, r->path);
    const watch_node* r = std::get_if<watch_node>(&request);
    watch_node own_watch;  // a waiter's watch on its own node: the same getData with a watch
    if (const auto* o = std::get_if<watch_own_node>(&request)) {
      own_watch = watch_node{{o->tag, o->after_reconnect}, o->path};
      r = &own_watch;
    }
    if (r) {
      auto result = read(r->tag, r->path);
      // The driver registers the watch under its tag unless the machine dropped it already.
      // (Then the C client arms it all the same and removes it with a request of its own:
      // sometimes the node is deleted in between, and the session sees that.)
      if (result.stat && !c.dropped_watches.count(r->tag)) {
        c.watches[r->tag] = std::string(node_name_of(r->path));
      } else if (result.stat && chance(0.3)) {
        c.home->observer_watches.emplace_back(node_name_of(r->path));
      }
      return result;
    }
    const auto& del = std::get<delete_node>(request);
    const std::string name(node_name_of(del.path));
    const auto it = server_.children.find(name);
    if (it == server_.children.end())
      return contender_event::node_deleted{del.tag, zk(zk_errc::no_node)};
    check(it->second.owner == c.session && name.starts_with(c.prefix),
          "deleted a node it does not own: " + name, c);
    if (c.release_asked) c.release_deleted_node = true;
    remove_node(name);
    return contender_event::node_deleted{del.tag, {}};
  }

  contender_event::node_read read(std::uint64_t tag, const std::string& path) {
    const auto it = server_.children.find(std::string(node_name_of(path)));
    if (it == server_.children.end()) return {tag, {}, std::nullopt};
    node_stat stat;
    stat.czxid = it->second.czxid;
    stat.ephemeral_owner = it->second.owner;
    return {tag, {}, stat};
  }

  void remove_node(std::string name) {  // by value: callers pass map keys
    server_.children.erase(name);
    ++server_.cversion;
    ++server_.version;
    foreign_lease_holders_.erase(name);
    fire_watches(name, true);
    on_children_changed();
  }

  // A child was created or deleted: child watches fire; foreign lease waiters look again.
  void on_children_changed() {
    fire_child_watches();
    if (mix_ == policy_mix::semaphore) foreign_leases_look();
  }

  // The most eager foreign lease contenders: each lists at once whenever the children change
  // (and right after creating its node), and holds from the first listing with at most N
  // children, until its node goes. Our machines' grants must leave room for them.
  void foreign_leases_look() {
    if (server_.children.size() > max_leases_) return;
    const contender_queue queue(server_.names());
    for (const auto& node : queue.nodes()) {
      if (node.kind != node_kind::lease) continue;
      if (server_.children[node.name].owner < first_foreign_session) continue;
      foreign_lease_holders_.insert(node.name);
    }
  }

  // One-shot child watches fire (a child created or deleted) and are consumed.
  void fire_child_watches() { fire_watches(children_watch); }

  // One-shot watches on `name` fire (deleted or changed) and are consumed. The event says
  // which, as ZooKeeper's does (NodeDeleted or NodeDataChanged). A NodeDeleted reaching a
  // session proves the deletion to its log first (once per watch: the same deletion may be
  // told more than once); an observer watch's event goes to no machine.
  void fire_watches(const std::string& name, bool deleted = false) {
    for (auto& c : clients_) {
      for (auto it = c->watches.begin(); it != c->watches.end();) {
        if (it->second != name) {
          ++it;
          continue;
        }
        c->fired_at[it->first] = ++world_step_;
        if (c->state == link::connected) {
          if (deleted) tell_deleted(*c->home, name);
          c->inbox.push_back(contender_event::watch_fired{it->first, deleted});
        }
        if (c->state == link::disconnected)
          c->fired_while_away.push_back({it->first, deleted, name});
        it = c->watches.erase(it);
      }
    }
    for (auto& s : sessions_) {
      const link state = s->members.front()->state;
      std::erase_if(s->observer_watches, [&](const std::string& watched) {
        if (watched != name) return false;
        if (deleted && state == link::connected) tell_deleted(*s, name, true);
        if (deleted && state == link::disconnected) s->observed_while_away.push_back(name);
        return true;
      });
    }
  }

  // ---- feeding the machine ---------------------------------------------------------------

  void feed(client& c, const contender_event_t& event) {
    const contender_fsm::state before = c.fsm.current_state();
    const std::string own(node_name_of(c.fsm.own_node()));
    if (ends_session(event)) c.saw_session_end = true;
    const auto* truth = listed_truth_of(c, event);
    if (truth &&
        reference_for(c, *truth, own).result == reference_verdict::outcome::recipe_mismatch) {
      c.listed_other_recipe = true;
    }
    // As the driver feeds it (contender_attempt::feed_locked): the session's count attached.
    const contender_event_t counted = c.handoff.attach(c.fsm, *c.home->log, c.session, event);
    trace("feed " + describe(counted), c);
    const contender_actions actions = c.fsm.resume(counted);
    c.handoff.settle(c.fsm);
    perform(c, actions, &counted);
    check_after_feed(c, before, event, actions);
    check_count(c, before, counted);
    if (truth) {
      const auto tag = std::get<contender_event::children_listed>(event).tag;
      // A lease waiter decides again on each listing its watch_children returns, and a
      // decision to go on waiting is no action at all.
      const bool watched_listing =
          before == contender_fsm::state::watching_children && tag == c.watched_listing_tag;
      if ((before == contender_fsm::state::listing && !actions.empty()) || watched_listing) {
        check_decision(c, before, *truth, own, actions);
      }
      c.listed_truth.erase(tag);
    }
  }

  // The session's count as the waiter was fed it (deletion_log.hpp): what it grew by since the
  // listing the waiter decided on only counts nodes of that listing ahead of its own that are
  // gone (never a node the listing did not have, nor one deletion twice), so never more than
  // those. (Not across a re-created parent: the waiter's node is gone, and names come again.)
  void check_count(client& c, contender_fsm::state before, const contender_event_t& counted) {
    const auto waiting = contender_fsm::state::watching_predecessor;
    if (const auto* l = std::get_if<contender_event::children_listed>(&counted);
        l && before == contender_fsm::state::listing && c.fsm.current_state() == waiting) {
      c.count_at_listing = l->deletions_seen;
      c.listing_proofs = l->deletion_stamp.value_or(c.home->proofs);
    }
    const auto* fired = std::get_if<contender_event::watch_fired>(&counted);
    if (fired && fired->deletions_seen && before == waiting && c.count_at_listing &&
        c.listing_generation == parent_generation_ &&
        *fired->deletions_seen >= *c.count_at_listing) {
      std::size_t gone = 0;
      for (const auto& name : c.listing_ahead) gone += server_.children.count(name) == 0;
      const auto counted_since = *fired->deletions_seen - *c.count_at_listing;
      ++seen_.counts_checked;
      check(counted_since <= gone,
            "the session's count grew by " + std::to_string(counted_since) +
                " deletions since its listing, but only " + std::to_string(gone) +
                " of that listing's nodes ahead of its own are gone",
            c);
    }
    if (c.fsm.current_state() != waiting) c.count_at_listing.reset();
  }

  // The server's children when it executed the listing `event` reports; null for any other
  // event (and for a listing that failed).
  const std::vector<std::string>* listed_truth_of(const client& c,
                                                  const contender_event_t& event) const {
    const auto* listed = std::get_if<contender_event::children_listed>(&event);
    if (!listed || listed->ec) return nullptr;
    const auto it = c.listed_truth.find(listed->tag);
    return it == c.listed_truth.end() ? nullptr : &it->second;
  }

  // The machine decided on a listing (it was listing and it acted): its answer must be the
  // policy's on the server's children at the time of that listing.
  void check_decision(client& c, contender_fsm::state before, const std::vector<std::string>& truth,
                      const std::string& own, const contender_actions& actions) {
    using outcome = reference_verdict::outcome;
    const auto expected = reference_for(c, truth, own);
    // Leaving watching_children drops the child watch first.
    const bool watching = before == contender_fsm::state::watching_children;
    const auto* done = find<contender_action::complete_acquire>(actions);
    const auto watches = std::count_if(actions.begin(), actions.end(), [](const auto& a) {
      return std::holds_alternative<contender_action::watch_node>(a);
    });
    switch (expected.result) {
      case outcome::recipe_mismatch:
        ++seen_.recipe_mismatches;
        return check(
            done && done->ec == errc::recipe_mismatch &&
                (testing::kinds(actions) == (watching ? "complete_acquire drop_watch delete_node"
                                                      : "complete_acquire delete_node") ||
                 // a re-listing waiter also drops the watch on its own node
                 testing::kinds(actions) == "complete_acquire drop_watch delete_node"),
            "another recipe's node on the path, but it did not fail with "
            "recipe_mismatch and delete its node: " +
                testing::kinds(actions),
            c);
      case outcome::granted:
        return check(done && done->grant, "the policy grants its node, but it was not granted", c);
      case outcome::not_listed:
        return check(done && done->ec == errc::lock_lost,
                     "its node is not listed, but it did not fail with lock_lost", c);
      case outcome::wait_for_change:
        return check_lease_wait(c, before, truth, actions);
      case outcome::wait:
        break;
    }
    if (c.mode == wait_mode::try_once) {
      return check(done && done->ec == errc::busy, "try_once behind a blocker, but not busy", c);
    }
    const auto* watch = find<contender_action::watch_node>(actions);
    check(!done && watches == 1 && std::string(node_name_of(watch->path)) == expected.blocker,
          "waits, but does not watch exactly the node the policy names (" + expected.blocker +
              "): " + describe_all(actions),
          c);
    note_wait(c, truth, own, expected.blocker);
    c.others_ahead = blocking_ahead(c, truth, own) - 1;
    c.listing_ahead.clear();
    const contender_queue queue(truth);
    for (const auto& node : queue.nodes()) {
      if (node.name == own) break;
      c.listing_ahead.push_back(node.name);
    }
    c.listing_generation = parent_generation_;
  }

  // How many nodes ahead of `own` among `truth` block `c` (a reader: the writers; else all).
  static std::size_t blocking_ahead(const client& c, const std::vector<std::string>& truth,
                                    const std::string& own) {
    std::size_t n = 0;
    const contender_queue queue(truth);
    for (const auto& node : queue.nodes()) {
      if (node.name == own) break;
      if (!testing::same_recipe(c.kind, node.kind)) continue;
      n += c.kind != node_kind::read || node.kind == node_kind::write;
    }
    return n;
  }

  // More than N children: a lease waits for them to change, with one child watch. From a plain
  // listing it asks for watch_children and nothing else; on the listing that watch_children
  // returned it does nothing at all, its watch armed (or fired, the event on its way).
  void check_lease_wait(client& c, contender_fsm::state before,
                        const std::vector<std::string>& truth, const contender_actions& actions) {
    const auto* done = find<contender_action::complete_acquire>(actions);
    if (c.mode == wait_mode::try_once) {
      return check(done && done->ec == errc::busy, "try_once on a full semaphore, but not busy", c);
    }
    ++seen_.lease_waits;
    std::size_t contenders = contender_queue(truth).nodes().size();
    if (contenders <= max_leases_) ++seen_.lease_waits_on_strays;
    for (const auto& name : truth) {
      const auto it = server_.children.find(name);
      if (it != server_.children.end() && it->second.owner >= first_foreign_session) {
        ++seen_.waits_on_foreign;
        break;
      }
    }
    if (before == contender_fsm::state::listing) {
      const auto* watch = find<contender_action::watch_children>(actions);
      return check(testing::kinds(actions) == "watch_children" && watch->path == lock_path,
                   "more than N children, but it does not wait with exactly one watch_children "
                   "on the path: " +
                       describe_all(actions),
                   c);
    }
    ++seen_.lease_watches_kept;
    check(actions.empty() && c.fsm.current_state() == contender_fsm::state::watching_children,
          "its watched listing is still full, but it does not just keep waiting on its one child "
          "watch: " +
              describe_all(actions),
          c);
    // (A session that ended took its watches along; the machine learns it in turn.)
    check(c.session_over() || child_watch_armed_or_fired(c, c.watched_listing_tag),
          "its watched listing is still full, but its child watch is gone", c);
  }

  // The child watch armed by watch_children{tag} is armed still, or it fired and the event is
  // on its way to the machine.
  bool child_watch_armed_or_fired(const client& c, std::uint64_t tag) const {
    const auto it = c.watches.find(tag);
    if (it != c.watches.end()) return it->second == children_watch;
    if (std::any_of(c.fired_while_away.begin(), c.fired_while_away.end(),
                    [tag](const auto& f) { return f.tag == tag; }))
      return true;
    return std::any_of(c.inbox.begin(), c.inbox.end(), [tag](const auto& e) {
      const auto* fired = std::get_if<contender_event::watch_fired>(&e);
      return fired && fired->tag == tag;
    });
  }

  void note_wait(const client& c, const std::vector<std::string>& truth, const std::string& own,
                 const std::string& blocker) {
    const contender_queue queue(truth);
    const auto blocker_at = *queue.position_of(blocker);
    const auto own_at = *queue.position_of(own);
    if (queue.nodes()[blocker_at].kind == node_kind::read) ++seen_.waits_on_reader;
    if (c.kind == node_kind::read && own_at > blocker_at + 1) ++seen_.reader_waits_past_readers;
    const auto it = server_.children.find(blocker);
    if (it != server_.children.end() && it->second.owner >= first_foreign_session) {
      ++seen_.waits_on_foreign;
    }
  }

  void check_after_feed(client& c, contender_fsm::state before, const contender_event_t& event,
                        const contender_actions& actions) {
    check(c.in_doubt == c.fsm.in_doubt(), "in_doubt() disagrees with its set_in_doubt actions", c);
    const bool was_held = before == contender_fsm::state::held;
    if (auto* s = std::get_if<contender_event::session_changed>(&event)) {
      if (s->state == session_state::suspended) {
        c.saw_suspended = true;
        if (was_held) check(c.fsm.in_doubt(), "suspended while held, but not in doubt", c);
      }
      if (s->state == session_state::reconnected) {
        c.saw_suspended = false;
        c.recheck_tag = 0;
        if (was_held) {
          for (const auto& a : actions) {
            if (!read_path(a).empty() && read_path(a) == c.fsm.own_node())
              c.recheck_tag = read_tag(a);
          }
          check(c.recheck_tag != 0, "reconnected while held, but did not re-check its own node", c);
        }
        if (before == contender_fsm::state::watching_predecessor) {
          const bool relisted = std::any_of(actions.begin(), actions.end(), [](const auto& a) {
            return std::holds_alternative<contender_action::list_children>(a);
          });
          check(relisted, "reconnected while waiting, but did not re-list", c);
        }
        if (before == contender_fsm::state::watching_children) {
          const bool relisted = std::any_of(actions.begin(), actions.end(), [](const auto& a) {
            return std::holds_alternative<contender_action::watch_children>(a);
          });
          check(relisted,
                "reconnected while waiting for the children to change, but did not list them "
                "again with a new child watch",
                c);
        }
      }
      if (ends_session(event) && was_held) {
        check(c.lost_reports == 1, "its session ended while held, but it reported no loss", c);
      }
    }
    if (auto* r = std::get_if<contender_event::node_read>(&event)) {
      const bool confirmed = c.recheck_tag != 0 && r->tag == c.recheck_tag && !r->ec && r->stat &&
                             r->stat->ephemeral_owner == c.session;
      if (confirmed && !c.saw_suspended && c.fsm.current_state() == contender_fsm::state::held) {
        check(!c.fsm.in_doubt(), "its node was confirmed after reconnect, but it is still in doubt",
              c);
        c.recheck_tag = 0;
      }
    }
    // The re-check goes on with the machine's next read of its node (a watch that fired
    // first, a read that failed and is retried): that read's answer is the one that counts.
    if (c.recheck_tag != 0 && !std::holds_alternative<contender_event::session_changed>(event)) {
      for (const auto& a : actions) {
        if (!read_path(a).empty() && read_path(a) == c.fsm.own_node()) c.recheck_tag = read_tag(a);
      }
    }
  }

  // ---- the machine's actions -------------------------------------------------------------

  void perform(client& c, const contender_actions& actions, const contender_event_t* cause) {
    for (const auto& action : actions) {
      trace("  -> " + describe(action), c);
      check(c.finished == 0 || std::holds_alternative<contender_action::complete_release>(action),
            "acted after finishing", c);
      std::visit([&](const auto& a) { on_action(c, a, cause); }, action);
    }
  }

  template <class Request>
  void on_action(client& c, const Request& r, const contender_event_t*) requires
      std::is_base_of_v<contender_action::request, Request> {
    if constexpr (std::is_same_v<Request, contender_action::create_node>) {
      check(!c.saw_session_end, "created after its session ended", c);
      ++c.creates_sent;
    }
    if constexpr (std::is_same_v<Request, contender_action::watch_children>) {
      check(c.kind == node_kind::lease, "a child watch, but the policy waits for one node", c);
      c.watched_listing_tag = r.tag;
    }
    if (c.session_over()) {
      const auto ec = c.state == link::expired ? make_error_code(zk_errc::session_expired)
                                               : make_error_code(errc::closed);
      c.inbox.push_back(failure_of(r, ec));
    } else if (c.state == link::disconnected) {
      c.waiting.push_back(r);
    } else {
      c.sent.push_back(r);
    }
  }

  // The driver removes the watch with a request of its own: the server may fire it first, and
  // the session sees its NodeDeleted (no machine does).
  void on_action(client& c, const contender_action::drop_watch& a, const contender_event_t*) {
    const auto it = c.watches.find(a.tag);
    if (it != c.watches.end() && it->second != children_watch && chance(0.3)) {
      c.home->observer_watches.push_back(it->second);
      trace("  (the server keeps it a while: observer watch on " + it->second + ")", c);
    }
    c.watches.erase(a.tag);
    c.dropped_watches.insert(a.tag);
  }

  void on_action(client& c, const contender_action::complete_acquire& a,
                 const contender_event_t* cause) {
    ++c.acquire_completions;
    check(c.acquire_completions == 1, "acquire completed twice", c);
    check(a.grant.has_value() == !a.ec, "grant and error disagree", c);
    if (!a.grant) {
      return check(acquire_error_explained(c, a.ec),
                   "acquire failed with an error the world does not explain: " + a.ec.message(), c);
    }
    check(!c.saw_session_end, "granted after the session ended", c);
    check(!c.aborted, "granted after abort", c);
    const auto name = std::string(node_name_of(a.grant->path));
    c.granted_node = name;
    ++seen_.grants;
    const bool exists = server_.children.count(name) != 0;
    const auto* fired = cause ? std::get_if<contender_event::watch_fired>(cause) : nullptr;
    if (fired && fired->deleted) {
      // The hand-off without a listing: only a queue recipe's waiter whose blocker was
      // deleted, and judged on the server's children now (nodes ahead of ours can only have
      // left since its listing): the policy must grant our node on them.
      ++seen_.handoffs;
      // Our node must have been there when the blocker went (someone else may delete a
      // waiting node: it then never holds; a deletion after the blocker's is a loss).
      const auto fired_step = c.fired_at.find(fired->tag);
      const auto deleted_step = c.deleted_by_other_at.find(name);
      check(deleted_step == c.deleted_by_other_at.end() ||
                (fired_step != c.fired_at.end() && deleted_step->second > fired_step->second),
            "granted on its blocker's deletion, but its own node had been deleted before", c);
      // With others ahead, only the session's count can have granted it.
      if (c.others_ahead > 0) ++seen_.count_handoffs;
      check(c.kind != node_kind::lease, "a lease granted without a listing", c);
      if (exists && c.others_ahead > 0 && c.kind != node_kind::read) {
        // The count grew by every node ahead in its listing: the session must have had proof
        // of each one's deletion since that listing (whether they are gone or not).
        for (const auto& ahead : c.listing_ahead) {
          const auto proof = c.home->proven.find(ahead);
          check(proof != c.home->proven.end() && proof->second > c.listing_proofs,
                "granted on its blocker's deletion with more nodes ahead in its listing, but "
                "the session has no proof that " +
                    ahead + " was deleted since that listing",
                c);
        }
      }
      if (exists) {
        check(server_.children[name].owner == c.session && name.starts_with(c.prefix),
              "granted a node of another session or contender", c);
        check(reference_decision(server_.names(), c.kind, name, true).result ==
                  reference_verdict::outcome::granted,
              "granted on its blocker's deletion while a node ahead of it still blocks it", c);
        check(server_.children[name].czxid == a.grant->token().value(), "token is not the czxid",
              c);
        check_holders();
      }
      return;
    }
    const auto* truth = cause ? listed_truth_of(c, *cause) : nullptr;
    check(truth != nullptr, "granted on something other than a listing or a deletion", c);
    if (exists) {
      check(server_.children[name].owner == c.session && name.starts_with(c.prefix),
            "granted a node of another session or contender", c);
      check_holders();
    }
    const auto expected = reference_for(c, *truth, name);
    check(expected.result == reference_verdict::outcome::granted,
          std::string("granted, but on the listing that granted the policy says ") +
              testing::to_string(expected.result) +
              (expected.blocker.empty() ? "" : " for " + expected.blocker),
          c);
    if (exists) {
      // A lease granted stays granted when more leases come after its listing (check_holders
      // counts it); a queue's holder is still first.
      check(c.kind == node_kind::lease ||
                reference_decision(server_.names(), c.kind, name, true).result ==
                    reference_verdict::outcome::granted,
            "granted, but its node does not hold on the server's children", c);
      check(server_.children[name].czxid == a.grant->token().value(), "token is not the czxid", c);
    }
  }

  void on_action(client& c, const contender_action::complete_release& a, const contender_event_t*) {
    ++c.release_completions;
    check(c.release_asked, "release completed but never asked", c);
    check(c.release_completions == 1, "release completed twice", c);
    check(release_outcome_is_right(c, a.ec),
          "release completed with a wrong outcome: " +
              (a.ec ? a.ec.message() : std::string("success")),
          c);
  }

  void on_action(client& c, const contender_action::finished&, const contender_event_t*) {
    ++c.finished;
    if (c.session_over()) return;
    const bool create_pending = std::any_of(c.sent.begin(), c.sent.end(), is_create) ||
                                std::any_of(c.waiting.begin(), c.waiting.end(), is_create);
    check(server_.nodes_of(c.session, c.prefix) == 0 && !create_pending,
          "finished with its session alive, but a node of ours is left (or being created)", c);
  }

  void on_action(client& c, const contender_action::set_in_doubt& a, const contender_event_t*) {
    check(a.in_doubt != c.in_doubt, "set_in_doubt repeated", c);
    if (a.in_doubt) check(c.granted() && !c.release_asked, "in doubt but not holding", c);
    c.in_doubt = a.in_doubt;
  }

  void on_action(client& c, const contender_action::report_lost& a, const contender_event_t*) {
    ++c.lost_reports;
    check(c.granted(), "lost but never held", c);
    check(c.lost_reports == 1, "lost reported twice", c);
    check(!c.release_asked, "lost reported after release was asked", c);
    check(loss_is_real(c, a.reason),
          "lost reported but the lock is not lost that way: " + a.reason.message(), c);
  }

  // ---- what the world explains -----------------------------------------------------------

  bool acquire_error_explained(const client& c, const error_code& ec) const {
    if (ec == boost::asio::error::operation_aborted || ec == errc::timeout)
      return c.aborted && ec == c.abort_reason;
    if (ec == zk_errc::session_expired) return c.state == link::expired;
    if (ec == errc::closed) return c.state == link::closed;
    if (ec == errc::busy) return c.mode == wait_mode::try_once;
    if (ec == errc::lock_lost) return c.node_deleted_by_other;
    if (ec == errc::recipe_mismatch) return c.listed_other_recipe;
    // Creates that kept failing: the parent kept vanishing, or the replies kept being lost.
    if (ec == zk_errc::no_node || ec == condition::connection_loss)
      return c.creates_sent >= contender_fsm::max_create_attempts;
    return false;
  }

  bool release_outcome_is_right(const client& c, const error_code& ec) const {
    if (!ec) return c.release_deleted_node;
    // Also after our own delete was applied but its reply lost: the retry finds no node and
    // the machine cannot tell who deleted it (it says lock_lost; Curator would say success).
    if (ec == errc::lock_lost)
      return c.node_deleted_by_other || c.session_over() || c.release_delete_reply_lost;
    if (ec == zk_errc::session_expired) return c.state == link::expired;
    if (ec == errc::closed) return c.state == link::closed;
    return false;  // not_held: a granted lock was held
  }

  bool loss_is_real(const client& c, const error_code& reason) const {
    if (reason == zk_errc::session_expired) return c.state == link::expired;
    if (reason == errc::closed) return c.state == link::closed;
    if (reason == errc::lock_lost) return !server_.owns(c.session, c.granted_node);
    return false;
  }

  // The held lock is lost in the world: the machine must report it, not be released.
  bool lost_in_world(const client& c) const {
    return c.session_over() || !server_.owns(c.session, c.granted_node);
  }

  // ---- checks ----------------------------------------------------------------------------

  void check_every_step() {
    for (auto& c : clients_) {
      const std::string own(node_name_of(c->fsm.own_node()));
      // One watch, and while waiting behind a blocker one more on our own node.
      const auto on_own = std::count_if(c->watches.begin(), c->watches.end(),
                                        [&](const auto& w) { return w.second == own; });
      check(c->watches.size() - static_cast<std::size_t>(on_own) <= 1 && on_own <= 1,
            "more than one watch armed (besides one on its own node)", *c);
      if (!own.empty() && server_.children.count(own)) {
        check(server_.owns(c->session, own), "takes a node of another session for its own", *c);
        check(own.starts_with(c->prefix),
              "takes a node of another contender of its session for its own", *c);
      }
    }
    // Who holds changes only with the children (and grants, checked as they are made).
    if (server_.version != holders_checked_at_) check_holders();
  }

  // On the server's truth: our holders (granted, node still there) and the foreign contenders
  // the policy grants on the real children; never more than the policy allows at once.
  // Nodes of another recipe are left out: they are that recipe's business (ours refuse the
  // path when they list it).
  void check_holders() {
    holders_checked_at_ = server_.version;
    if (mix_ == policy_mix::semaphore) return check_lease_holders();
    const contender_queue truth(server_.names());
    int exclusive = 0;
    int readers = 0;
    std::string who;
    const client* ours = nullptr;
    for (const auto& node : truth.nodes()) {
      if (!testing::same_recipe(recipe_kind(), node.kind)) continue;
      const std::int64_t owner = server_.children[node.name].owner;
      bool holds = false;
      if (owner >= first_foreign_session) {
        holds = reference_decision(truth, node.kind, node.name, true).result ==
                reference_verdict::outcome::granted;
      } else if (const client* c = holder_of(owner, node.name)) {
        holds = true;
        ours = c;
      }
      if (!holds) continue;
      (node.kind == node_kind::read ? readers : exclusive) += 1;
      who += ' ' + node.name;
    }
    if (readers >= 2 && ours) ++seen_.shared_holds;
    check(exclusive == 0 || (exclusive == 1 && readers == 0),
          "more holders than the policy allows on the server:" + who,
          ours ? *ours : *clients_.front());
  }

  // Our granted leases whose node is still there, and the foreign ones holding: at most N.
  void check_lease_holders() {
    std::uint32_t holders = 0;
    std::string who;
    const client* ours = nullptr;
    for (const auto& [name, node] : server_.children) {
      bool holds = foreign_lease_holders_.count(name) != 0;
      if (const client* c = holder_of(node.owner, name)) {
        holds = true;
        ours = c;
      }
      if (!holds) continue;
      ++holders;
      who += ' ' + name;
    }
    if (holders >= 2 && ours) ++seen_.shared_holds;
    check(holders <= max_leases_,
          "more holders than the policy allows on the server (N = " + std::to_string(max_leases_) +
              "):" + who,
          ours ? *ours : *clients_.front());
  }

  // ---- settle: no more faults; the queue must progress -----------------------------------

  // Every session reconnects and nothing fails any more. Whenever nothing is in flight: each
  // machine is done, holds (watching its own node) or waits for the node the policy names on
  // the server's truth (its blockers have not all left: liveness). Then one holder releases,
  // or one foreign contender leaves, and the queue settles again, until all are done. A holder
  // whose lock the world took is not released: it must report the loss itself.
  void settle() {
    log_.push_back("---- settle");
    for (int round = 0; round < 1000; ++round) {
      quiesce();
      check_settled();
      const bool all_done = std::all_of(clients_.begin(), clients_.end(), [](const auto& c) {
        return c->fsm.current_state() == contender_fsm::state::done;
      });
      if (all_done) return;
      progress();
    }
    check(false, "did not settle", *clients_.front());
  }

  void quiesce() {
    for (int guard = 0; guard < 100000; ++guard) {
      bool busy = false;
      for (auto& c : clients_) {
        if (c->state == link::disconnected) reconnect(*c);
        if (!c->sent.empty()) {
          process_one(*c);
          busy = true;
        } else if (!c->inbox.empty()) {
          deliver_one(*c, false);
          busy = true;
        }
      }
      check_every_step();
      if (!busy) return;
    }
    check(false, "requests and events never stop", *clients_.front());
  }

  void check_settled() {
    const auto names = server_.names();
    for (auto& c : clients_) {
      const auto state = c->fsm.current_state();
      if (state == contender_fsm::state::done) continue;
      const std::string own(node_name_of(c->fsm.own_node()));
      if (state == contender_fsm::state::held) {
        check(!c->fsm.in_doubt(), "still in doubt, connected and with nothing left to do", *c);
        check(!lost_in_world(*c),
              "its node was deleted (or its session ended) while held: loss never reported", *c);
        check(c->watches.size() == 1 && c->watches.begin()->second == own,
              "holds, settled, but does not watch its own node", *c);
        continue;
      }
      if (c->kind == node_kind::lease) {
        check_settled_lease_waiter(*c, names);
        continue;
      }
      check(state == contender_fsm::state::watching_predecessor,
            std::string("settled in state ") + to_string(state) + " with nothing in flight", *c);
      const auto expected = reference_decision(names, c->kind, own, true);
      // Its node deleted by someone else: it learns so when its blocker goes and it re-lists.
      if (expected.result == reference_verdict::outcome::not_listed && c->node_deleted_by_other)
        continue;
      check(expected.result == reference_verdict::outcome::wait,
            std::string("waits, settled, but on the server's children the policy says ") +
                testing::to_string(expected.result) + " (what blocked it has left)",
            *c);
      check(c->watches.size() == 2 &&
                std::count_if(c->watches.begin(), c->watches.end(),
                              [&](const auto& w) { return w.second == expected.blocker; }) == 1 &&
                std::count_if(c->watches.begin(), c->watches.end(),
                              [&](const auto& w) { return w.second == own; }) == 1,
            "waits, settled, but does not watch the node the policy names (" + expected.blocker +
                ") and its own node",
            *c);
      ++seen_.settled_waiters;
    }
  }

  // A lease waiter, nothing in flight: the path has more than N children (once it has N or
  // fewer the child watch has fired and the waiter listed them: granted), and it watches them
  // with one child watch. Another recipe's node is not ignored here: created before the
  // waiter's listing it failed the acquire, created after it fired the watch.
  void check_settled_lease_waiter(const client& c, const std::vector<std::string>& names) {
    const auto state = c.fsm.current_state();
    check(state == contender_fsm::state::watching_children,
          std::string("settled in state ") + to_string(state) + " with nothing in flight", c);
    const auto expected = reference_for(c, names, std::string(node_name_of(c.fsm.own_node())));
    check(expected.result == reference_verdict::outcome::wait_for_change,
          std::string("waits, settled, but on the server's children the policy says ") +
              testing::to_string(expected.result) + " (" + std::to_string(names.size()) +
              " children, N = " + std::to_string(max_leases_) + ")",
          c);
    check(c.watches.size() == 1 && c.watches.begin()->second == children_watch,
          "waits for the children to change, settled, but does not watch them with exactly one "
          "child watch",
          c);
    ++seen_.settled_waiters;
  }

  // A while without faults in the middle of a schedule, when more contenders still wait than
  // at its end: once nothing is in flight, the same checks as when settling.
  void quiet_spell() {
    log_.push_back("---- quiet spell");
    quiesce();
    check_settled();
    log_.push_back("---- faults again");
  }

  // One step of progress: our first holder releases, or else a foreign contender leaves.
  // Other waiters of our sessions (none of ours) may watch nodes near the head meanwhile.
  void progress() {
    for (auto& s : sessions_) {
      if (chance(0.6)) observer_watches(*s->members.front());
    }
    for (auto& c : clients_) {
      if (c->fsm.current_state() == contender_fsm::state::held) return release(*c);
    }
    if (mix_ == policy_mix::semaphore) return leases_progress();
    if (!waiting_on_foreign_contender()) check(false, "stuck", *clients_.front());
    foreign_contender_leaves(true);
  }

  // No lease of ours holds: a foreign contender leaves, else a stray child goes (each counts
  // as a lease). With only our waiters left on the path and more of them than N, they wait
  // for each other (the semaphore recipe's internal lock lets one wait at a time): one gives
  // up, as its deadline would make it, and the others must see the room it leaves.
  void leases_progress() {
    const contender_queue queue(server_.names());
    for (const auto& node : queue.nodes()) {
      if (server_.children[node.name].owner >= first_foreign_session)
        return foreign_contender_leaves(true);
    }
    for (const auto& [name, node] : server_.children) {
      if (node.owner == 0) {
        log_.push_back("stray child " + name + " goes");
        return remove_node(name);
      }
    }
    for (auto& c : clients_) {
      if (c->fsm.current_state() == contender_fsm::state::watching_children) {
        log_.push_back("a waiter gives up");
        return abort_acquire(*c);
      }
    }
    check(false, "stuck", *clients_.front());
  }

  // Also clears non-lock leftovers: no one waits on them, and they would keep the parent.
  bool waiting_on_foreign_contender() {
    const contender_queue queue(server_.names());
    for (const auto& node : queue.nodes()) {
      if (server_.children[node.name].owner >= first_foreign_session) return true;
    }
    std::erase_if(server_.children, [](const auto& child) { return child.second.owner == 0; });
    return false;
  }

  void check_final_state() {
    for (auto& c : clients_) {
      check(c->fsm.current_state() == contender_fsm::state::done, "not finished", *c);
      check(c->acquire_completions == 1, "acquire not completed exactly once", *c);
      check(c->finished == 1, "finished not reported exactly once", *c);
      check(!c->release_asked || c->release_completions == 1, "release not completed", *c);
      check(!c->granted() || c->release_asked || c->lost_reports == 1,
            "held, never released, and its loss not reported", *c);
      if (!c->session_over()) {
        check(server_.nodes_of(c->session, c->prefix) == 0, "left a node behind", *c);
        check(c->watches.empty(), "left a watch behind", *c);
      }
    }
  }

  // ---- helpers ---------------------------------------------------------------------------

  // The kind that names this path's recipe (a read-write lock's: write).
  node_kind recipe_kind() const {
    switch (mix_) {
      case policy_mix::exclusive_lock:
        return node_kind::lock;
      case policy_mix::election:
        return node_kind::latch;
      case policy_mix::read_write:
        return node_kind::write;
      case policy_mix::semaphore:
        return node_kind::lease;
    }
    return node_kind::lock;
  }

  // The policy's answer for client `c`'s node `own` among `children` (a lease needs N).
  reference_verdict reference_for(const client& c, const std::vector<std::string>& children,
                                  const std::string& own) const {
    return reference_decision(children, c.kind, own, false, max_leases_);
  }

  // Our contender on `session` that was granted `name`, if any.
  const client* holder_of(std::int64_t session, const std::string& name) const {
    for (const auto& c : clients_) {
      if (c->session == session && c->granted_node == name) return c.get();
    }
    return nullptr;
  }

  template <class A>
  static const A* find(const contender_actions& actions) {
    for (const auto& a : actions) {
      if (const A* p = std::get_if<A>(&a)) return p;
    }
    return nullptr;
  }

  static std::string describe_all(const contender_actions& actions) {
    std::string out;
    for (const auto& a : actions) out += (out.empty() ? "" : ", ") + describe(a);
    return out.empty() ? "(none)" : out;
  }

  static error_code zk(zk_errc e) { return make_error_code(e); }

  static bool is_create(const contender_action_t& a) {
    return std::holds_alternative<contender_action::create_node>(a);
  }

  static contender_event_t failure_of(const contender_action_t& request, error_code ec) {
    using namespace contender_action;
    return std::visit(
        [&](const auto& r) -> contender_event_t {
          using R = std::decay_t<decltype(r)>;
          if constexpr (std::is_same_v<R, create_node>)
            return contender_event::node_created{r.tag, ec, {}, {}};
          if constexpr (std::is_same_v<R, create_parents>)
            return contender_event::parents_created{r.tag, ec};
          if constexpr (std::is_same_v<R, list_children> || std::is_same_v<R, watch_children>)
            return contender_event::children_listed{r.tag, ec, {}};
          if constexpr (std::is_same_v<R, read_node> || std::is_same_v<R, watch_node> ||
                        std::is_same_v<R, watch_own_node>) {
            return contender_event::node_read{r.tag, ec, std::nullopt};
          }
          if constexpr (std::is_same_v<R, delete_node>)
            return contender_event::node_deleted{r.tag, ec};
          throw std::logic_error("not a request");
        },
        request);
  }
  static contender_event_t failure_of(const contender_action_t& request, zk_errc e) {
    return failure_of(request, make_error_code(e));
  }

  static bool ends_session(const contender_event_t& event) {
    if (auto* s = std::get_if<contender_event::session_changed>(&event)) {
      return s->state == session_state::expired || s->state == session_state::closed ||
             s->state == session_state::connected;
    }
    return std::visit(
        [](const auto& e) {
          if constexpr (requires { e.ec; }) {
            return e.ec == condition::session_expired || e.ec == errc::closed;
          }
          return false;
        },
        event);
  }

  std::int64_t foreign_session() {
    return first_foreign_session + static_cast<std::int64_t>(random_() % 50);
  }

  // mt19937's output is fixed by the standard, std's distributions and std::shuffle are not:
  // these keep a seed's schedule the same with every standard library.
  bool chance(double p) { return random_() < p * 4294967296.0; }
  void shuffle(std::vector<std::string>& names) {
    for (std::size_t i = names.size(); i > 1; --i) std::swap(names[i - 1], names[random_() % i]);
  }

  void trace(const std::string& what, const client& c) {
    log_.push_back("[" + std::to_string(c.index) + "@" + std::to_string(c.session - first_session) +
                   " " + to_string(c.fsm.current_state()) + "] " + what);
  }

  void check(bool ok, const std::string& what, const client& c) {
    if (ok) return;
    std::ostringstream schedule;
    for (const auto& line : log_) schedule << line << '\n';
    BOOST_FAIL("invariant broken: "
               << what << "\npolicy mix " << to_string(mix_) << ", seed " << seed_ << ", client "
               << c.index << " (session " << c.session - first_session << ", " << marker_of(c.kind)
               << " node; replay: ZKCOORD_PROPERTY_SEED=" << seed_ << ")\nschedule:\n"
               << schedule.str());
  }

  unsigned seed_;
  policy_mix mix_;
  coverage& seen_;
  bool mixed_recipes_ = false;
  std::uint32_t max_leases_ = 0;  // the semaphore's N (0 for the other mixes)
  std::set<std::string> foreign_lease_holders_;
  std::uint64_t holders_checked_at_ = 0;
  unsigned parent_generation_ = 0;  // how many times the parent was garbage-collected
  std::uint64_t world_step_ = 0;    // counts the watch firings and foreign deletions of nodes
  std::mt19937 random_;
  fake_server server_;
  std::vector<std::unique_ptr<sim_session>> sessions_;
  std::vector<std::unique_ptr<client>> clients_;
  std::vector<std::string> log_;
};

// ZKCOORD_PROPERTY_SEED=N runs only seed N (to replay a failure; --run_test=<case> picks the
// mix); ZKCOORD_PROPERTY_SCHEDULES=N runs seeds 1..N (a longer search than the default).
void run_schedules(policy_mix mix) {
  unsigned first = 1;
  unsigned last = schedules;
  if (const char* count = std::getenv("ZKCOORD_PROPERTY_SCHEDULES")) last = std::stoul(count);
  if (const char* one = std::getenv("ZKCOORD_PROPERTY_SEED")) first = last = std::stoul(one);
  coverage seen;
  for (unsigned seed = first; seed <= last; ++seed) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      simulation(seed, mix, seen).run(steps_per_schedule);
    }
  }
  BOOST_TEST_MESSAGE(to_string(mix)
                     << ": " << seen.grants << " grants, " << seen.waits_on_foreign
                     << " waits on a foreign node, " << seen.waits_on_reader << " on a reader, "
                     << seen.reader_waits_past_readers << " readers waiting past readers, "
                     << seen.shared_holds << " shared holds, " << seen.recipe_mismatches
                     << " recipe mismatches, " << seen.settled_waiters
                     << " settled waiters checked, " << seen.lease_waits << " lease waits ("
                     << seen.lease_waits_on_strays << " only for stray children, "
                     << seen.lease_watches_kept << " child watches kept), " << seen.handoffs
                     << " hand-offs without a listing (" << seen.count_handoffs
                     << " with nodes ahead besides the blocker, by the session's count), "
                     << seen.shared_sessions << " schedules with a shared session, "
                     << seen.deletion_proofs << " deletions told to the logs ("
                     << seen.observer_proofs << " by observer watches), " << seen.counts_checked
                     << " waiters' counts checked");
  if (first != last) {  // a search, not a replay: the generator must reach every case
    BOOST_TEST(seen.grants > 0u);
    BOOST_TEST(seen.waits_on_foreign > 0u);
    BOOST_TEST(seen.recipe_mismatches > 0u);
    BOOST_TEST(seen.settled_waiters > 0u);
    if (mix != policy_mix::semaphore) BOOST_TEST(seen.handoffs > 0u);
    BOOST_TEST(seen.shared_sessions > 0u);
    BOOST_TEST(seen.observer_proofs > 0u);
    // The exclusive rule grants on the session's count of deletions (a waiter with nodes
    // ahead besides its blocker); the other rules never count.
    if (mix == policy_mix::exclusive_lock || mix == policy_mix::election) {
      BOOST_TEST(seen.count_handoffs > 0u);
      BOOST_TEST(seen.counts_checked > 0u);
    }
    if (mix == policy_mix::read_write) {
      BOOST_TEST(seen.waits_on_reader > 0u);
      BOOST_TEST(seen.reader_waits_past_readers > 0u);
      BOOST_TEST(seen.shared_holds > 0u);
    }
    if (mix == policy_mix::semaphore) {
      BOOST_TEST(seen.shared_holds > 0u);
      BOOST_TEST(seen.lease_waits > 0u);
      BOOST_TEST(seen.lease_waits_on_strays > 0u);
      BOOST_TEST(seen.lease_watches_kept > 0u);
    }
  }
}

}  // namespace

BOOST_AUTO_TEST_CASE(exclusive_lock_schedules_keep_the_invariants) {
  run_schedules(policy_mix::exclusive_lock);
}

BOOST_AUTO_TEST_CASE(election_schedules_keep_the_invariants) {
  run_schedules(policy_mix::election);
}

BOOST_AUTO_TEST_CASE(read_write_schedules_keep_the_invariants) {
  run_schedules(policy_mix::read_write);
}

BOOST_AUTO_TEST_CASE(semaphore_schedules_keep_the_invariants) {
  run_schedules(policy_mix::semaphore);
}
