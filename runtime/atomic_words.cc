#include "runtime/atomic_words.h"

namespace scjit {

std::optional<AtomicWords::Access> AtomicWords::OwnerAccess(int64_t offset, int site, bool write, const Clock& now) {
  Word& w = words_[offset];
  std::optional<Access> race;
  for (const Access& a : w.adds) {
    if (!OrderedBefore(a, now)) {
      race = a;
      break;
    }
  }
  (write ? w.write : w.read) = Access{owner_, now[static_cast<size_t>(owner_)], site, write};
  return race;
}

std::optional<AtomicWords::Access> AtomicWords::FetchAndAdd(int64_t offset, int site, int s, const Clock& now) {
  if (s == owner_) return std::nullopt;  // program order
  Word& w = words_[offset];
  std::optional<Access> race;
  for (const Access* own : {&w.write, &w.read}) {
    if (!race && own->subcore >= 0 && !OrderedBefore(*own, now)) race = *own;
  }
  Access add{s, now[static_cast<size_t>(s)], site, true};
  for (Access& a : w.adds) {
    if (a.subcore == s) {
      a = add;
      return race;
    }
  }
  w.adds.push_back(add);
  return race;
}

}  // namespace scjit
