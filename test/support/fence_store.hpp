// SPDX-License-Identifier: Apache-2.0
// An in-memory fenced store for lock tests (test-matrix row 13): per resource it keeps a value
// and the highest fencing token seen, accepts a write only with token >= that highest (an equal
// token is the current holder writing again), and logs every accept and reject in arrival
// order, so tests can check mutual exclusion after the fact. Thread-safe.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

namespace zkcoord::test {

class fence_store {
 public:
  enum class kind { read, write };
  struct entry {
    std::uint64_t seq = 0;  ///< arrival order (0, 1, 2, ...)
    kind what = kind::write;
    std::string resource;
    std::int64_t token = 0;
    std::string writer;
    std::int64_t value = 0;  ///< written value, or the value read
    bool accepted = false;
    std::int64_t highest_before = 0;  ///< the resource's highest token when it arrived
    std::chrono::steady_clock::time_point at;
  };

  /// Unfenced read: the current value (0 for a new resource). Not logged.
  std::int64_t read(const std::string& resource) const {
    std::lock_guard lock(mutex_);
    auto it = resources_.find(resource);
    return it == resources_.end() ? 0 : it->second.value;
  }

  /// Fenced read: like a write it is refused below the highest token, and it raises the highest
  /// token to `token`, so a holder that read is protected from an older holder's later write.
  std::optional<std::int64_t> read(const std::string& resource, std::int64_t token,
                                   const std::string& reader) {
    std::lock_guard lock(mutex_);
    auto& r = resources_[resource];
    const bool ok = token >= r.highest;
    log(kind::read, resource, token, reader, r.value, ok, r.highest);
    if (!ok) return std::nullopt;
    r.highest = token;
    return r.value;
  }

  /// Fenced write: accepted (and the value stored) iff token >= the resource's highest token.
  bool write(const std::string& resource, std::int64_t token, std::int64_t value,
             const std::string& writer) {
    std::lock_guard lock(mutex_);
    auto& r = resources_[resource];
    const bool ok = token >= r.highest;
    log(kind::write, resource, token, writer, value, ok, r.highest);
    if (!ok) return false;
    r.highest = token;
    r.value = value;
    ++r.accepted_writes;
    return true;
  }

  /// Unfenced write: stores `value` whatever the token (what a store without a fence does).
  /// Not logged, so the token checks above see only fenced accesses.
  void write_unfenced(const std::string& resource, std::int64_t value) {
    std::lock_guard lock(mutex_);
    resources_[resource].value = value;
  }

  std::int64_t highest_token(const std::string& resource) const {
    std::lock_guard lock(mutex_);
    auto it = resources_.find(resource);
    return it == resources_.end() ? 0 : it->second.highest;
  }
  std::int64_t accepted_writes(const std::string& resource) const {
    std::lock_guard lock(mutex_);
    auto it = resources_.find(resource);
    return it == resources_.end() ? 0 : it->second.accepted_writes;
  }
  std::vector<entry> entries() const {
    std::lock_guard lock(mutex_);
    return log_;
  }

  /// Checked from the log alone (independent of the acceptance code): accepted accesses whose
  /// token is below a token accepted earlier for the same resource. Must always be 0.
  std::size_t stale_accepted() const {
    std::lock_guard lock(mutex_);
    std::map<std::string, std::int64_t> highest;
    std::size_t stale = 0;
    for (const auto& e : log_) {
      if (!e.accepted) continue;
      auto& h = highest[e.resource];
      if (e.token < h) ++stale;
      h = std::max(h, e.token);
    }
    return stale;
  }
  std::size_t rejected() const {
    std::lock_guard lock(mutex_);
    return static_cast<std::size_t>(
        std::count_if(log_.begin(), log_.end(), [](const entry& e) { return !e.accepted; }));
  }

 private:
  struct resource_state {
    std::int64_t value = 0;
    std::int64_t highest = 0;
    std::int64_t accepted_writes = 0;
  };
  void log(kind what, const std::string& resource, std::int64_t token, const std::string& who,
           std::int64_t value, bool ok, std::int64_t highest_before) {
    log_.push_back(entry{log_.size(), what, resource, token, who, value, ok, highest_before,
                         std::chrono::steady_clock::now()});
  }

  mutable std::mutex mutex_;
  std::map<std::string, resource_state> resources_;
  std::vector<entry> log_;
};

}  // namespace zkcoord::test
