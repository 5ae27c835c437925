// SPDX-License-Identifier: Apache-2.0
// The job of `zkcoord lock` (COMMAND and every process descended from it, background,
// setsid'd and double-forked ones included) never outlives the lock: it ends before the lock is
// released, dies with zkcoord when zkcoord is killed, and is killed at the lease deadline when
// zkcoord is frozen, before the next holder's job starts. Issue 11, part 1.
#include "cli/cli_process.hpp"

#include <zkcoord/path.hpp>
#include <zkcoord/session.hpp>

#define BOOST_TEST_MODULE cli_job
#include <boost/test/unit_test.hpp>

#include "cli/cli_fixture.hpp"

#include <dirent.h>
#include <signal.h>
#include <sys/types.h>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <map>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

using namespace zkcoord;
using namespace std::chrono_literals;
using test::clean_env;
using test::cli_process;
using test::eventually;
using test::global_server;

BOOST_TEST_GLOBAL_FIXTURE(global_server);

namespace {

// ---- Processes as /proc shows them ----

// A pid alone can be reused (pid_max is 32768 here); its start time tells the processes apart.
struct process_id {
  pid_t pid = 0;
  unsigned long long start_time = 0;  // clock ticks after boot; 0: already gone when recorded
};

struct proc_stat {
  char state = '?';
  pid_t ppid = 0;
  unsigned long long start_time = 0;
};

std::optional<proc_stat> stat_of(pid_t pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!std::getline(in, line)) return std::nullopt;
  // The command name (field 2) may hold spaces and parentheses: fields resume after the last ')'.
  auto name_end = line.rfind(')');
  if (name_end == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(name_end + 1));
  proc_stat s;
  fields >> s.state >> s.ppid;
  std::string skipped;
  for (int field = 5; field <= 21; ++field) fields >> skipped;
  fields >> s.start_time;
  if (!fields) return std::nullopt;
  return s;
}

process_id identify(pid_t pid) {
  auto s = stat_of(pid);
  return {pid, s ? s->start_time : 0};
}

/// A zombie, or a process gone (or replaced by another with the same pid), is dead.
bool alive(const process_id& p) {
  auto s = stat_of(p.pid);
  return p.start_time != 0 && s && s->start_time == p.start_time && s->state != 'Z' &&
         s->state != 'X';
}

std::string cmdline_of(pid_t pid) {
  std::string cmd = test::read_file("/proc/" + std::to_string(pid) + "/cmdline");
  std::replace(cmd.begin(), cmd.end(), '\0', ' ');
  while (!cmd.empty() && cmd.back() == ' ') cmd.pop_back();
  return cmd;
}

std::string describe(const std::vector<process_id>& ps) {
  std::string out;
  for (const auto& p : ps) {
    auto s = stat_of(p.pid);
    out += (out.empty() ? "" : ", ") + std::to_string(p.pid) + " [" + cmdline_of(p.pid) +
           "] state " + (s ? std::string(1, s->state) : "?") + " ppid " +
           (s ? std::to_string(s->ppid) : "?");
  }
  return out.empty() ? "none" : out;
}

std::vector<process_id> survivors(const std::vector<process_id>& ps) {
  std::vector<process_id> out;
  for (const auto& p : ps)
    if (alive(p)) out.push_back(p);
  return out;
}

/// The ones still alive after `bound`; empty when all died in time.
std::vector<process_id> wait_all_dead(const std::vector<process_id>& ps,
                                      std::chrono::milliseconds bound) {
  eventually([&] { return survivors(ps).empty(); }, bound);
  return survivors(ps);
}

/// Whitespace-separated pids a job script wrote, identified now.
std::vector<process_id> read_pids(const std::string& file) {
  std::istringstream in(test::read_file(file));
  std::vector<process_id> out;
  for (pid_t pid; in >> pid;) out.push_back(identify(pid));
  return out;
}

bool operator==(const process_id& a, const process_id& b) {
  return a.pid == b.pid && a.start_time == b.start_time;
}

void add_unique(std::vector<process_id>& to, const std::vector<process_id>& more) {
  for (const auto& p : more)
    if (std::find(to.begin(), to.end(), p) == to.end()) to.push_back(p);
}

/// Every process below `ancestor` right now (not `ancestor` itself).
std::vector<process_id> descendants_of(pid_t ancestor) {
  std::multimap<pid_t, process_id> by_parent;
  if (DIR* proc = ::opendir("/proc")) {
    while (dirent* entry = ::readdir(proc)) {
      char* end = nullptr;
      long pid = std::strtol(entry->d_name, &end, 10);
      if (*end != '\0' || pid <= 0) continue;
      if (auto s = stat_of(pid))
        by_parent.emplace(s->ppid, process_id{static_cast<pid_t>(pid), s->start_time});
    }
    ::closedir(proc);
  }
  std::vector<process_id> out;
  std::vector<pid_t> frontier{ancestor};
  while (!frontier.empty()) {
    pid_t parent = frontier.back();
    frontier.pop_back();
    auto [first, last] = by_parent.equal_range(parent);
    for (auto it = first; it != last; ++it) {
      out.push_back(it->second);
      frontier.push_back(it->second.pid);
    }
  }
  return out;
}

// Everything a test saw of a job (its scripts' pids, zkcoord's process tree: the guard among
// them), SIGKILLed with whatever it started since when the test ends. cli_process only kills
// zkcoord's process group, and the job runs in a group (or session) of its own: without this a
// red run would leave its sleeps behind.
class job_reaper {
 public:
  job_reaper() = default;
  job_reaper(const job_reaper&) = delete;
  job_reaper& operator=(const job_reaper&) = delete;
  ~job_reaper() {
    std::vector<process_id> doomed;
    for (const auto& p : survivors(recorded_)) {
      doomed.push_back(p);
      for (const auto& d : descendants_of(p.pid)) doomed.push_back(d);
    }
    for (const auto& p : doomed)
      if (alive(p)) ::kill(p.pid, SIGKILL);
  }

  void record(const std::vector<process_id>& ps) {
    recorded_.insert(recorded_.end(), ps.begin(), ps.end());
  }
  const std::vector<process_id>& recorded() const noexcept { return recorded_; }

 private:
  std::vector<process_id> recorded_;
};

// ---- The fixture: job scripts, run under `zkcoord lock`, recorded ----

struct job_fixture : test::cli_fixture {
  job_reaper reaper;

  // A script in the scratch directory, run as `sh FILE SCRATCH`: "$1" is where it writes.
  std::vector<std::string> job(const std::string& name, const std::string& text) {
    std::ofstream(file(name)) << text;
    return {"sh", file(name), scratch.string()};
  }
  std::vector<std::string> lock(std::vector<std::string> options, const std::string& path,
                                const std::vector<std::string>& command) const {
    std::vector<std::string> args{"lock"};
    args.insert(args.end(), options.begin(), options.end());
    args.push_back(path);
    args.push_back("--");
    args.insert(args.end(), command.begin(), command.end());
    return zkcoord(args);
  }

  // What a test recorded of a running job: `job` is what the job's script wrote to its pid
  // file and what those processes had started by then; `all` adds zkcoord's whole process
  // tree at that moment (the guard, wherever the job sits under it).
  struct recorded_job {
    std::vector<process_id> job;
    std::vector<process_id> all;
  };

  // Once the job wrote `ready`: records (for the reaper too) and returns what runs. Records
  // what it can see even when the job never gets ready, so that the reaper ends it.
  recorded_job record_job(const cli_process& zkcoord_run, const std::string& ready,
                          const std::string& pids_file, std::size_t expected_pids) {
    bool started = eventually([&] { return exists(ready); }, 30s);
    recorded_job r;
    r.job = read_pids(file(pids_file));
    std::size_t written = r.job.size();
    for (std::size_t i = 0; i < written; ++i) add_unique(r.job, descendants_of(r.job[i].pid));
    r.all = r.job;
    auto tree = descendants_of(zkcoord_run.pid());
    add_unique(r.all, tree);
    reaper.record(r.all);
    BOOST_REQUIRE_MESSAGE(started, "the job did not start; stderr: " << zkcoord_run.err_so_far());
    BOOST_REQUIRE_EQUAL(written, expected_pids);
    std::vector<process_id> written_pids(r.job.begin(), r.job.begin() + written);
    BOOST_REQUIRE_MESSAGE(survivors(written_pids).size() == written,
                          "every process the job wrote runs: " << describe(written_pids));
    BOOST_TEST_MESSAGE("job: " << describe(r.job) << "; zkcoord's tree: " << describe(tree));
    return r;
  }

  bool no_lock_node_within(const std::string& path, std::chrono::milliseconds bound) {
    return eventually([&] { return children(path).empty(); }, bound);
  }
};

// Two sleeps in the background, one in a session of its own, one orphaned by a double fork.
const std::string escaping_job = R"sh(d=$1
echo $$ >> "$d/pids"
sleep 301 & echo $! >> "$d/pids"
sleep 302 & echo $! >> "$d/pids"
setsid sh -c 'echo $$ >> "$1/pids"; exec sleep 303' sh "$d" &
sh -c 'sleep 304 & echo $! >> "$1/pids"' sh "$d"
while [ "$(wc -l < "$d/pids")" -lt 5 ]; do sleep 0.05; done
touch "$d/ready"
wait
)sh";

void check_killed_outright(job_fixture& f, int sig) {
  std::string path = f.root + "/killed";
  cli_process p(f.lock({"--session-timeout", "2s"}, path, f.job("job.sh", escaping_job)),
                clean_env);
  auto recorded = f.record_job(p, "ready", "pids", 5);
  p.signal(sig);
  BOOST_TEST(p.wait(30s).status == 128 + sig);
  auto left = wait_all_dead(recorded.all, 10s);
  BOOST_TEST(left.empty(), "alive 10 s after zkcoord was killed: " << describe(left));
  BOOST_TEST(f.no_lock_node_within(path, 20s), "the lock node is gone once the session expired");
}

// The top shell dies of the signal. A non-interactive sh starts background jobs with SIGINT
// ignored, so the plain sleep survives a forwarded SIGINT; the other ignores TERM and HUP too.
const std::string leftover_job = R"sh(d=$1
echo $$ >> "$d/pids"
sleep 300 & echo $! >> "$d/pids"
sh -c 'trap "" TERM HUP; echo $$ >> "$1/pids"; exec sleep 305' sh "$d" &
while [ "$(wc -l < "$d/pids")" -lt 3 ]; do sleep 0.05; done
touch "$d/ready"
wait
)sh";

void check_stop_signal(job_fixture& f, int sig) {
  std::string path = f.root + "/stopped";
  cli_process p(f.lock({"--grace", "1s"}, path, f.job("job.sh", leftover_job)), clean_env);
  auto recorded = f.record_job(p, "ready", "pids", 3);
  // The background sleep ignores SIGINT from its exec on.
  BOOST_REQUIRE(eventually([&] { return cmdline_of(recorded.job[1].pid) == "sleep 300"; }));
  p.signal(sig);
  auto r = p.wait(30s);
  // Looked at once zkcoord has exited: it waits for every descendant before it releases.
  auto left = survivors(recorded.all);
  auto nodes = f.children(path);
  BOOST_TEST(r.status == 128 + sig, "status " << r.status << "; stderr: " << r.err);
  BOOST_TEST(left.empty(), "alive after zkcoord exited: " << describe(left));
  BOOST_TEST(nodes.empty(), "the lock node is gone when zkcoord exits");
}

// The top process ends at the first SIGTERM; its child ignores SIGTERM and runs on.
const std::string term_ignoring_grandchild_job = R"sh(d=$1
echo $$ >> "$d/pids"
sh -c 'trap "" TERM; echo $$ >> "$1/pids"; exec sleep 306' sh "$d" &
trap 'exit 0' TERM
while [ "$(wc -l < "$d/pids")" -lt 2 ]; do sleep 0.05; done
touch "$d/ready"
wait
)sh";

// COMMAND exits 0 once the test says "go", leaving two background children, one ignoring TERM.
const std::string background_leftover_job = R"sh(d=$1
echo $$ >> "$d/pids"
sleep 362 & echo $! >> "$d/pids"
sh -c 'trap "" TERM; echo $$ >> "$1/pids"; exec sleep 363' sh "$d" &
while [ "$(wc -l < "$d/pids")" -lt 3 ]; do sleep 0.05; done
touch "$d/ready"
while [ ! -e "$d/go" ]; do sleep 0.05; done
exit 0
)sh";

// Nothing goes wrong: a background child that finishes, waited for, and a status of its own.
const std::string finishing_job = R"sh(d=$1
echo $$ >> "$d/pids"
sleep 0.2 & echo $! >> "$d/pids"
touch "$d/ready"
while [ ! -e "$d/go" ]; do sleep 0.05; done
wait
exit 3
)sh";

// Job 1 of the frozen holder: appends the realtime clock (ns) until killed, with a background
// sleep that must die too. Job 2 notes when it started.
const std::string timestamping_job = R"sh(d=$1
echo $$ >> "$d/pids"
sleep 3000 & echo $! >> "$d/pids"
date +%s%N >> "$d/job1.times"
touch "$d/ready"
while :; do date +%s%N >> "$d/job1.times"; sleep 0.05; done
)sh";
const std::string start_noting_job = R"sh(d=$1
date +%s%N > "$d/job2.tmp" && mv "$d/job2.tmp" "$d/job2.start"
)sh";

// The complete lines of a timestamp file (a killed writer may leave a partial last one).
std::vector<long long> timestamps(const std::string& text) {
  std::vector<long long> out;
  std::size_t start = 0;
  for (auto end = text.find('\n'); end != std::string::npos; end = text.find('\n', start)) {
    out.push_back(std::stoll(text.substr(start, end - start)));
    start = end + 1;
  }
  return out;
}

}  // namespace

BOOST_FIXTURE_TEST_SUITE(job_dies_with_the_lock, job_fixture)

BOOST_AUTO_TEST_CASE(sigkill_of_zkcoord_kills_the_whole_job) {
  check_killed_outright(*this, SIGKILL);
}

BOOST_AUTO_TEST_CASE(sigusr1_of_zkcoord_kills_the_whole_job) {
  check_killed_outright(*this, SIGUSR1);
}

BOOST_AUTO_TEST_CASE(sigint_ends_every_descendant_before_the_release) {
  check_stop_signal(*this, SIGINT);
}

BOOST_AUTO_TEST_CASE(sigterm_ends_every_descendant_before_the_release) {
  check_stop_signal(*this, SIGTERM);
}

BOOST_AUTO_TEST_CASE(sighup_ends_every_descendant_before_the_release) {
  check_stop_signal(*this, SIGHUP);
}

BOOST_AUTO_TEST_CASE(lost_lock_kills_a_term_ignoring_grandchild_after_the_top_exited) {
  std::string path = root + "/lost";
  cli_process p(lock({"--grace", "1s"}, path, job("job.sh", term_ignoring_grandchild_job)),
                clean_env);
  auto recorded = record_job(p, "ready", "pids", 2);
  auto nodes = children(path);
  BOOST_REQUIRE_EQUAL(nodes.size(), 1u);
  // Someone else deleting our node is how a lock is lost without waiting for an expiry.
  auto [ec] = test::get(zk.async_remove(join_path(path, nodes[0]), -1, test::tuple_future));
  BOOST_REQUIRE(!ec);
  auto r = p.wait(30s);
  auto left = survivors(recorded.all);
  BOOST_TEST(r.status == 76, "status " << r.status << "; stderr: " << r.err);
  BOOST_TEST(left.empty(), "alive after zkcoord exited: " << describe(left));
}

BOOST_AUTO_TEST_CASE(command_exit_ends_its_background_children_before_the_release) {
  std::string path = root + "/leftover";
  cli_process p(lock({"--grace", "1s"}, path, job("job.sh", background_leftover_job)), clean_env);
  auto recorded = record_job(p, "ready", "pids", 3);
  std::ofstream(file("go")).put('x');
  auto r = p.wait(30s);
  auto left = survivors(recorded.all);
  auto nodes = children(path);
  BOOST_TEST(r.status == 0, "status " << r.status << "; stderr: " << r.err);
  BOOST_TEST(left.empty(), "alive after zkcoord exited: " << describe(left));
  BOOST_TEST(nodes.empty(), "the lock node is gone when zkcoord exits");
}

BOOST_AUTO_TEST_CASE(normal_run_passes_the_status_and_leaves_nothing) {
  std::string path = root + "/normal";
  cli_process p(lock({}, path, job("job.sh", finishing_job)), clean_env);
  auto recorded = record_job(p, "ready", "pids", 2);
  std::ofstream(file("go")).put('x');
  auto r = p.wait(30s);
  auto left = survivors(recorded.all);
  auto nodes = children(path);
  BOOST_TEST(r.status == 3, "status " << r.status << "; stderr: " << r.err);
  BOOST_TEST(r.err.empty(), r.err);
  BOOST_TEST(left.empty(), "alive after zkcoord exited: " << describe(left));
  BOOST_TEST(nodes.empty(), "the lock node is gone when zkcoord exits");
}

BOOST_AUTO_TEST_CASE(frozen_holder_job_is_dead_before_the_next_holder_starts) {
  std::string path = root + "/frozen";
  cli_process first(
      lock({"--session-timeout", "2s", "--grace", "1s"}, path, job("job1.sh", timestamping_job)),
      clean_env);
  auto recorded = record_job(first, "ready", "pids", 2);
  cli_process second(lock({}, path, job("job2.sh", start_noting_job)), clean_env);
  BOOST_REQUIRE(eventually([&] { return children(path).size() == 2; }));
  // Only zkcoord stops: its guard and its job keep running, as when zkcoord alone is paused.
  first.signal(SIGSTOP);
  BOOST_REQUIRE_MESSAGE(eventually([&] { return exists("job2.start"); }, 60s),
                        "the second contender never ran; stderr: " << second.err_so_far());
  auto r2 = second.wait(30s);
  BOOST_TEST(r2.status == 0, "second: status " << r2.status << "; stderr: " << r2.err);
  auto left = wait_all_dead(recorded.job, 10s);
  BOOST_TEST(left.empty(), "job 1 alive after job 2 ran: " << describe(left));
  auto job1 = timestamps(read("job1.times"));
  auto job2 = timestamps(read("job2.start"));
  BOOST_REQUIRE(!job1.empty());
  BOOST_REQUIRE_EQUAL(job2.size(), 1u);
  BOOST_TEST(job1.back() < job2.front(),
             "job 1 wrote " << (job1.back() - job2.front()) / 1000000 << " ms after job 2 started");
  first.signal(SIGCONT);
  auto r1 = first.wait(30s);
  auto still = survivors(recorded.all);
  BOOST_TEST(r1.status == 76, "first: status " << r1.status << "; stderr: " << r1.err);
  BOOST_TEST(still.empty(), "alive after the first zkcoord exited: " << describe(still));
  BOOST_TEST(no_lock_node_within(path, 20s));
}

BOOST_AUTO_TEST_SUITE_END()
