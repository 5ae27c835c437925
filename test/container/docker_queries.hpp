// SPDX-License-Identifier: Apache-2.0
// What the Docker engine holds, asked through the docker CLI (argv, no shell), so container
// tests can check what the harness created and removed.
#pragma once

#include "testing/command_runner.hpp"

#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace zkcoord::test {

/// stdout of `docker args...`; throws when it fails.
inline std::string docker_output(std::vector<std::string> args) {
  args.insert(args.begin(), "docker");
  const auto result = testing::detail::run_command(args, std::chrono::seconds(120));
  if (!result.ok()) {
    throw std::runtime_error(testing::detail::describe_command(args) + ": " + result.err);
  }
  return result.out;
}

/// The words of `docker args...`'s output (ids, names).
inline std::vector<std::string> docker_words(std::vector<std::string> args) {
  std::istringstream out(docker_output(std::move(args)));
  std::vector<std::string> words;
  for (std::string w; out >> w;) words.push_back(w);
  return words;
}

/// True while a container (any state) or network with this id exists.
inline bool container_exists(const std::string& id) {
  return !docker_words({"ps", "--all", "--quiet", "--no-trunc", "--filter", "id=" + id}).empty();
}
inline bool network_exists(const std::string& id) {
  return !docker_words({"network", "ls", "--quiet", "--no-trunc", "--filter", "id=" + id}).empty();
}

}  // namespace zkcoord::test
