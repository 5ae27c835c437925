// SPDX-License-Identifier: Apache-2.0
// The per-session count of deletions seen under the paths waiters count on (see the header for
// why a count taken this way never counts a node a waiter's listing did not have).
#include "recipe/deletion_log.hpp"

#include "recipe/sequence.hpp"

#include <algorithm>
#include <limits>

namespace zkcoord::detail {
namespace {

// Fold the kept prefix away once it is this long and more than half of the vector.
constexpr std::size_t compact_after = 1024;
// How many of the latest numbers are kept in the order told: a listing's reply is processed
// soon after it arrives, while fewer deletions than this come in.
constexpr std::size_t recent_window = 4096;

struct log_slot {
  std::once_flag made;
  std::shared_ptr<deletion_log> log;
};

}  // namespace

// ---- interest ----------------------------------------------------------------------------

deletion_log::interest& deletion_log::interest::operator=(interest&& other) noexcept {
  if (this != &other) {
    reset();
    log_ = std::move(other.log_);
    id_ = std::exchange(other.id_, 0);
    session_ = other.session_;
    path_ = std::move(other.path_);
    lowest_ = other.lowest_;
  }
  return *this;
}

void deletion_log::interest::reset() noexcept {
  if (id_ == 0) return;
  if (auto log = log_.lock()) log->unregister(*this);
  id_ = 0;
  log_.reset();
}

// ---- path_log ----------------------------------------------------------------------------

std::uint64_t deletion_log::path_log::between(std::int32_t lowest, std::int32_t own) const {
  const auto first = deleted.begin() + static_cast<std::ptrdiff_t>(head);
  const auto from = std::lower_bound(first, deleted.end(), lowest);
  return static_cast<std::uint64_t>(std::lower_bound(from, deleted.end(), own) - from);
}

std::optional<std::uint64_t> deletion_log::path_log::between_as_of(std::int32_t lowest,
                                                                   std::int32_t own,
                                                                   std::uint64_t stamp) const {
  if (stamp < recent_after) return std::nullopt;
  std::uint64_t later = 0;
  for (auto it = recent.rbegin(); it != recent.rend() && it->first > stamp; ++it)
    later += it->second >= lowest && it->second < own ? 1 : 0;
  return between(lowest, own) - later;
}

void deletion_log::path_log::record(std::int32_t sequence, std::uint64_t told) {
  if (sequence < floor) return;  // below every registered listing: counted by none
  // Deletions mostly come in queue order: appended at the end.
  const auto first = deleted.begin() + static_cast<std::ptrdiff_t>(head);
  const auto at = std::lower_bound(first, deleted.end(), sequence);
  if (at != deleted.end() && *at == sequence) return;  // told twice
  deleted.insert(at, sequence);
  recent.emplace_back(told, sequence);
  if (recent.size() > recent_window) {
    recent_after = recent.front().first;
    recent.pop_front();
  }
}

void deletion_log::path_log::raise_floor() {
  if (interests.empty()) return;
  floor = std::max(floor, interests.begin()->first);
  while (head < deleted.size() && deleted[head] < floor) ++head;
  if (head >= compact_after && head * 2 > deleted.size()) {
    deleted.erase(deleted.begin(), deleted.begin() + static_cast<std::ptrdiff_t>(head));
    head = 0;
  }
}

// ---- deletion_log ------------------------------------------------------------------------

deletion_log::path_log* deletion_log::find(std::int64_t session, std::string_view path) {
  const auto s = logs_.find(session);
  if (s == logs_.end()) return nullptr;
  const auto p = s->second.find(path);
  return p == s->second.end() ? nullptr : &p->second;
}

const deletion_log::path_log* deletion_log::find(std::int64_t session,
                                                 std::string_view path) const {
  return const_cast<deletion_log*>(this)->find(session, path);
}

deletion_log::path_log& deletion_log::logs_for(std::int64_t session, const std::string& path) {
  auto [at, made] = logs_[session].try_emplace(path);
  if (made) at->second.kept_since = last_told_;
  return at->second;
}

void deletion_log::drop_if_unused(std::int64_t session, std::string_view path) noexcept {
  const auto s = logs_.find(session);
  if (s == logs_.end()) return;
  const auto p = s->second.find(path);
  if (p != s->second.end() && p->second.interests.empty()) s->second.erase(p);
  if (s->second.empty()) logs_.erase(s);
}

void deletion_log::open(interest& slot, std::int64_t session, const std::string& path) {
  if (slot.id_ != 0) return;
  std::lock_guard lock(mutex_);
  enlist(logs_for(session, path), slot, session, path, std::numeric_limits<std::int32_t>::min());
}

void deletion_log::enlist(path_log& log, interest& slot, std::int64_t session,
                          const std::string& path, std::int32_t lowest) {
  if (log.interests.empty()) log.floor = lowest;
  slot.log_ = self_;
  slot.id_ = ++last_id_;
  slot.session_ = session;
  slot.path_ = path;
  slot.lowest_ = lowest;
  log.interests.emplace(lowest, slot.id_);
}

std::optional<std::uint64_t> deletion_log::register_listing(interest& slot, std::int64_t session,
                                                            const std::string& path,
                                                            std::int32_t lowest, std::int32_t own,
                                                            std::optional<std::uint64_t> stamp) {
  std::lock_guard lock(mutex_);
  auto& log = logs_for(session, path);
  // What was told up to the stamp. If the path's log was made after the stamp, what was told
  // in between is lost, and a count from here would stay short: no count.
  std::optional<std::uint64_t> seen =
      stamp ? log.between_as_of(lowest, own, *stamp) : log.between(lowest, own);
  if (stamp && *stamp < log.kept_since) seen.reset();
  const bool can_count = seen && (log.interests.empty() || lowest >= log.floor);
  interest fresh;
  if (can_count) enlist(log, fresh, session, path, lowest);
  // The old registration goes after the new one is in: its path keeps what it knows (and the
  // reference `log` stays valid, as the path keeps an interest).
  if (slot.id_ != 0) unregister_locked(slot);
  slot.id_ = 0;
  slot.log_.reset();
  if (!can_count) {
    drop_if_unused(session, path);
    return std::nullopt;
  }
  slot = std::move(fresh);  // `slot` is empty: the move unregisters nothing
  return *seen;
}

std::uint64_t deletion_log::deleted_ahead(const interest& slot, std::int32_t own) const {
  if (slot.id_ == 0) return 0;
  std::lock_guard lock(mutex_);
  const path_log* log = find(slot.session_, slot.path_);
  return log ? log->between(slot.lowest_, own) : 0;
}

void deletion_log::unregister(interest& slot) noexcept {
  std::lock_guard lock(mutex_);
  unregister_locked(slot);
}

void deletion_log::unregister_locked(const interest& slot) noexcept {
  const auto s = logs_.find(slot.session_);
  if (s == logs_.end()) return;
  const auto p = s->second.find(slot.path_);
  if (p == s->second.end()) return;
  p->second.interests.erase({slot.lowest_, slot.id_});
  if (p->second.interests.empty()) return drop_if_unused(slot.session_, slot.path_);
  p->second.raise_floor();
}

void deletion_log::guard_node(std::int64_t session, const std::string& path) {
  std::lock_guard lock(mutex_);
  guarded_[session].try_emplace(path, false);
}

bool deletion_log::node_told_deleted(std::int64_t session, std::string_view path) const {
  std::lock_guard lock(mutex_);
  const auto s = guarded_.find(session);
  if (s == guarded_.end()) return false;
  const auto n = s->second.find(path);
  return n != s->second.end() && n->second;
}

void deletion_log::forget_node(std::int64_t session, std::string_view path) noexcept {
  std::lock_guard lock(mutex_);
  const auto s = guarded_.find(session);
  if (s == guarded_.end()) return;
  if (const auto n = s->second.find(path); n != s->second.end()) s->second.erase(n);
  if (s->second.empty()) guarded_.erase(s);
}

void deletion_log::node_deleted(std::int64_t session, std::string_view path,
                                std::uint64_t told) noexcept {
  {
    std::lock_guard lock(mutex_);
    if (const auto s = guarded_.find(session); s != guarded_.end()) {
      if (const auto n = s->second.find(path); n != s->second.end()) n->second = true;
    }
  }
  const auto slash = path.rfind('/');
  if (slash == std::string_view::npos) return;
  const auto parsed = parse_sequenced_name(path.substr(slash + 1));
  if (!parsed) return;  // not a contender: no listing counts it either
  const std::string_view parent = slash == 0 ? std::string_view("/") : path.substr(0, slash);
  std::lock_guard lock(mutex_);
  last_told_ = std::max(last_told_, told);
  if (path_log* log = find(session, parent)) log->record(parsed->sequence, told);
}

std::shared_ptr<deletion_log> deletion_log::make() {
  auto log = std::make_shared<deletion_log>();
  log->self_ = log;
  return log;
}

std::shared_ptr<deletion_log> deletion_log::of(session_impl& impl) {
  auto& slot = impl.layer_state<log_slot>();
  std::call_once(slot.made, [&] {
    slot.log = make();
    impl.add_deletion_observer(slot.log);
  });
  return slot.log;
}

}  // namespace zkcoord::detail
