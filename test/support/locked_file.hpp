// SPDX-License-Identifier: Apache-2.0
// A file held under a whole-file POSIX write lock while this object lives: the cross-process
// mutex of the test stores shared with Java and Python peers. C++ takes it as an open file
// description lock (F_OFD_SETLKW, so threads of one process exclude each other too); Java's
// FileChannel.lock and Python's fcntl.lockf take classic fcntl locks, which conflict with it.
#pragma once

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <filesystem>
#include <string>
#include <system_error>

namespace zkcoord::test {

class locked_file {
 public:
  explicit locked_file(const std::filesystem::path& p) : fd_(::open(p.c_str(), O_RDWR)) {
    if (fd_ < 0) throw std::system_error(errno, std::generic_category(), "open " + p.string());
    struct flock fl {};
    fl.l_type = F_WRLCK;
    fl.l_whence = SEEK_SET;
    while (::fcntl(fd_, F_OFD_SETLKW, &fl) != 0)
      if (errno != EINTR) throw std::system_error(errno, std::generic_category(), "lock");
  }
  ~locked_file() { ::close(fd_); }  // releases the lock
  locked_file(const locked_file&) = delete;
  locked_file& operator=(const locked_file&) = delete;

  std::string read_all() const {
    std::string out;
    char buf[256];
    for (off_t at = 0;;) {
      const ssize_t n = ::pread(fd_, buf, sizeof buf, at);
      if (n <= 0) break;
      out.append(buf, static_cast<std::size_t>(n));
      at += n;
    }
    return out;
  }
  void replace(const std::string& text) {
    if (::ftruncate(fd_, 0) != 0 ||
        ::pwrite(fd_, text.data(), text.size(), 0) != static_cast<ssize_t>(text.size()))
      throw std::system_error(errno, std::generic_category(), "write state");
  }

 private:
  int fd_;
};

}  // namespace zkcoord::test
