// SPDX-License-Identifier: Apache-2.0
// Printing of value types, the standard ACLs and ZooKeeper's digest ids.
#include <zkcoord/types.hpp>

#include <boost/uuid/detail/sha1.hpp>

#include <array>
#include <cstdio>
#include <ostream>

namespace zkcoord {

std::string fencing_token::to_string() const {
  char buf[96];
  std::snprintf(buf, sizeof buf, "%lld (epoch %u, counter %u)", static_cast<long long>(value_),
                epoch(), counter());
  return buf;
}

std::ostream& operator<<(std::ostream& os, fencing_token t) {
  return os << t.to_string();
}

acl open_acl_unsafe() {
  return {acl_entry{perms::all, "world", "anyone"}};
}
acl creator_all_acl() {
  return {acl_entry{perms::all, "auth", ""}};
}
acl read_acl_unsafe() {
  return {acl_entry{perms::read, "world", "anyone"}};
}
acl world_read_creator_all_acl() {
  return {acl_entry{perms::read, "world", "anyone"}, acl_entry{perms::all, "auth", ""}};
}

namespace {
std::string base64(const unsigned char* data, std::size_t n) {
  static constexpr char alphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out;
  for (std::size_t i = 0; i < n; i += 3) {
    unsigned v = data[i] << 16;
    if (i + 1 < n) v |= data[i + 1] << 8;
    if (i + 2 < n) v |= data[i + 2];
    out += alphabet[(v >> 18) & 63];
    out += alphabet[(v >> 12) & 63];
    out += i + 1 < n ? alphabet[(v >> 6) & 63] : '=';
    out += i + 2 < n ? alphabet[v & 63] : '=';
  }
  return out;
}
}  // namespace

std::string digest_id(const std::string& user, const std::string& password) {
  boost::uuids::detail::sha1 sha;
  const std::string credentials = user + ":" + password;
  sha.process_bytes(credentials.data(), credentials.size());
  boost::uuids::detail::sha1::digest_type words;
  sha.get_digest(words);
  std::array<unsigned char, 20> bytes{};
  for (int w = 0; w < 5; ++w)
    for (int b = 0; b < 4; ++b) bytes[w * 4 + b] = (words[w] >> (24 - 8 * b)) & 0xff;
  return user + ":" + base64(bytes.data(), bytes.size());
}

const char* to_string(session_state s) noexcept {
  switch (s) {
    case session_state::connecting:
      return "connecting";
    case session_state::connected:
      return "connected";
    case session_state::suspended:
      return "suspended";
    case session_state::reconnected:
      return "reconnected";
    case session_state::expired:
      return "expired";
    case session_state::closed:
      return "closed";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, session_state s) {
  return os << to_string(s);
}

const char* to_string(watch_event_type t) noexcept {
  switch (t) {
    case watch_event_type::created:
      return "created";
    case watch_event_type::deleted:
      return "deleted";
    case watch_event_type::data_changed:
      return "data_changed";
    case watch_event_type::children_changed:
      return "children_changed";
  }
  return "unknown";
}

std::ostream& operator<<(std::ostream& os, watch_event_type t) {
  return os << to_string(t);
}

}  // namespace zkcoord
