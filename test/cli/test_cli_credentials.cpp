// SPDX-License-Identifier: Apache-2.0
// Credentials, the ACL choice and what `lock` says about itself in its node, without a server:
// where the secret comes from, which files are refused, which ACL a choice means.
#include "credentials.hpp"

#include "command_line.hpp"
#include "exit_code.hpp"
#include "holder_description.hpp"
#include "zookeeper_errors.hpp"

#define BOOST_TEST_MODULE cli_credentials
#include <boost/test/unit_test.hpp>

#include <sys/stat.h>

#include <filesystem>
#include <fstream>
#include <string>
#include <vector>

using namespace zkcoord;
using namespace zkcoord::cli;
namespace fs = std::filesystem;

namespace {

// The usage error's message, or "" when `f` does not throw one.
template <class F>
std::string usage_message(F f) {
  try {
    f();
  } catch (const cli_error& e) {
    BOOST_TEST(e.status() == exit_code::usage);
    return e.what();
  }
  return {};
}

command_line parsed(std::vector<std::string> args) {
  return parse_command_line(args, nullptr);
}

struct scratch_dir {
  fs::path dir = fs::temp_directory_path() / ("zkcoord-cred-" + std::to_string(::getpid()));
  scratch_dir() { fs::create_directories(dir); }
  ~scratch_dir() {
    std::error_code ec;
    fs::remove_all(dir, ec);
  }
  std::string file(const std::string& name, const std::string& content, mode_t mode) const {
    const fs::path p = dir / name;
    std::ofstream(p) << content;
    ::chmod(p.c_str(), mode);
    return p.string();
  }
};

}  // namespace

BOOST_AUTO_TEST_CASE(auth_spec_is_scheme_user_password) {
  BOOST_TEST((parse_auth_spec("digest:alice:pa:ss", "X") ==
              std::pair<std::string, std::string>{"alice", "pa:ss"}));
  BOOST_TEST(
      (parse_auth_spec("digest:alice:", "X") == std::pair<std::string, std::string>{"alice", ""}));
  // The message names the source, never the text: it may be the secret.
  const auto no_scheme = usage_message([] { parse_auth_spec("alice:hunter2", "ZKCOORD_AUTH"); });
  BOOST_TEST(no_scheme.find("ZKCOORD_AUTH: unsupported scheme 'alice'") == 0u, no_scheme);
  BOOST_TEST(no_scheme.find("hunter2") == std::string::npos, no_scheme);
  for (const char* bad : {"hunter2", "digest:hunter2", "digest::hunter2"}) {
    const auto message = usage_message([&] { parse_auth_spec(bad, "ZKCOORD_AUTH"); });
    BOOST_TEST(message == "ZKCOORD_AUTH: expected digest:USER:PASSWORD", bad);
  }
}

BOOST_AUTO_TEST_CASE(auth_file_must_be_private_to_its_owner) {
  scratch_dir s;
  BOOST_TEST(read_auth_file(s.file("ok", "digest:alice:pw\n", 0600)) == "digest:alice:pw");
  BOOST_TEST(read_auth_file(s.file("crlf", "digest:alice:pw\r\n", 0400)) == "digest:alice:pw");
  for (auto [name, mode, shown] : {std::tuple{"world", 0644, "0644"},
                                   {"group", 0640, "0640"},
                                   {"group-write", 0620, "0620"},
                                   {"other-write", 0602, "0602"}}) {
    const std::string path = s.file(name, "digest:alice:pw\n", static_cast<mode_t>(mode));
    const auto message = usage_message([&] { read_auth_file(path); });
    BOOST_TEST(message == "auth file " + path + " has mode " + shown +
                              ": it is accessible by group or others and must be private to its "
                              "owner (chmod 600 " +
                              path + ")");
  }
  const std::string missing = (s.dir / "missing").string();
  BOOST_TEST(usage_message([&] { read_auth_file(missing); }) ==
             "cannot open auth file " + missing + ": No such file or directory");
  const std::string two = s.file("two", "digest:a:b\ndigest:c:d\n", 0600);
  BOOST_TEST(usage_message([&] { read_auth_file(two); }) ==
             "auth file " + two + " must hold one line: digest:USER:PASSWORD");
  // A directory opens, but is no file of credentials.
  BOOST_TEST(!usage_message([&] { read_auth_file(s.dir.string()); }).empty());
}

BOOST_AUTO_TEST_CASE(credentials_come_from_the_file_or_argv_else_the_environment) {
  scratch_dir s;
  const std::string file = s.file("auth", "digest:fromfile:pw1\n", 0600);
  auto cl = parsed({"locks", "--auth-file", file});
  BOOST_TEST(resolve_credentials(cl, "digest:fromenv:pw2").empty());
  BOOST_TEST(cl.global.digest->first == "fromfile");

  cl = parsed({"locks"});
  BOOST_TEST(resolve_credentials(cl, "digest:fromenv:pw2").empty());
  BOOST_TEST(cl.global.digest->first == "fromenv");
  BOOST_TEST(cl.global.digest->second == "pw2");

  cl = parsed({"locks", "--auth", "fromargv:pw3"});
  const auto warnings = resolve_credentials(cl, "digest:fromenv:pw2");
  BOOST_TEST(cl.global.digest->first == "fromargv");
  BOOST_REQUIRE_EQUAL(warnings.size(), 1u);
  BOOST_TEST(warnings[0].find("visible to other local users") != std::string::npos);
  BOOST_TEST(warnings[0].find("ZKCOORD_AUTH or --auth-file") != std::string::npos);

  cl = parsed({"locks", "--auth", "a:b", "--auth-file", file});
  BOOST_TEST(usage_message([&] { resolve_credentials(cl, nullptr); }) ==
             "--auth and --auth-file exclude each other");

  cl = parsed({"locks"});
  resolve_credentials(cl, "");
  BOOST_TEST(!cl.global.digest);
}

BOOST_AUTO_TEST_CASE(only_commands_that_connect_read_credentials) {
  auto cl = parsed({"server"});
  BOOST_TEST(usage_message([&] { resolve_credentials(cl, "not-a-spec"); }).empty());
  auto help = parsed({"lock", "--help", "--auth-file", "/no/such/file"});
  BOOST_TEST(usage_message([&] { resolve_credentials(help, nullptr); }).empty());
}

BOOST_AUTO_TEST_CASE(acl_default_follows_the_credentials) {
  auto anonymous = parsed({"lock", "/p", "true"});
  resolve_credentials(anonymous, nullptr);
  BOOST_TEST((anonymous.global.acl == acl_choice::open));
  auto authenticated = parsed({"lock", "/p", "true"});
  resolve_credentials(authenticated, "digest:alice:pw");
  BOOST_TEST((authenticated.global.acl == acl_choice::world_read));
  auto explicit_open = parsed({"lock", "--acl", "open", "/p", "true"});
  resolve_credentials(explicit_open, "digest:alice:pw");
  BOOST_TEST((explicit_open.global.acl == acl_choice::open));
  for (const char* choice : {"creator-all", "world-read"}) {
    auto cl = parsed({"lock", "--acl", choice, "/p", "true"});
    BOOST_TEST(usage_message([&] { resolve_credentials(cl, nullptr); }) ==
               std::string("--acl ") + choice +
                   " needs credentials (ZKCOORD_AUTH, --auth-file or --auth): the ACL names the "
                   "authenticated creator");
  }
}

BOOST_AUTO_TEST_CASE(acl_choices_are_zookeepers_acls) {
  BOOST_TEST((acl_entries(acl_choice::open) == open_acl_unsafe()));
  BOOST_TEST((acl_entries(acl_choice::creator_all) == acl{{perms::all, "auth", ""}}));
  BOOST_TEST((acl_entries(acl_choice::world_read) ==
              acl{{perms::read, "world", "anyone"}, {perms::all, "auth", ""}}));
  BOOST_TEST(usage_message([] {
               parsed({"lock", "--acl", "public", "/p", "true"});
             }) == "invalid --acl 'public' (expected open, creator-all or world-read)");
  BOOST_TEST(usage_message([] {
               parsed({"locks", "--acl", "open"});
             }) == "--acl does not apply to 'locks'");
}

BOOST_AUTO_TEST_CASE(the_lock_node_names_the_command_not_its_arguments) {
  BOOST_TEST(holder_description(parsed({"lock", "/p", "/usr/bin/pg_dump", "--password=hunter2"})) ==
             "zkcoord lock: pg_dump");
  BOOST_TEST(holder_description(parsed({"lock", "/p", "sh", "-c", "sleep 5"})) ==
             "zkcoord lock: sh");
  BOOST_TEST(holder_description(parsed({"lock", "/p", "--", "./dir/"})) == "zkcoord lock: ./dir/");
  BOOST_TEST(holder_description(parsed({"lock", "--describe", "nightly backup of db1", "/p", "sh",
                                        "-c", "x --password=hunter2"})) == "nightly backup of db1");
  BOOST_TEST(usage_message([] {
               parsed({"lock", "--describe", std::string(max_describe_size + 1, 'x'), "/p", "t"});
             }) == "--describe is longer than 1024 bytes");
  BOOST_TEST(usage_message([] {
               parsed({"locks", "--describe", "x"});
             }) == "--describe does not apply to 'locks'");
}

BOOST_AUTO_TEST_CASE(loss_reasons_say_who_ended_the_lock) {
  BOOST_TEST(loss_reason(make_error_code(errc::lock_lost)) ==
             "its node was deleted by another client");
  BOOST_TEST(loss_reason(make_error_code(zk_errc::session_expired)) ==
             "the ZooKeeper session expired");
  BOOST_TEST(loss_reason(make_error_code(errc::closed)) == "the session was closed");
}

BOOST_AUTO_TEST_CASE(refused_by_an_acl_says_what_to_check) {
  const auto e = error_for(make_error_code(zk_errc::no_auth), "cannot acquire lock /p");
  BOOST_TEST(e.status() == exit_code::no_permission);
  BOOST_TEST(std::string(e.what()) ==
             "cannot acquire lock /p: not authorised by the node's ACL (the ACL does not grant "
             "this client's identity: check ZKCOORD_AUTH or --auth-file; with digest, a wrong "
             "password is a different identity)");
}
