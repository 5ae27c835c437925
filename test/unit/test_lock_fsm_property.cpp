// Randomized property test of the lock state machine: several contenders, each on its own
// session, drive their machines against a small in-memory model of one ZooKeeper lock path,
// while the model injects lost replies (the request applied or not), disconnects, session
// expiry and close, foreign contenders (Curator, kazoo) coming and going, container garbage
// collection of the parent, counters near the 32-bit overflow, aborts and releases.
//
// Invariants checked at every step: a grant only goes to the first contender on the server
// and never after the machine saw its session end; a session never owns two nodes; the
// machine never deletes a node it does not own, never creates after its session ended and
// acts no more once finished. At the end (everything delivered, the world drained): every
// machine finished, its acquire completed exactly once, and no node or watch of a live
// session is left.
#include "lock/lock_fsm.hpp"

#define BOOST_TEST_MODULE lock_fsm_property
#include <boost/test/unit_test.hpp>

#include "lock/node_name.hpp"

#include <zkcoord/path.hpp>
#include "lock/queue.hpp"
#include "lock_fsm_test_support.hpp"

#include <boost/asio/error.hpp>

#include <deque>
#include <map>
#include <random>
#include <sstream>

using namespace zkcoord;
using namespace zkcoord::detail;
using zkcoord::detail::testing::action_name;
using zkcoord::detail::testing::listing;
using zkcoord::detail::testing::sequence_suffix;

namespace {

const std::string lock_path = "/locks/p";

struct fake_node {
  std::int64_t owner;
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
  std::vector<std::string> names() const {
    std::vector<std::string> out;
    for (const auto& [name, node] : children) out.push_back(name);
    return out;
  }
};

enum class link { connected, disconnected, expired, closed };

struct client {
  client(std::int64_t id, lock_fsm_config config) : session(id), fsm(std::move(config)) {}

  std::int64_t session;
  lock_fsm fsm;
  link state = link::connected;
  std::deque<lock_fsm_action> sent;              // requests the server has not processed yet
  std::vector<lock_fsm_action> waiting;          // requests issued while disconnected
  std::deque<lock_fsm_event> inbox;              // results and events not yet fed to the machine
  std::map<std::uint64_t, std::string> watches;  // armed watch tag -> node name
  std::vector<std::uint64_t> fired_while_away;

  int acquire_completions = 0;
  int finished = 0;
  int release_completions = 0;
  bool granted = false;
  bool saw_session_end = false;
  bool aborted = false;
  bool release_asked = false;
};

class simulation {
 public:
  simulation(unsigned seed) : random_(seed) {
    if (chance(0.5)) server_.cversion = 0x7fffffffu - static_cast<std::uint32_t>(random_() % 8);
    const int contenders = 1 + static_cast<int>(random_() % 3);
    for (int i = 0; i < contenders; ++i) {
      const std::int64_t session = 0x1000 + i;
      const lock_mode mode = chance(0.2) ? lock_mode::try_once : lock_mode::wait;
      const auto prefix =
          protected_node_prefix("c" + std::to_string(i) + "-" + std::to_string(random_()));
      clients_.push_back(std::make_unique<client>(
          session, lock_fsm_config{lock_path, prefix, "host=h;pid=1;app=", session, mode}));
    }
    for (auto& c : clients_) perform(*c, c->fsm.start());
  }

  void run(int steps) {
    for (int i = 0; i < steps; ++i) random_step();
    drain();
    check_final_state();
  }

 private:
  // ---- the world moves -------------------------------------------------------------------

  void random_step() {
    client& c = *clients_[random_() % clients_.size()];
    const int roll = static_cast<int>(random_() % 1000);
    if (roll < 300) return process_one(c);
    if (roll < 600) return deliver_one(c, chance(0.05));
    if (roll < 640) return disconnect(c);
    if (roll < 700) return reconnect(c);
    if (roll < 710) return end_session(c, link::expired);
    if (roll < 713) return end_session(c, link::closed);
    if (roll < 770) return foreign_contender_arrives();
    if (roll < 850) return foreign_contender_leaves(chance(0.7));
    if (roll < 860) return collect_empty_parent();
    if (roll < 880) return abort_acquire(c);
    if (roll < 930) return release(c);
    if (roll < 932) return admin_deletes_node_of(c);
  }

  void process_one(client& c) {
    if (c.state != link::connected || c.sent.empty()) return;
    auto request = std::move(c.sent.front());
    c.sent.pop_front();
    c.inbox.push_back(execute(c, request));
  }

  void deliver_one(client& c, bool out_of_order) {
    if (c.inbox.empty()) return;
    const std::size_t at = out_of_order ? random_() % c.inbox.size() : 0;
    const lock_fsm_event event = c.inbox[at];
    c.inbox.erase(c.inbox.begin() + static_cast<std::ptrdiff_t>(at));
    if (ends_session(event)) c.saw_session_end = true;
    trace("feed " + describe(event), c);
    perform(c, c.fsm.resume(event));
  }

  void disconnect(client& c) {
    if (c.state != link::connected) return;
    c.state = link::disconnected;
    // Some requests reached the server before the connection broke; their replies are lost.
    const std::size_t applied = c.sent.empty() ? 0 : random_() % (c.sent.size() + 1);
    std::vector<lock_fsm_event> failures;
    for (std::size_t i = 0; i < c.sent.size(); ++i) {
      if (i < applied) execute(c, c.sent[i]);
      failures.push_back(failure_of(
          c.sent[i], chance(0.5) ? zk_errc::connection_loss : zk_errc::operation_timeout));
    }
    c.sent.clear();
    const std::size_t suspended_at = random_() % (failures.size() + 1);
    failures.insert(failures.begin() + static_cast<std::ptrdiff_t>(suspended_at),
                    lock_event::session_changed{session_state::suspended});
    for (auto& f : failures) c.inbox.push_back(std::move(f));
    trace("disconnect, " + std::to_string(applied) + " applied", c);
  }

  void reconnect(client& c) {
    if (c.state != link::disconnected) return;
    c.state = link::connected;
    c.inbox.push_back(lock_event::session_changed{session_state::reconnected});
    for (auto tag : c.fired_while_away) c.inbox.push_back(lock_event::watch_fired{tag});
    c.fired_while_away.clear();
    for (auto& request : c.waiting) c.sent.push_back(std::move(request));
    c.waiting.clear();
    trace("reconnect", c);
  }

  void end_session(client& c, link how) {
    if (c.state == link::expired || c.state == link::closed) return;
    c.state = how;
    const auto ec = how == link::expired ? make_error_code(zk_errc::session_expired)
                                         : make_error_code(errc::closed);
    for (auto& r : c.sent) c.inbox.push_back(failure_of(r, ec));
    for (auto& r : c.waiting) c.inbox.push_back(failure_of(r, ec));
    c.sent.clear();
    c.waiting.clear();
    c.watches.clear();
    std::vector<std::string> gone;
    for (const auto& [name, node] : server_.children) {
      if (node.owner == c.session) gone.push_back(name);
    }
    for (const auto& name : gone) remove_node(name);
    c.inbox.push_back(lock_event::session_changed{how == link::expired ? session_state::expired
                                                                       : session_state::closed});
    trace(how == link::expired ? "expire" : "close", c);
  }

  void foreign_contender_arrives() {
    if (!server_.parent_exists) return;
    const std::int64_t owner = 0x9000 + static_cast<std::int64_t>(random_() % 50);
    const int style = static_cast<int>(random_() % 3);
    if (style == 0)
      server_.create_sequential("_c_foreign" + std::to_string(owner) + "-lock-", owner);
    if (style == 1) server_.create_sequential("kz" + std::to_string(owner) + "__lock__", owner);
    if (style == 2) server_.children["config" + std::to_string(owner)] = {0, ++server_.last_zxid};
  }

  void foreign_contender_leaves(bool the_holder) {
    std::vector<std::string> foreign;
    const lock_queue queue(server_.names());
    for (const auto& node : queue.nodes()) {
      if (server_.children[node.name].owner >= 0x9000) foreign.push_back(node.name);
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
    const error_code reason = chance(0.5) ? error_code(boost::asio::error::operation_aborted)
                                          : make_error_code(errc::timeout);
    trace("abort", c);
    perform(c, c.fsm.resume(lock_event::abort_requested{reason}));
  }

  void release(client& c) {
    if (!c.granted || c.release_asked) return;
    c.release_asked = true;
    trace("release", c);
    perform(c, c.fsm.resume(lock_event::release_requested{}));
  }

  void admin_deletes_node_of(client& c) {
    for (const auto& [name, node] : server_.children) {
      if (node.owner == c.session) {
        log_.push_back("admin deletes " + name);
        return remove_node(name);
      }
    }
  }

  // ---- the server ------------------------------------------------------------------------

  lock_fsm_event execute(client& c, const lock_fsm_action& request) {
    using namespace lock_action;
    if (auto* r = std::get_if<create_node>(&request)) {
      if (!server_.parent_exists)
        return lock_event::node_created{r->tag, zk(zk_errc::no_node), {}, {}};
      const auto name =
          server_.create_sequential(std::string(node_name_of(r->path_prefix)), c.session);
      check(server_.nodes_of(c.session) <= 1, "a session owns two nodes", c);
      node_stat stat;
      stat.czxid = server_.children[name].czxid;
      stat.ephemeral_owner = c.session;
      return lock_event::node_created{r->tag, {}, join_path(lock_path, name), stat};
    }
    if (auto* r = std::get_if<create_parents>(&request)) {
      const bool existed = std::exchange(server_.parent_exists, true);
      if (!existed) server_.cversion = 0;  // a new parent starts counting again
      return lock_event::parents_created{
          r->tag, existed && chance(0.5) ? zk(zk_errc::node_exists) : error_code{}};
    }
    if (auto* r = std::get_if<list_children>(&request)) {
      if (!server_.parent_exists)
        return lock_event::children_listed{r->tag, zk(zk_errc::no_node), {}};
      auto names = server_.names();
      std::shuffle(names.begin(), names.end(), random_);
      return lock_event::children_listed{r->tag, {}, listing(names)};
    }
    if (auto* r = std::get_if<read_node>(&request)) return read(r->tag, r->path);
    if (auto* r = std::get_if<watch_node>(&request)) {
      auto result = read(r->tag, r->path);
      if (result.stat) c.watches[r->tag] = std::string(node_name_of(r->path));
      return result;
    }
    const auto& del = std::get<delete_node>(request);
    const std::string name(node_name_of(del.path));
    const auto it = server_.children.find(name);
    if (it == server_.children.end())
      return lock_event::node_deleted{del.tag, zk(zk_errc::no_node)};
    check(it->second.owner == c.session, "deleted a node it does not own: " + name, c);
    remove_node(name);
    return lock_event::node_deleted{del.tag, {}};
  }

  lock_event::node_read read(std::uint64_t tag, const std::string& path) {
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
    for (auto& c : clients_) {
      for (auto it = c->watches.begin(); it != c->watches.end();) {
        if (it->second != name) {
          ++it;
          continue;
        }
        if (c->state == link::connected) c->inbox.push_back(lock_event::watch_fired{it->first});
        if (c->state == link::disconnected) c->fired_while_away.push_back(it->first);
        it = c->watches.erase(it);
      }
    }
  }

  // ---- the machine's actions -------------------------------------------------------------

  void perform(client& c, lock_fsm_actions actions) {
    for (auto& action : actions) {
      trace(std::string("  -> ") + action_name(action), c);
      check(c.finished == 0 || std::holds_alternative<lock_action::complete_release>(action),
            "acted after finishing", c);
      std::visit([&](auto& a) { on_action(c, a); }, action);
    }
  }

  template <class Request>
  void on_action(client& c, Request& r) requires std::is_base_of_v<lock_action::request, Request> {
    if constexpr (std::is_same_v<Request, lock_action::create_node>) {
      check(!c.saw_session_end, "created after its session ended", c);
    }
    if (c.state == link::expired || c.state == link::closed) {
      const auto ec = c.state == link::expired ? make_error_code(zk_errc::session_expired)
                                               : make_error_code(errc::closed);
      c.inbox.push_back(failure_of(r, ec));
    } else if (c.state == link::disconnected) {
      c.waiting.push_back(r);
    } else {
      c.sent.push_back(r);
    }
  }
  void on_action(client& c, lock_action::drop_watch& a) { c.watches.erase(a.tag); }
  void on_action(client& c, lock_action::complete_acquire& a) {
    ++c.acquire_completions;
    check(c.acquire_completions == 1, "acquire completed twice", c);
    check(a.grant.has_value() == !a.ec, "grant and error disagree", c);
    if (!a.grant) return;
    check(!c.saw_session_end, "granted after the session ended", c);
    check(!c.aborted, "granted after abort", c);
    c.granted = true;
    const auto name = std::string(node_name_of(a.grant->path));
    if (server_.children.count(name)) {
      check(lock_queue(server_.names()).position_of(name) == 0u, "granted while not first", c);
      check(server_.children[name].czxid == a.grant->token().value(), "token is not the czxid", c);
    }
  }
  void on_action(client& c, lock_action::complete_release&) { ++c.release_completions; }
  void on_action(client& c, lock_action::finished&) { ++c.finished; }
  void on_action(client&, lock_action::set_in_doubt&) {}
  void on_action(client& c, lock_action::report_lost&) {
    check(c.granted, "lost but never held", c);
  }

  // ---- the end ---------------------------------------------------------------------------

  // Delivers everything, reconnects, lets foreign holders go and releases, until all finish.
  void drain() {
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
        if (c->fsm.current_state() == lock_fsm::state::held && !c->release_asked) {
          release(*c);
          busy = true;
        }
        all_done &= c->fsm.current_state() == lock_fsm::state::done;
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
    const lock_queue queue(server_.names());
    for (const auto& node : queue.nodes()) {
      if (server_.children[node.name].owner >= 0x9000) return true;
    }
    std::erase_if(server_.children, [](const auto& child) { return child.second.owner == 0; });
    return false;
  }

  void check_final_state() {
    for (auto& c : clients_) {
      check(c->fsm.current_state() == lock_fsm::state::done, "not finished", *c);
      check(c->acquire_completions == 1, "acquire not completed exactly once", *c);
      check(c->finished == 1, "finished not reported exactly once", *c);
      check(!c->release_asked || c->release_completions == 1, "release not completed", *c);
      if (c->state == link::connected) {
        check(server_.nodes_of(c->session) == 0, "left a node behind", *c);
        check(c->watches.empty(), "left a watch behind", *c);
      }
    }
  }

  // ---- helpers ---------------------------------------------------------------------------

  static error_code zk(zk_errc e) { return make_error_code(e); }

  static lock_fsm_event failure_of(const lock_fsm_action& request, error_code ec) {
    using namespace lock_action;
    return std::visit(
        [&](const auto& r) -> lock_fsm_event {
          using R = std::decay_t<decltype(r)>;
          if constexpr (std::is_same_v<R, create_node>)
            return lock_event::node_created{r.tag, ec, {}, {}};
          if constexpr (std::is_same_v<R, create_parents>)
            return lock_event::parents_created{r.tag, ec};
          if constexpr (std::is_same_v<R, list_children>)
            return lock_event::children_listed{r.tag, ec, {}};
          if constexpr (std::is_same_v<R, read_node> || std::is_same_v<R, watch_node>) {
            return lock_event::node_read{r.tag, ec, std::nullopt};
          }
          if constexpr (std::is_same_v<R, delete_node>) return lock_event::node_deleted{r.tag, ec};
          throw std::logic_error("not a request");
        },
        request);
  }
  static lock_fsm_event failure_of(const lock_fsm_action& request, zk_errc e) {
    return failure_of(request, make_error_code(e));
  }

  static bool ends_session(const lock_fsm_event& event) {
    if (auto* s = std::get_if<lock_event::session_changed>(&event)) {
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

  static std::string describe(const lock_fsm_event& event) {
    return std::visit(
        [](const auto& e) {
          std::ostringstream out;
          out << typeid(e).name();
          if constexpr (requires { e.ec; }) out << " ec=" << e.ec.message();
          if constexpr (requires { e.tag; }) out << " tag=" << e.tag;
          if constexpr (requires { e.state; }) out << " state=" << to_string(e.state);
          return out.str();
        },
        event);
  }

  bool chance(double p) { return std::uniform_real_distribution<>(0, 1)(random_) < p; }

  void trace(const std::string& what, const client& c) {
    log_.push_back("[" + std::to_string(c.session - 0x1000) + " " +
                   to_string(c.fsm.current_state()) + "] " + what);
  }

  void check(bool ok, const std::string& what, const client& c) {
    if (ok) return;
    std::ostringstream out;
    const std::size_t from = log_.size() > 80 ? log_.size() - 80 : 0;
    for (std::size_t i = from; i < log_.size(); ++i) out << log_[i] << '\n';
    BOOST_FAIL("client " << c.session - 0x1000 << ": " << what << "\nlast steps:\n" << out.str());
  }

  std::mt19937 random_;
  fake_server server_;
  std::vector<std::unique_ptr<client>> clients_;
  std::vector<std::string> log_;
};

}  // namespace

BOOST_AUTO_TEST_CASE(random_schedules_keep_the_invariants) {
  for (unsigned seed = 1; seed <= 10000; ++seed) {
    BOOST_TEST_CONTEXT("seed " << seed) {
      simulation(seed).run(300);
    }
  }
}
