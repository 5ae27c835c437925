// SPDX-License-Identifier: Apache-2.0
// The recipe objects behind `zkcoord lock`, `zkcoord elect` and `zkcoord semaphore`.
#include "contention.hpp"

#include "holder_description.hpp"

#include <zkcoord/election.hpp>
#include <zkcoord/lock.hpp>
#include <zkcoord/rw_lock.hpp>
#include <zkcoord/semaphore.hpp>

#include <utility>

namespace zkcoord::cli {
namespace {

// A lock-shaped recipe: async_acquire, async_acquire(timeout), async_try_acquire.
template <class Lock>
class lock_contention final : public contention {
 public:
  lock_contention(session& zk, const command_line& cl, std::string what)
      : lock_(zk, cl.path, lock_options{.app_id = holder_description(cl)}),
        noun_(std::move(what) + " " + cl.path) {}
  // The semaphore: one lease of --leases.
  lock_contention(session& zk, const command_line& cl, std::uint32_t max_leases)
      : lock_(zk, cl.path, max_leases, lock_options{.app_id = holder_description(cl)}),
        noun_("a lease of semaphore " + cl.path) {}

  void acquire(std::optional<std::chrono::milliseconds> timeout, granted_handler handler) override {
    if (!timeout)
      lock_.async_acquire(std::move(handler));
    else if (timeout->count() == 0)
      lock_.async_try_acquire(std::move(handler));
    else
      lock_.async_acquire(*timeout, std::move(handler));
  }
  std::string noun() const override { return noun_; }

 private:
  Lock lock_;
  std::string noun_;
};

class election_contention final : public contention {
 public:
  election_contention(session& zk, const command_line& cl)
      : election_(zk, cl.path, cl.participant_id.value_or("")), noun_("leadership of " + cl.path) {}

  // The parser refuses --timeout 0 for elect: an election has no try.
  void acquire(std::optional<std::chrono::milliseconds> timeout, granted_handler handler) override {
    if (!timeout)
      election_.async_campaign(std::move(handler));
    else
      election_.async_campaign(*timeout, std::move(handler));
  }
  std::string noun() const override { return noun_; }

 private:
  election election_;
  std::string noun_;
};

}  // namespace

std::unique_ptr<contention> contention::for_command(session& zk, const command_line& cl) {
  if (cl.command == command_kind::elect) return std::make_unique<election_contention>(zk, cl);
  if (cl.command == command_kind::semaphore)
    return std::make_unique<lock_contention<semaphore>>(zk, cl, cl.max_leases.value_or(0));
  switch (cl.side) {
    case lock_side::read:
      return std::make_unique<lock_contention<read_lock>>(zk, cl, "read lock");
    case lock_side::write:
      return std::make_unique<lock_contention<write_lock>>(zk, cl, "write lock");
    case lock_side::exclusive:
      break;
  }
  return std::make_unique<lock_contention<lock>>(zk, cl, "lock");
}

}  // namespace zkcoord::cli
