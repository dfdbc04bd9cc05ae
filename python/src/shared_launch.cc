#include "python/src/shared_launch.h"

#include <utility>

namespace scjit {

SharedLaunch::Turn SharedLaunch::Arrive(int64_t run, int64_t device) {
  std::lock_guard<std::mutex> lock(mu_);
  Run& r = runs_[run];
  int64_t k = r.calls[device]++;
  std::shared_ptr<Outcome>& slot = r.launches[k];
  if (slot != nullptr) return Turn{slot, false};
  slot = std::make_shared<Outcome>();
  slot->waiting = devices_;
  return Turn{slot, true};
}

void SharedLaunch::Publish(const Turn& turn, Outcome outcome) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    int waiting = turn.outcome->waiting;
    *turn.outcome = std::move(outcome);
    turn.outcome->waiting = waiting;
    turn.outcome->done = true;
  }
  published_.notify_all();
}

const SharedLaunch::Outcome& SharedLaunch::Await(const Turn& turn) {
  std::unique_lock<std::mutex> lock(mu_);
  published_.wait(lock, [&] { return turn.outcome->done; });
  return *turn.outcome;  // no longer written: safe to read unlocked
}

void SharedLaunch::Leave(int64_t run, const Turn& turn) {
  std::lock_guard<std::mutex> lock(mu_);
  if (--turn.outcome->waiting > 0) return;
  auto r = runs_.find(run);
  if (r == runs_.end()) return;
  for (auto it = r->second.launches.begin(); it != r->second.launches.end(); ++it) {
    if (it->second == turn.outcome) {
      r->second.launches.erase(it);
      break;
    }
  }
  // Every device has taken every launch so far, so all have made as many
  // calls: the run starts afresh from here (its next calls are again the 0th).
  if (r->second.launches.empty()) runs_.erase(r);
}

size_t SharedLaunch::runs_in_flight() {
  std::lock_guard<std::mutex> lock(mu_);
  return runs_.size();
}

}  // namespace scjit
