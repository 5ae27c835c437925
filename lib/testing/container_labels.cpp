// SPDX-License-Identifier: Apache-2.0
#include "testing/container_labels.hpp"

#include <unistd.h>

#include <fstream>
#include <sstream>
#include <vector>

#include "testing/command_runner.hpp"
#include "testing/harness_log.hpp"

namespace zkcoord::testing::detail {
namespace {

using namespace std::chrono_literals;

// Field 22 of /proc/PID/stat (after the parenthesised command, which may hold spaces).
std::string process_start_time(const std::string& pid) {
  std::ifstream stat("/proc/" + pid + "/stat");
  std::string text((std::istreambuf_iterator<char>(stat)), std::istreambuf_iterator<char>());
  const auto end_of_command = text.rfind(')');
  if (end_of_command == std::string::npos) return {};
  std::istringstream fields(text.substr(end_of_command + 2));
  std::string field;
  for (int i = 3; i <= 22 && fields >> field; ++i) {
  }
  return field;
}

bool owner_alive(const std::string& owner) {
  const auto colon = owner.find(':');
  if (colon == std::string::npos) return false;
  const std::string pid = owner.substr(0, colon);
  return process_start_time(pid) == owner.substr(colon + 1);
}

// "ID OWNER" lines of `docker <kind> ls` filtered by our label -> ids whose owner is gone.
std::vector<std::string> stale_ids(const std::string& docker, const std::string& kind) {
  std::vector<std::string> argv{docker,
                                kind,
                                "ls",
                                "--filter",
                                std::string("label=") + owner_label,
                                "--format",
                                std::string("{{.ID}} {{.Label \"") + owner_label + "\"}}"};
  if (kind == "container") argv.insert(argv.begin() + 3, "--all");
  const auto listed = run_command(argv, 60s);
  if (!listed.ok()) {
    harness_log().warn("zkcoord::testing: {} failed: {}", describe_command(argv), listed.err);
    return {};
  }
  std::vector<std::string> ids;
  std::istringstream lines(listed.out);
  for (std::string id, owner; lines >> id >> owner;) {
    if (!owner_alive(owner)) ids.push_back(id);
  }
  return ids;
}

void remove(const std::string& docker, std::vector<std::string> argv,
            const std::vector<std::string>& ids) {
  if (ids.empty()) return;
  argv.insert(argv.begin(), docker);
  argv.insert(argv.end(), ids.begin(), ids.end());
  const auto removed = run_command(argv, 120s);
  if (removed.ok()) {
    harness_log().info("zkcoord::testing: removed {} left by a crashed run", removed.out);
  } else {
    harness_log().warn("zkcoord::testing: {} failed: {}", describe_command(argv), removed.err);
  }
}

}  // namespace

std::string owner_label_value() {
  const std::string pid = std::to_string(::getpid());
  return pid + ":" + process_start_time(pid);
}

void remove_stale_containers(const std::string& docker) {
  remove(docker, {"rm", "--force", "--volumes"}, stale_ids(docker, "container"));
  remove(docker, {"network", "rm"}, stale_ids(docker, "network"));
}

}  // namespace zkcoord::testing::detail
