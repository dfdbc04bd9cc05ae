// Where the ops of a generated kernel file came from. A `.scir` file written by a
// tool (scjit.jax.export) tags each op with the user's source position,
// `loc("kernel.py":42:5)`; diagnostics and run-time findings about the op then
// point at that position, with the user's line, instead of at the generated
// file (which a note still names).
//
// Thread safety: an OriginMap is filled by the parser, then only read.
#ifndef SCJIT_LOWERING_BASE_ORIGINS_H_
#define SCJIT_LOWERING_BASE_ORIGINS_H_

#include <map>
#include <string>
#include <string_view>

#include "lowering/base/source.h"
#include "scjit/diagnostic.h"

namespace scjit {

// A position in the user's source: a file and its 1-based line and column.
struct Origin {
  std::string file;
  int line = 0;
  int col = 0;

  friend bool operator==(const Origin&, const Origin&) = default;
};

// The origins of the lines of one kernel file: the op that starts on a line, and
// every operand on that line, come from that line's origin.
class OriginMap {
 public:
  void Add(int line, Origin origin) { origins_[line] = std::move(origin); }
  bool empty() const { return origins_.empty(); }
  // The origin of `line` of the kernel file, or null.
  const Origin* Find(int line) const;

  // Moves `d`, when it is located in `file` on a line with an origin, to that
  // origin: its file, line, column and the text of that line (read from the
  // user's file; empty when it cannot be read), with a first note giving the
  // place in the kernel file and its text.
  void Relocate(Diagnostic& d, const SourceFile& file) const;

 private:
  std::map<int, Origin> origins_;
};

// Line `line` (1-based) of the file at `path` without its terminator; "" when
// the file or the line does not exist.
std::string ReadSourceLine(const std::string& path, int line);

}  // namespace scjit

#endif  // SCJIT_LOWERING_BASE_ORIGINS_H_
