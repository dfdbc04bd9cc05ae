#include "runtime/init_origins.h"

#include "runtime/abi.h"

namespace scjit {

uint32_t InitOrigins::Read(int part, int site, const uint8_t* addr, std::string element, const uint8_t* lane0,
                           int64_t lane_bytes) {
  std::lock_guard<std::mutex> lock(mu_);
  auto key = std::make_tuple(part, site, reinterpret_cast<uintptr_t>(addr), reinterpret_cast<uintptr_t>(lane0));
  if (auto it = by_read_.find(key); it != by_read_.end()) return it->second;
  if (records_.size() >= kMaxRecords) return static_cast<uint32_t>(records_.size());
  records_.push_back(Record{part, site, std::move(element), lane0, lane_bytes});
  auto id = static_cast<uint32_t>(records_.size());  // 1-based: 0 is "none"
  by_read_.emplace(key, id);
  return id;
}

std::optional<InitOrigins::Record> InitOrigins::Find(int32_t origin) const {
  auto id = static_cast<uint32_t>(origin) & ~static_cast<uint32_t>(SCJIT_ORIGIN_COMPUTED);
  std::lock_guard<std::mutex> lock(mu_);
  if (id == 0 || id > records_.size()) return std::nullopt;
  return records_[id - 1];
}

void InitOrigins::SetGranule(uintptr_t g, int32_t origin) {
  if (memory_.size() >= kMaxGranules && !memory_.contains(g)) return;
  memory_[g] = origin;
}

int32_t InitOrigins::At(const uint8_t* p) const {
  std::lock_guard<std::mutex> lock(mu_);
  auto it = memory_.find(Granule(p));
  return it != memory_.end() ? it->second : 0;
}

void InitOrigins::Copy(const uint8_t* dst, const uint8_t* src, int64_t bytes) {
  if (bytes <= 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  if (memory_.empty()) return;
  for (int64_t i = 0; i < bytes; i += 4) {
    auto it = memory_.find(Granule(src + i));
    if (it != memory_.end()) SetGranule(Granule(dst + i), it->second);
  }
}

}  // namespace scjit
