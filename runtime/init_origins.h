// Where unwritten bytes came from (the init check's origins, as
// MemorySanitizer's origin tracking): a value the kernel loaded from bytes
// nothing had written carries an origin id (runtime/abi.h, SCJIT_ORIGIN_*),
// made by the load that first read them: the op (its part and site) and the
// element it read ("%idx[3]"). Values computed from it carry the same id with
// SCJIT_ORIGIN_COMPUTED set. Bytes of memory that hold such a computed value
// (state COMPUTED) keep its id here, by 4-byte granule, so that a later load
// or a DMA that moves them names where they came from; a finding or a warning
// reads the record back.
//
// Thread safety: every method may be called from any thread (one mutex: only
// the cold paths of checked code come here, when unwritten bytes are met).
#ifndef SCJIT_RUNTIME_INIT_ORIGINS_H_
#define SCJIT_RUNTIME_INIT_ORIGINS_H_

#include <cstdint>
#include <mutex>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "absl/container/flat_hash_map.h"

namespace scjit {

class InitOrigins {
 public:
  struct Record {
    int part = 0;         // the kernel part and site of the load that read the bytes
    int site = -1;
    std::string element;  // what it read: "%idx[3]"
    // A load of evenly spaced lanes: its lane 0's address and their spacing
    // (null and 0 otherwise), to name another lane's element.
    const uint8_t* lane0 = nullptr;
    int64_t lane_bytes = 0;
  };

  // A load at `site` of part `part` read `element` at `addr`, which nothing
  // has written: its origin (the same for the same load and byte: a loop
  // re-reading them makes no new record). 0 when the records are full.
  uint32_t Read(int part, int site, const uint8_t* addr, std::string element, const uint8_t* lane0 = nullptr,
                int64_t lane_bytes = 0);
  // The record of `origin` (either form), if any (a copy: others may append).
  std::optional<Record> Find(int32_t origin) const;

  // Memory: the bytes [lo, lo + bytes) hold a value of `origin`; of [lo, lo +
  // bytes), those for which `keep(p)` holds (they are COMPUTED) take it.
  template <typename Keep>
  void Set(const uint8_t* lo, int64_t bytes, int32_t origin, Keep&& keep);
  // The origin of the value the byte at p holds (0: none known).
  int32_t At(const uint8_t* p) const;
  // A DMA moved `bytes` bytes from `src` to `dst` (contiguous): the origins go along.
  void Copy(const uint8_t* dst, const uint8_t* src, int64_t bytes);

 private:
  static uintptr_t Granule(const uint8_t* p) { return reinterpret_cast<uintptr_t>(p) >> 2; }
  void SetGranule(uintptr_t g, int32_t origin);

  // Bounds on what a pathological kernel may make the runtime hold: past
  // them, new reads share the last record and memory keeps no more origins.
  static constexpr size_t kMaxRecords = size_t{1} << 20;
  static constexpr size_t kMaxGranules = size_t{1} << 22;

  mutable std::mutex mu_;
  std::vector<Record> records_;
  absl::flat_hash_map<std::tuple<int, int, uintptr_t, uintptr_t>, uint32_t> by_read_;
  absl::flat_hash_map<uintptr_t, int32_t> memory_;
};

template <typename Keep>
void InitOrigins::Set(const uint8_t* lo, int64_t bytes, int32_t origin, Keep&& keep) {
  if (origin == 0 || bytes <= 0) return;
  std::lock_guard<std::mutex> lock(mu_);
  uintptr_t last = ~uintptr_t{0};
  for (int64_t i = 0; i < bytes; ++i) {
    uintptr_t g = Granule(lo + i);
    if (g == last || !keep(lo + i)) continue;
    last = g;
    SetGranule(g, origin);
  }
}

}  // namespace scjit

#endif  // SCJIT_RUNTIME_INIT_ORIGINS_H_
