// Where the ops of a generated kernel file came from. A `.scir` file written by a
// tool (scjit.jax.export) tags each op with the user's source position,
// `loc("kernel.py":42:5)`; diagnostics and run-time findings about the op then
// point at that position, with the user's line, instead of at the generated
// file (which a note still names).
//
// Thread safety: an OriginMap is filled by the parser, then only read (its
// cache of the users' files has a lock of its own).
#ifndef SCJIT_LOWERING_BASE_ORIGINS_H_
#define SCJIT_LOWERING_BASE_ORIGINS_H_

#include <map>
#include <memory>
#include <mutex>
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

  // Line `line` (1-based) of the user's file at `path` without its terminator;
  // "" when the file or the line does not exist. Each file is read once, and
  // only a regular file (a device or a pipe may never end) whose size keeps all
  // the files read within kMaxOriginBytes: a kernel naming any files at all
  // costs at most that much memory and reading, whatever its number of ops.
  std::string SourceLine(const std::string& path, int line) const;

 private:
  // The file at `path`, read (null when it cannot be read) the first time.
  const SourceFile* UserFile(const std::string& path) const;

  std::map<int, Origin> origins_;
  mutable std::mutex mu_;
  mutable std::map<std::string, std::unique_ptr<const SourceFile>> files_;  // guarded by mu_
  mutable uint64_t bytes_read_ = 0;                                          // guarded by mu_
};

// What an OriginMap reads of the users' files at most, in all.
inline constexpr uint64_t kMaxOriginBytes = uint64_t{64} << 20;

}  // namespace scjit

#endif  // SCJIT_LOWERING_BASE_ORIGINS_H_
