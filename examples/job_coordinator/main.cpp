// SPDX-License-Identifier: Apache-2.0
// Cross-service job coordination: worker processes join a group and share a schedule of job
// runs; a job's home is the live member chosen by rendezvous hashing, which takes each of
// its runs under the job's zkcoord lock; the run's database effect carries the fencing token,
// and its email (which cannot be fenced) carries an idempotency key the receiver deduplicates.
//   job_coordinator [--workers N] [--jobs N] [--runs-per-job N] [--pause S] [--no-faults]
//                   [--faults-after N] [--pauses 1|2]
// Uses $ZKCOORD_CONNECT, or starts a throwaway local ZooKeeper. The last line is the summary.
#include "common/command_line.hpp"
#include "common/zookeeper_endpoint.hpp"
#include "job_coordinator/orchestrator.hpp"
#include "job_coordinator/worker.hpp"

#include <exception>
#include <iostream>

int main(int argc, char** argv) {
  try {
    const examples::command_line args(argc, argv);
    if (args.has("worker")) {
      return job_coordinator::run_worker(job_coordinator::parse_worker_options(args));
    }
    if (args.has("help")) {
      std::cout << "usage: job_coordinator [--workers N] [--jobs N] [--runs-per-job N]\n"
                   "         [--interval-ms N] [--work-ms N] [--session-timeout-ms N]\n"
                   "         [--pause SECONDS] [--faults-after RUNS] [--pauses 1|2]\n"
                   "         [--no-faults] [--keep]\n";
      return 0;
    }
    const auto options = job_coordinator::parse_run_options(args);
    const examples::zookeeper_endpoint zookeeper;
    return job_coordinator::run_orchestrator(options, zookeeper.connect_string());
  } catch (const std::exception& e) {
    std::cerr << "job_coordinator: " << e.what() << "\n";
    return 1;
  }
}
