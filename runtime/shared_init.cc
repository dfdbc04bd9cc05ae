#include "runtime/shared_init.h"

#include <algorithm>
#include <atomic>
#include <bit>
#include <cstring>
#include <new>

namespace scjit {
namespace {

constexpr uint8_t kWritten = SCJIT_SHADOW_WRITTEN;
constexpr uint8_t kComputed = SCJIT_SHADOW_COMPUTED;

std::atomic_ref<uint64_t> Word(uint64_t* bits, int64_t i) { return std::atomic_ref<uint64_t>(bits[i / 64]); }

bool Bit(const uint64_t* bits, int64_t i) {
  return (std::atomic_ref<uint64_t>(const_cast<uint64_t*>(bits)[i / 64]).load(std::memory_order_relaxed) >>
          (i % 64)) & 1;
}

// The bits [from, to) of one word.
uint64_t Mask(int64_t from, int64_t to) {
  return (to - from == 64 ? ~uint64_t{0} : ((uint64_t{1} << (to - from)) - 1)) << (from % 64);
}

}  // namespace

SharedInit::Bits::~Bits() {
  delete[] written.load();
  delete[] computed.load();
}

uint64_t* SharedInit::Bitmap(const Region& r, std::atomic<uint64_t*>& slot, bool fill) {
  if (uint64_t* bits = slot.load(std::memory_order_acquire)) return bits;
  size_t words = static_cast<size_t>((r.hi - r.lo + 63) / 64);
  auto* made = new (std::nothrow) uint64_t[words];
  if (made == nullptr) return nullptr;
  std::memset(made, fill ? 0xff : 0, words * 8);
  uint64_t* expected = nullptr;
  if (slot.compare_exchange_strong(expected, made, std::memory_order_acq_rel)) return made;
  delete[] made;  // another thread made it first
  return expected;
}

int64_t SharedInit::SetRange(uint64_t* bits, int64_t first, int64_t count, bool on) {
  // A word this range covers in part may hold bits of bytes in another stripe
  // of SharedWrites, which another thread may be writing: changed atomically.
  int64_t changed = 0;
  auto part = [&](int64_t from, int64_t to) {  // within one word
    if (from >= to) return;
    uint64_t mask = Mask(from, to);
    uint64_t was = on ? Word(bits, from).fetch_or(mask, std::memory_order_relaxed)
                      : Word(bits, from).fetch_and(~mask, std::memory_order_relaxed);
    changed += std::popcount(mask & (on ? ~was : was));
  };
  int64_t end = first + count;
  int64_t head_end = std::min(end, (first + 63) / 64 * 64);
  part(first, head_end);
  // Whole words lie in the range's own stripes: plain stores. Most ranges are
  // first writes (every word the other way): one vectorized test, then a memset.
  first = head_end;
  uint64_t* words = bits + first / 64;
  int64_t whole = std::max<int64_t>(0, (end - first) / 64);
  uint64_t from = on ? 0 : ~uint64_t{0}, to = ~from;
  uint64_t any = 0;
  for (int64_t i = 0; i < whole; ++i) any |= words[i] ^ from;
  if (any == 0) {
    changed += whole * 64;
    std::memset(words, on ? 0xff : 0, static_cast<size_t>(whole) * 8);
  } else {
    for (int64_t i = 0; i < whole; ++i) {
      changed += std::popcount(words[i] ^ to);
      words[i] = to;
    }
  }
  first += whole * 64;
  part(first, end);
  return changed;
}

void SharedInit::CountUnwritten(const Region& r, int64_t delta) {
  if (delta == 0) return;
  int64_t was = r.bits->unwritten.fetch_add(delta, std::memory_order_relaxed);
  // (One call sees each crossing of 0: the bits each changes are its own.)
  if (was == 0 && delta > 0) regions_unwritten_.fetch_add(1, std::memory_order_relaxed);
  if (was > 0 && was + delta == 0) regions_unwritten_.fetch_sub(1, std::memory_order_relaxed);
}

bool SharedInit::AddRegion(const uint8_t* lo, int64_t bytes, bool written, const uint8_t* state) {
  if (lo == nullptr || bytes <= 0) return true;
  Region r{lo, lo + bytes, std::make_unique<Bits>()};
  if (!written || state != nullptr) {
    uint64_t* bits = Bitmap(r, r.bits->written, /*fill=*/false);
    if (bits == nullptr) return false;
    int64_t set = 0;
    for (int64_t i = 0; state != nullptr && i < bytes;) {  // each run of written bytes
      while (i < bytes && (state[i] & kWritten) == 0) ++i;
      int64_t first = i;
      while (i < bytes && (state[i] & kWritten) != 0) ++i;
      if (i > first) set += SetRange(bits, first, i - first, true);
    }
    for (int64_t i = 0; state != nullptr && i < bytes; ++i) {
      if ((state[i] & kComputed) == 0) continue;
      uint64_t* computed = Bitmap(r, r.bits->computed, /*fill=*/false);
      if (computed == nullptr) return false;
      Word(computed, i).fetch_or(uint64_t{1} << (i % 64), std::memory_order_relaxed);
    }
    r.bits->unwritten.store(bytes - set, std::memory_order_relaxed);
    if (bytes > set) regions_unwritten_.fetch_add(1, std::memory_order_relaxed);
  }
  auto at = std::upper_bound(regions_.begin(), regions_.end(), lo,
                             [](const uint8_t* p, const Region& x) { return p < x.lo; });
  regions_.insert(at, std::move(r));
  return true;
}

const SharedInit::Region* SharedInit::RegionOf(const uint8_t* p) const {
  auto it = std::upper_bound(regions_.begin(), regions_.end(), p,
                             [](const uint8_t* q, const Region& x) { return q < x.lo; });
  if (it == regions_.begin()) return nullptr;
  --it;
  return p < it->hi ? &*it : nullptr;
}

void SharedInit::Read(const uint8_t* p, int64_t n, uint8_t* out) const {
  const Region* r = RegionOf(p);
  const uint64_t* written = r != nullptr ? r->bits->written.load(std::memory_order_acquire) : nullptr;
  const uint64_t* computed = r != nullptr ? r->bits->computed.load(std::memory_order_acquire) : nullptr;
  if (written == nullptr && computed == nullptr) {
    std::memset(out, kWritten, static_cast<size_t>(n));
    return;
  }
  int64_t first = p - r->lo;
  for (int64_t i = 0; i < n; ++i) {
    int64_t at = first + i;
    bool w = written == nullptr || Bit(written, at);
    out[i] = w ? kWritten : (computed != nullptr && Bit(computed, at)) ? kComputed : 0;
  }
}

bool SharedInit::Write(const uint8_t* p, int64_t n, const uint8_t* in) {
  const Region* r = RegionOf(p);
  if (r == nullptr || n <= 0) return true;
  bool all_written = true, any_computed = false;
  for (int64_t i = 0; i < n; ++i) {
    all_written &= in[i] == kWritten;
    any_computed |= in[i] == kComputed;
  }
  uint64_t* written = r->bits->written.load(std::memory_order_acquire);
  uint64_t* computed = r->bits->computed.load(std::memory_order_acquire);
  if (written == nullptr && !all_written) written = Bitmap(*r, r->bits->written, /*fill=*/true);
  if (computed == nullptr && any_computed) computed = Bitmap(*r, r->bits->computed, /*fill=*/false);
  if ((written == nullptr && !all_written) || (computed == nullptr && any_computed)) return false;
  // Word by word: the bits to set and to clear in each bitmap.
  int64_t first = p - r->lo, delta = 0;
  for (int64_t i = 0; i < n;) {
    int64_t at = first + i;
    int64_t in_word = std::min<int64_t>(64 - at % 64, n - i);
    uint64_t w_on = 0, c_on = 0;
    for (int64_t k = 0; k < in_word; ++k) {
      w_on |= uint64_t{in[i + k] == kWritten} << ((at + k) % 64);
      c_on |= uint64_t{in[i + k] == kComputed} << ((at + k) % 64);
    }
    uint64_t mask = Mask(at, at + in_word);
    if (written != nullptr) {
      uint64_t before = Word(written, at).fetch_or(w_on, std::memory_order_relaxed) & mask;
      Word(written, at).fetch_and(~(mask & ~w_on), std::memory_order_relaxed);
      delta += std::popcount(before & ~w_on) - std::popcount(w_on & ~before);  // cleared, less set
    }
    if (computed != nullptr) {
      Word(computed, at).fetch_or(c_on, std::memory_order_relaxed);
      Word(computed, at).fetch_and(~(mask & ~c_on), std::memory_order_relaxed);
    }
    i += in_word;
  }
  CountUnwritten(*r, delta);
  return true;
}

bool SharedInit::Written(const uint8_t* p, int64_t bytes) const {
  if (AllWritten()) return true;
  const Region* r = RegionOf(p);
  if (r == nullptr || r->bits->unwritten.load(std::memory_order_relaxed) == 0) return true;
  return FirstUnwritten(p, bytes) == nullptr;
}

const uint8_t* SharedInit::FirstUnwritten(const uint8_t* p, int64_t bytes) const {
  const Region* r = RegionOf(p);
  const uint64_t* bits = r != nullptr ? r->bits->written.load(std::memory_order_acquire) : nullptr;
  if (bits == nullptr) return nullptr;
  int64_t first = p - r->lo, end = std::min<int64_t>(first + bytes, r->hi - r->lo);
  for (int64_t i = first; i < end;) {
    uint64_t w = std::atomic_ref<uint64_t>(const_cast<uint64_t*>(bits)[i / 64]).load(std::memory_order_relaxed) >>
                 (i % 64);
    int64_t n = std::min<int64_t>(64 - i % 64, end - i);  // bits of this word in the range
    int64_t ones = std::countr_one(w);
    if (ones < n) return p + (i - first) + ones;
    i += n;
  }
  return nullptr;
}

bool SharedInit::NoneWritten(const uint8_t* p, int64_t bytes) const {
  if (AllWritten()) return false;
  const Region* r = RegionOf(p);
  if (r == nullptr || bytes <= 0 || bytes > r->hi - p) return false;
  const uint64_t* bits = r->bits->written.load(std::memory_order_acquire);
  if (bits == nullptr) return false;
  int64_t first = p - r->lo, end = first + bytes;
  // A word may hold bits of bytes another thread writes (an array need not be
  // aligned to the stripes of SharedWrites): loaded atomically, the whole
  // words of the range without a mask each.
  auto word = [&](int64_t w) {
    return std::atomic_ref<uint64_t>(const_cast<uint64_t*>(bits)[w]).load(std::memory_order_relaxed);
  };
  auto part = [&](int64_t from, int64_t to) {  // within one word
    if (from >= to) return uint64_t{0};
    return word(from / 64) & Mask(from, to);
  };
  int64_t head_end = std::min(end, (first + 63) / 64 * 64);
  int64_t tail_start = std::max(head_end, end / 64 * 64);
  uint64_t any = part(first, head_end) | part(tail_start, end);
  for (int64_t w = head_end / 64; w < tail_start / 64; ++w) any |= word(w);
  return any == 0;
}

int64_t SharedInit::Computed(const uint8_t* lo, int64_t bytes, int64_t width, const uint8_t** first) const {
  *first = nullptr;
  const Region* r = RegionOf(lo);
  const uint64_t* bits = r != nullptr ? r->bits->computed.load(std::memory_order_acquire) : nullptr;
  if (bits == nullptr || width <= 0) return 0;
  int64_t begin = lo - r->lo, end = std::min<int64_t>(begin + bytes, r->hi - r->lo), count = 0;
  for (int64_t e = begin; e < end; e += width) {
    for (int64_t i = e; i < std::min(e + width, end); ++i) {
      if (!Bit(bits, i)) continue;
      if (*first == nullptr) *first = lo + (i - begin);
      ++count;
      break;
    }
  }
  return count;
}

void SharedInit::RunMarker::Mark(const uint8_t* dst, int64_t stride, int64_t n, int64_t w) {
  if (init_->AllWritten() || n <= 0) return;
  if (stride == 1) {
    MarkBytes(dst, n * w);
    return;
  }
  for (int64_t i = 0; i < n; ++i) MarkBytes(dst + i * stride * w, w);
}

void SharedInit::RunMarker::MarkBytes(const uint8_t* p, int64_t bytes) {
  const Region* r = init_->RegionOf(p, last_);
  if (r == nullptr) return;
  last_ = r;
  // (A computed byte is not written: with nothing unwritten, none is computed.)
  if (r->bits->unwritten.load(std::memory_order_relaxed) == 0) return;
  int64_t first = p - r->lo, count = std::min<int64_t>(bytes, r->hi - p);
  if (uint64_t* written = r->bits->written.load(std::memory_order_acquire)) {
    init_->CountUnwritten(*r, -SetRange(written, first, count, true));
  }
  if (uint64_t* computed = r->bits->computed.load(std::memory_order_acquire)) SetRange(computed, first, count, false);
}

}  // namespace scjit
