// SPDX-License-Identifier: Apache-2.0
#include "try_it/lesson_run.hpp"

#include "common/child_process.hpp"
#include "common/command_line.hpp"
#include "common/run_directory.hpp"
#include "common/worker_fleet.hpp"
#include "seat_booking/options.hpp"
#include "seat_booking/seats_db.hpp"
#include "try_it/lesson_verdict.hpp"
#include "try_it/worker_events.hpp"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <atomic>
#include <csignal>
#include <future>
#include <optional>
#include <stdexcept>

namespace zkcoord::cli::try_it {
namespace {

namespace asio = boost::asio;
using clock = std::chrono::steady_clock;
using boost::json::object;

constexpr std::size_t worker_a = 0, worker_b = 1;
constexpr int seat_number = 14;  // the last seat: C14

char letter(std::size_t index) {
  return index == worker_a ? 'A' : 'B';
}

seat_booking::booking_mode booking_mode_of(protection p) {
  switch (p) {
    case protection::lock:
      return seat_booking::booking_mode::lock;
    case protection::fenced:
      return seat_booking::booking_mode::fenced;
    case protection::conditional:
      break;
  }
  return seat_booking::booking_mode::conditional;
}

bool uses_lock(protection p) {
  return p != protection::conditional;
}

/// Tells, on the observer session's executor, when the server deletes A's lock node: the
/// first in the queue under `lock_path` (the lowest sequence number; A was granted first).
class deletion_watch : public std::enable_shared_from_this<deletion_watch> {
 public:
  deletion_watch(zkcoord::session& zk, std::string lock_path, std::function<void()> deleted)
      : zk_(zk), path_(std::move(lock_path)), deleted_(std::move(deleted)) {}

  /// Arms the watch; the future is ready once it is armed (or could not be).
  std::future<void> start() {
    auto armed = armed_.get_future();
    asio::post(zk_.get_executor(), [self = shared_from_this()] { self->list(); });
    return armed;
  }
  /// No callback after this (the callback checks `done_` on the executor).
  void stop() {
    done_ = true;
    asio::post(zk_.get_executor(), [self = shared_from_this()] { self->watch_.reset(); });
  }

 private:
  static std::string_view sequence_of(const std::string& name) {
    return std::string_view(name).substr(name.size() >= 10 ? name.size() - 10 : 0);
  }

  void list() {
    zk_.async_children(path_, [self = shared_from_this()](error_code ec, child_list children) {
      if (ec || children.names.empty() || self->done_) return self->armed_.set_value();
      const auto first = std::min_element(
          children.names.begin(), children.names.end(),
          [](const auto& a, const auto& b) { return sequence_of(a) < sequence_of(b); });
      self->watch_.emplace();
      self->zk_.async_exists(self->path_ + "/" + *first, *self->watch_,
                             [self](error_code ec, std::optional<node_stat> stat) {
                               self->armed_.set_value();
                               if (ec || !stat || !self->watch_) return;
                               self->watch_->async_wait([self](error_code ec, watch_event e) {
                                 if (!ec && e.type == watch_event_type::deleted && !self->done_)
                                   self->deleted_();
                               });
                             });
    });
  }

  zkcoord::session& zk_;
  std::string path_;
  std::function<void()> deleted_;
  std::optional<zkcoord::watch> watch_;
  std::promise<void> armed_;
  std::atomic<bool> done_{false};
};

class lesson {
 public:
  lesson(const lesson_setup& setup, const event_sink& emit)
      : setup_(setup),
        emit_(emit),
        fleet_(setup.directory, [](std::size_t i) { return std::string("worker-") + letter(i); }) {
    facts_.params = setup.params;
  }

  void run() {
    const auto& p = setup_.params;
    emit(object{{"type", "run_started"},
                {"lease_s", p.lease_s},
                {"pause_s", p.pause_s},
                {"mode", to_string(p.mode)},
                {"scale_ms", p.scale_ms},
                {"lease_ms", p.lease().count()},
                {"pause_ms", p.pause().count()},
                {"seat", "C" + std::to_string(seat_number)}});
    const auto database = setup_.directory / "seats.db";
    seat_booking::seats_db(database).create(1, seat_number);
    lock_path_ = "/zkcoord-try-it/" + examples::run_directory::random_name() + "/show";
    for (std::size_t i : {worker_a, worker_b}) fleet_.spawn(worker_argv(i, database));
    fleet_.wait_ready(std::chrono::seconds(30),
                      [this](std::size_t i, const std::string& line) { on_line(i, line); });
    fleet_.at(worker_a).send_line("start");
    follow();
    finish(database);
  }

  ~lesson() {
    if (watch_) watch_->stop();
  }

 private:
  std::vector<std::string> worker_argv(std::size_t index, const std::filesystem::path& db) const {
    seat_booking::worker_options w{.mode = booking_mode_of(setup_.params.mode),
                                   .id = static_cast<int>(index) + 1,
                                   .db = db.string(),
                                   .connect = setup_.connect,
                                   .lock_path = lock_path_,
                                   .delay = std::chrono::milliseconds(0),
                                   .session_timeout = setup_.params.lease(),
                                   .handshake = true,
                                   .customer = customer_of(letter(index)),
                                   .broken_fence_check = setup_.broken_fence_check};
    auto argv = seat_booking::worker_argv(w);
    argv.insert(argv.begin() + 1, "try-it-worker");
    return argv;
  }

  void emit(object e) {
    e["run"] = setup_.run;
    e["t_ms"] =
        std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - start_).count();
    emit_(std::move(e));
  }

  void follow() {
    const auto limit = std::chrono::seconds(60) + setup_.params.lease() + setup_.params.pause();
    while (!fleet_.all_exited()) {
      if (setup_.stop && *setup_.stop)
        throw std::runtime_error("the try-it server stopped; the run was ended");
      if (clock::now() - start_ > limit)
        throw std::runtime_error("the run took too long; its workers were stopped");
      for (auto& [index, line] : fleet_.poll(std::chrono::milliseconds(10))) on_line(index, line);
      if (a_->frozen && clock::now() >= resume_at_) resume();
    }
    for (std::size_t i : {worker_a, worker_b})
      emit(object{{"type", "exited"},
                  {"worker", std::string(1, letter(i))},
                  {"status", *fleet_.at(i).poll_exit()}});
  }

  void on_line(std::size_t index, const std::string& line) {
    const char w = letter(index);
    if (auto e = read_worker_line(w, line, facts_)) emit(std::move(*e));
    if (line.starts_with("holds the lock") && index == worker_a) watch_a_node();
    if (!line.starts_with("checked")) return;
    auto& worker = fleet_.at(index);
    if (index == worker_b || started_b_) {
      worker.send_line("go");
      return;
    }
    // A found C14 free: freeze it between its check and its write, then let B in.
    if (setup_.params.pause().count() > 0) {
      worker.signal(SIGSTOP);
      a_->frozen = true;
      resume_at_ = clock::now() + setup_.params.pause();
      emit(
          object{{"type", "frozen"}, {"worker", "A"}, {"pause_ms", setup_.params.pause().count()}});
    }
    worker.send_line("go");  // read once it runs again
    started_b_ = true;
    fleet_.at(worker_b).send_line("start");
  }

  void resume() {
    a_->frozen = false;
    fleet_.at(worker_a).signal(SIGCONT);
    emit(object{{"type", "resumed"}, {"worker", "A"}});
  }

  // The callback runs on the observer's executor, possibly while this object ends: it
  // touches only what it shares.
  void watch_a_node() {
    if (!setup_.observer || !uses_lock(setup_.params.mode)) return;
    watch_ = std::make_shared<deletion_watch>(
        *setup_.observer, lock_path_, [a = a_, emit = emit_, run = setup_.run, start = start_] {
          if (!a->frozen) return;  // A released it itself
          a->expired = true;
          const auto t =
              std::chrono::duration_cast<std::chrono::milliseconds>(clock::now() - start);
          emit(object{
              {"type", "lease_expired"}, {"worker", "A"}, {"run", run}, {"t_ms", t.count()}});
        });
    // Armed before B queues: then A's node is the only one, and its deletion is never missed.
    if (watch_->start().wait_for(std::chrono::seconds(5)) != std::future_status::ready)
      throw std::runtime_error("the server did not answer the watch of A's lock node");
  }

  void finish(const std::filesystem::path& database) {
    if (watch_) watch_->stop();
    facts_.a_lease_expired = a_->expired;
    seat_booking::seats_db db(database);
    boost::json::array seats, confirmations;
    facts_.seats = db.seats();
    facts_.confirmations = db.confirmations();
    for (const auto& s : facts_.seats)
      seats.push_back(object{{"seat", s.seat},
                             {"holder", s.holder ? boost::json::value(*s.holder) : nullptr},
                             {"fence", std::to_string(s.fence)}});
    for (const auto& c : facts_.confirmations)
      confirmations.push_back(
          object{{"customer", c.customer}, {"seat", c.seat}, {"honoured", c.honoured}});
    const auto v = judge(facts_);
    emit(object{{"type", "finished"},
                {"seats", std::move(seats)},
                {"confirmations", std::move(confirmations)},
                {"database", database.string()},
                {"verdict", object{{"kind", to_string(v.kind)}, {"text", v.text}}}});
    remove_lock_nodes();
  }

  // The lock's parents are container nodes the server would collect anyway; removing them
  // at once leaves the server as the run found it (best effort: a node still there stays).
  void remove_lock_nodes() {
    if (!setup_.observer || !uses_lock(setup_.params.mode)) return;
    auto* zk = setup_.observer;
    const auto parent = lock_path_.substr(0, lock_path_.rfind('/'));
    for (const auto& path : {lock_path_, parent}) {
      auto removed = std::make_shared<std::promise<error_code>>();
      auto result = removed->get_future();
      asio::post(zk->get_executor(), [zk, path, removed] {
        zk->async_remove(path, -1, [removed](error_code ec) { removed->set_value(ec); });
      });
      if (result.wait_for(std::chrono::seconds(5)) != std::future_status::ready || result.get())
        return;
    }
  }

  const lesson_setup& setup_;
  const event_sink& emit_;
  examples::worker_fleet fleet_;
  run_facts facts_;
  std::string lock_path_;
  clock::time_point start_ = clock::now();
  clock::time_point resume_at_;
  struct a_state {
    std::atomic<bool> frozen{false};
    std::atomic<bool> expired{false};
  };
  std::shared_ptr<a_state> a_ = std::make_shared<a_state>();
  bool started_b_ = false;
  std::shared_ptr<deletion_watch> watch_;
};

}  // namespace

void run_lesson(const lesson_setup& setup, const event_sink& emit) {
  try {
    lesson(setup, emit).run();
  } catch (const std::exception& e) {
    emit(object{{"type", "failed"}, {"run", setup.run}, {"message", e.what()}});
  }
}

}  // namespace zkcoord::cli::try_it
