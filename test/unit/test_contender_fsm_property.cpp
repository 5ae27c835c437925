// Randomized property test of the lock state machine: several contenders, each on its own
// session, drive their machines against a small in-memory model of one ZooKeeper lock path,
// while the model injects lost replies (the request applied or not), disconnects (suspended,
// reconnected), session expiry (reported as expired, or only as a new session) and close,
// foreign contenders (Curator, kazoo) coming and going, nodes with our uuid prefix owned by
// another session, our node deleted or written by someone else, container garbage collection
// of the parent, counters near the 32-bit overflow, aborts and releases.
//
// Invariants checked as the schedule runs (the message names the one broken):
// - acquire: a grant only to the first contender on the server, only from a listing showing
//   our node first (a wake-up is never a grant), never after the machine saw its session end
//   or after abort; the acquire completes exactly once, with an error the world explains;
// - nodes: a session never owns two nodes; the machine never deletes, adopts or treats as its
//   own a node of another session; never creates after its session ended; once finished with
//   its session alive, no node of ours is left (abort, try_once, release);
// - watches: at most one armed per machine; none left behind;
// - loss: lost is reported exactly once when the held lock is lost (at once on session end;
//   after our node was deleted, before anything else settles), never when it is not lost,
//   never after release was asked, with the reason the world gave;
// - doubt: a held lock is in doubt as soon as the machine sees the suspension; on reconnect it
//   re-checks its own node (a waiter re-lists) and the doubt is cleared once the node is
//   confirmed; in_doubt() agrees with the set_in_doubt actions;
// - release: completes exactly once, with success only when our delete removed the node;
// - the machine acts no more once finished.
// A failure prints the seed and the whole schedule; ZKCOORD_PROPERTY_SEED=N replays one seed.
#include "recipe/contender_fsm.hpp"

#define BOOST_TEST_MODULE contender_fsm_property
#include <boost/test/unit_test.hpp>

#include "recipe/node_name.hpp"

#include <zkcoord/path.hpp>
#include "recipe/contender_queue.hpp"
#include "contender_fsm_test_support.hpp"

#include <boost/asio/error.hpp>

#include <array>
#include <cstdlib>
#include <deque>
#include <map>
#include <random>
#include <set>
#include <sstream>

using namespace zkcoord;
using namespace zkcoord::detail;
using zkcoord::detail::testing::action_name;
using zkcoord::detail::testing::listing;
using zkcoord::detail::testing::sequence_suffix;

namespace {

const std::string lock_path = "/locks/p";
constexpr std::int64_t first_session = 0x1000;
constexpr std::int64_t first_foreign_session = 0x9000;  // Curator, kazoo, impostors
constexpr unsigned schedules = 10000;
constexpr int steps_per_schedule = 300;

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

  std::string create_sequential(const std::string& name_prefix, std::int64_t owner) {
    std::string name = name_prefix + sequence_suffix(static_cast<std::int32_t>(cversion++));
    children[name] = {owner, ++last_zxid};
    return name;
  }
  int nodes_of(std::int64_t session) const {
    int n = 0;
    for (const auto& [name, node] : children) n += node.owner == session;
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

struct client {
  client(std::int64_t id, contender_config config)
      : session(id), prefix(config.node_prefix), mode(config.mode), fsm(std::move(config)) {}

  bool granted() const { return !granted_node.empty(); }
  bool session_over() const { return state == link::expired || state == link::closed; }

  std::int64_t session;
  std::string prefix;
  wait_mode mode;
  contender_fsm fsm;

  // The connection as the model runs it.
  link state = link::connected;
  std::deque<contender_action_t> sent;              // requests the server has not processed yet
  std::vector<contender_action_t> waiting;          // requests issued while disconnected
  std::deque<contender_event_t> inbox;              // results and events not yet fed to the machine
  std::map<std::uint64_t, std::string> watches;  // armed, still wanted: tag -> node name
  std::set<std::uint64_t> dropped_watches;       // the driver no longer delivers these
  std::vector<std::uint64_t> fired_while_away;

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

  // What the world did.
  int creates_sent = 0;
  std::set<std::string> names_created;     // every name the server gave a node of ours
  bool node_deleted_by_other = false;      // someone else deleted a node of this session
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
  return {};
}

std::uint64_t read_tag(const contender_action_t& action) {
  if (auto* r = std::get_if<contender_action::read_node>(&action)) return r->tag;
  if (auto* w = std::get_if<contender_action::watch_node>(&action)) return w->tag;
  return 0;
}

class simulation {
 public:
  explicit simulation(unsigned seed) : seed_(seed), random_(seed) {
    if (chance(0.5)) server_.cversion = 0x7fffffffu - static_cast<std::uint32_t>(random_() % 8);
    const int contenders = 1 + static_cast<int>(random_() % 3);
    for (int i = 0; i < contenders; ++i) {
      const std::int64_t session = first_session + i;
      const wait_mode mode = chance(0.2) ? wait_mode::try_once : wait_mode::wait;
      const auto prefix =
          protected_node_prefix("c" + std::to_string(i) + "-" + std::to_string(random_()));
      clients_.push_back(std::make_unique<client>(
          session, contender_config{lock_path, prefix, "host=h;pid=1;app=", session, mode}));
    }
    for (auto& c : clients_) {
      trace("start", *c);
      perform(*c, c->fsm.start(), nullptr);
    }
  }

  void run(int steps) {
    for (int i = 0; i < steps; ++i) {
      random_step();
      check_every_step();
    }
    drain();
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
  }

  void process_one(client& c) {
    if (c.state != link::connected || c.sent.empty()) return;
    auto request = std::move(c.sent.front());
    c.sent.pop_front();
    c.inbox.push_back(execute(c, request));
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

  void disconnect(client& c) {
    if (c.state != link::connected) return;
    c.state = link::disconnected;
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

  void reconnect(client& c) {
    if (c.state != link::disconnected) return;
    c.state = link::connected;
    c.inbox.push_back(contender_event::session_changed{session_state::reconnected});
    for (auto tag : c.fired_while_away) {
      if (!c.dropped_watches.count(tag)) c.inbox.push_back(contender_event::watch_fired{tag});
    }
    c.fired_while_away.clear();
    for (auto& request : c.waiting) c.sent.push_back(std::move(request));
    c.waiting.clear();
    trace("reconnect", c);
  }

  void end_session(client& c, link how) {
    if (c.session_over()) return;
    c.state = how;
    const auto ec = how == link::expired ? make_error_code(zk_errc::session_expired)
                                         : make_error_code(errc::closed);
    for (auto& r : c.sent) c.inbox.push_back(failure_of(r, ec));
    for (auto& r : c.waiting) c.inbox.push_back(failure_of(r, ec));
    c.sent.clear();
    c.waiting.clear();
    c.watches.clear();
    c.fired_while_away.clear();
    std::vector<std::string> gone;
    for (const auto& [name, node] : server_.children) {
      if (node.owner == c.session) gone.push_back(name);
    }
    for (const auto& name : gone) remove_node(name);
    // The session layer may report only the new session it started, not the expiry.
    const bool only_new_session = how == link::expired && chance(0.25);
    const session_state reported = how == link::closed ? session_state::closed
                                   : only_new_session  ? session_state::connected
                                                       : session_state::expired;
    c.inbox.push_back(contender_event::session_changed{reported});
    trace(how == link::expired ? "expire" : "close", c);
  }

  void foreign_contender_arrives() {
    if (!server_.parent_exists) return;
    const std::int64_t owner = foreign_session();
    const int style = static_cast<int>(random_() % 3);
    if (style == 0)
      server_.create_sequential("_c_foreign" + std::to_string(owner) + "-lock-", owner);
    if (style == 1) server_.create_sequential("kz" + std::to_string(owner) + "__lock__", owner);
    if (style == 2) server_.children["config" + std::to_string(owner)] = {0, ++server_.last_zxid};
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
      log_.push_back("parent garbage-collected");
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
      if (node.owner == c.session) {
        log_.push_back("someone deletes " + name);
        c.node_deleted_by_other = true;
        return remove_node(name);
      }
    }
  }

  // Someone sets the data of our node: its watch fires, the node stays ours.
  void someone_writes_node_of(client& c) {
    for (const auto& [name, node] : server_.children) {
      if (node.owner == c.session) {
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
      check(server_.nodes_of(c.session) <= 1, "a session owns two nodes", c);
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
      shuffle(names);  // the server lists children in no particular order
      return contender_event::children_listed{r->tag, {}, listing(names)};
    }
    if (auto* r = std::get_if<read_node>(&request)) return read(r->tag, r->path);
    if (auto* r = std::get_if<watch_node>(&request)) {
      auto result = read(r->tag, r->path);
      // The driver registers the watch under its tag unless the machine dropped it already.
      if (result.stat && !c.dropped_watches.count(r->tag)) {
        c.watches[r->tag] = std::string(node_name_of(r->path));
      }
      return result;
    }
    const auto& del = std::get<delete_node>(request);
    const std::string name(node_name_of(del.path));
    const auto it = server_.children.find(name);
    if (it == server_.children.end())
      return contender_event::node_deleted{del.tag, zk(zk_errc::no_node)};
    check(it->second.owner == c.session, "deleted a node it does not own: " + name, c);
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
    fire_watches(name);
  }

  // One-shot watches on `name` fire (deleted or changed) and are consumed.
  void fire_watches(const std::string& name) {
    for (auto& c : clients_) {
      for (auto it = c->watches.begin(); it != c->watches.end();) {
        if (it->second != name) {
          ++it;
          continue;
        }
        if (c->state == link::connected) c->inbox.push_back(contender_event::watch_fired{it->first});
        if (c->state == link::disconnected) c->fired_while_away.push_back(it->first);
        it = c->watches.erase(it);
      }
    }
  }

  // ---- feeding the machine ---------------------------------------------------------------

  void feed(client& c, const contender_event_t& event) {
    const contender_fsm::state before = c.fsm.current_state();
    if (ends_session(event)) c.saw_session_end = true;
    trace("feed " + describe(event), c);
    const contender_actions actions = c.fsm.resume(event);
    perform(c, actions, &event);
    check_after_feed(c, before, event, actions);
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
  void on_action(client& c, const Request& r,
                 const contender_event_t*) requires std::is_base_of_v<contender_action::request, Request> {
    if constexpr (std::is_same_v<Request, contender_action::create_node>) {
      check(!c.saw_session_end, "created after its session ended", c);
      ++c.creates_sent;
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

  void on_action(client& c, const contender_action::drop_watch& a, const contender_event_t*) {
    c.watches.erase(a.tag);
    c.dropped_watches.insert(a.tag);
  }

  void on_action(client& c, const contender_action::complete_acquire& a, const contender_event_t* cause) {
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
    const auto* listed = cause ? std::get_if<contender_event::children_listed>(cause) : nullptr;
    check(listed && !listed->ec && listed->children &&
              listed->children->position_of(name) == std::optional<std::size_t>(0),
          "granted without a listing that shows its node first", c);
    if (server_.children.count(name)) {
      check(server_.children[name].owner == c.session, "granted a node of another session", c);
      check(contender_queue(server_.names()).position_of(name) == 0u, "granted while not first", c);
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
    check(server_.nodes_of(c.session) == 0 && !create_pending,
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
      check(c->watches.size() <= 1, "more than one watch armed", *c);
      const std::string own(node_name_of(c->fsm.own_node()));
      if (!own.empty() && server_.children.count(own)) {
        check(server_.owns(c->session, own), "takes a node of another session for its own", *c);
      }
    }
  }

  // Delivers everything, reconnects, lets foreign holders go and releases, until all finish.
  // A holder whose lock the world took is not released: it must report the loss itself.
  void drain() {
    log_.push_back("---- drain");
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
      if (busy) continue;
      bool all_done = true;
      for (auto& c : clients_) {
        if (c->fsm.current_state() == contender_fsm::state::held) {
          check(!c->fsm.in_doubt(), "still in doubt, connected and with nothing left to do", *c);
          check(!lost_in_world(*c),
                "its node was deleted (or its session ended) while held: loss never reported", *c);
          release(*c);
          busy = true;
        }
        all_done &= c->fsm.current_state() == contender_fsm::state::done;
      }
      if (all_done) return;
      if (busy) continue;
      if (!waiting_on_foreign_contender()) check(false, "stuck", *clients_.front());
      foreign_contender_leaves(true);
    }
    check(false, "did not settle", *clients_.front());
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
        check(server_.nodes_of(c->session) == 0, "left a node behind", *c);
        check(c->watches.empty(), "left a watch behind", *c);
      }
    }
  }

  // ---- helpers ---------------------------------------------------------------------------

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
          if constexpr (std::is_same_v<R, list_children>)
            return contender_event::children_listed{r.tag, ec, {}};
          if constexpr (std::is_same_v<R, read_node> || std::is_same_v<R, watch_node>) {
            return contender_event::node_read{r.tag, ec, std::nullopt};
          }
          if constexpr (std::is_same_v<R, delete_node>) return contender_event::node_deleted{r.tag, ec};
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
    log_.push_back("[" + std::to_string(c.session - first_session) + " " +
                   to_string(c.fsm.current_state()) + "] " + what);
  }

  void check(bool ok, const std::string& what, const client& c) {
    if (ok) return;
    std::ostringstream schedule;
    for (const auto& line : log_) schedule << line << '\n';
    BOOST_FAIL("invariant broken: "
               << what << "\nseed " << seed_ << ", client " << c.session - first_session
               << " (replay: ZKCOORD_PROPERTY_SEED=" << seed_ << ")\nschedule:\n"
               << schedule.str());
  }

  unsigned seed_;
  std::mt19937 random_;
  fake_server server_;
  std::vector<std::unique_ptr<client>> clients_;
  std::vector<std::string> log_;
};

}  // namespace

// ZKCOORD_PROPERTY_SEED=N runs only seed N (to replay a failure); ZKCOORD_PROPERTY_SCHEDULES=N
// runs seeds 1..N (a longer search than the default).
BOOST_AUTO_TEST_CASE(random_schedules_keep_the_invariants) {
  unsigned first = 1;
  unsigned last = schedules;
  if (const char* count = std::getenv("ZKCOORD_PROPERTY_SCHEDULES")) last = std::stoul(count);
  if (const char* one = std::getenv("ZKCOORD_PROPERTY_SEED")) first = last = std::stoul(one);
  for (unsigned seed = first; seed <= last; ++seed) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      simulation(seed).run(steps_per_schedule);
    }
  }
}
