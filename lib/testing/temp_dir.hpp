// SPDX-License-Identifier: Apache-2.0
// A fresh directory under $TMPDIR removed (recursively) on destruction. Internal.
#pragma once

#include <filesystem>
#include <string>

namespace zkcoord::testing::detail {

class temp_dir {
 public:
  /// Creates $TMPDIR/<prefix>XXXXXX (default /tmp) with an owner.pid file; the first call in
  /// a process removes harness dirs whose owner process is gone. Throws std::system_error.
  explicit temp_dir(const std::string& prefix);
  ~temp_dir();
  temp_dir(const temp_dir&) = delete;
  temp_dir& operator=(const temp_dir&) = delete;

  const std::filesystem::path& path() const noexcept { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace zkcoord::testing::detail
