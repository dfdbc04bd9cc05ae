// The state of one kernel being generated (tests/fuzz/kernel_gen.cc): the
// random source, the values in scope, the kernel's parameters, scratch and
// tables, and the text written so far. The value ops are in gen_ops.cc, the
// statements (memory, DMAs, control flow, synchronization) in kernel_gen.cc.
#ifndef SCJIT_TESTS_FUZZ_GEN_BUILDER_H_
#define SCJIT_TESTS_FUZZ_GEN_BUILDER_H_

#include <cstdint>
#include <deque>
#include <optional>
#include <string>
#include <vector>

#include "absl/strings/str_cat.h"
#include "tests/fuzz/gen_types.h"
#include "tests/fuzz/kernel_gen.h"

namespace scjit::fuzz {

// splitmix64: the same numbers on every platform (std's distributions are not).
class Rng {
 public:
  explicit Rng(uint64_t seed) : state_(seed ^ 0x5DEECE66DULL) {}
  uint64_t Next();
  int Below(int n) { return n <= 1 ? 0 : static_cast<int>(Next() % static_cast<uint64_t>(n)); }
  bool Chance(int percent) { return Below(100) < percent; }
  template <typename T>
  const T& Pick(const std::vector<T>& v) { return v[Below(static_cast<int>(v.size()))]; }

 private:
  uint64_t state_;
};

struct Val {
  std::string name;  // with '%'
  VType t;
  int uses = 0;
  // Maybe computed from bytes nothing wrote (kernels with partial writes): the
  // generator follows this roughly, to choose how often such values decide
  // something; the engines know exactly.
  bool partial = false;
};

// An HBM input of shape [workers, rows, n] copied into VMEM scratch [rows, n]
// (or, for a scalar row type, [workers, rows] into SMEM [rows]): where values
// come from and what memory ops touch. A table some op wrote is copied out.
struct Table {
  std::string param;  // "%x0"
  std::string buf;    // "%t0"
  VType row;          // one row: vector<n x e>, or a scalar e in SMEM
  int rows = 0;       // a power of two
  bool written = false;
  // The input is a staged parameter (vmem, or smem for scalars): every subcore
  // gets its own copy of the whole array before the kernel runs.
  bool staged = false;
  // A value maybe computed from unwritten bytes was stored into it (partial writes).
  bool partial = false;
};

// A scratch buffer of a kernel with partial writes, written in part
// (kernel_gen.cc, PartialOp). Some are copied out at the end.
struct PartialBuffer {
  std::string buf;  // "%pw3"
  VType row;        // one row: vector<n x e> (VMEM), or a scalar e (SMEM)
  int rows = 0;
  bool copy_out = false;
};

// Shape constraints of an op's type.
enum ShapeFlags : unsigned {
  kScalarOk = 1,   // may be a scalar (32-bit or i1 elements only)
  kVectorOk = 2,
  kLanesOnly = 4,  // a vector of exactly L elements
};

class Builder {
 public:
  Builder(uint64_t seed, const GenOptions& options);

  Rng& rng() { return rng_; }
  const GenOptions& options() const { return options_; }
  int lanes() const { return lanes_; }
  int subcores() const { return subcores_; }
  int workers() const { return cores_ * subcores_; }

  // A fresh name: "%v12".
  std::string Fresh(const char* prefix = "v");
  // Writes one line of the body at the current indentation.
  template <typename... A>
  void Line(const A&... parts) {
    lines_.push_back(absl::StrCat(std::string(2 * indent_, ' '), parts...));
  }
  void Indent(int delta) { indent_ += delta; }

  // Values in scope. A region's values end with it: Mark() before, Restore() after.
  size_t Mark() const { return pool_.size(); }
  void Restore(size_t mark) { pool_.resize(mark); }
  // A new value: tainted when the statement is (or `partial`).
  const Val& Define(const std::string& name, VType t, bool partial = false);
  std::vector<Val>& pool() { return pool_; }

  // A type from `set` (intersected with the options' types) that satisfies
  // `shapes`, often one a value in scope has; nullopt when none can be.
  std::optional<VType> ChooseType(ESet set, unsigned shapes);
  // A vector length for `e`: L, or the L-lane register's count for narrow types.
  int VectorLength(E e);
  // An operand of type t: a value in scope, or one made now.
  std::string Get(VType t, int depth = 0);
  // A literal of element type e (text), within its range.
  std::string Literal(E e);
  // A scalar i32 operand in [0, bound) (bound a power of two): a literal or a
  // value masked with `and`.
  std::string Index(int bound);
  // An i1 scalar operand (an `if`'s condition: it decides).
  std::string Condition() {
    Deciding d(*this);
    return Get(VType{E::kI1, 0});
  }

  // Partial writes (GenOptions::partial_writes). The taint: a value taken for
  // the statement being made is maybe computed from unwritten bytes, so what
  // the statement defines, or stores into a table, is too.
  bool partial() const { return partial_; }
  bool tainted() const { return tainted_; }
  void ClearTaint() { tainted_ = false; }
  void Taint() { tainted_ = tainted_ || partial_; }
  // What a table holds flows into what is read from it, and back.
  void ReadTable(const Table& t) {
    if (t.partial) Taint();
  }
  void WroteTable(Table* t) {
    if (tainted_) t->partial = true;
  }
  // Only values not tainted may be taken (see Deciding).
  bool clean_only() const { return clean_only_; }
  // While one lives, the operand being made decides something (an index, a
  // condition, a mask, lane indices, a count): it may be a tainted value only
  // with the kernel's chance of that (0, 10, 30 or 100%), and then is one
  // when it can be half the time, so that some kernels with partial writes
  // only compute with unwritten bytes and others let them decide. Draws
  // nothing from the random source in other kernels.
  class Deciding {
   public:
    explicit Deciding(Builder& b) : b_(b), clean_(b.clean_only_), prefer_(b.prefer_partial_) {
      if (!b.partial_ || b.clean_only_) return;
      if (!b.rng_.Chance(b.decide_percent_)) {
        b.clean_only_ = true;
        b.prefer_partial_ = false;
      } else if (b.rng_.Chance(50)) {
        b.prefer_partial_ = true;
      }
    }
    ~Deciding() {
      b_.clean_only_ = clean_;
      b_.prefer_partial_ = prefer_;
    }
    Deciding(const Deciding&) = delete;
    Deciding& operator=(const Deciding&) = delete;

   private:
    Builder& b_;
    bool clean_, prefer_;
  };
  std::deque<PartialBuffer>& partial_buffers() { return partial_buffers_; }

  // The table whose row type is `row`, made (with its input and its load) if
  // there is none; nullopt when no more tables may be made.
  Table* TableOf(VType row);
  std::deque<Table>& tables() { return tables_; }
  // Declares a parameter / scratch entry; returns its name with '%'.
  std::string AddParam(const char* prefix, ParamDirection dir, E e, std::vector<int64_t> shape,
                       const char* space = "hbm");
  std::string AddScratch(const char* prefix, const std::string& type);
  static std::string RefType(const char* space, E e, const std::vector<int64_t>& shape);

  // Whether the current region may write memory (not in a parallel_for).
  bool writes_allowed() const { return no_writes_ == 0; }
  void ForbidWrites(int delta) { no_writes_ += delta; }
  int depth() const { return depth_; }
  void Nest(int delta) { depth_ += delta; }

  // Loads `table` from its input with one of the DMA forms (copy, start/wait on
  // a DMA or a regular semaphore, two halves, a row loop, a gather by a list).
  void LoadTable(const Table& table);

  GeneratedKernel Finish(std::vector<std::string> epilogue);
  std::vector<std::string> TakeLines() { return std::move(lines_); }
  void PutLines(std::vector<std::string> lines) { lines_ = std::move(lines); }

  // Names every kernel has: this worker's coordinates and the semaphores.
  std::string core, subcore, worker, dma_sem, sem;

 private:
  std::string MakeValue(VType t, int depth);
  std::string MakeValueOf(VType t, int depth);

  Rng rng_;
  GenOptions options_;
  std::string target_;
  int lanes_ = 16, cores_ = 1, subcores_ = 1;
  int next_ = 0, indent_ = 1, no_writes_ = 0, depth_ = 0;
  std::vector<Val> pool_;
  std::deque<Table> tables_;  // stable: TableOf hands out pointers
  std::vector<GenParam> params_;
  std::vector<std::string> param_text_, scratch_text_;
  std::vector<std::string> prologue_, lines_;
  bool partial_ = false, tainted_ = false, clean_only_ = false, prefer_partial_ = false;
  int decide_percent_ = 0;
  std::deque<PartialBuffer> partial_buffers_;
};

// A length the generator gives vectors of `e` (Builder::VectorLength's).
inline bool GeneratedLength(Builder& b, E e, int n) {
  int l = b.lanes();
  return n == l || n == 2 * l || (PerLane(e) > 1 && n == l * PerLane(e));
}

// Emits one value op chosen from the table of gen_ops.def; false when the
// chosen op could not be made from the types allowed.
bool EmitValueOp(Builder& b);

}  // namespace scjit::fuzz

#endif  // SCJIT_TESTS_FUZZ_GEN_BUILDER_H_
