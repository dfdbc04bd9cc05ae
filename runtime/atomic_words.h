// RT-RACE between fetch_and_add and plain accesses of one SMEM word (runtime.md
// §5). A fetch_and_add is atomic with respect to the other fetch_and_adds of its
// word only (they are ordered among themselves by the machine): the owner's own
// loads and stores of a word that other subcores fetch_and_add must be ordered
// with those fetch_and_adds by happens-before, like any two accesses of which one
// writes.
//
// The words of the SMEM buffers fetch_and_add targets (ArenaBuffer::
// fetch_and_add) carry SCJIT_SHADOW_WATCHED, so the owner's accesses of them come
// to the runtime. For each word this keeps the owner's last access and each other
// subcore's last fetch_and_add, each with its subcore's own clock entry then
// (FastTrack's epochs): access b of subcore j is ordered after access a of
// subcore i at entry c when j's clock has entry i >= c. One access of the owner
// stands for all its earlier ones (program order), as one fetch_and_add of a
// subcore does for its earlier ones.
//
// Thread safety: one per subcore whose SMEM holds such words; OwnerAccess runs on
// that subcore's fiber during epochs, FetchAndAdd on the machine between them.
#ifndef SCJIT_RUNTIME_ATOMIC_WORDS_H_
#define SCJIT_RUNTIME_ATOMIC_WORDS_H_

#include <cstdint>
#include <optional>

#include "absl/container/flat_hash_map.h"
#include "absl/container/inlined_vector.h"
#include "runtime/shared_races.h"

namespace scjit {

class AtomicWords {
 public:
  // One access of a word: by which subcore, at which of its own clock entries,
  // at which site.
  struct Access {
    int subcore = -1;
    uint32_t clock = 0;
    int site = -1;
    bool write = false;
  };

  explicit AtomicWords(int owner) : owner_(owner) {}

  // The owner, whose clock is `now`, loads or stores the word at SMEM byte
  // `offset` at `site`: the first fetch_and_add of another subcore it is not
  // ordered after, if any. The access is recorded either way.
  std::optional<Access> OwnerAccess(int64_t offset, int site, bool write, const Clock& now);
  // Subcore `s`, whose clock is `now`, fetch_and_adds the word at `offset` at
  // `site`: the owner's access it is not ordered after, if any (none when s is
  // the owner). Recorded either way.
  std::optional<Access> FetchAndAdd(int64_t offset, int site, int s, const Clock& now);

 private:
  struct Word {
    // The owner's last write and last read (subcore -1: none yet): a
    // fetch_and_add unordered with both names the write.
    Access write, read;
    absl::InlinedVector<Access, 2> adds;  // one per other subcore
  };
  static bool OrderedBefore(const Access& a, const Clock& now) {
    return a.clock <= now[static_cast<size_t>(a.subcore)];
  }

  int owner_;
  absl::flat_hash_map<int64_t, Word> words_;
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_ATOMIC_WORDS_H_
