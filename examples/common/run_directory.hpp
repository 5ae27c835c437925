// SPDX-License-Identifier: Apache-2.0
// A fresh directory for one run's database and worker logs, removed at the end unless kept.
#pragma once

#include <filesystem>
#include <string>

namespace examples {

class run_directory {
 public:
  /// mkdtemp("$TMPDIR/<prefix>-XXXXXX"). Throws std::system_error.
  explicit run_directory(const std::string& prefix);
  ~run_directory();
  run_directory(const run_directory&) = delete;
  run_directory& operator=(const run_directory&) = delete;

  const std::filesystem::path& path() const noexcept { return path_; }
  /// Keep the directory after the run (for looking at the database and logs).
  void keep() noexcept { keep_ = true; }
  /// Remove it after all (the run went well).
  void discard() noexcept { keep_ = false; }
  /// A random 12-hex-digit name, for ZooKeeper paths that must not collide between runs.
  static std::string random_name();

 private:
  std::filesystem::path path_;
  bool keep_ = false;
};

}  // namespace examples
