// SPDX-License-Identifier: Apache-2.0
#include "seat_booking/options.hpp"

#include <stdexcept>

namespace seat_booking {

const char* to_string(booking_mode mode) noexcept {
  switch (mode) {
    case booking_mode::naive:
      return "naive";
    case booking_mode::lock:
      return "lock";
    case booking_mode::fenced:
      return "fenced";
    case booking_mode::conditional:
      return "conditional";
  }
  return "?";
}

booking_mode parse_mode(const std::string& name) {
  for (auto mode :
       {booking_mode::naive, booking_mode::lock, booking_mode::fenced, booking_mode::conditional}) {
    if (name == to_string(mode)) return mode;
  }
  throw std::invalid_argument("unknown mode '" + name + "' (naive, lock, fenced or conditional)");
}

run_options parse_run_options(const examples::command_line& args) {
  args.require_known(
      {"pause-holder", "delay-ms", "workers", "seats", "session-timeout-ms", "keep"});
  if (args.positional().size() != 1) {
    throw std::invalid_argument("expected one mode: naive, lock, fenced or conditional");
  }
  run_options options;
  options.mode = parse_mode(args.positional()[0]);
  options.workers = static_cast<int>(args.get_long("workers", options.workers));
  options.seats = static_cast<int>(args.get_long("seats", options.seats));
  options.delay = std::chrono::milliseconds(args.get_long("delay-ms", options.delay.count()));
  options.pause =
      std::chrono::milliseconds(static_cast<long>(args.get_double("pause-holder", 0) * 1000));
  options.session_timeout = std::chrono::milliseconds(
      args.get_long("session-timeout-ms", options.session_timeout.count()));
  options.keep = args.has("keep");
  if (options.workers < 1 || options.seats < 1 || options.delay.count() < 0 ||
      options.pause.count() < 0) {
    throw std::invalid_argument("workers and seats must be positive, times not negative");
  }
  return options;
}

std::vector<std::string> worker_argv(const worker_options& o) {
  std::vector<std::string> argv{examples::self_executable(),
                                "--worker",
                                std::to_string(o.id),
                                "--mode",
                                to_string(o.mode),
                                "--db",
                                o.db,
                                "--connect",
                                o.connect,
                                "--lock-path",
                                o.lock_path,
                                "--delay-ms",
                                std::to_string(o.delay.count()),
                                "--session-timeout-ms",
                                std::to_string(o.session_timeout.count())};
  if (o.handshake) argv.push_back("--handshake");
  if (!o.customer.empty()) argv.insert(argv.end(), {"--customer", o.customer});
  if (o.broken_fence_check) argv.push_back("--broken-fence-check");
  return argv;
}

worker_options parse_worker_options(const examples::command_line& args) {
  worker_options o;
  o.id = static_cast<int>(args.get_long("worker", 0));
  o.mode = parse_mode(args.get("mode"));
  o.db = args.get("db");
  o.connect = args.get("connect");
  o.lock_path = args.get("lock-path");
  o.delay = std::chrono::milliseconds(args.get_long("delay-ms", o.delay.count()));
  o.session_timeout =
      std::chrono::milliseconds(args.get_long("session-timeout-ms", o.session_timeout.count()));
  o.handshake = args.has("handshake");
  o.customer = args.get("customer");
  o.broken_fence_check = args.has("broken-fence-check");
  return o;
}

}  // namespace seat_booking
