// SPDX-License-Identifier: Apache-2.0
#include "testing/zk_instance.hpp"

#include <zkcoord/testing/four_letter.hpp>

#include <chrono>
#include <csignal>
#include <cstdlib>
#include <deque>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <thread>

#include "testing/harness_log.hpp"

namespace zkcoord::testing::detail {
namespace {

namespace fs = std::filesystem;

const char* const debian_classpath =
    "/etc/zookeeper/conf:/usr/share/java/zookeeper.jar:/usr/share/java/slf4j-log4j12.jar:"
    "/usr/share/java/log4j-1.2.jar";

std::string classpath_of(const server_options& options) {
  if (!options.classpath.empty()) return options.classpath;
  if (const char* env = std::getenv("ZKCOORD_TEST_ZK_CLASSPATH"); env && *env) return env;
  if (!fs::exists("/usr/share/java/zookeeper.jar")) {
    throw std::runtime_error(
        "zkcoord::testing: /usr/share/java/zookeeper.jar not found; install the Debian package "
        "'zookeeper' or set ZKCOORD_TEST_ZK_CLASSPATH (or server_options::classpath)");
  }
  return debian_classpath;
}

void write_file(const fs::path& path, const std::string& text) {
  std::ofstream out(path, std::ios::trunc);
  out << text;
  if (!out.flush()) throw std::runtime_error("zkcoord::testing: cannot write " + path.string());
}

std::string tail_of(const fs::path& path, std::size_t lines, std::uintmax_t from = 0) {
  std::ifstream in(path);
  if (!in) return "";
  in.seekg(static_cast<std::streamoff>(from));
  std::deque<std::string> last;
  for (std::string line; std::getline(in, line);) {
    last.push_back(std::move(line));
    if (last.size() > lines) last.pop_front();
  }
  std::string text;
  for (const auto& line : last) text += line + "\n";
  return text;
}

}  // namespace

zk_instance::zk_instance(fs::path dir, server_options options, int myid)
    : dir_(std::move(dir)), options_(std::move(options)), myid_(myid) {
  fs::create_directories(dir_ / "data");
}

zk_instance::~zk_instance() {
  kill();
}

void zk_instance::configure(std::uint16_t client_port,
                            const std::vector<std::string>& server_lines) {
  client_port_ = client_port;
  std::ostringstream cfg;
  cfg << "tickTime=" << options_.tick_time.count() << "\n"
      << "dataDir=" << (dir_ / "data").string() << "\n"
      << "clientPort=" << client_port << "\n"
      << "clientPortAddress=127.0.0.1\n"
      << "minSessionTimeout=" << options_.min_session_timeout.count() << "\n"
      << "maxSessionTimeout=" << options_.max_session_timeout.count() << "\n"
      << "4lw.commands.whitelist=*\n"
      << "admin.enableServer=false\n";
  if (!options_.force_sync) cfg << "forceSync=no\n";
  for (const auto& line : server_lines) cfg << line << "\n";
  for (const auto& [key, value] : options_.extra_config) cfg << key << "=" << value << "\n";
  write_file(dir_ / "zoo.cfg", cfg.str());

  write_file(dir_ / "log4j.properties",
             "log4j.rootLogger=" + options_.log_level +
                 ", FILE\n"
                 "log4j.appender.FILE=org.apache.log4j.FileAppender\n"
                 "log4j.appender.FILE.File=" +
                 (dir_ / "server.log").string() +
                 "\n"
                 "log4j.appender.FILE.Append=true\n"
                 "log4j.appender.FILE.layout=org.apache.log4j.PatternLayout\n"
                 "log4j.appender.FILE.layout.ConversionPattern="
                 "%d{ISO8601} %-5p [%t:%C{1}@%L] - %m%n\n");
  if (myid_ > 0) write_file(dir_ / "data" / "myid", std::to_string(myid_) + "\n");
}

std::vector<std::string> zk_instance::command_line() const {
  std::vector<std::string> argv = {
      options_.java, "-Xmx256m", "-XX:+UseSerialGC",
      // A server out of memory serves nothing useful: let it die, so its owner notices (the
      // harness's liveness checks, `zkcoord server`'s exit) instead of talking to a zombie.
      "-XX:+ExitOnOutOfMemoryError", "-XX:TieredStopAtLevel=1", "-Xshare:auto", "-XX:-UsePerfData",
      "-Djava.net.preferIPv4Stack=true", "-Dzookeeper.jmx.log4j.disable=true",
      "-Dlog4j.configuration=file:" + (dir_ / "log4j.properties").string()};
  if (options_.container_check_interval) {
    argv.push_back("-Dznode.container.checkIntervalMs=" +
                   std::to_string(options_.container_check_interval->count()));
  }
  if (options_.extended_types) argv.push_back("-Dzookeeper.extendedTypesEnabled=true");
  argv.insert(argv.end(), options_.extra_jvm_flags.begin(), options_.extra_jvm_flags.end());
  argv.insert(argv.end(),
              {"-cp", classpath_of(options_), "org.apache.zookeeper.server.quorum.QuorumPeerMain",
               (dir_ / "zoo.cfg").string()});
  return argv;
}

void zk_instance::start() {
  if (process_.running()) return;
  std::error_code ec;
  const auto size = fs::file_size(dir_ / "server.log", ec);
  log_offset_ = ec ? 0 : size;
  process_ = child_process::spawn(command_line(), dir_ / "stdout.log");
  harness_log().debug("ZooKeeper {} spawned: pid {}, client port {}", dir_.string(), process_.pid(),
                      client_port_);
}

std::string zk_instance::mode() const {
  return server_mode("127.0.0.1", client_port_, std::chrono::milliseconds(1000));
}

bool zk_instance::bind_failed() const {
  return tail_of(dir_ / "server.log", 100000, log_offset_).find("Address already in use") !=
             std::string::npos ||
         tail_of(dir_ / "stdout.log", 1000).find("Address already in use") != std::string::npos;
}

std::string zk_instance::log_tail(std::size_t lines) const {
  return "---- " + (dir_ / "server.log").string() + " (last " + std::to_string(lines) +
         " lines)\n" + tail_of(dir_ / "server.log", lines) + "---- " +
         (dir_ / "stdout.log").string() + "\n" + tail_of(dir_ / "stdout.log", lines);
}

void zk_instance::stop() {
  process_.terminate(options_.stop_timeout);
  paused_ = false;
}

void zk_instance::kill() {
  process_.kill();
  paused_ = false;
}

namespace {
// Whether every thread of `pid` is stopped ('T' in /proc/PID/task/TID/stat; false if none
// could be read). kill(SIGSTOP) returns before the kernel has stopped the whole group, and a
// thread still running may answer one more request.
bool all_threads_stopped(pid_t pid) {
  const std::filesystem::path tasks = "/proc/" + std::to_string(pid) + "/task";
  std::error_code ec;
  bool any = false;
  for (const auto& task : std::filesystem::directory_iterator(tasks, ec)) {
    std::ifstream stat(task.path() / "stat");
    std::string line;
    if (!std::getline(stat, line)) continue;
    const auto close_paren = line.rfind(')');  // the name may hold spaces and parentheses
    if (close_paren == std::string::npos || close_paren + 2 >= line.size()) return false;
    const char state = line[close_paren + 2];
    if (state != 'T' && state != 't') return false;
    any = true;
  }
  return any;
}
}  // namespace

void zk_instance::pause() {
  process_.signal(SIGSTOP);
  const auto bound = std::chrono::steady_clock::now() + std::chrono::seconds(10);
  while (process_.running() && !all_threads_stopped(process_.pid()) &&
         std::chrono::steady_clock::now() < bound)
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  paused_ = process_.running();
}

void zk_instance::resume() {
  process_.signal(SIGCONT);
  paused_ = false;
}

}  // namespace zkcoord::testing::detail
