// SPDX-License-Identifier: Apache-2.0
#include "cache_regen/options.hpp"

#include <stdexcept>

namespace cache_regen {

run_options parse_run_options(const examples::command_line& args) {
  args.require_known({"mode", "processes", "requests", "compute-ms", "keep"});
  run_options o;
  const std::string mode = args.get("mode", "both");
  if (mode != "plain" && mode != "dedup" && mode != "both") {
    throw std::invalid_argument("--mode wants plain, dedup or both, got '" + mode + "'");
  }
  o.run_plain = mode != "dedup";
  o.run_dedup = mode != "plain";
  o.processes = static_cast<int>(args.get_long("processes", o.processes));
  o.requests = static_cast<int>(args.get_long("requests", o.requests));
  o.compute = std::chrono::milliseconds(args.get_long("compute-ms", o.compute.count()));
  o.keep = args.has("keep");
  if (o.processes < 1 || o.requests < o.processes || o.compute.count() < 0) {
    throw std::invalid_argument("need at least one request per process, and a compute time");
  }
  return o;
}

std::vector<std::string> worker_argv(const worker_options& o) {
  return {examples::self_executable(),
          "--worker",
          std::to_string(o.id),
          "--dedup",
          o.dedup ? "yes" : "no",
          "--requests",
          std::to_string(o.requests),
          "--db",
          o.db,
          "--connect",
          o.connect,
          "--zk-root",
          o.zk_root,
          "--key",
          o.key,
          "--compute-ms",
          std::to_string(o.compute.count())};
}

worker_options parse_worker_options(const examples::command_line& args) {
  worker_options o;
  o.id = static_cast<int>(args.get_long("worker", 0));
  o.dedup = args.get("dedup") == "yes";
  o.requests = static_cast<int>(args.get_long("requests", o.requests));
  o.db = args.get("db");
  o.connect = args.get("connect");
  o.zk_root = args.get("zk-root");
  o.key = args.get("key");
  o.compute = std::chrono::milliseconds(args.get_long("compute-ms", o.compute.count()));
  return o;
}

}  // namespace cache_regen
