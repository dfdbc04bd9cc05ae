// The interpreter's internals, shared by its source files:
//   interp.cc           building programs, the entry point, regions, the op dispatch
//   elements.cc         one element: reading, writing, computing (elements.h)
//   interp_compute.cc   elementwise ops, convert, bitcast
//   interp_values.cc    const, iota, broadcast, extract, insert, slice, concat,
//                       reshape, pack, unpack
//   interp_lanes.cc     reductions, scans, scan_count, mask reductions
//   interp_permute.cc   sort, sort_key_val, rev, value gather
//   interp_refs.cc      views of refs and their bounds checks, select_ref, grid ops
//   interp_views.cc     view_bitcast, view_reshape: views that strides may not describe
//   interp_memory.cc    get, swap, store, addupdate, masked forms, fetch_and_add,
//                       and the access checks of the kernel's own loads and stores
//   interp_gather.cc    load_gather, store_scatter, addupdate_scatter
//   interp_dma.cc       DMAs, semaphores, barrier, debug_print, debug_check, alloc
//   interp_control.cc   for, parallel_for, if, while, scoped, the loop tick
//   interp_pipeline.cc  pipeline
//
// Each family of ops (ops.def) has two functions: Prepare* when the program is
// built (it checks the interpreter handles the op and makes the sites the
// emitter makes for it) and Exec* when a subcore runs it. Exec* return the
// runtime's status: 0 to go on, else the status the kernel returns at once,
// as generated code does after a runtime call.
#ifndef SCJIT_JIT_INTERP_PROGRAM_H_
#define SCJIT_JIT_INTERP_PROGRAM_H_

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/status.h"
#include "jit/interp/elements.h"
#include "jit/interp/interp.h"
#include "lowering/analysis/decisions.h"
#include "lowering/analysis/kernel_info.h"
#include "lowering/base/strings.h"
#include "lowering/ir/ir.h"
#include "runtime/abi.h"

namespace scjit::interp {

// Vector values larger than this the emitter keeps in stack buffers (its
// Large): memory ops copy them row by row with bulk access checks, and ops not
// flagged kLarge (ops.def) refuse them.
inline constexpr int64_t kRegisterBytes = 512;
inline bool Large(const Type& t) {
  return t.is_vector() && t.NumElements() * std::max(1, ByteWidth(t.element())) > kRegisterBytes;
}
// The emitter's strip-mining width: a large value's gathers, scatters and unit
// copies go this many lanes at a time, each chunk one access.
inline constexpr int64_t kChunkElements = 64;

// A scalar or vector value: its type and its elements in row-major order, each
// in memory's form (elements.h), ByteWidth bytes apart.
//
// With the init check (runtime.md, "Init check"), its shadow: the bits of
// `bytes` that hold nothing written, bit for bit as MemorySanitizer's (an i1
// element's is its bit 0), empty when none does; and their origin
// (runtime/abi.h SCJIT_ORIGIN_*), 0 exactly when the shadow is empty. An
// element is unwritten when a bit of its shadow is set. (Shadows.cc has the
// rules each op follows, the emitter's emit_shadows.cc the same.)
struct Val {
  Type type;
  std::vector<uint8_t> bytes;
  std::vector<uint8_t> shadow;
  int32_t origin = 0;

  static Val Of(const Type& t);  // every element 0, written
  ElementType element() const { return type.element(); }
  int width() const { return ByteWidth(type.element()); }
  int64_t count() const { return type.is_vector() ? type.NumElements() : 1; }
  Bits at(int64_t i) const { return LoadBits(bytes.data() + i * width(), width()); }
  void set(int64_t i, Bits b) { StoreBits(bytes.data() + i * width(), width(), b); }
  // The shadow of element i, and setting it (the shadow is made on the first
  // set bit).
  bool written() const { return shadow.empty(); }
  Bits shadow_at(int64_t i) const { return shadow.empty() ? 0 : LoadBits(shadow.data() + i * width(), width()); }
  void set_shadow(int64_t i, Bits s);
  // Drops a shadow without a set bit, and the origin with it; else gives it
  // `origin` (the first operand's that had one, computed or not).
  void Settle(int32_t with_origin);
};

// Every bit of an element of `e` (an i1's is its bit 0).
inline Bits AllOnes(ElementType e) {
  int bits = e == ElementType::kI1 ? 1 : ByteWidth(e) * 8;
  return bits >= 64 ? ~Bits{0} : (Bits{1} << bits) - 1;
}
// `origin` marked computed (0 stays 0).
inline int32_t Computed(int32_t origin) { return origin == 0 ? 0 : origin | SCJIT_ORIGIN_COMPUTED; }

// The index list of an indirect DMA (`idx(...)`, runtime/abi.h scjit_dma).
struct IndexList {
  const int32_t* list = nullptr;  // a VMEM ref's entries, or `copy`'s
  std::shared_ptr<std::vector<int32_t>> copy;  // a vector value's entries as i32
  int64_t count = 0;
  int64_t stride = 1;  // in entries
  std::optional<int32_t> ignore;
  bool in_vmem = false;
};

struct ViewChain;

// A strided view of memory or of semaphores: element (i0, i1, ...) lives
// sum(i_d * strides[d]) elements from `ptr` (semaphores: from index `sem`).
// A view through view_bitcast or view_reshape that strides do not describe
// has a `chain` instead (interp_views.cc); its `sizes` are its dimensions.
struct Ref {
  MemorySpace space = MemorySpace::kVmem;
  bool semaphore = false;
  ElementType element = ElementType::kI32;
  uint8_t* ptr = nullptr;
  int64_t sem = 0;
  std::vector<int64_t> sizes, strides;
  // In this subcore's VMEM or SMEM arena: the kernel's accesses are checked
  // (the emitter's InArena).
  bool arena = false;
  // The JIT's code knows the sizes and strides as constants (a slice of a
  // run-time size, or select_ref, makes them values): its Contiguous test.
  bool static_shape = true;
  std::optional<IndexList> indices;  // an idx(...) list on dimension 0
  std::shared_ptr<const ViewChain> chain;
  // Per dimension, the rows a narrowing view_bitcast packed into one element
  // come in groups of this many (empty: none): a dynamic slice of such a
  // dimension must hold whole groups (interp_views.cc, the emitter's spans).
  std::vector<int64_t> groups;

  int rank() const { return static_cast<int>(sizes.size()); }
  int64_t count() const;
  int64_t group(int d) const { return d < static_cast<int>(groups.size()) ? groups[d] : 1; }
  // Row-major with unit strides (size-1 dimensions aside), and known as such.
  bool Contiguous() const;
  // The address of the element at row-major position `k` (no chain).
  uint8_t* At(int64_t k) const;
  // Elements are accessed in units of this many bytes: the narrowest element
  // along the chain (the element's width without one).
  int UnitBytes() const;
  // The address of byte `b` of the element at row-major position `k`.
  uint8_t* ByteAt(int64_t k, int b) const;
};

// How a chained view's element maps to the bytes of the strided view it
// reinterprets (interp_views.cc): the stages, applied in order from `base`.
struct ViewStage {
  enum class Kind { kIndex, kBitcast, kReshape };
  Kind kind = Kind::kIndex;
  ElementType element = ElementType::kI32;  // after the stage
  std::vector<int64_t> sizes;               // after the stage
  std::vector<int64_t> starts;              // kIndex: per dimension before it
  std::vector<int> kept;                    // kIndex: the dimension after it that runs along it, or -1
};
struct ViewChain {
  Ref base;  // strided
  std::vector<ViewStage> stages;
  int unit_bytes = 1;
};

// The sites the emitter makes for an op (its layout's site table), made when
// the program is built.
struct OpSites {
  int main = -1;            // the op's own site (its bounds checks, runtime calls)
  int access = -1;          // its VMEM/SMEM accesses (access checks), without text
  std::vector<int> more;    // per family: index vectors, map entries, copies...
  // Init check: the site of each operand whose value decides something
  // (ForEachUse, lowering/analysis/decisions.h; a while's condition; a
  // pipeline map's block indices).
  absl::flat_hash_map<const Operand*, int> uses;
};

// One part of a kernel, ready to run.
struct Program {
  const KernelDef* kernel = nullptr;
  Options options;
  int cores = 1, subcores = 1;
  absl::flat_hash_map<const Value*, Slot> slots;
  absl::flat_hash_map<const Op*, OpSites> sites;

  const OpSites& SitesOf(const Op& op) const { return sites.at(&op); }
};

// Building a program: the kernel's sites and what the interpreter handles.
struct Builder {
  const KernelDef& kernel;
  KernelInfo& info;
  Program& program;

  int Site(const Op& op, std::string text = "", Location loc = {}) { return info.AddSite(op, std::move(text), loc); }
  OpSites& SitesOf(const Op& op) { return program.sites[&op]; }
  // The access-check site of an op that touches memory (when the checks are on).
  void AccessSite(const Op& op);
  // Init check: the sites of op's uses that decide something (interp_shadows.cc).
  void UseSites(const Op& op);
  void UseSite(const Op& op, const Operand& value, Use use);
  absl::Status Unsupported(const Op& op, std::string_view what) const;
};

// One subcore running one program.
class Exec {
 public:
  Exec(scjit_ctx* ctx, const Program& program) : ctx(ctx), program(program) {}

  // What an SSA value holds: a value, or a ref.
  struct Binding {
    Val val;
    std::shared_ptr<const Ref> ref;
  };

  int32_t RunRegion(const Region& r, std::vector<Val>* yielded);
  int32_t RunOp(const Op& op);

  // --- Values ----------------------------------------------------------------------
  // A value operand, or a literal as a value of its literal_type.
  Val Get(const Operand& o);
  // A scalar operand's bits, and as an integer sign-extended from its width
  // (the emitter's index arithmetic).
  Bits Scalar(const Operand& o);
  int64_t SInt(const Operand& o);
  void Set(const Value* v, Val val) { env[v].val = std::move(val); }
  void SetRef(const Value* v, Ref r) { env[v].ref = std::make_shared<const Ref>(std::move(r)); }

  // --- Refs (interp_refs.cc) ----------------------------------------------------------
  // The ref a value denotes: its view, or the base ref of a parameter, scratch or alloc.
  const Ref& RefOf(const Value* v);
  // The view an operand denotes, bounds-checked against its ref (`site`).
  // `touched` >= 0: the op touches only the window's first `touched` elements
  // in row-major order, and only those must lie inside the ref (the emitter's
  // View; a window of a chained or grouped view is checked whole).
  int32_t View(const Operand& o, int site, Ref* out, int64_t touched = -1);
  // The same, of `r` (RefOf(o.value) seen otherwise, as in units).
  int32_t ViewOf(const Ref& r, const Operand& o, int site, Ref* out, int64_t touched = -1);
  // `*index` must lie in [0, limit): else (bounds checks compiled) the runtime
  // reports it; then it is clamped into the range, as the emitter's CheckIndex.
  int32_t CheckIndex(int64_t* index, int64_t limit, int what, int dim, int site);
  // The start and length of a slice or range entry of a dimension of `size`,
  // bounds-checked as the emitter's (a strided slice's last element inside).
  // `reach` >= 0: only the slice's first `reach` elements must be inside.
  int32_t Slice(const IndexEntry& e, int64_t size, int dim, int site, int64_t* start, int64_t* n,
                int64_t reach = -1);
  int32_t ReportBounds(int site, int what, int dim, int64_t index, int64_t limit);
  // The logical id of the device `op` addresses (-1: none), its coordinates
  // checked as the emitter's TargetDevice (interp_refs.cc).
  int32_t TargetDevice(const Op& op, int site, int32_t* device);
  // This subcore's coordinate on device axis `axis`.
  int32_t DeviceCoordinate(int axis) const;

  // --- Memory (interp_memory.cc) -------------------------------------------------------
  // One access of the kernel to elements of `r` at `addrs` (each r's element
  // wide): with access checks compiled and r in an arena, the state bytes of
  // each are tested (the first bad one goes to scjit_rt_access_fault) and a
  // write marks them written (emit_access_checks.cc, CheckAccess).
  // `run`: the elements are consecutive and a fault names them all (the
  // emitter's expandload/compressstore).
  // `width`: of units of that many bytes instead (a chained view's).
  int32_t Touch(const Ref& r, const std::vector<uint8_t*>& addrs, bool write, int site, bool run = false,
                int width = 0);
  // A bulk copy's check of `bytes` bytes at `p` (scjit_rt_access_check).
  int32_t TouchBulk(const Ref& r, const uint8_t* p, int64_t bytes, bool write, int site);
  // Every element of `r` in row-major order, as `Touch` takes them.
  static std::vector<uint8_t*> Elements(const Ref& r);
  // Loads (stores) a value of r's shape, as the emitter's Load/CopyView (Store).
  int32_t Load(const Ref& r, const Type& t, int site, Val* out);
  int32_t Store(const Ref& r, const Val& v, int site);

  // --- Init check (interp_shadows.cc) --------------------------------------------------
  bool shadows() const { return program.options.init_shadows; }
  // RT-INIT at `site` when `v` (of the lanes `on` holds, when given) is not
  // written: the status to return.
  int32_t Require(const Val& v, int site, const Val* on = nullptr);
  // Every use of op's operands that decides something (ForEachUse), in order.
  int32_t RequireUses(const Op& op);
  // RT-INIT when `value` (an operand of `op` with a use site) is not written.
  int32_t RequireOperand(const Op& op, const Operand& value);
  // A load's shadow: byte j of v's element elements[k] was read from
  // bytes_of[k * w + j] (w: v's element width), and is unwritten where that
  // byte's state lacks WRITTEN; v's origin is then the first such byte's (in
  // the order of bytes_of), which the runtime makes for the load at `site`
  // (a value loaded in pieces: its first piece's that has one).
  // `lane0`, `lane_bytes`: a load of evenly spaced lanes (scjit_rt_unwritten_read).
  int32_t LoadShadow(Val* v, const std::vector<int64_t>& elements, const std::vector<uint8_t*>& bytes_of, int site,
                     const uint8_t* lane0 = nullptr, int64_t lane_bytes = 0);
  // A store's: the state bytes of bytes_of, in order, from v's shadow as
  // above, and (a computed value) the origin of what it stores there.
  int32_t StoreShadow(const Val& v, const std::vector<int64_t>& elements, const std::vector<uint8_t*>& bytes_of);

  // --- Control (interp_control.cc) --------------------------------------------------------
  // The loop back-edge: every SCJIT_TICK_PERIOD of them, scjit_rt_tick.
  int32_t Tick(int site);

  scjit_ctx* ctx;
  const Program& program;
  absl::flat_hash_map<const Value*, Binding> env;
  // The grids of the pipelines running, innermost last: each dimension's global
  // index and full size (program_id and num_programs inside them).
  struct GridFrame {
    std::vector<int32_t> index, size;
  };
  std::vector<GridFrame> grids;
};

// The families (ops.def), each in its file.
absl::Status PrepareElementwise(Builder& b, const Op& op);
int32_t ExecElementwise(Exec& x, const Op& op);
absl::Status PrepareValue(Builder& b, const Op& op);
int32_t ExecValue(Exec& x, const Op& op);
absl::Status PrepareLanes(Builder& b, const Op& op);  // kReduction, kScan, kMaskReduction
int32_t ExecLanes(Exec& x, const Op& op);
absl::Status PreparePermute(Builder& b, const Op& op);
int32_t ExecPermute(Exec& x, const Op& op);
absl::Status PrepareGrid(Builder& b, const Op& op);
int32_t ExecGrid(Exec& x, const Op& op);
absl::Status PrepareView(Builder& b, const Op& op);
int32_t ExecView(Exec& x, const Op& op);
absl::Status PrepareRefChoice(Builder& b, const Op& op);
int32_t ExecRefChoice(Exec& x, const Op& op);
absl::Status PrepareMemory(Builder& b, const Op& op);
int32_t ExecMemory(Exec& x, const Op& op);
absl::Status PrepareGatherScatter(Builder& b, const Op& op);
int32_t ExecGatherScatter(Exec& x, const Op& op);
absl::Status PrepareDma(Builder& b, const Op& op);
int32_t ExecDma(Exec& x, const Op& op);
absl::Status PrepareSync(Builder& b, const Op& op);  // kSemaphore, kSync
int32_t ExecSync(Exec& x, const Op& op);
absl::Status PrepareControl(Builder& b, const Op& op);
int32_t ExecControl(Exec& x, const Op& op);
absl::Status PreparePipeline(Builder& b, const Op& op);  // interp_pipeline.cc
int32_t ExecPipeline(Exec& x, const Op& op);

// 0, 1, ..., n - 1: the elements a load or store of a whole value moves.
std::vector<int64_t> FirstElements(int64_t n);

// view_bitcast and view_reshape (interp_views.cc): the view of `r` they make,
// and an indexer applied to a chained view.
Ref Reinterpret(const Ref& r, const Op& op);
Ref IndexChain(const Ref& r, ViewStage stage, std::vector<int64_t> groups);
// view_subcore_slice: `subcore`'s n columns of a strided ref's minor dimension.
Ref SubcoreSlice(const Ref& r, int64_t n, int subcore);
// Slices of dimensions a view_bitcast packed (Ref::groups), as the emitter's
// IndexGroup: when a static slice of `o` straddles groups, the view is one the
// emitter takes unit by unit and nothing is checked (Straddles); otherwise a
// dynamic start or size must be a multiple of the group (RT-BOUNDS, rounded
// down when unchecked). `*group`: the kept dimension's group.
bool Straddles(const Operand& o, const Ref& r);
int32_t AlignToGroup(Exec& x, const IndexEntry& e, int64_t group, int dim, int site, int64_t* start, int64_t* n,
                     int64_t* kept_group);
// True when `v` is a view_bitcast or view_reshape, or a view or select_ref of
// one: the emitter may take it unit by unit, which some ops refuse.
bool Reinterpreted(const Value* v);
// The narrowest element along those views (v's own when there are none).
int NarrowestBytes(const Value* v);

// The index list of an idx(...) entry, as the emitter's IndexList (interp_dma.cc).
IndexList MakeIndexList(Exec& x, const IndexEntry& e);
// Issues a DMA between two strided views (interp_dma.cc): a descriptor as the
// emitter fills it, and `fn` (scjit_rt_dma_start, _wait or _copy).
using DmaFn = int32_t (*)(scjit_ctx*, const scjit_dma*, int32_t);
// The rest of a descriptor: a remote copy's send semaphore and target device
// (-1, -1: a local copy); an add's elements as units (scjit_dma::add_pieces,
// with the element type they make).
struct DmaExtras {
  int32_t send_sem = -1;
  int32_t device = -1;
  int32_t add_pieces = 0;
  ElementType add_element = ElementType::kI32;
};
int32_t IssueDma(Exec& x, DmaFn fn, const Ref& src, const Ref& dst, int32_t sem, bool add,
                 const Type* sem_type, int site, DmaExtras extras = {});

}  // namespace scjit::interp

#endif  // SCJIT_JIT_INTERP_PROGRAM_H_
