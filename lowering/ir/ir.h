// The in-memory Kernel IR: modules, kernels, regions, ops, values.
//
// General semantics (kernel-ir.md is the full definition):
// - A Module holds kernels. A KernelDef runs once per subcore of its mesh; its
//   parameters are refs into HBM (or staged VMEM/SMEM copies), its scratch refs
//   are per subcore (per SparseCore for vmem_shared).
// - Values are SSA: each Value is defined once (kernel parameter, scratch, op
//   result or region argument) and used by Operands. A KernelDef owns all its Values;
//   Regions own their Ops; Ops own their Regions.
// - Ops are stored generically, like MLIR operations: operands (each possibly with
//   an indexer `[...]`), optional mask, attributes, regions, results. Which fields
//   an op uses is fixed by its row in ops.def (its Syntax) and documented there.
// - Literal operands carry no type of their own: the verifier gives each the type
//   the op requires (`literal_type`), which later stages read through type().
#ifndef SCJIT_LOWERING_IR_IR_H_
#define SCJIT_LOWERING_IR_IR_H_

#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "lowering/base/jax_release.h"
#include "lowering/base/origins.h"
#include "lowering/base/source.h"
#include "lowering/base/target.h"
#include "lowering/ir/types.h"

namespace scjit {

// ----------------------------------------------------------------------------------
// The op table.

enum class OpKind : uint16_t {
#define SCJIT_OP(Enum, name, Family, Syntax, a, b, c, d, Rule, flags, attrs, summary) Enum,
#include "lowering/ir/ops.def"
};

// Which ops belong together (see ops.def): what the verifier and the emitter
// dispatch on.
enum class OpFamily : uint8_t {
  kElementwise, kValue, kReduction, kScan, kMaskReduction, kPermute, kGrid, kView,
  kRefChoice, kMemory, kGatherScatter, kDma, kSemaphore, kSync, kControl,
};

// How an op is written (see ops.def).
enum class Syntax : uint8_t {
  kGeneric, kConst, kCmp, kAxis, kDma, kPrint, kCheck, kAlloc,
  kFor, kIf, kWhile, kScoped, kPipeline,
};

// The verifier's shared type rules (see ops.def).
enum class TypeRule : uint8_t { kSame, kBitwise, kShift, kFloat, kCustom };

enum OpFlag : uint32_t {
  kVectorOnly = 1u << 0,
  kTcOnly = 1u << 1,
  kHasMask = 1u << 2,
  kIndexVectors = 1u << 3,
  kTerminator = 1u << 4,
  kSideEffect = 1u << 5,
  kLarge = 1u << 6,
};

struct OpInfo {
  OpKind kind;
  std::string_view name;
  OpFamily family;
  Syntax syntax;
  int min_operands, max_operands;  // -1: unbounded
  int min_results, max_results;    // -1: decided by the op
  TypeRule rule;
  uint32_t flags;
  std::string_view attrs;  // accepted attribute names, comma-separated
  std::string_view summary;

  bool has(OpFlag f) const { return (flags & f) != 0; }
  bool AcceptsAttr(std::string_view attr) const;
};

const OpInfo& Info(OpKind kind);
std::optional<OpKind> OpKindFromName(std::string_view name);
size_t NumOpKinds();
// The ops whose row satisfies `pred`, in table order.
std::vector<OpKind> OpsWhere(const std::function<bool(const OpInfo&)>& pred);
// The ops of `family`, in table order.
std::vector<OpKind> OpsOf(OpFamily family);

// Attribute kinds (attrs.def).
// kDeviceId: an i32 (a logical device id) or a list of them (mesh coordinates).
enum class AttrKind : uint8_t { kInt, kBool, kString, kI32, kIntList, kDeviceId };
enum class AttrWhere : uint8_t { kOp, kKernel };
struct AttrInfo {
  std::string_view name;
  AttrKind kind;
  AttrWhere where;
  std::string_view summary;
};
const AttrInfo* FindAttrInfo(std::string_view name);
std::span<const AttrInfo> AllAttrs();

// ----------------------------------------------------------------------------------
// Values and operands.

class Op;
struct Region;

struct Value {
  enum class Kind : uint8_t { kParam, kScratch, kResult, kRegionArg };

  std::string name;  // without the '%'
  Type type;
  Location loc;      // where it is defined
  Kind kind = Kind::kResult;
  Op* def = nullptr;         // kResult: the defining op
  Region* region = nullptr;  // kRegionArg: the region it is an argument of
  int index = 0;             // result / argument / parameter / scratch position

  // kScratch written `%s: sem @scalar`: a semaphore of the kernel's part on that
  // mesh (Pallas' `SemaphoreType.REGULAR(()) @ mesh`), which this part only
  // signals. The verifier finds that part and its scratch of the same name.
  std::optional<MeshKind> other_mesh;
  Location other_loc;          // where `@scalar` is written
  int other_part = -1;         // that part's position
  const Value* other = nullptr;  // that part's scratch semaphore
};

struct IndexEntry;

// An operand: a use of a value, or a literal standing in for a scalar. A value
// operand may carry an indexer: `%ref[ds(%i, 16), :]`, `%v[3]`.
struct Operand {
  enum class Kind : uint8_t { kValue, kInt, kFloat, kBool };

  Kind kind = Kind::kValue;
  Value* value = nullptr;  // kValue; null when the name was undefined (reported)
  std::string name;        // kValue: the name as written
  int64_t int_value = 0;   // kInt (also 0/1 of kBool)
  double float_value = 0;  // kFloat
  Location loc;

  bool indexed = false;           // an indexer `[...]` was written
  std::vector<IndexEntry> index;  // its entries

  Type literal_type;  // for literals: the type the op gives it (set by the verifier)
  Type view;          // for indexed refs: the type after the indexer (set by the verifier)

  bool is_value() const { return kind == Kind::kValue; }
  bool is_literal() const { return kind != Kind::kValue; }
  // The operand's type (a literal's only after verification); kNone if unknown.
  Type type() const;
  // The base value's type, ignoring the indexer.
  const Type* value_type() const { return value != nullptr ? &value->type : nullptr; }
};

// One entry of an indexer (kernel-ir.md §4.2), or one entry of a pipeline map.
struct IndexEntry {
  enum class Kind : uint8_t {
    kIndex,     // `%i` or `3`: an integer index, the dimension is squeezed
    kSlice,     // `ds(start, size ⟨, stride = k⟩)`; size a literal or a value
    kRange,     // `a:b`, `a:`, `:b` static slice
    kAll,       // `:`
    kIndirect,  // `idx(%ind ⟨, ignore = n⟩)`: an indirect index list
  };

  Kind kind = Kind::kAll;
  Operand start;   // kIndex: the index; kSlice: the start; kIndirect: the list
  Operand size;    // kSlice
  std::optional<Operand> stride;  // kSlice, when `stride =` was written
  std::optional<int64_t> lo, hi;  // kRange
  std::optional<Operand> ignore;  // kIndirect
  Location loc;
};

// `{name = value}` on an op or a kernel.
struct AttrValue {
  enum class Kind : uint8_t { kOperand, kString, kList };
  Kind kind = Kind::kOperand;
  Operand operand;              // literal or value
  std::string str;              // kString
  std::vector<AttrValue> list;  // kList
  Location loc;
};

struct Attribute {
  std::string name;
  AttrValue value;
  Location loc;
};

// ----------------------------------------------------------------------------------
// Ops and regions.

struct Region {
  std::vector<Value*> args;  // induction variable, carries, pipeline block refs, grid vars
  std::vector<std::unique_ptr<Op>> ops;
  Op* parent = nullptr;      // null for a kernel body
  bool is_pipeline_map = false;  // a pipeline index map (its yield carries map_entries)
  Location loc;      // the opening brace
  Location end_loc;  // the closing brace
};

enum class CmpPredicate : uint8_t { kEq, kNe, kLt, kLe, kGt, kGe };
std::string_view PredicateName(CmpPredicate p);
std::optional<CmpPredicate> PredicateFromName(std::string_view name);

// kDevice: an axis of the kernel's device mesh (`devices(...)`), named by
// Op::device_axis.
enum class MeshAxis : uint8_t { kCore, kSubcore, kDevice };
std::string_view AxisName(MeshAxis a);

// `const` payload: one literal (scalar), or `dense<...>` elements (one = splat).
struct ConstValue {
  bool dense = false;      // `dense<...>` was written
  bool dense_list = false; // `dense<[...]>` (else a splat)
  std::vector<Operand> elements;  // literals, flattened row-major
};

// Pipelines (kernel-ir.md §4.6).
struct BlockDim {
  enum class Kind : uint8_t { kSize, kSqueezed, kIndirect };
  Kind kind = Kind::kSize;
  int64_t size = 1;  // kSize, kIndirect
  Location loc;
};

enum class DimSemantics : uint8_t { kParallel, kArbitrary };

struct PipelineOperand {
  bool is_output = false;
  Operand ref;
  std::vector<BlockDim> block;
  std::unique_ptr<Region> map;  // args = grid variables; ends with a kYield with map_entries
  bool short_map = false;       // written `(%i) -> (%i, 0)`
  Location loc;
};

struct PipelineInfo {
  std::vector<Operand> grid;
  std::vector<MeshAxis> partition;  // empty: every subcore runs the whole grid
  Location partition_loc;
  bool all_parallel = false;        // `parallel`
  std::vector<DimSemantics> dims;   // `dims(...)`; empty = all arbitrary
  Location dims_loc;
  std::vector<PipelineOperand> operands;  // in order written
};

class Op {
 public:
  explicit Op(OpKind kind, Location loc) : kind(kind), loc(loc) {}
  Op(const Op&) = delete;
  Op& operator=(const Op&) = delete;

  const OpInfo& info() const { return Info(kind); }
  std::string_view name() const { return info().name; }
  const Attribute* FindAttr(std::string_view attr) const;
  // kRound: {rounding_method = "to_nearest_even"} (jnp.round) rather than the
  // default, halves away from zero (lax.round).
  bool RoundsToEven() const;

  OpKind kind;
  Location loc;                  // the op name
  std::optional<Origin> origin;  // `loc("file.py":12:5)`: where a tool made it from
  std::vector<Value*> results;   // owned by the kernel
  std::vector<Operand> operands; // items in the order written (see ops.def)
  std::vector<Operand> index_vectors;  // `[%i0, %i1]` of load_gather/store_scatter
  std::optional<Operand> mask;   // `mask %m`
  std::vector<Attribute> attrs;
  std::vector<std::unique_ptr<Region>> regions;
  Region* parent = nullptr;

  // Form-specific payloads.
  CmpPredicate predicate = CmpPredicate::kEq;  // kCmp
  MeshAxis axis = MeshAxis::kCore;             // kAxis
  std::string device_axis;                     // kAxis on MeshAxis::kDevice: its name
  Location axis_loc;                           // kAxis: the axis name
  ConstValue constant;                         // kConst
  std::string text;                            // kPrint: the format string; kCheck: the message
  bool dma_add = false;                        // kDma: `add`
  bool has_src_sem = false;                    // kDma: operands[3] is `src_sem`
  Type alloc_type;                             // kAlloc
  bool has_else = false;                       // kIf: regions[1] exists
  std::unique_ptr<PipelineInfo> pipeline;      // kPipeline: regions[0] is the body
  std::vector<IndexEntry> map_entries;         // kYield ending a pipeline map
};

// ----------------------------------------------------------------------------------
// Kernels and modules.

// ParamDirection, DirectionName, MeshKind: scjit/types.h.

struct Param {
  ParamDirection direction = ParamDirection::kIn;
  Value* value = nullptr;
};

struct Mesh {
  MeshKind kind = MeshKind::kVector;
  bool written = false;            // a `mesh` clause was given
  std::optional<int64_t> cores;    // as written; defaults are the target's
  std::optional<int64_t> subcores;
  Location loc, cores_loc, subcores_loc;
};

// One axis of a kernel's device mesh (`devices(y = 2, x = 4)`, shard_map's
// mesh): the chips a launch runs on, major axis first.
struct DeviceAxis {
  std::string name;
  int64_t size = 1;
  Location loc;
};

// A kernel is one or more parts (MPMD, language.md §5 "Kernels of several
// meshes"): each a mesh, its scratch and a body run by every subcore of that
// mesh, all parts in one launch sharing the parameters. The first part is the
// KernelDef itself; every further part is a KernelDef of its own (`more_parts`)
// with the same name and parameters (its own Values of them), so a stage that
// handles one kernel handles each part alike.
struct KernelDef {
  std::string name;  // without the '@'
  Location loc;
  std::vector<Param> params;
  Mesh mesh;
  std::vector<Value*> scratch;
  std::vector<Attribute> attributes;
  Location attributes_loc;
  std::vector<DeviceAxis> devices;  // the first part's `devices` clause (none: one device)
  Location devices_loc;
  Region body;
  std::vector<std::unique_ptr<Value>> values;  // every value of the kernel

  int part = 0;                      // this part's position (0: the first)
  const KernelDef* first = nullptr;  // a further part: the kernel's first part
  std::vector<std::unique_ptr<KernelDef>> more_parts;  // the first part: the others

  // Every part of the kernel, the first one first (of a further part: its own
  // kernel's parts).
  std::vector<const KernelDef*> Parts() const;
  std::vector<KernelDef*> Parts();
  // The kernel's attributes are the first part's (a further part has none of its own).
  const Attribute* FindAttribute(std::string_view name) const;
  // `layout_passes` (default true, as Pallas' needs_layout_passes).
  bool layout_passes() const;
  // The device mesh (the first part's): its axes, the axis named `name` (-1:
  // none), how many devices, and an axis' stride in the row-major logical id.
  const std::vector<DeviceAxis>& device_axes() const { return first != nullptr ? first->devices : devices; }
  int FindDeviceAxis(std::string_view name) const;
  int64_t device_count() const;
  int64_t device_stride(int axis) const;
  Value* NewValue(std::string name, Type type, Location loc, Value::Kind kind);
};

struct Module {
  std::shared_ptr<const SourceFile> source;
  bool complete = true;  // false when a syntax error stopped the parser
  std::optional<TargetId> target;  // `target "..."`, if written
  Location target_loc;
  std::optional<JaxRelease> jax;    // `jax "..."`, if written: the release whose SC rules apply
  Location jax_loc;
  std::vector<std::unique_ptr<KernelDef>> kernels;
  OriginMap origins;  // the `loc(...)` of ops, by the line they start on

  const KernelDef* FindKernel(std::string_view name) const;
};

// The device an op addresses (its `device` attribute or device-axis attributes,
// language.md §12): this one (kLocal), a logical id (`device = %d`, Pallas'
// DeviceIdType.LOGICAL), or mesh coordinates (`device = [%y, %x]` in axis order,
// or by axis name, `{x = %n}`, where an axis not named is this device's own
// coordinate: Pallas' tuple and dict forms).
struct DeviceTarget {
  enum class Form : uint8_t { kLocal, kLogical, kMesh } form = Form::kLocal;
  const Operand* logical = nullptr;    // kLogical
  std::vector<const Operand*> coords;  // kMesh: the list as written, or one per axis (null: own)
  bool listed = false;                 // kMesh written as a list
  Location loc;                        // the first attribute that names it
};
DeviceTarget DeviceTargetOf(const Op& op, const KernelDef& k);

// The ref a chain of views (view, view_bitcast, view_reshape) of `v` starts from.
const Value* ViewRoot(const Value* v);

// Calls `fn(op)` for every op of `region` and its nested regions, in source order
// (an op before the ops of its regions).
template <typename Fn>
void WalkOps(const Region& region, Fn&& fn) {
  for (const auto& op : region.ops) {
    fn(*op);
    if (op->pipeline != nullptr) {  // maps are written before the body
      for (const PipelineOperand& p : op->pipeline->operands) {
        if (p.map != nullptr) WalkOps(*p.map, fn);
      }
    }
    for (const auto& r : op->regions) WalkOps(*r, fn);
  }
}

}  // namespace scjit

#endif  // SCJIT_LOWERING_IR_IR_H_
