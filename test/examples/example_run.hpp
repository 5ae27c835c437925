// SPDX-License-Identifier: Apache-2.0
// Runs an example binary as a user would, against the test's ZooKeeper, and reads the
// summary line (its last "key=value ..." line) into numbers.
#pragma once

#include <zkcoord/testing/test_cluster.hpp>

#include <sys/wait.h>

#include <cstdio>
#include <cstdlib>
#include <iostream>
#include <map>
#include <memory>
#include <sstream>
#include <stdexcept>
#include <string>
#include <string_view>

namespace example_test {

struct example_result {
  int exit_status = -1;
  std::string output;
  std::map<std::string, std::string> summary;

  long number(const std::string& key) const {
    auto it = summary.find(key);
    if (it == summary.end()) throw std::runtime_error("no '" + key + "' in the summary");
    return std::stol(it->second);
  }
};

inline std::map<std::string, std::string> parse_summary(const std::string& output) {
  std::map<std::string, std::string> fields;
  std::istringstream lines(output);
  for (std::string line; std::getline(lines, line);) {
    if (line.find('=') == std::string::npos || line.starts_with("[")) continue;
    std::map<std::string, std::string> candidate;
    std::istringstream words(line);
    for (std::string word; words >> word;) {
      const auto eq = word.find('=');
      if (eq == std::string::npos) {
        candidate.clear();
        break;
      }
      candidate[word.substr(0, eq)] = word.substr(eq + 1);
    }
    if (!candidate.empty()) fields = std::move(candidate);
  }
  return fields;
}

/// Runs `command` (a shell command line; stderr joins stdout) and calls `on_line` with each
/// line of its output as it comes, so a test can inject a fault mid-run.
template <class OnLine>
example_result run_command(const std::string& command, OnLine&& on_line) {
  const std::string shell_command = command + " 2>&1";
  example_result result;
  std::unique_ptr<FILE, int (*)(FILE*)> pipe(::popen(shell_command.c_str(), "r"), ::pclose);
  if (!pipe) throw std::runtime_error("popen failed: " + shell_command);
  std::cout << "$ " << shell_command << std::endl;
  char buffer[4096];
  while (std::fgets(buffer, sizeof buffer, pipe.get())) {
    result.output += buffer;
    std::cout << buffer << std::flush;
    on_line(std::string_view(buffer));
  }
  const int status = ::pclose(pipe.release());
  result.exit_status = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  result.summary = parse_summary(result.output);
  return result;
}

#ifdef EXAMPLE_BINARY
/// `arguments` are appended to the binary's path as they are (no quoting needed by callers).
inline example_result run_example(const std::string& arguments) {
  return run_command(std::string(EXAMPLE_BINARY) + " " + arguments, [](std::string_view) {});
}
#endif

/// One ZooKeeper for every run of a test file: $ZKCOORD_TEST_CONNECT or a harness server
/// (a failure to start one fails the tests). The examples find it in $ZKCOORD_CONNECT.
struct zookeeper_fixture {
  zookeeper_fixture() { ::setenv("ZKCOORD_CONNECT", cluster.connect_string().c_str(), 1); }
  zkcoord::testing::test_cluster cluster;
};

}  // namespace example_test
