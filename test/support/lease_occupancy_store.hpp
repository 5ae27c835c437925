// SPDX-License-Identifier: Apache-2.0
// Who holds a semaphore's leases, shared by processes (and by the Java peer of the semaphore
// interop test, test/interop/CuratorSemaphore.java, in the same format): one directory, every
// operation under the whole-file lock of locked_file.hpp on `state`.
//   state: "<limit> <zkcoord holders> <curator holders> <max holders> <violations>
//           <mixed holds> <zkcoord leases> <curator leases>\n"   (one line)
//   log:   "enter|exit <holders> <who>" per operation, in order.
// Entering when `limit` holders are already inside is a violation. Entering while a holder of
// the other implementation is inside is a mixed hold. Who is "curator-..." or anything else
// (zkcoord).
#pragma once

#include "support/locked_file.hpp"

#include <algorithm>
#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>

namespace zkcoord::test {

class lease_occupancy_store {
 public:
  struct state {
    std::int64_t limit = 0, zkcoord_holders = 0, curator_holders = 0, max_holders = 0;
    std::int64_t violations = 0, mixed_holds = 0, zkcoord_leases = 0, curator_leases = 0;
    std::int64_t holders() const noexcept { return zkcoord_holders + curator_holders; }
  };

  /// Creates the store in `dir` for a semaphore of `limit` leases.
  lease_occupancy_store(std::filesystem::path dir, std::int64_t limit) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_);
    std::ofstream(dir_ / "state") << limit << " 0 0 0 0 0 0 0\n";
    std::ofstream(dir_ / "log");
  }
  const std::filesystem::path& directory() const noexcept { return dir_; }

  void enter(const std::string& who) {
    update([&](state& s) {
      const bool curator = who.starts_with("curator");
      if (s.holders() >= s.limit) ++s.violations;
      if ((curator ? s.zkcoord_holders : s.curator_holders) > 0) ++s.mixed_holds;
      ++(curator ? s.curator_holders : s.zkcoord_holders);
      ++(curator ? s.curator_leases : s.zkcoord_leases);
      s.max_holders = std::max(s.max_holders, s.holders());
      return "enter " + std::to_string(s.holders()) + " " + who + "\n";
    });
  }
  void exit(const std::string& who) {
    update([&](state& s) {
      --(who.starts_with("curator") ? s.curator_holders : s.zkcoord_holders);
      return "exit " + std::to_string(s.holders()) + " " + who + "\n";
    });
  }

  state snapshot() const {
    locked_file f(dir_ / "state");
    return parse(f.read_all());
  }

 private:
  static state parse(const std::string& text) {
    state s;
    std::istringstream in(text);
    if (!(in >> s.limit >> s.zkcoord_holders >> s.curator_holders >> s.max_holders >>
          s.violations >> s.mixed_holds >> s.zkcoord_leases >> s.curator_leases))
      throw std::runtime_error("lease occupancy store: bad state \"" + text + "\"");
    return s;
  }
  template <class F>
  void update(F&& change) {
    locked_file f(dir_ / "state");
    state s = parse(f.read_all());
    const std::string log_line = change(s);
    std::ostringstream out;
    out << s.limit << ' ' << s.zkcoord_holders << ' ' << s.curator_holders << ' ' << s.max_holders
        << ' ' << s.violations << ' ' << s.mixed_holds << ' ' << s.zkcoord_leases << ' '
        << s.curator_leases << '\n';
    f.replace(out.str());
    std::ofstream(dir_ / "log", std::ios::app) << log_line << std::flush;
  }

  std::filesystem::path dir_;
};

}  // namespace zkcoord::test
