// SPDX-License-Identifier: Apache-2.0
#include "testing/spawner.hpp"

#include <pthread.h>
#include <signal.h>
#include <unistd.h>

#include <condition_variable>
#include <cstdlib>
#include <deque>
#include <future>
#include <mutex>
#include <stdexcept>
#include <thread>

namespace zkcoord::testing::detail {
namespace {

class spawner_thread {
 public:
  // Started with every signal blocked: the application's signal handlers run on its own
  // threads, never on this one (its children unblock them again: see the header).
  spawner_thread() {
    sigset_t all, previous;
    ::sigfillset(&all);
    ::pthread_sigmask(SIG_SETMASK, &all, &previous);
    std::thread([this] { run(); }).detach();
    ::pthread_sigmask(SIG_SETMASK, &previous, nullptr);
  }

  pid_t run_job(const std::function<pid_t()>& job) {
    std::packaged_task<pid_t()> task(job);
    auto result = task.get_future();
    {
      std::lock_guard lock(mutex_);
      jobs_.push_back(std::move(task));
    }
    wake_.notify_one();
    return result.get();
  }

 private:
  void run() {
    for (;;) {
      std::unique_lock lock(mutex_);
      wake_.wait(lock, [this] { return !jobs_.empty(); });
      auto job = std::move(jobs_.front());
      jobs_.pop_front();
      lock.unlock();
      job();
    }
  }

  std::mutex mutex_;
  std::condition_variable wake_;
  std::deque<std::packaged_task<pid_t()>> jobs_;
};

}  // namespace

pid_t run_on_spawner_thread(const std::function<pid_t()>& fork_and_exec) {
  // Leaked on purpose: the thread must outlive every static destructor.
  static auto* const spawner = new spawner_thread;
  return spawner->run_job(fork_and_exec);
}

void clear_signal_mask_in_child() noexcept {
  sigset_t none;
  ::sigemptyset(&none);
  ::sigprocmask(SIG_SETMASK, &none, nullptr);
}

std::string find_executable(const std::string& name) {
  if (name.find('/') != std::string::npos) return name;
  const char* path = std::getenv("PATH");
  std::string dirs = path ? path : "/usr/local/bin:/usr/bin:/bin";
  std::size_t begin = 0;
  while (begin <= dirs.size()) {
    std::size_t end = dirs.find(':', begin);
    if (end == std::string::npos) end = dirs.size();
    std::string candidate = dirs.substr(begin, end - begin) + "/" + name;
    if (::access(candidate.c_str(), X_OK) == 0) return candidate;
    begin = end + 1;
  }
  throw std::runtime_error("zkcoord::testing: executable not found in PATH: " + name);
}

}  // namespace zkcoord::testing::detail
