// The LLVM IR emitter's internals, shared by its source files:
//   emit_llvm.cc         the kernel function, types, runtime calls, refs, control flow
//   emit_compute.cc      value ops (kernel-ir.md §4.1)
//   emit_narrow.cc       8- and 16-bit element types, pack/unpack, bitcasts
//   emit_lanes.cc        reductions, scans, scan_count, mask reductions
//   emit_permute.cc      sort, sort_key_val, rev, value gather
//   emit_gather.cc       load_gather, store_scatter, addupdate_scatter
//   emit_memory.cc       memory, DMA and synchronization ops (§4.3, §4.4)
//   emit_indirect.cc     index lists of gather/scatter DMAs
//   emit_views.cc        view_bitcast, view_reshape
//   emit_view_access.cc  element access to views strides cannot describe
//   emit_pipeline.cc     pipelines (emit_pipeline)
//   descriptor.cc        runtime structs (scjit_dma, scjit_ref) filled for a call
// See emit_llvm.h for what the generated code models.
#ifndef SCJIT_LOWERING_EMIT_EMITTER_H_
#define SCJIT_LOWERING_EMIT_EMITTER_H_

#include <algorithm>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "absl/status/statusor.h"
#include "lowering/emit/descriptor.h"
#include "lowering/emit/emit_llvm.h"
#include "lowering/emit/runtime_abi.h"
#include "lowering/ir/ir.h"
#include "lowering/analysis/decisions.h"
#include "lowering/analysis/kernel_info.h"
#include "lowering/analysis/lane_ops.h"
#include "lowering/base/float8.h"
#include "lowering/base/strings.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/LLVMContext.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/IR/Module.h"

namespace scjit::emit {

struct RefChain;

// A view of memory (or of semaphores) as the generated code holds it.
struct RefVal {
  MemorySpace space = MemorySpace::kVmem;
  bool semaphore = false;
  ElementType element = ElementType::kI32;
  llvm::Value* ptr = nullptr;  // data: address of element 0; semaphores: i32 index of element 0
  std::vector<llvm::Value*> sizes;    // i64, one per physical dimension, row-major
  std::vector<llvm::Value*> strides;  // i64, in elements
  // The dimensions the kernel indexes: dimension d is spans[d] consecutive
  // physical ones read as one mixed-radix index (a view_bitcast packing rows, a
  // view_reshape splitting or merging dimensions); all but the first of them
  // have static sizes. Empty: one physical dimension each. Values are row-major
  // in both, so loads, stores and DMAs use the physical dimensions.
  std::vector<int> spans;
  // A view_bitcast that widens a ref whose pieces are not adjacent (wide
  // element (r, c) is made of the narrow (r*k + j, c), a row apart) goes on
  // counting the narrow "units": sizes and strides count units, and each
  // element is the units at the last `pieces` physical dimensions, read as a
  // mixed-radix index, unit 0 holding the lowest bits. No dimension the kernel
  // indexes covers them (emit_views.cc).
  int pieces = 0;
  // A view that no strided description fits (a static slice across the groups
  // of a packed dimension, a reshape whose dimensions do not divide the ref's):
  // the stages from a view that has one. `sizes` are then the dimensions the
  // kernel indexes, `strides` are null and `ptr` is the base view's.
  std::shared_ptr<const RefChain> chain;
  // An indirect (gather/scatter) index list on dimension 0, `idx(...)`
  // (emit_indirect.cc): sizes[0] is then the whole dimension it addresses.
  struct Indices {
    llvm::Value* list = nullptr;    // address of the first i32 entry
    llvm::Value* count = nullptr;   // i64 entries
    llvm::Value* stride = nullptr;  // i64, in entries
    llvm::Value* ignore = nullptr;  // i32, or null without `ignore =`
    bool in_vmem = false;           // a VMEM ref (else a copy of a vector value)
  };
  std::optional<Indices> indices;
  int rank() const { return static_cast<int>(sizes.size()); }  // physical
  int dims() const { return spans.empty() ? rank() - pieces : static_cast<int>(spans.size()); }
  // Element accesses go unit by unit (emit_view_access.cc), not by strides.
  bool reinterpreted() const { return pieces > 0 || chain != nullptr; }
  int span(int d) const { return spans.empty() ? 1 : spans[d]; }
  int first(int d) const {  // the first physical dimension of dimension d
    int p = 0;
    for (int i = 0; i < d; ++i) p += span(i);
    return p;
  }
};

// A load of evenly spaced lanes: its lane 0's address and their spacing in
// bytes, which scjit_rt_lane_origin names another lane from (init check).
struct LoadLanes {
  llvm::Value* lane0 = nullptr;  // null: not known
  llvm::Value* bytes = nullptr;  // i64
};

// One step from a view to another that strides cannot describe (RefVal::chain).
struct RefStage {
  enum class Kind {
    kIndex,    // an indexer: slices and indices
    kReshape,  // view_reshape: the same elements in row-major order
    kBitcast,  // view_bitcast (sc-semantics.md §2.2)
  };
  Kind kind;
  ElementType element;              // after the stage
  std::vector<llvm::Value*> sizes;  // i64, the dimensions after the stage
  // kIndex, one entry per dimension before the stage: its first index (i64),
  // and the dimension it becomes (-1: indexed away).
  std::vector<llvm::Value*> starts;
  std::vector<int> kept;
};

struct RefChain {
  RefVal base;  // a view strides describe (not itself a chain)
  std::vector<RefStage> stages;
};

// A constant's value, or -1.
inline int64_t StaticInt(llvm::Value* v) {
  auto* c = llvm::dyn_cast_or_null<llvm::ConstantInt>(v);
  return c != nullptr ? c->getSExtValue() : -1;
}

// The width of the units a view's sizes and strides count (its element's,
// unless it has pieces), or for a chain the narrowest type along it.
int UnitBits(const RefVal& r);

// The integer type of 8, 16 or 32 bits.
inline ElementType IntOfBits(int bits) {
  return bits == 8 ? ElementType::kI8 : bits == 16 ? ElementType::kI16 : ElementType::kI32;
}

// Vector values larger than this live in a stack buffer, and ops on them run as
// loops over chunks of kChunkElements elements (strip-mining): compile time then
// grows with the number of ops, not with the size of the values. Smaller values
// are LLVM vectors the backend splits into native registers.
inline constexpr int64_t kRegisterBytes = 512;
inline constexpr int64_t kChunkElements = 64;

// True when values of type `t` live in a buffer.
inline bool Large(const Type& t) {
  return t.is_vector() && t.NumElements() * std::max(1, ByteWidth(t.element())) > kRegisterBytes;
}

// What an SSA value is in generated code: an LLVM value (scalars and small
// vectors), a buffer (large vectors: NumElements() elements, row-major; i1
// elements as bytes), or a ref.
//
// With the init check, its shadow and origin (emit_shadows.cc; runtime.md,
// "Init check"): the bits of the value that hold nothing written, in the
// value's layout with integer elements of its width (ShadowTy; an i1's is an
// i1), in registers or, for a large value, in a buffer of its own; and the
// runtime's origin of those bits (an i32, SCJIT_ORIGIN_*), 0 exactly when no
// bit is set. Null: known written (a constant, or nothing unwritten reaches it).
struct Val {
  llvm::Value* value = nullptr;
  llvm::Value* buffer = nullptr;
  std::shared_ptr<RefVal> ref;
  llvm::Value* shadow = nullptr;
  llvm::Value* shadow_buffer = nullptr;
  llvm::Value* origin = nullptr;
};

struct PipelineBlock;  // one in/out operand of a pipeline being emitted (emit_pipeline.cc)
struct PipelineGrid;   // this worker's part of a pipeline's grid (emit_pipeline.cc)



class Emitter {
 public:
  Emitter(const KernelDef& kernel, KernelInfo& info, const EmitOptions& options, llvm::LLVMContext& ctx,
          llvm::Module& module)
      : kernel_(kernel), info_(info), options_(options), ctx_(ctx), module_(module), b_(ctx) {}
  ~Emitter();

  absl::Status Run();

 private:
  // --- Types ---------------------------------------------------------------------
  llvm::Type* ElemTy(ElementType e);
  llvm::Type* ValueTy(const Type& t);
  llvm::StructType* CtxTy();
  llvm::StructType* RefTy();
  llvm::StructType* DmaTy();
  llvm::Value* I32(int64_t v) { return b_.getInt32(static_cast<uint32_t>(v)); }
  llvm::Value* I64(int64_t v) { return b_.getInt64(static_cast<uint64_t>(v)); }

  // --- Runtime calls (runtime_abi.h) ----------------------------------------------
  llvm::FunctionCallee Rt(RuntimeFn fn);
  // Calls a runtime function; on a non-zero status the kernel returns it.
  void CallChecked(RuntimeFn fn, std::vector<llvm::Value*> args);
  // Branches to the exit with `status` when `fail` holds.
  void ExitIf(llvm::Value* fail, llvm::Value* status);
  // The address of a field of the context, and its value. (Runtime structs the
  // kernel passes are Descriptors: descriptor.h.)
  llvm::Value* FieldPtr(CtxField f) { return b_.CreateStructGEP(CtxTy(), ctx_arg_, static_cast<unsigned>(f)); }
  llvm::Value* Ctx(CtxField f) { return b_.CreateLoad(CtxTy()->getElementType(static_cast<unsigned>(f)), FieldPtr(f)); }
  // A stack slot of type `ty` in the entry block (so that every use dominates
  // it and loops do not grow the frame).
  llvm::AllocaInst* EntryAlloca(llvm::Type* ty);
  // The function's one i32 slot for a runtime call's result (the call writes
  // it, the load right after reads it): a slot per call made thousands of
  // stack objects in long kernels, which the backend's cost grew with.
  llvm::Value* OutSlot();
  // Float minimum/maximum (and their reductions) of operands whose NaNs are
  // quieted first: LLVM 19's x86 lowering tests an operand for quiet NaNs only
  // (vfpclass QNaN|-0), so a signalling NaN read from memory lost to a number
  // (differential seed 505539), and it passes a NaN operand through unchanged,
  // so the next minimum/maximum met a signalling NaN it took for quiet (seed
  // 532206). x + x quiets a NaN (canonicalize does not select on x86 in LLVM
  // 19); LLVM drops the test for operands it knows are not NaN.
  llvm::Value* FloatMinimum(llvm::Value* a, llvm::Value* b);
  llvm::Value* FloatMaximum(llvm::Value* a, llvm::Value* b);
  llvm::Value* QuietNaNs(llvm::Value* v);
  // A DMA descriptor for `src` -> `dst` on semaphore `sem` (an i32; -1: none),
  // adding when `add`; the indirect fields are FillIndirect's.
  Descriptor NewDma(const RefVal& src, const RefVal& dst, llvm::Value* sem, bool add);
  // A descriptor in this frame: a stack slot holding its fields.
  llvm::Value* Materialize(const Descriptor& d);
  int Site(const Op& op, std::string text = "", Location loc = {}) {
    return info_.AddSite(op, std::move(text), loc);
  }

  // --- Values --------------------------------------------------------------------
  // A value operand in registers, or a literal as a constant of its literal_type.
  // (Large values have no register form: see BufferOf/ChunkOf.)
  llvm::Value* ValueOf(const Operand& o);
  // The buffer of a large value operand.
  llvm::Value* BufferOf(const Operand& o) { return vals_[o.value].buffer; }
  // A new buffer for a large value of type `t` (an entry-block alloca).
  llvm::Value* NewBuffer(const Type& t);
  // Elements [offset, offset + width) of a large vector operand, or a scalar
  // operand splatted to `width` lanes.
  llvm::Value* ChunkOf(const Operand& o, llvm::Value* offset, int64_t width);
  llvm::Value* LoadChunk(llvm::Value* buffer, ElementType e, llvm::Value* offset, int64_t width);
  void StoreChunk(llvm::Value* buffer, ElementType e, llvm::Value* offset, llvm::Value* chunk);
  // Element `index` of a buffer.
  llvm::Value* LoadElement(llvm::Value* buffer, ElementType e, llvm::Value* index);
  void StoreElement(llvm::Value* buffer, ElementType e, llvm::Value* index, llvm::Value* v);
  // A scalar stack slot (an entry-block alloca) holding `init` from here on.
  llvm::Value* ScalarSlot(llvm::Type* ty, llvm::Value* init);
  // Calls `body(first, width)` for each chunk of `n` elements: a loop over the
  // full chunks, then the tail. `body` emits code at the insertion point.
  absl::Status ForChunks(int64_t n, const std::function<absl::Status(llvm::Value*, int64_t)>& body);
  // Copies `n` elements of type `e` between buffers.
  void CopyElements(llvm::Value* dst, llvm::Value* src, ElementType e, int64_t n);
  // The element type of values in a buffer (i1 is stored as i8).
  llvm::Type* BufferElemTy(ElementType e) { return e == ElementType::kI1 ? b_.getInt8Ty() : ElemTy(e); }
  llvm::Constant* LiteralConstant(const Operand& o, ElementType e);
  llvm::Constant* PoisonConstant(const Type& t);
  llvm::Value* Splat(llvm::Value* scalar, const Type& t);

  // --- Refs ----------------------------------------------------------------------
  std::shared_ptr<RefVal> BaseRef(const Value* v);
  // The view an operand denotes, bounds-checked against its ref. `touched`
  // (an i64): the op touches only the window's first `touched` elements in
  // row-major order (the compressed and expanded accesses), and only those
  // must lie inside the ref; the window is never moved to fit the others.
  absl::StatusOr<RefVal> View(const Op& op, const Operand& o, int site, llvm::Value* touched = nullptr);
  // For View: per dimension d of r, how many of the window's coordinates the
  // positions [0, touched) reach (null for the dimensions `o` indexes away).
  std::vector<llvm::Value*> TouchedLengths(const RefVal& r, const Operand& o, llvm::Value* touched);
  // `index` must lie in [0, limit) (unsigned); returns it, or its clamp.
  llvm::Value* CheckIndex(llvm::Value* index, llvm::Value* limit, int what, int dim, int site);
  // The logical id (i32) of the device `op` addresses, its coordinates checked
  // against the device mesh; -1 when it names none (emit_memory.cc).
  llvm::Value* TargetDevice(const Op& op, int site);
  // This subcore's coordinate on device axis `axis` (i32).
  llvm::Value* DeviceCoordinate(int axis);
  // With bounds checks on, calls scjit_rt_bounds_error(ctx, args()...) on a
  // cold path unless `ok` holds (the kernel returns a non-zero status).
  void ReportUnless(llvm::Value* ok, const std::function<std::vector<llvm::Value*>()>& args);
  // `v` must be a multiple of `group` (a slice bound in a dimension a view packs
  // in groups): returns it, or rounded down.
  llvm::Value* CheckAligned(llvm::Value* v, int64_t group, int dim, int site);
  // The size of dimension d of r (the product of its physical sizes).
  llvm::Value* DimSize(const RefVal& r, int d);
  // The start and size of slice entry `e` of a dimension of `size`, checked.
  std::pair<llvm::Value*, llvm::Value*> SliceBounds(const IndexEntry& e, llvm::Value* size, int d, int site);
  // Applies indexer entry `e` (null: `:`) to dimension d of r when it spans
  // several physical dimensions, adding to `out`, `spans` and `offset`.
  absl::Status IndexGroup(const Op& op, const RefVal& r, int d, const IndexEntry* e, int site, RefVal* out,
                          std::vector<int>* spans, llvm::Value** offset);
  // True when indexer `o` of r makes a view that strides cannot describe (or r
  // is already one); ChainView then makes it.
  bool NeedsChain(const RefVal& r, const Operand& o);
  absl::StatusOr<RefVal> ChainView(const Op& op, const Operand& o, const RefVal& r, int site);
  // view_bitcast and view_reshape of a strided view; nullopt when strides
  // cannot describe the result.
  std::optional<RefVal> StridedBitcast(const RefVal& r, ElementType to);
  std::optional<RefVal> StridedReshape(const RefVal& r, const Type& out);
  // Gives both DMA sides the same physical dimensions (size-1 ones dropped) when
  // either has packed or reshaped dimensions, in units when either has pieces;
  // sets *runs when no such dimensions exist (then DmaRuns moves the data).
  absl::Status MatchDims(const Op& op, RefVal* a, RefVal* b, int site, bool* runs);
  // The two sides of an indirect DMA through a view_bitcast or view_reshape
  // (indirect_views.h) as the runtime moves them: the list's dimension one
  // physical dimension, rows in units of the narrower element, matched
  // (emit_indirect.cc).
  absl::Status IndirectInUnits(const Op& op, RefVal* a, RefVal* b, int site);
  // An indirect DMA's views are ones it moves rows through (indirect_views.h).
  absl::Status CheckIndirectViews(const Op& op);
  // Physical dimensions [first, first + count) of `r` as one (size, stride),
  // when each steps over the next as over one longer dimension.
  std::optional<std::pair<llvm::Value*, llvm::Value*>> OneDimension(const RefVal& r, int first, int count);
  // A strided view counted in units of `bits`, its pieces (and the units of
  // its elements) as plain innermost dimensions.
  void ToUnits(RefVal* r, int bits);
  // Element access unit by unit, for views with pieces or chains
  // (emit_view_access.cc). UnitOffsets: the offset, in units of `bits` from
  // r.ptr, of unit `unit_index` of the element at `idx` (one index per
  // dimension of r; all of type `ty`: i64, or a vector of i32 lanes).
  llvm::Value* UnitOffsets(const RefVal& r, std::vector<llvm::Value*> idx, int unit_index, int bits, llvm::Type* ty);
  // The index in each dimension of r of the element `linear` in row-major order.
  std::vector<llvm::Value*> Coordinates(const RefVal& r, llvm::Value* linear);
  // `v` (an i64) as a value of type `ty` (an integer, or a vector splat).
  llvm::Value* Fit(llvm::Value* v, llvm::Type* ty);
  // `lanes` (null: all): an i1 vector, the elements of the value accessed; the
  // others are not touched (a load gives them poison).
  llvm::Value* LoadUnits(const RefVal& r, const Type& t, llvm::Value* lanes = nullptr);
  void StoreUnits(const RefVal& r, llvm::Value* v, const Type& t, llvm::Value* lanes = nullptr);
  // Copies `count` elements between a view and a buffer, in row-major order.
  void CopyUnits(const RefVal& r, llvm::Value* buffer, llvm::Value* count, bool to_buffer);
  // The element bits of a vector of units (lowest first), and back.
  llvm::Value* JoinUnits(const std::vector<llvm::Value*>& units, ElementType e);
  std::vector<llvm::Value*> SplitUnits(llvm::Value* v, ElementType e, int bits);
  // A DMA as one transfer per run of equally spaced elements on both sides.
  absl::Status DmaRuns(const Op& op, const RefVal& src, const RefVal& dst, llvm::Value* sem, int site);
  // Fills a DMA descriptor for `src` and `dst` and calls the runtime (emit_memory.cc).
  absl::Status IssueDma(const Op& op, const RefVal& src, const RefVal& dst, llvm::Value* sem, int site);
  llvm::Value* Address(const RefVal& r, llvm::Value* offset);  // element `offset` of r
  absl::StatusOr<llvm::Value*> Load(const Op& op, const RefVal& view, const Type& type);
  absl::Status Store(const Op& op, const RefVal& view, llvm::Value* v, const Type& type);
  // Copies a view from (to_buffer) or to memory into a large value's buffer.
  absl::Status CopyView(const Op& op, const RefVal& view, llvm::Value* buffer, const Type& type, bool to_buffer);
  bool Contiguous(const RefVal& r) const;
  // Sets the scjit_ref fields of `d` at `at` (empty: `d` is a scjit_ref) to `r`.
  void FillRef(Descriptor& d, const std::vector<unsigned>& at, const RefVal& r);

  // --- Access checks (emit_access_checks.cc) --------------------------------------
  // Tags the instructions emitted from now on with `op` (null: none).
  void TagOp(const Op* op);
  // True when `ptr` (a pointer or a vector of them) derives from the VMEM or SMEM arena base.
  bool InArena(llvm::Value* ptr) const;
  // Adds the state-byte tests to every tagged VMEM/SMEM access of the function.
  void InstrumentAccesses();
  // True when every active lane's element (at ptrs, one vector of pointers
  // per unit of unit_bytes) passes the state tests of a read and of a write:
  // an update in place may then skip its per-lane tests, and marks nothing new.
  llvm::Value* LanesUpdatable(const std::vector<llvm::Value*>& ptrs, unsigned unit_bytes, llvm::Value* active);
  // Rewrites llvm.masked.expandload / compressstore of vectors narrower than
  // 128 bits (the kernel's and the access checks') lane by lane: LLVM 19's x86
  // backend widens them and may leave the extra mask lanes set (an all-true
  // <8 x i1> made with kxnorw has 16 bits set: an 8-byte compress-store wrote
  // 16). After InstrumentAccesses, which reads the intrinsics' masks.
  void LowerNarrowCompressions();
  // A runtime call checks (and for a write marks) `bytes` bytes at `ptr` before `at`.
  void CheckInBulk(llvm::Instruction* at, bool write, llvm::Value* ptr, llvm::Value* bytes, int site);
  void CheckAccess(llvm::Instruction* at, bool write, llvm::Value* ptr, llvm::Type* type, llvm::Value* mask,
                   bool expand, int site);

  // --- Init check (emit_shadows.cc) ---------------------------------------------
  // Each value's shadow and origin (Val), the uses that decide something
  // (RT-INIT when unwritten), and memory's state bytes read and written with
  // the loads and stores. The interpreter (jit/interp) carries the same.
  bool Shadows() const { return options_.init_shadows && options_.access_checks; }
  static ElementType ShadowElem(ElementType e);  // i1 stays; else the integer of e's width
  llvm::Type* ShadowTy(const Type& t) { return ValueTy(t.WithElement(ShadowElem(t.element()))); }
  // True when o may hold unwritten bits (a value with a shadow).
  bool HasShadow(const Operand& o);
  llvm::Value* ShadowOf(const Operand& o);  // in registers (zero when none)
  llvm::Value* ShadowBufferOf(const Operand& o) { return HasShadow(o) ? vals_[o.value].shadow_buffer : nullptr; }
  // A vector operand's shadow in a buffer (as AsBuffer: its own if large, a
  // copy of its registers, or zeros when it has none).
  llvm::Value* ShadowAsBuffer(const Operand& o);
  // Elements [first, first + width) of o's shadow (a scalar's, splatted).
  llvm::Value* ShadowChunkOf(const Operand& o, llvm::Value* first, int64_t width);
  llvm::Value* OriginOf(const Operand& o);  // i32, 0 when none
  // Gives v `shadow` (registers) and `origin`, which becomes 0 when no bit of
  // the shadow is set; null shadows: v is written.
  void SetShadow(const Value* v, llvm::Value* shadow, llvm::Value* origin, bool settle = true);
  // Gives a large v the shadow in `buffer` and `origin`, made 0 when no byte of
  // the buffer is set (when `settle`).
  void SetShadowBuffer(const Value* v, llvm::Value* buffer, llvm::Value* origin, bool settle = true);
  llvm::Value* NewShadowBuffer(const Type& t) { return NewBuffer(t.WithElement(ShadowElem(t.element()))); }
  // As SetFromBuffer: a large result's shadow buffer, or a small one's loaded.
  void SetShadowFromBuffer(const Value* result, llvm::Value* buffer, llvm::Value* origin, bool settle = true);
  // i1: some bit of `shadow` (a scalar or a vector) is set; of the lanes `on` holds.
  llvm::Value* AnyBit(llvm::Value* shadow, llvm::Value* on = nullptr);
  // i1: some byte of buffer[0, bytes) is not 0.
  llvm::Value* AnyByte(llvm::Value* buffer, int64_t bytes);
  // Each lane of `shadow` with a bit set as all ones in a lane of `like` (a
  // vector or scalar type of the same lanes): a conversion's shadow.
  llvm::Value* Spread(llvm::Value* shadow, llvm::Type* like);
  llvm::Value* MarkComputed(llvm::Value* origin);
  // i1: some bit of o's shadow (registers or buffer) is set.
  llvm::Value* AnyShadow(const Operand& o);
  // Gives v (a scalar or a vector, small or large) a shadow wholly unwritten
  // when `unwritten` (i1) holds, else written, and a computed `origin`.
  void SetLaneShadows(const Value* v, llvm::Value* unwritten, llvm::Value* origin);
  // The first of `origins` (i32s, null skipped) that is not 0.
  llvm::Value* FirstOrigin(std::initializer_list<llvm::Value*> origins);
  // The origin of lane `lane` (of shadow `shadow`) extracted from `vec`, of
  // origin `origin`: when `vec`'s lanes are a get's (LoadLaneOffset) and the
  // lane holds unwritten bits, the record of its element (scjit_rt_lane_origin).
  llvm::Value* LaneOrigin(const Operand& vec, llvm::Value* origin, llvm::Value* shadow, llvm::Value* lane);
  // RT-INIT at op's uses (lowering/analysis/decisions.h) of values not written;
  // before the op does anything else.
  void RequireUses(const Op& op);
  // RT-INIT when `shadow` (of the lanes `on` holds) has a bit set, at the use
  // `use` of `value` by op; the kernel returns unless findings are warnings.
  void Require(const Op& op, const Operand& value, Use use, llvm::Value* shadow, llvm::Value* origin,
               llvm::Value* on = nullptr);
  // The state bytes of a view: the same elements, in the shadow arena, as
  // integers of the element's width.
  RefVal StateView(const RefVal& r);
  // Memory's state bytes (a vector or scalar of integer elements) as a shadow
  // of type `ty`: every byte whose state lacks WRITTEN all ones.
  llvm::Value* StateShadow(llvm::Value* state, llvm::Type* ty);
  // The shadow and origin of `t` as a load at `site` reads it from view (its
  // elements in row-major order; `on`: of these lanes only, the others written).
  // `byte_address(k)`: where the value's byte k (an i64) lies, for the origin.
  std::pair<llvm::Value*, llvm::Value*> LoadShadow(const Op& op, const RefVal& view, const Type& t,
                                                   llvm::Value* on = nullptr);
  // The state bytes a store of a value with `shadow` and `origin` leaves in view.
  void StoreShadow(const Op& op, const RefVal& view, const Type& t, llvm::Value* shadow, llvm::Value* origin,
                   llvm::Value* on = nullptr);
  // State bytes (of one state load) as a shadow, and the origin of its first
  // unwritten byte: `address(k)` gives byte k's address; `site` the load's.
  // On the cold path (the insert point): records the read of the unwritten
  // byte at `address` (scjit_rt_unwritten_read), branches to `cont` and
  // returns there the origin: the record's, or 0 when coming from `here`.
  llvm::Value* RecordRead(int site, llvm::Value* address, llvm::BasicBlock* here, llvm::BasicBlock* cont,
                          LoadLanes lanes = {});
  std::pair<llvm::Value*, llvm::Value*> ShadowAndOrigin(llvm::Value* state, llvm::Type* ty, int site,
                                                        const std::function<llvm::Value*(llvm::Value*)>& address,
                                                        LoadLanes lanes = {});
  // The new state bytes for old ones where a value of `shadow` (null:
  // written) and `origin` is stored.
  llvm::Value* StoredState(llvm::Value* old, llvm::Value* shadow, llvm::Value* origin);
  // Once those are stored: when `unwritten` (i1) holds and the origin is a
  // computed one, on a cold path, the runtime keeps it for the computed bytes
  // between the first and the last byte stored (`range`).
  void StoredOrigin(llvm::Value* unwritten, llvm::Value* origin,
                    const std::function<std::pair<llvm::Value*, llvm::Value*>()>& range);
  // The address of byte j of element k (i64s) of view r, for an origin.
  llvm::Value* ByteAddress(const RefVal& r, llvm::Value* k, llvm::Value* j);
  // Large values: the shadow of a view copied (CopyView) into or out of a
  // shadow buffer.
  llvm::Value* LoadShadowBuffer(const Op& op, const RefVal& view, const Type& t, llvm::Value* buffer);
  void StoreShadowBuffer(const Op& op, const RefVal& view, const Type& t, llvm::Value* buffer, llvm::Value* origin);
  int OriginSite(const Op& op) { return Site(op); }
  // Loop carries: small ones' shadows and origins in phis beside theirs, large
  // ones' in a buffer and a slot of their own.
  struct CarryShadows {
    bool on = false;
    std::vector<llvm::Value*> init_shadow, init_origin;  // small carries, entering
    std::vector<llvm::PHINode*> shadow, origin;          // small carries
    std::vector<llvm::Value*> buffer, origin_slot;       // large carries
  };
  // Before the loop (`init`: the operands entering it).
  CarryShadows PrepareCarryShadows(const std::vector<const Value*>& args, const std::vector<const Operand*>& init);
  // In the header, after the carries' phis: binds each list of arguments.
  void CarryShadowPhis(CarryShadows& cs, llvm::BasicBlock* pre, const std::vector<std::vector<const Value*>>& bind);
  // At the latch: what `yield` gives the next iteration (large ones copied
  // before `latch` is known, small ones added to the phis after).
  void CommitCarryShadows(CarryShadows& cs, const std::vector<const Value*>& args, const Op& yield);
  void LatchCarryShadows(CarryShadows& cs, const Op& yield, llvm::BasicBlock* latch);
  // After the loop: the results'.
  void EndCarryShadows(const CarryShadows& cs, const std::vector<Value*>& results);

  // --- Ops -----------------------------------------------------------------------
  absl::Status EmitRegion(const Region& r, std::vector<llvm::Value*>* yielded);
  // Emits `op` by its family (ops.def), each family in a function of its own.
  absl::Status EmitOp(const Op& op);
  // axis_index, axis_size, program_id, num_programs: the mesh, or inside a
  // pipeline its grid.
  absl::Status EmitGridOp(const Op& op);
  absl::Status EmitViewOp(const Op& op);     // view; view_bitcast and view_reshape by EmitRefView
  absl::Status EmitSelectRef(const Op& op);  // one of several refs, chosen at run time
  // The region ops: loops, if, scoped and pipeline.
  absl::Status EmitControl(const Op& op);
  absl::Status EmitElementwise(const Op& op);
  absl::StatusOr<llvm::Value*> Binary(const Op& op, OpKind kind, llvm::Value* a, llvm::Value* b, ElementType e);
  absl::StatusOr<llvm::Value*> Unary(const Op& op, llvm::Value* a, ElementType e);
  llvm::Value* MulHi(llvm::Value* a, llvm::Value* b, ElementType e);  // mulhi
  llvm::Value* Convert(llvm::Value* v, ElementType from, ElementType to);
  // 8- and 16-bit floats (emit_narrow.cc). Their arithmetic runs in f32, rounded
  // back after each op. 16-bit conversions are inline SIMD code, never
  // host-dependent instructions or soft-float calls (docs/runtime.md, "8- and
  // 16-bit element types"); 8-bit floats live in i8 registers and convert through
  // the runtime's helpers (lowering/base/float8.h).
  static bool IsHalf(ElementType e) { return e == ElementType::kBF16 || e == ElementType::kF16; }
  static bool IsNarrowFloat(ElementType e) { return IsHalf(e) || IsFloat8(e); }
  // A bf16/f16/f8 value (scalar or vector) as f32, exactly; others unchanged.
  llvm::Value* ToF32(llvm::Value* v, ElementType e);
  // An f32 value rounded to nearest even to `e` (bf16, f16, f8), or unchanged (f32).
  llvm::Value* FromF32(llvm::Value* v, ElementType e);
  llvm::Value* Float8Call(RuntimeFn fn, llvm::Value* in, llvm::Type* out_ty, ElementType e);
  // 4-bit integers (emit_narrow.cc) live in i8 registers in memory's form, the
  // value in the low nibble (docs/language.md, "4-bit integers"): every op widens
  // them to i8/u8, computes there and narrows the result back to 4 bits (wrapping).
  // Int4Compute(e) is the type they compute in (i8 for i4, u8 for u4; others: e).
  static ElementType Int4Compute(ElementType e) {
    return e == ElementType::kI4 ? ElementType::kI8 : e == ElementType::kU4 ? ElementType::kU8 : e;
  }
  // An i4 (u4) value as i8 sign- (zero-) extended from its low 4 bits; others unchanged.
  llvm::Value* WidenInt4(llvm::Value* v, ElementType e);
  // An i8 value of Int4Compute(e) as `e` in memory's form (its low 4 bits); others unchanged.
  llvm::Value* NarrowInt4(llvm::Value* v, ElementType e);
  // pack/unpack (sc-semantics.md §3.9, runtime.md §7.4).
  absl::Status EmitPack(const Op& op);
  absl::Status EmitUnpack(const Op& op);
  llvm::Value* PackConvert(llvm::Value* v, ElementType from, ElementType to);
  absl::Status EmitBitcast(const Op& op);
  absl::Status EmitRowBitcast(const Op& op);  // {dim = -2}: pltpu.bitcast
  absl::Status EmitMemory(const Op& op);
  // load_gather, store_scatter, addupdate_scatter (emit_gather.cc).
  absl::Status EmitGatherScatter(const Op& op);
  // Element offsets of lanes `idx` (one index vector per dimension of r) after
  // their bounds check: active lanes out of range are reported (`sites`, one per
  // dimension; `first` is the first lane's number) and clamped; lanes of an
  // empty dimension are turned off in *active. A report names the lowest bad
  // lane of `named` when given (a mask with a lane of each index value the
  // active lanes hold). Every lane's offset is in range, active or not.
  // The offsets are one vector per unit of the element (UnitOffsets).
  std::vector<llvm::Value*> LaneOffsets(const RefVal& r, std::vector<llvm::Value*> idx, llvm::Value** active,
                                        llvm::Value* first, const std::vector<int>& sites,
                                        llvm::Value* named = nullptr);
  // The elements of the active lanes at `offsets` (LaneOffsets), the others poison.
  llvm::Value* GatherLanes(const RefVal& r, const std::vector<llvm::Value*>& offsets, llvm::Value* active,
                           const Type& chunk);
  void ScatterLanes(const RefVal& r, const std::vector<llvm::Value*>& offsets, llvm::Value* active, llvm::Value* v,
                    ElementType e);
  // r[offsets[i]] += v[i] for the active lanes, from the lowest to the highest;
  // with the init check, the sums' states from the elements' and `shadow`'s
  // (v's, null: written) with `origin`.
  void ScatterAdd(const RefVal& r, const std::vector<llvm::Value*>& offsets, llvm::Value* active, llvm::Value* v,
                  ElementType e, llvm::Value* shadow = nullptr, llvm::Value* origin = nullptr);
  // Init check: the state bytes of the active lanes' elements (of w bytes;
  // lanes off: written), as integers of w bytes, and their scatter back.
  llvm::Value* LaneStates(const RefVal& r, const std::vector<llvm::Value*>& offsets, llvm::Value* active, int64_t w);
  void ScatterStates(const RefVal& r, const std::vector<llvm::Value*>& offsets, llvm::Value* active,
                     llvm::Value* states, int64_t w);
  // The address of byte j (an i64) of the element of lane `lane` (an i64).
  llvm::Value* LaneByte(const RefVal& r, const std::vector<llvm::Value*>& offsets, llvm::Value* lane, llvm::Value* j);
  // view_bitcast, view_reshape, view_subcore_slice (emit_views.cc).
  absl::Status EmitRefView(const Op& op);
  absl::Status EmitSubcoreSlice(const Op& op);
  absl::Status EmitDma(const Op& op);
  // Indirect DMAs (emit_indirect.cc): the index list of an idx(...) entry, and
  // the descriptor fields past `add` (runtime/abi.h scjit_dma) for a DMA
  // between `src` and `dst` on a semaphore of type `sem` (null: none).
  absl::StatusOr<RefVal::Indices> IndexList(const Op& op, const IndexEntry& e);
  absl::Status FillIndirect(const Op& op, Descriptor& dma, const RefVal& src, const RefVal& dst, const Type* sem);
  absl::Status EmitSync(const Op& op);
  // pipeline (emit_pipeline.cc, kernel-ir.md §4.6): a loop over this worker's
  // grid points with block copies around the body, in the phases below.
  absl::Status EmitPipeline(const Op& op);
  // The plan: each operand's block (its mode, source, buffer and bounds sites),
  // with the block refs of buffers and of whole-array windows bound.
  absl::StatusOr<std::vector<PipelineBlock>> PlanBlocks(const Op& op);
  absl::StatusOr<PipelineBlock> PlanBlock(const Op& op, size_t k);  // operand k's block
  absl::Status PlanBlockDims(PipelineBlock& b);  // raggedness, window fit, bounds sites
  // This worker's part of the grid; PartitionGrid narrows the dimension the
  // pipeline splits among the workers of its partition axes.
  absl::StatusOr<PipelineGrid> WorkerGrid(const PipelineInfo& p);
  absl::Status PartitionGrid(const PipelineInfo& p, const std::vector<llvm::Value*>& full, PipelineGrid& g);
  // Before the first point: whole-array inputs come in, output buffers start as
  // the poison pattern (runtime.md §7.9), moving blocks get their index slots.
  void StartBlocks(std::vector<PipelineBlock>& blocks);
  // One grid point: the maps' block indices, the blocks moved in and out, the body.
  absl::Status EmitPipelineStep(const Op& op, const PipelineGrid& grid, std::vector<PipelineBlock>& blocks,
                                llvm::Value* step);
  void EnterPoint(const PipelineGrid& grid, llvm::Value* step);  // pushes the grid frame of `step`
  // A moving block at this point: an indirect one moves every time; an input comes
  // in when its index changed (or at the first point), an output goes back then.
  void MoveBlock(PipelineBlock& b, llvm::Value* first);
  std::vector<llvm::Value*> PreviousIndex(const PipelineBlock& b);  // the index b's slots hold
  // After the last point: the outputs go back.
  void FinishBlocks(std::vector<PipelineBlock>& blocks);
  // program_id / num_programs inside a pipeline's maps and body: its grid.
  absl::Status EmitGridQuery(const Op& op);
  // The block indices operand b's map yields at the current grid point, i64,
  // bounds-checked (RT-BOUNDS at the map entry) and clamped.
  absl::StatusOr<std::vector<llvm::Value*>> BlockIndices(PipelineBlock& b);
  // The part of b's source that block `idx` covers; `clip`: a ragged last
  // block stops at the array's end, and squeezed dimensions are dropped.
  RefVal BlockView(const PipelineBlock& b, const std::vector<llvm::Value*>& idx, bool clip);
  // Copies block `idx` (null: the whole array) between b's source and buffer.
  void CopyBlock(const PipelineBlock& b, const std::vector<llvm::Value*>* idx, bool in);
  // Fills a block buffer with poison: unwritten, or padding (poison the kernel may read).
  void PoisonBlock(const PipelineBlock& b, bool padding = false);
  absl::Status EmitFor(const Op& op);
  absl::Status EmitIf(const Op& op);
  absl::Status EmitWhile(const Op& op);
  // Buffers for a loop's large carries (nullptr for small ones), holding `init`.
  std::vector<llvm::Value*> CarryBuffers(const std::vector<const Value*>& args, const std::vector<llvm::Value*>& init);
  // Copies the yielded large carries into their buffers (at a latch).
  // Emits `then()` where `cond` holds.
  void When(llvm::Value* cond, const std::function<void()>& then);
  // The rest of a for/while loop once its body block is current: the body, its
  // yields fed back to the carries (phis, or buffers) at the latch (where
  // `at_latch` adds its own incoming values), the branch back to `header`, and
  // the op's results bound at `done`.
  absl::Status CloseLoop(const Op& op, const Region& body, const std::vector<const Value*>& args,
                         const std::vector<llvm::Value*>& buffers, const std::vector<llvm::PHINode*>& carries,
                         llvm::BasicBlock* header, llvm::BasicBlock* done,
                         const std::function<void(llvm::BasicBlock*)>& at_latch, CarryShadows& shadows);
  void CommitCarries(const std::vector<const Value*>& args, const std::vector<llvm::Value*>& buffers,
                     std::vector<llvm::Value*> yielded);
  void Tick(const Op& loop);

  void Set(const Value* v, llvm::Value* value) { vals_[v].value = value; }
  void SetBuffer(const Value* v, llvm::Value* buffer) { vals_[v].buffer = buffer; }
  // An operand as a region yields it: its register value, or its buffer when large.
  llvm::Value* Carried(const Operand& o) { return o.is_value() && Large(o.value->type) ? BufferOf(o) : ValueOf(o); }
  // The kValue family (emit_compute.cc): making vector values and taking them apart.
  absl::Status EmitValueOp(const Op& op);
  absl::Status EmitShapeOp(const Op& op);  // slice, concat
  // A vector operand in a buffer (its own if large, else a copy of its register).
  llvm::Value* AsBuffer(const Operand& o);
  // Gives `result` the value in `buffer` (as its buffer if large, else loaded).
  void SetFromBuffer(const Value* result, llvm::Value* buffer);
  // A counted loop over i in [0, n) at the insertion point.
  void Loop(int64_t n, const std::function<void(llvm::Value*)>& body);
  void Loop(llvm::Value* n, const std::function<void(llvm::Value*)>& body);  // n: an i64 known when it runs
  // Cross-lane ops (emit_lanes.cc): the kReduction, kScan and kMaskReduction families.
  using Combine = scjit::Combine;  // lowering/analysis/lane_ops.h
  llvm::Value* CombineValues(Combine c, llvm::Value* a, llvm::Value* b, ElementType e);
  llvm::Constant* Identity(Combine c, ElementType e);
  // Lane i of the result is lane i - k of `v` (k < 0: i + |k|) when that lane is
  // in the same row of `row` lanes, else `fill`.
  llvm::Value* ShiftLanes(llvm::Value* v, int64_t k, int64_t row, llvm::Constant* fill);
  // Gives `result` the value `scalar` in every element.
  void SetSplat(const Value* result, llvm::Value* scalar);
  absl::Status EmitLaneOp(const Op& op);
  absl::Status EmitReduce(const Op& op);
  absl::Status EmitScan(const Op& op);
  absl::Status EmitScanCount(const Op& op);
  absl::Status EmitScanCountValues(const Op& op);  // the counts and flags (EmitScanCount adds their shadows)
  void EmitConflictScanCount(const Op& op);  // EmitOptions::conflict_detection
  absl::Status EmitMaskReduce(const Op& op);
  // The kPermute family (emit_permute.cc): sort, sort_key_val (bitonic networks),
  // rev and gather; transpose is TensorCore-only.
  absl::Status EmitPermuteOp(const Op& op);
  absl::Status EmitSort(const Op& op);
  absl::Status EmitGather(const Op& op);  // rev and gather
  // Sort keys as unsigned integers in the order the sort puts them.
  llvm::Value* SortOrder(llvm::Value* keys, ElementType e, bool signed_order, bool descending);
  // Integer indices modulo m, into [0, m), as i32 lanes.
  llvm::Value* IndexModulo(llvm::Value* indices, ElementType e, int64_t m);
  // Runs `compute(operands as chunks, chunk type)` over a large result in chunks,
  // or once on register values; with the init check, `shadow(operands,
  // their shadows, chunk type)` alike when an operand has one (null: the OR of
  // the shadows, which leaves the first operand's origin right). `copies`: the
  // op moves bits without computing (its origin stays a copy's).
  using ShadowFn = std::function<llvm::Value*(const std::vector<llvm::Value*>&, const std::vector<llvm::Value*>&,
                                              const Type&)>;
  absl::Status Elementwise(const Op& op,
                           const std::function<absl::StatusOr<llvm::Value*>(const std::vector<llvm::Value*>&,
                                                                            const Type&)>& compute,
                           const ShadowFn& shadow = nullptr, bool copies = false,
                           llvm::Value* copies_when = nullptr);

  const KernelDef& kernel_;
  KernelInfo& info_;
  const EmitOptions& options_;
  llvm::LLVMContext& ctx_;
  llvm::Module& module_;
  llvm::IRBuilder<> b_;

  llvm::Function* fn_ = nullptr;
  llvm::Value* ctx_arg_ = nullptr;
  llvm::BasicBlock* exit_ = nullptr;
  llvm::PHINode* exit_status_ = nullptr;
  llvm::BasicBlock* entry_ = nullptr;
  llvm::AllocaInst* out_slot_ = nullptr;  // OutSlot's
  absl::flat_hash_map<const Value*, Val> vals_;
  llvm::Value* vmem_ = nullptr;
  llvm::Value* smem_ = nullptr;
  llvm::Value* shared_ = nullptr;
  llvm::Value* hbm_ = nullptr;
  // The private global holding each distinct constant part of a descriptor.
  absl::flat_hash_map<llvm::Constant*, llvm::GlobalVariable*> descriptor_globals_;
  // Access checks: the op being emitted, the ops tagged so far (metadata holds
  // their index), a detached instruction carrying the tag for the builder, and
  // scjit_ctx::shadow_delta.
  const Op* current_op_ = nullptr;
  std::vector<const Op*> tagged_ops_;
  llvm::Instruction* tag_carrier_ = nullptr;
  llvm::Value* shadow_delta_ = nullptr;
  // The grids of the pipelines being emitted, innermost last: global indices
  // and full sizes (i32), one per grid dimension.
  struct GridFrame {
    std::vector<llvm::Value*> index, size;
  };
  std::vector<GridFrame> grids_;
};

inline absl::Status Unsupported(const KernelDef& k, const Op& op, std::string_view what) {
  return absl::UnimplementedError(Cat("not implemented yet: ", what, " (", op.name(), " at line ", op.loc.line,
                                      ", kernel @", k.name, ")"));
}

// A bitcast from or to i4/u4: their 4-bit packing is not modelled (scjit's memory
// holds one per byte).
inline absl::Status Int4BitcastUnsupported(const KernelDef& k, const Op& op, const Type& in, const Type& out) {
  return Unsupported(k, op, Cat(op.name(), " from ", in.ToString(), " to ", out.ToString(), " (4-bit types)"));
}

// Row-major element offsets of a view with static sizes: calls `row(offset,
// first_element)` for each run of `row_len` elements that is contiguous.
absl::Status ForEachRow(const RefVal& r, int64_t* row_len, const std::function<void(int64_t, int64_t)>& row);

}  // namespace scjit::emit

#endif  // SCJIT_LOWERING_EMIT_EMITTER_H_
