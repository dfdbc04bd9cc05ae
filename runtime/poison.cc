#include "runtime/poison.h"

#include <algorithm>
#include <bit>
#include <cstring>
#include <new>

namespace scjit {

void FillPoison(uint8_t* data, int64_t count, ElementType e) {
  if (count <= 0) return;
  uint64_t bits = PoisonBits(e);
  size_t width = static_cast<size_t>(ByteWidth(e));
  size_t total = static_cast<size_t>(count) * width;
  if (width == 0 || 64 % width != 0) {  // (no such type today)
    for (size_t i = 0; i + width <= total && width != 0; i += width) std::memcpy(data + i, &bits, width);
    return;
  }
  // A 64-byte block of the pattern, stored block after block: stores only,
  // no reads of what was filled before.
  alignas(64) uint8_t block[64];
  for (size_t i = 0; i < sizeof block; i += width) std::memcpy(block + i, &bits, width);
  size_t i = 0;
  for (; i + sizeof block <= total; i += sizeof block) std::memcpy(data + i, block, sizeof block);
  std::memcpy(data + i, block, total - i);
}

namespace {

constexpr int64_t kWordBits = 64;

// Bits [lo, hi) of a word.
uint64_t BitRange(int64_t lo, int64_t hi) {
  uint64_t upto_hi = hi >= kWordBits ? ~uint64_t{0} : (uint64_t{1} << hi) - 1;
  return upto_hi & ~((uint64_t{1} << lo) - 1);
}

}  // namespace

bool DeferredPoison::Add(uint8_t* base, int64_t count, ElementType e) {
  if (count <= 0) return true;
  int64_t words = (count + kWordBits - 1) / kWordBits;
  Region r{base, count, e, ByteWidth(e)};
  r.bits.reset(static_cast<uint64_t*>(std::calloc(static_cast<size_t>(words), sizeof(uint64_t))));
  if (r.bits == nullptr) return false;
  regions_.push_back(std::move(r));
  return true;
}

DeferredPoison::Region* DeferredPoison::Find(const uint8_t* p) {
  for (Region& r : regions_) {
    if (p >= r.base && p < r.base + r.count * r.width) return &r;
  }
  return nullptr;
}

const DeferredPoison::Region* DeferredPoison::Find(const uint8_t* p) const {
  return const_cast<DeferredPoison*>(this)->Find(p);
}

void DeferredPoison::SetBits(Region& r, int64_t first, int64_t last) {
  for (int64_t word = first / kWordBits; word * kWordBits < last; ++word) {
    int64_t lo = std::max(first - word * kWordBits, int64_t{0});
    int64_t hi = std::min(last - word * kWordBits, kWordBits);
    if (lo == 0 && hi == kWordBits) {
      // Whole words are this run's alone to set: a plain store (another
      // thread's bits in it are set by this store too).
      Word(r, word).store(~uint64_t{0}, std::memory_order_relaxed);
    } else {
      Word(r, word).fetch_or(BitRange(lo, hi), std::memory_order_relaxed);
    }
  }
}

bool DeferredPoison::Seen(const Region& r, int64_t element) const {
  return (Word(r, element / kWordBits).load(std::memory_order_relaxed) >> (element % kWordBits) & 1) != 0;
}

void DeferredPoison::WrittenBytes(Region& r, int64_t lo, int64_t hi) {
  lo = std::max<int64_t>(lo, 0);
  hi = std::min(hi, r.count * r.width);
  if (lo >= hi) return;
  int64_t first = lo / r.width, last = (hi + r.width - 1) / r.width;
  // An element the write covers in part: the rest of it gets the pattern now,
  // unless some write has already been there (then all of it is set).
  auto part = [&](int64_t element) {
    if (Seen(r, element)) return;
    uint64_t pattern = PoisonBits(r.element);
    for (int64_t b = element * r.width; b < (element + 1) * r.width; ++b) {
      if (b < lo || b >= hi) r.base[b] = reinterpret_cast<const uint8_t*>(&pattern)[b - element * r.width];
    }
    Word(r, element / kWordBits).fetch_or(uint64_t{1} << (element % kWordBits), std::memory_order_relaxed);
  };
  if (lo % r.width != 0) part(first++);
  if (hi % r.width != 0 && last > first) part(--last);
  if (first < last) SetBits(r, first, last);
}

void DeferredPoison::Written(const uint8_t* dst, int64_t stride, int64_t n, int64_t w) {
  Region* r = Find(dst);
  if (r == nullptr || n <= 0) return;
  int64_t at = dst - r->base;
  if (stride == 1) return WrittenBytes(*r, at, at + n * w);
  if (w == r->width && at % w == 0) {
    for (int64_t i = at / w, k = 0; k < n && i >= 0 && i < r->count; ++k, i += stride) {
      Word(*r, i / kWordBits).fetch_or(uint64_t{1} << (i % kWordBits), std::memory_order_relaxed);
    }
    return;
  }
  for (int64_t k = 0; k < n; ++k) WrittenBytes(*r, at + k * stride * w, at + k * stride * w + w);
}

bool DeferredPoison::Unwritten(const uint8_t* dst, int64_t stride, int64_t n, int64_t w) const {
  const Region* r = Find(dst);
  if (r == nullptr || n <= 0) return false;
  int64_t at = dst - r->base, end = r->count * r->width;
  if (stride == 1) {
    w *= n;  // one unit of every byte
    n = 1;
  }
  for (int64_t k = 0; k < n; ++k) {
    int64_t lo = at + k * stride * w, hi = std::min(lo + w, end);
    for (int64_t i = lo / r->width; i * r->width < hi; ++i) {
      if (i % kWordBits == 0 && (i + kWordBits) * r->width <= hi &&
          Word(*r, i / kWordBits).load(std::memory_order_relaxed) == ~uint64_t{0}) {
        i += kWordBits - 1;  // a whole word of written elements
        continue;
      }
      if (!Seen(*r, i)) return true;
    }
  }
  return false;
}

int DeferredPoison::Fill(const std::function<bool()>& go_on) {
  constexpr int64_t kPieceBytes = int64_t{1} << 24;
  for (size_t index = 0; index < regions_.size(); ++index) {
    Region& r = regions_[index];
    int64_t words = (r.count + kWordBits - 1) / kWordBits;
    int64_t since_check = 0;
    int64_t open = -1;  // first element of the unwritten run being scanned
    auto close = [&](int64_t end) {
      if (open < 0 || end <= open) {
        open = -1;
        return;
      }
      FillPoison(r.base + open * r.width, end - open, r.element);
      since_check += (end - open) * r.width;
      open = -1;
    };
    for (int64_t word = 0; word < words; ++word) {
      uint64_t written = Word(r, word).load(std::memory_order_relaxed);
      int64_t base = word * kWordBits;
      if (written == ~uint64_t{0}) {
        close(base);
      } else if (written == 0) {
        if (open < 0) open = base;
      } else {
        for (int64_t b = 0; b < kWordBits; ++b) {
          if ((written >> b & 1) != 0) {
            close(base + b);
          } else if (open < 0) {
            open = base + b;
          }
        }
      }
      if (open >= 0 && (base + kWordBits - open) * r.width >= kPieceBytes) close(std::min(base + kWordBits, r.count));
      if (since_check >= kPieceBytes) {
        if (!go_on()) return static_cast<int>(index);
        since_check = 0;
      }
    }
    close(r.count);
  }
  return -1;
}

}  // namespace scjit
