// SPDX-License-Identifier: Apache-2.0
// docker/compose.yaml as a user runs it: `docker-compose up` brings up the ensemble and the
// job-coordinator service, which runs to its summary line with every run taking effect once
// (its own workers killed and paused on purpose). The project gets its own name and free host
// ports, and is taken down (with its volumes) whatever happens.
#include "testing/command_runner.hpp"
#include "testing/free_ports.hpp"

#define BOOST_TEST_MODULE compose_job_coordinator
#include <boost/test/unit_test.hpp>

#include <unistd.h>

#include <cstdlib>
#include <iostream>
#include <sstream>

using namespace std::chrono_literals;
namespace detail = zkcoord::testing::detail;

namespace {

// docker-compose with the project name and the free host ports in its environment.
class compose_project {
 public:
  compose_project() : name_("zkcoord-compose-test-" + std::to_string(::getpid())) {
    const auto ports = detail::pick_free_ports(3);
    for (int i = 0; i < 3; ++i)
      ::setenv(("ZKCOORD_ZK" + std::to_string(i + 1) + "_PORT").c_str(),
               std::to_string(ports[i]).c_str(), 1);
  }
  ~compose_project() {
    const auto down = run({"down", "--volumes", "--remove-orphans", "--timeout", "5"}, 300s);
    if (!down.ok()) std::cerr << "docker-compose down failed: " << down.err << "\n";
  }
  detail::command_result run(std::vector<std::string> args,
                             std::chrono::milliseconds timeout) const {
    args.insert(args.begin(), {"docker-compose", "--no-ansi", "-p", name_, "-f", COMPOSE_FILE});
    return detail::run_command(args, timeout);
  }

 private:
  std::string name_;
};

std::string last_line(const std::string& text) {
  std::istringstream lines(text);
  std::string last;
  for (std::string line; std::getline(lines, line);)
    if (!line.empty()) last = line;
  return last;
}

}  // namespace

BOOST_AUTO_TEST_CASE(compose_up_runs_the_job_coordinator_to_its_summary) {
  compose_project project;
  const auto up =
      project.run({"up", "--exit-code-from", "job-coordinator", "job-coordinator"}, 600s);
  const auto logs = project.run({"logs", "--no-color", "--no-log-prefix", "job-coordinator"}, 60s);
  BOOST_TEST_MESSAGE("docker-compose up exit " << up.exit_code << "; job-coordinator's log:\n"
                                               << logs.out);
  if (up.exit_code != 0) {
    std::cerr << up.out << up.err;
    std::cerr << project.run({"logs", "--no-color", "--tail", "50"}, 60s).out;
  }
  BOOST_TEST(up.exit_code == 0);
  const std::string summary = last_line(logs.out);
  BOOST_TEST_MESSAGE("summary: " << summary);
  BOOST_TEST(summary.find("runs=") != std::string::npos);
  BOOST_TEST(summary.find(" missing=0 ") != std::string::npos);
  BOOST_TEST(summary.find(" duplicates=0 ") != std::string::npos);
}
