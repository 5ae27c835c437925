// SPDX-License-Identifier: Apache-2.0
#include "testing/temp_dir.hpp"

#include <signal.h>
#include <unistd.h>

#include <cerrno>
#include <cstdlib>
#include <fstream>
#include <mutex>
#include <system_error>
#include <vector>

namespace zkcoord::testing::detail {
namespace {

namespace fs = std::filesystem;

std::string temp_base() {
  const char* base = std::getenv("TMPDIR");
  return base && *base ? base : "/tmp";
}

// Removes directories with our prefix left behind by test processes that were killed before
// their destructors ran (their JVMs died with them through PR_SET_PDEATHSIG).
void sweep_orphans(const std::string& prefix) {
  std::error_code ec;
  for (const auto& entry : fs::directory_iterator(temp_base(), ec)) {
    if (entry.path().filename().string().rfind(prefix, 0) != 0) continue;
    std::ifstream owner_file(entry.path() / "owner.pid");
    pid_t owner = 0;
    if (!(owner_file >> owner) || owner <= 0) continue;
    if (::kill(owner, 0) != 0 && errno == ESRCH) fs::remove_all(entry.path(), ec);
  }
}

}  // namespace

temp_dir::temp_dir(const std::string& prefix) {
  static std::once_flag swept;
  std::call_once(swept, [] {
    sweep_orphans("zkcoord-zk-");
    sweep_orphans("zkcoord-ens-");
  });
  std::string pattern = temp_base() + "/" + prefix + "XXXXXX";
  std::vector<char> buf(pattern.begin(), pattern.end());
  buf.push_back('\0');
  if (::mkdtemp(buf.data()) == nullptr) {
    throw std::system_error(errno, std::system_category(), "mkdtemp " + pattern);
  }
  path_ = buf.data();
  std::ofstream(path_ / "owner.pid") << ::getpid() << "\n";
}

temp_dir::~temp_dir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

}  // namespace zkcoord::testing::detail
