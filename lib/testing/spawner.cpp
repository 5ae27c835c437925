#include "testing/spawner.hpp"

#include <condition_variable>
#include <deque>
#include <future>
#include <mutex>
#include <thread>

namespace zkcoord::testing::detail {
namespace {

class spawner_thread {
 public:
  spawner_thread() {
    std::thread([this] { run(); }).detach();
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

}  // namespace zkcoord::testing::detail
