// SPDX-License-Identifier: Apache-2.0
#include "process_tree.hpp"

#include <dirent.h>
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <unordered_map>

namespace zkcoord::cli {
namespace {

struct proc_entry {
  pid_t parent = 0;
  bool zombie = false;
};

// /proc/PID/stat is "pid (comm) state ppid ...": comm may hold spaces and ')', so the fields
// are read after the last ')'.
bool read_stat(pid_t pid, proc_entry& out) {
  char path[64];
  std::snprintf(path, sizeof path, "/proc/%d/stat", static_cast<int>(pid));
  FILE* f = std::fopen(path, "re");
  if (!f) return false;
  char buf[1024];
  std::size_t n = std::fread(buf, 1, sizeof buf - 1, f);
  std::fclose(f);
  buf[n] = '\0';
  const char* close = std::strrchr(buf, ')');
  if (!close) return false;
  char state = 0;
  int parent = 0;
  if (std::sscanf(close + 1, " %c %d", &state, &parent) != 2) return false;
  out.parent = parent;
  out.zombie = state == 'Z' || state == 'X';
  return true;
}

}  // namespace

std::vector<pid_t> descendants_of(pid_t ancestor) {
  std::unordered_map<pid_t, proc_entry> procs;
  if (DIR* dir = ::opendir("/proc")) {
    while (dirent* e = ::readdir(dir)) {
      char* end = nullptr;
      long pid = std::strtol(e->d_name, &end, 10);
      if (pid <= 0 || *end != '\0') continue;
      proc_entry entry;
      if (read_stat(static_cast<pid_t>(pid), entry)) procs.emplace(static_cast<pid_t>(pid), entry);
    }
    ::closedir(dir);
  }
  std::vector<pid_t> out;
  for (const auto& [pid, entry] : procs) {
    if (entry.zombie) continue;
    // Walk up; the depth bound guards against a cycle read from a racing snapshot.
    pid_t p = entry.parent;
    for (int depth = 0; p > 1 && depth < 4096; ++depth) {
      if (p == ancestor) {
        out.push_back(pid);
        break;
      }
      auto it = procs.find(p);
      if (it == procs.end()) break;
      p = it->second.parent;
    }
  }
  return out;
}

std::size_t signal_job(pid_t group, int sig) {
  if (group > 0) ::kill(-group, sig);
  auto job = descendants_of(::getpid());
  for (pid_t pid : job) {
    ::kill(pid, sig);
    // The group a descendant leads (after setsid) also reaches a child it forks between our
    // reading /proc and this kill; while the leader lives its pid names no one else's group.
    ::kill(-pid, sig);
  }
  return job.size();
}

}  // namespace zkcoord::cli
