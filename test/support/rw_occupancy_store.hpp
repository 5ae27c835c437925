// SPDX-License-Identifier: Apache-2.0
// Who is inside a read-write lock's critical section, shared by processes (and by the Java
// peer of the rw interop test, test/interop/CuratorReadWrite.java, in the same format): one
// directory, every operation under the whole-file lock of locked_file.hpp on `state`.
//   state: "<zkcoord readers> <curator readers> <writers> <max readers> <violations>
//           <mixed shares> <reads> <writes>\n"   (one line)
//   log:   "enter|exit read|write <readers> <writers> <who>" per operation, in order.
// A writer entering while anyone is inside, or a reader while a writer is, is a violation.
// A reader entering while a reader of the other implementation is inside is a mixed share.
// Who is "curator-..." or anything else (zkcoord).
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

class rw_occupancy_store {
 public:
  struct state {
    std::int64_t zkcoord_readers = 0, curator_readers = 0, writers = 0, max_readers = 0;
    std::int64_t violations = 0, mixed_shares = 0, reads = 0, writes = 0;
  };

  /// Uses (and creates, if missing) the store in `dir`.
  explicit rw_occupancy_store(std::filesystem::path dir) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_);
    if (!std::filesystem::exists(dir_ / "state")) {
      std::ofstream(dir_ / "state") << "0 0 0 0 0 0 0 0\n";
      std::ofstream(dir_ / "log");
    }
  }
  const std::filesystem::path& directory() const noexcept { return dir_; }

  void enter(bool write, const std::string& who) {
    update([&](state& s) {
      const bool curator = who.starts_with("curator");
      const std::int64_t readers = s.zkcoord_readers + s.curator_readers;
      if (write ? readers + s.writers > 0 : s.writers > 0) ++s.violations;
      if (write) {
        ++s.writers, ++s.writes;
      } else {
        if ((curator ? s.zkcoord_readers : s.curator_readers) > 0) ++s.mixed_shares;
        ++(curator ? s.curator_readers : s.zkcoord_readers), ++s.reads;
        s.max_readers = std::max(s.max_readers, readers + 1);
      }
      return line("enter", write, s, who);
    });
  }
  void exit(bool write, const std::string& who) {
    update([&](state& s) {
      --(write ? s.writers : who.starts_with("curator") ? s.curator_readers : s.zkcoord_readers);
      return line("exit", write, s, who);
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
    if (!(in >> s.zkcoord_readers >> s.curator_readers >> s.writers >> s.max_readers >>
          s.violations >> s.mixed_shares >> s.reads >> s.writes))
      throw std::runtime_error("rw occupancy store: bad state \"" + text + "\"");
    return s;
  }
  static std::string line(const char* op, bool write, const state& s, const std::string& who) {
    return std::string(op) + (write ? " write " : " read ") +
           std::to_string(s.zkcoord_readers + s.curator_readers) + " " + std::to_string(s.writers) +
           " " + who + "\n";
  }
  template <class F>
  void update(F&& change) {
    locked_file f(dir_ / "state");
    state s = parse(f.read_all());
    const std::string log_line = change(s);
    std::ostringstream out;
    out << s.zkcoord_readers << ' ' << s.curator_readers << ' ' << s.writers << ' ' << s.max_readers
        << ' ' << s.violations << ' ' << s.mixed_shares << ' ' << s.reads << ' ' << s.writes
        << '\n';
    f.replace(out.str());
    std::ofstream(dir_ / "log", std::ios::app) << log_line << std::flush;
  }

  std::filesystem::path dir_;
};

}  // namespace zkcoord::test
