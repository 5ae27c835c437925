// SPDX-License-Identifier: Apache-2.0
#include "job_coordinator/options.hpp"

#include <stdexcept>

namespace job_coordinator {

run_options parse_run_options(const examples::command_line& args) {
  args.require_known({"workers", "jobs", "runs-per-job", "interval-ms", "work-ms",
                      "session-timeout-ms", "pause", "faults-after", "pauses", "no-faults",
                      "keep"});
  if (!args.positional().empty()) {
    throw std::invalid_argument("unexpected argument '" + args.positional()[0] + "'");
  }
  run_options o;
  o.workers = static_cast<int>(args.get_long("workers", o.workers));
  o.schedule.jobs = static_cast<int>(args.get_long("jobs", o.schedule.jobs));
  o.schedule.runs_per_job = static_cast<int>(args.get_long("runs-per-job", 5));
  o.schedule.interval = std::chrono::milliseconds(args.get_long("interval-ms", 500));
  o.work = std::chrono::milliseconds(args.get_long("work-ms", o.work.count()));
  o.session_timeout = std::chrono::milliseconds(args.get_long("session-timeout-ms", 1500));
  o.pause = std::chrono::milliseconds(static_cast<long>(args.get_double("pause", 3) * 1000));
  o.faults = !args.has("no-faults");
  o.faults_after = static_cast<int>(args.get_long("faults-after", 0));
  o.pauses = static_cast<int>(args.get_long("pauses", 2));
  o.keep = args.has("keep");
  if (o.workers < 1 || o.schedule.jobs < 1 || o.schedule.runs_per_job < 1 || o.work.count() < 0 ||
      o.pause.count() < 0 || o.schedule.interval.count() < 1 || o.faults_after < 0 ||
      o.pauses < 1 || o.pauses > 2) {
    throw std::invalid_argument("counts must be positive, times not negative, --pauses 1 or 2");
  }
  if (o.faults && o.workers < 2) throw std::invalid_argument("faults need 2 workers or more");
  return o;
}

std::vector<std::string> worker_argv(const worker_options& o) {
  std::vector<std::string> argv{examples::self_executable(),
                                "--worker",
                                std::to_string(o.id),
                                "--db",
                                o.db,
                                "--connect",
                                o.connect,
                                "--lock-root",
                                o.lock_root,
                                "--jobs",
                                std::to_string(o.schedule.jobs),
                                "--runs-per-job",
                                std::to_string(o.schedule.runs_per_job),
                                "--interval-ms",
                                std::to_string(o.schedule.interval.count()),
                                "--start-ms",
                                std::to_string(o.schedule.start_ms),
                                "--work-ms",
                                std::to_string(o.work.count()),
                                "--session-timeout-ms",
                                std::to_string(o.session_timeout.count())};
  if (o.handshake) argv.push_back("--handshake");
  return argv;
}

worker_options parse_worker_options(const examples::command_line& args) {
  worker_options o;
  o.id = static_cast<int>(args.get_long("worker", 0));
  o.db = args.get("db");
  o.connect = args.get("connect");
  o.lock_root = args.get("lock-root");
  o.schedule.jobs = static_cast<int>(args.get_long("jobs", 4));
  o.schedule.runs_per_job = static_cast<int>(args.get_long("runs-per-job", 5));
  o.schedule.interval = std::chrono::milliseconds(args.get_long("interval-ms", 500));
  o.schedule.start_ms = args.get_long("start-ms", 0);
  o.work = std::chrono::milliseconds(args.get_long("work-ms", 400));
  o.session_timeout = std::chrono::milliseconds(args.get_long("session-timeout-ms", 1500));
  o.handshake = args.has("handshake");
  return o;
}

}  // namespace job_coordinator
