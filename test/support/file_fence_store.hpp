// SPDX-License-Identifier: Apache-2.0
// A fenced store shared by processes (and by the Java and Python contenders of the interop
// test, which implement the same format in test/interop/): one resource kept in a directory.
//   state: "<highest token> <value> <inside> <max inside> <accepted> <rejected>\n"
//   log:   one line per operation, in the order they took effect:
//          "accept|reject <token> <value> <who>", "read <token> <value> <who>",
//          "enter <token> <inside> <who>", "exit <token> <inside> <who>"
// Every operation holds a whole-file POSIX write lock on `state` (locked_file.hpp).
#pragma once

#include "support/locked_file.hpp"

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

namespace zkcoord::test {

class file_fence_store {
 public:
  struct state {
    std::int64_t highest = 0;
    std::int64_t value = 0;
    std::int64_t inside = 0;      ///< critical sections entered and not exited
    std::int64_t max_inside = 0;  ///< > 1: two contenders believed they held the lock at once
    std::int64_t accepted = 0;    ///< accepted writes
    std::int64_t rejected = 0;    ///< rejected writes
  };

  /// Uses (and creates, if missing) the store in `dir`.
  explicit file_fence_store(std::filesystem::path dir) : dir_(std::move(dir)) {
    std::filesystem::create_directories(dir_);
    if (!std::filesystem::exists(dir_ / "state")) {
      std::ofstream(dir_ / "state") << "0 0 0 0 0 0\n";
      std::ofstream(dir_ / "log");
    }
  }
  const std::filesystem::path& directory() const noexcept { return dir_; }

  /// Fenced write: accepted iff token >= the highest token seen.
  bool write(std::int64_t token, std::int64_t value, const std::string& who) {
    bool ok = false;
    update([&](state& s) {
      ok = token >= s.highest;
      if (ok) s.highest = token, s.value = value, ++s.accepted;
      if (!ok) ++s.rejected;
      return line(ok ? "accept" : "reject", token, value, who);
    });
    return ok;
  }
  std::int64_t read(std::int64_t token, const std::string& who) {
    std::int64_t v = 0;
    update([&](state& s) { return line("read", token, v = s.value, who); });
    return v;
  }
  /// Marks the start / end of a critical section (client-side belief, for the overlap figure).
  void enter(std::int64_t token, const std::string& who) {
    update([&](state& s) {
      s.max_inside = std::max(s.max_inside, ++s.inside);
      return line("enter", token, s.inside, who);
    });
  }
  void exit(std::int64_t token, const std::string& who) {
    update([&](state& s) { return line("exit", token, --s.inside, who); });
  }

  state snapshot() const {
    state s;
    locked_file f(dir_ / "state");
    s = parse(f.read_all());
    return s;
  }
  std::vector<std::string> log_lines() const {
    locked_file f(dir_ / "state");
    std::ifstream in(dir_ / "log");
    std::vector<std::string> out;
    for (std::string l; std::getline(in, l);) out.push_back(l);
    return out;
  }

 private:
  static state parse(const std::string& text) {
    state s;
    std::istringstream in(text);
    if (!(in >> s.highest >> s.value >> s.inside >> s.max_inside >> s.accepted >> s.rejected))
      throw std::runtime_error("fence store: bad state \"" + text + "\"");
    return s;
  }
  static std::string line(const char* op, std::int64_t token, std::int64_t n,
                          const std::string& who) {
    return std::string(op) + " " + std::to_string(token) + " " + std::to_string(n) + " " + who +
           "\n";
  }
  template <class F>
  void update(F&& change) {
    locked_file f(dir_ / "state");
    state s = parse(f.read_all());
    const std::string log_line = change(s);
    std::ostringstream out;
    out << s.highest << ' ' << s.value << ' ' << s.inside << ' ' << s.max_inside << ' '
        << s.accepted << ' ' << s.rejected << '\n';
    f.replace(out.str());
    std::ofstream(dir_ / "log", std::ios::app) << log_line << std::flush;
  }

  std::filesystem::path dir_;
};

}  // namespace zkcoord::test
