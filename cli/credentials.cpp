// SPDX-License-Identifier: Apache-2.0
#include "credentials.hpp"

#include "exit_code.hpp"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <array>
#include <cerrno>
#include <cstdio>
#include <cstring>

namespace zkcoord::cli {
namespace {

// Far more than any credentials; a bound, so that a wrong file name (a log) is not slurped.
constexpr std::size_t max_auth_file_size = 4096;

std::string octal_mode(mode_t mode) {
  std::array<char, 8> buf{};
  std::snprintf(buf.data(), buf.size(), "%04o", static_cast<unsigned>(mode & 07777));
  return buf.data();
}

// Closes the descriptor on every path out of read_auth_file.
struct file_descriptor {
  int fd;
  ~file_descriptor() {
    if (fd >= 0) ::close(fd);
  }
};

void check_private(const std::string& path, const struct stat& st) {
  if (st.st_uid != ::geteuid())
    throw usage_error("auth file " + path + " is owned by another user (uid " +
                      std::to_string(st.st_uid) + "): it must be yours");
  if (st.st_mode & (S_IRWXG | S_IRWXO))
    throw usage_error("auth file " + path + " has mode " + octal_mode(st.st_mode) +
                      ": it is accessible by group or others and must be private to its "
                      "owner (chmod 600 " +
                      path + ")");
}

std::string read_all(int fd, const std::string& path) {
  std::string content;
  std::array<char, 1024> buf{};
  for (;;) {
    const ssize_t n = ::read(fd, buf.data(), buf.size());
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) throw usage_error("cannot read auth file " + path + ": " + std::strerror(errno));
    if (n == 0) return content;
    content.append(buf.data(), static_cast<std::size_t>(n));
    if (content.size() > max_auth_file_size)
      throw usage_error("auth file " + path + " is larger than " +
                        std::to_string(max_auth_file_size) + " bytes");
  }
}

}  // namespace

std::pair<std::string, std::string> parse_auth_spec(std::string_view spec,
                                                    std::string_view source) {
  const std::string where(source);
  const auto scheme_end = spec.find(':');
  if (scheme_end == std::string_view::npos)
    throw usage_error(where + ": expected digest:USER:PASSWORD");
  const std::string_view scheme = spec.substr(0, scheme_end);
  if (scheme != "digest")
    throw usage_error(where + ": unsupported scheme '" + std::string(scheme) +
                      "' (only digest: the Debian ZooKeeper C client has no SASL)");
  const std::string_view credentials = spec.substr(scheme_end + 1);
  const auto user_end = credentials.find(':');
  if (user_end == std::string_view::npos || user_end == 0)
    throw usage_error(where + ": expected digest:USER:PASSWORD");
  return {std::string(credentials.substr(0, user_end)),
          std::string(credentials.substr(user_end + 1))};
}

std::string read_auth_file(const std::string& path) {
  // fstat of the opened file, not stat of the name: what is checked is what is read.
  file_descriptor file{::open(path.c_str(), O_RDONLY | O_CLOEXEC | O_NOCTTY)};
  if (file.fd < 0) throw usage_error("cannot open auth file " + path + ": " + std::strerror(errno));
  struct stat st {};
  if (::fstat(file.fd, &st) != 0)
    throw usage_error("cannot read auth file " + path + ": " + std::strerror(errno));
  check_private(path, st);
  std::string content = read_all(file.fd, path);
  if (content.ends_with('\n')) content.pop_back();
  if (content.ends_with('\r')) content.pop_back();
  if (content.find('\n') != std::string::npos)
    throw usage_error("auth file " + path + " must hold one line: digest:USER:PASSWORD");
  return content;
}

std::vector<std::string> resolve_credentials(command_line& cl, const char* env_auth) {
  if (cl.help || (cl.command != command_kind::lock && cl.command != command_kind::locks)) return {};
  std::vector<std::string> warnings;
  global_options& global = cl.global;
  if (!global.auth_file.empty()) {
    if (global.digest) throw usage_error("--auth and --auth-file exclude each other");
    global.digest =
        parse_auth_spec(read_auth_file(global.auth_file), "auth file " + global.auth_file);
  } else if (global.digest) {
    warnings.push_back(
        "--auth on the command line is visible to other local users (ps, /proc); use "
        "ZKCOORD_AUTH or --auth-file instead");
  } else if (env_auth && *env_auth) {
    global.digest = parse_auth_spec(env_auth, "ZKCOORD_AUTH");
  }
  if (!global.acl) {
    global.acl = global.digest ? acl_choice::world_read : acl_choice::open;
  } else if (*global.acl != acl_choice::open && !global.digest) {
    throw usage_error(std::string("--acl ") + acl_choice_name(*global.acl) +
                      " needs credentials (ZKCOORD_AUTH, --auth-file or --auth): the ACL "
                      "names the authenticated creator");
  }
  return warnings;
}

acl acl_entries(acl_choice choice) {
  switch (choice) {
    case acl_choice::creator_all:
      return creator_all_acl();
    case acl_choice::world_read:
      return world_read_creator_all_acl();
    case acl_choice::open:
      break;
  }
  return open_acl_unsafe();
}

const char* acl_choice_name(acl_choice choice) {
  switch (choice) {
    case acl_choice::creator_all:
      return "creator-all";
    case acl_choice::world_read:
      return "world-read";
    case acl_choice::open:
      break;
  }
  return "open";
}

}  // namespace zkcoord::cli
