// SPDX-License-Identifier: Apache-2.0
// The session's lease (docs/session.md, "The lease"): what it proves, the renewals that run
// while someone wants it (a multi holding one check, which a quorum must acknowledge), and the
// local expiry when it runs out. The rule itself is sans I/O, in lease_rule.*.
#include "lease_rule.hpp"
#include "session_impl.hpp"
#include "zk_result.hpp"

#include <spdlog/spdlog.h>

namespace zkcoord::detail {

namespace {
// Renewals beyond this many unanswered add nothing: each one only touches the session on the
// server it reaches, and the next one goes out a cadence later anyway.
constexpr int max_renewals_in_flight = 4;

bool in_contact(session_state s) {
  return s == session_state::connected || s == session_state::reconnected;
}

// One renewal: nobody waits for it, its reply only renews the lease. The C client writes the
// op's result into it, so it lives until the reply.
struct renewal_op : op_base {
  std::string path;
  zoo_op_t op{};
  zoo_op_result_t result{};
  void abandon(error_code) override {
    impl->note_renewal_outcome(ZCONNECTIONLOSS);
    delete this;
  }
};
}  // namespace

steady::time_point session_impl::lease_deadline() const noexcept {
  std::lock_guard lock(lease_mutex_);
  return lease_deadline_locked();
}

steady::time_point session_impl::lease_deadline_locked() const noexcept {
  if (old_lease_rule_for_testing()) {
    if (lease_.last_contact == steady::time_point::min()) return steady::time_point::min();
    return lease_.last_contact + negotiated_timeout();
  }
  return lease_rule::of(options_.lease, negotiated_timeout())
      .deadline_from(lease_.quorum, lease_.quorum_gap);
}

steady::time_point session_impl::lease_deadline_of(std::int64_t session) const noexcept {
  {
    std::lock_guard lock(lease_mutex_);
    if (session == 0 || session != lease_.session) return steady::time_point::min();
  }
  return lease_deadline();
}

lease_keeper session_impl::keep_lease() {
  if (lease_wanted_.fetch_add(1) == 0)
    boost::asio::post(strand_, [weak = weak_from_this()] {
      if (auto self = weak.lock()) self->lease_interest_changed();
    });
  return lease_keeper(weak_from_this());
}

void session_impl::unwant_lease() noexcept {
  if (lease_wanted_.fetch_sub(1) == 1)
    boost::asio::post(strand_, [weak = weak_from_this()] {
      if (auto self = weak.lock()) self->lease_interest_changed();
    });
}

// On the strand, after the count of keepers went from 0 to 1 or back (several such posts may
// be on their way: each looks at the count as it is now).
void session_impl::lease_interest_changed() {
  const bool wanted = lease_wanted_.load() > 0 && !old_lease_rule_for_testing();
  if (wanted && !renewing_) {
    renewing_ = true;
    wanted_since_ = steady::now();
    schedule_renewal(steady::now());  // sends at once unless a write left within a cadence
  } else if (!wanted && renewing_) {
    renewing_ = false;
    renewal_timer_.cancel();
  }
  schedule_lease_check();
}

steady::time_point session_impl::last_write_sent() const noexcept {
  return steady::time_point(steady::duration(last_write_sent_.load(std::memory_order_relaxed)));
}

// A renewal is due a cadence after the latest write of any kind was sent: every write reaches
// the server as a renewal does (and its reply renews the lease), so a busy session sends none.
void session_impl::schedule_renewal(steady::time_point at) {
  renewal_timer_.expires_at(at);
  renewal_timer_.async_wait([weak = weak_from_this()](error_code ec) {
    auto self = weak.lock();
    if (!self || ec || !self->renewing_ || self->user_closed_) return;
    const auto every = lease_rule::of(self->options_.lease, self->negotiated_timeout()).renew_every;
    const auto cadence = std::chrono::duration_cast<steady::duration>(every);
    const auto now = steady::now();
    const auto due = self->last_write_sent() + cadence;
    if (now < due) return self->schedule_renewal(due);  // a write went out meanwhile
    if (in_contact(self->state_.load())) self->send_renewal();
    self->schedule_renewal(now + cadence);
  });
}

// A multi holding one check (version -1) of a node the session can read: ZooKeeper proposes
// every multi, so its answer comes only after a quorum acknowledged it.
void session_impl::send_renewal() {
  if (renewals_in_flight_.load() >= max_renewals_in_flight) return;
  c_call_lock lock(handle_mutex_);
  if (!zh_) return;
  auto* r = new renewal_op;
  r->impl = this;
  r->generation = generation_.load();
  r->proves_quorum = true;
  r->path = options_.lease.check_path;
  zoo_check_op_init(&r->op, r->path.c_str(), -1);
  ++renewals_in_flight_;
  r->sent = steady::now();  // before the request is handed over
  r->gap = note_request_sent(r->sent);
  note_write_sent(r->sent);
  track(r);
  sent_.lease_renewals.fetch_add(1, std::memory_order_relaxed);
  if (options_.metrics) options_.metrics->request_sent(request_type::lease_renewal);
  const int rc = zoo_state(zh_) < 0 ? static_cast<int>(ZINVALIDSTATE)
                                    : zoo_amulti(zh_, 1, &r->op, &r->result, &on_renewal_reply, r);
  after_c_call();
  if (rc == ZINVALIDSTATE || rc == ZBADARGUMENTS) {
    // Never sent, and the C client will not call back: the lease is not renewed (and ends
    // early if this goes on).
    untrack(r);
    --renewals_in_flight_;
    delete r;
  }
  // Any other failure: the C client may still call the completion, or the handle's close
  // abandons the op (as session_impl::submit leaves its ops).
}

void session_impl::on_renewal_reply(int rc, const void* data) {
  std::unique_ptr<renewal_op> r(static_cast<renewal_op*>(const_cast<void*>(data)));
  r->note_reply(rc);
  r->impl->note_renewal_outcome(rc);
}

// Any thread. A refusal renews nothing; say why once per new reason, since the lease will
// then end early and whoever relies on it acts.
void session_impl::note_renewal_outcome(int rc) {
  --renewals_in_flight_;
  if (is_unanswered(rc)) return;
  std::lock_guard lock(renewal_error_mutex_);
  if (rc != ZOK && rc != last_renewal_error_)
    logger()->error(
        "lease renewal refused: {} on the check of \"{}\" (it needs the node to exist and be "
        "readable by this session: see lease_options::check_path); the lease is not renewed",
        zerror(rc), options_.lease.check_path);
  last_renewal_error_ = rc;
}

std::optional<local_expiry> session_impl::local_expiry_due() const {
  const auto rule = lease_rule::of(options_.lease, negotiated_timeout());
  local_expiry_input in;
  in.wanted = renewing_;
  in.suspended = state_.load() == session_state::suspended;
  in.wanted_since = wanted_since_;
  {
    std::lock_guard lock(lease_mutex_);
    in.proven_deadline = rule.deadline_from(lease_.quorum, lease_.quorum_gap);
    in.contact_deadline = lease_.last_contact == steady::time_point::min()
                              ? steady::time_point::min()
                              : lease_.last_contact + negotiated_timeout();
  }
  return local_expiry_at(in);
}

void session_impl::schedule_lease_check() {
  const auto due = local_expiry_due();
  if (!due) {
    lease_timer_.cancel();
    return;
  }
  lease_timer_.expires_at(due->at);
  lease_timer_.async_wait([weak = weak_from_this()](error_code ec) {
    if (auto self = weak.lock(); self && !ec) self->check_lease();
  });
}

// The lease timer fired: expire if what is due has passed (renewals may have moved it).
void session_impl::check_lease() {
  const session_state s = state_.load();
  if (!in_contact(s) && s != session_state::suspended) return;
  const auto due = local_expiry_due();
  if (!due) return;
  if (steady::now() < due->at) return schedule_lease_check();
  if (!due->by_lease) return expire("lease deadline passed while out of contact");
  int last_error = ZOK;
  {
    std::lock_guard lock(renewal_error_mutex_);
    last_error = last_renewal_error_;
  }
  expire(last_error == ZOK ? "lease ran out: no quorum-acknowledged reply in time"
                           : std::string("lease ran out: its renewals were refused (") +
                                 zerror(last_error) + ")");
}

}  // namespace zkcoord::detail
