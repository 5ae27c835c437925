// SPDX-License-Identifier: Apache-2.0
#include "executable.hpp"

#include "exit_code.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <cstring>

namespace zkcoord::cli {
namespace {

enum class verdict { runnable, missing, not_runnable };

verdict check(const std::string& file, std::string& why) {
  struct stat st {};
  if (::stat(file.c_str(), &st) != 0) {
    why = std::strerror(errno);
    return errno == ENOENT || errno == ENOTDIR ? verdict::missing : verdict::not_runnable;
  }
  if (S_ISDIR(st.st_mode)) {
    why = "is a directory";
    return verdict::not_runnable;
  }
  if (!S_ISREG(st.st_mode) || ::access(file.c_str(), X_OK) != 0) {
    why = "permission denied";
    return verdict::not_runnable;
  }
  return verdict::runnable;
}

}  // namespace

std::string find_executable(const std::string& name) {
  if (name.empty()) throw cli_error(exit_code::command_not_found, "empty command name");
  std::string why;
  if (name.find('/') != std::string::npos) {
    switch (check(name, why)) {
      case verdict::runnable:
        return name;
      case verdict::missing:
        throw cli_error(exit_code::command_not_found, "command not found: " + name);
      case verdict::not_runnable:
        throw cli_error(exit_code::cannot_execute, "cannot execute '" + name + "': " + why);
    }
  }
  const char* path_env = std::getenv("PATH");
  std::string path = path_env ? path_env : "/usr/local/bin:/usr/bin:/bin";
  std::string refused;
  for (std::size_t start = 0; start <= path.size();) {
    auto end = path.find(':', start);
    if (end == std::string::npos) end = path.size();
    std::string dir = path.substr(start, end - start);
    std::string candidate = (dir.empty() ? "." : dir) + "/" + name;
    auto v = check(candidate, why);
    if (v == verdict::runnable) return candidate;
    // As execvp: a match that cannot run is reported only when nothing later can.
    if (v == verdict::not_runnable && refused.empty()) refused = candidate + ": " + why;
    start = end + 1;
  }
  if (!refused.empty())
    throw cli_error(exit_code::cannot_execute, "cannot execute '" + name + "': " + refused);
  throw cli_error(exit_code::command_not_found, "command not found: " + name);
}

}  // namespace zkcoord::cli
