// The bounded memo the components share: results kept by a string key that says everything
// they depend on, the least recently used dropped first.
#pragma once

#include <algorithm>
#include <cstddef>
#include <map>
#include <memory>
#include <mutex>
#include <string>

namespace hsalit::support {

// A thread-safe map from keys to shared results that keeps the `capacity` most recently used
// (found or kept) ones; counts the finds that hit and missed.
template <class Value>
class RecentlyUsed {
 public:
  explicit RecentlyUsed(std::size_t capacity) : capacity_(std::max<std::size_t>(1, capacity)) {}
  RecentlyUsed(const RecentlyUsed&) = delete;
  RecentlyUsed& operator=(const RecentlyUsed&) = delete;

  std::size_t hits() const {
    std::lock_guard lock(mutex_);
    return hits_;
  }
  std::size_t misses() const {
    std::lock_guard lock(mutex_);
    return misses_;
  }

  // The result kept for `key`, or null.
  std::shared_ptr<const Value> find(const std::string& key) {
    std::lock_guard lock(mutex_);
    auto it = kept_.find(key);
    if (it == kept_.end()) {
      ++misses_;
      return nullptr;
    }
    ++hits_;
    it->second.used = ++tick_;
    return it->second.value;
  }

  // Keeps `value` for `key`, dropping the least recently used result when full.
  void keep(const std::string& key, std::shared_ptr<const Value> value) {
    std::lock_guard lock(mutex_);
    if (kept_.size() >= capacity_ && !kept_.count(key)) {
      auto oldest = std::min_element(kept_.begin(), kept_.end(),
                                     [](const auto& a, const auto& b) { return a.second.used < b.second.used; });
      kept_.erase(oldest);
    }
    kept_[key] = {std::move(value), ++tick_};
  }

 private:
  struct Kept {
    std::shared_ptr<const Value> value;
    std::size_t used = 0;  // tick of the last use
  };
  mutable std::mutex mutex_;
  std::size_t capacity_;
  std::size_t hits_ = 0, misses_ = 0, tick_ = 0;
  std::map<std::string, Kept> kept_;
};

}  // namespace hsalit::support
