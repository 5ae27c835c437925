// SPDX-License-Identifier: Apache-2.0
// What the C client's callbacks hand on to executors: replies, watch events, session events.
//
// libzookeeper_mt calls them on its own threads, so they are posted (deliver_from_client with
// no batch open). libzookeeper_st calls them inside zookeeper_process on the session's strand
// (st_driver.hpp), with the handle locked: there the driver opens a `delivery_batch` for the
// round; the callbacks add to it, in the order the server sent them, and once the round let go
// of the handle the batch dispatches each one to its executor. A handler whose executor is
// running on this thread (the session's io_context, or the strand itself) runs at once, with
// no trip through the executor's queue: no hop between a reply and its handler.
//
// Order is kept: everything a round hands on goes through the batch, one after the other, and a
// handler that runs inline sees the same world as one run from the queue (the round is over;
// what it posts runs after the rest of the batch). A handler that throws: an io_context keeps
// the exception until the round's handler returns and then throws it out of run(), so the rest
// of the batch runs first; an executor that lets it through gets the rest of the batch posted.
#pragma once

#include <boost/asio/any_completion_handler.hpp>
#include <boost/asio/any_io_executor.hpp>
#include <boost/asio/async_result.hpp>
#include <boost/asio/dispatch.hpp>
#include <boost/asio/post.hpp>

#include <cstddef>
#include <utility>
#include <vector>

namespace zkcoord::detail {

class delivery_batch {
 public:
  /// Opens the batch on this thread: deliver_from_client adds to it until close().
  delivery_batch() noexcept : outer_(current_) { current_ = this; }
  /// What was added and not run (a round left early) is posted.
  ~delivery_batch() {
    close();
    post_rest(0);
  }
  delivery_batch(const delivery_batch&) = delete;
  delivery_batch& operator=(const delivery_batch&) = delete;

  /// The batch open on this thread, if any.
  static delivery_batch* current() noexcept { return current_; }

  /// `fn`: a completion token of signature void() (a callable, or append(handler, args...)).
  template <class Fn>
  void add(const boost::asio::any_io_executor& ex, Fn&& fn) {
    boost::asio::async_initiate<Fn, void()>(
        [this, &ex](auto handler) {
          items_.push_back({ex, boost::asio::any_completion_handler<void()>(std::move(handler))});
        },
        fn);
  }

  /// No more additions (what runs from now on posts as usual).
  void close() noexcept {
    if (current_ == this) current_ = outer_;
  }

  /// Dispatches what was added, in order. Call after close(), with no lock held.
  void run() {
    std::size_t next = 0;
    try {
      while (next < items_.size()) {
        item& it = items_[next++];
        boost::asio::dispatch(it.ex, std::move(it.fn));
      }
    } catch (...) {
      post_rest(next);
      throw;
    }
    items_.clear();
  }

 private:
  void post_rest(std::size_t from) {
    for (; from < items_.size(); ++from)
      boost::asio::post(items_[from].ex, std::move(items_[from].fn));
    items_.clear();
  }

  struct item {
    boost::asio::any_io_executor ex;
    boost::asio::any_completion_handler<void()> fn;
  };
  std::vector<item> items_;
  delivery_batch* outer_;
  static inline thread_local delivery_batch* current_ = nullptr;
};

/// Hands `fn` on to `ex` from a C client callback: into the open batch, or posted.
template <class Fn>
void deliver_from_client(const boost::asio::any_io_executor& ex, Fn&& fn) {
  if (delivery_batch* batch = delivery_batch::current())
    return batch->add(ex, std::forward<Fn>(fn));
  boost::asio::post(ex, std::forward<Fn>(fn));
}

}  // namespace zkcoord::detail
