// SC rules of loads and stores (sc-errors.md §5-§7): GET, SWAP, SHAPE.
#include <optional>
#include <string>

#include "lowering/ir/printer.h"
#include "lowering/rules/rule.h"
#include "lowering/base/strings.h"

namespace scjit::rules {
namespace {

const Operand& RefOperand(const Ctx& c) { return c.op.operands[0]; }
const Type& ViewOf(const Ctx& c) { return RefOperand(c).view; }

// The value a store-like op writes.
const Operand& Stored(const Ctx& c) { return c.op.operands[1]; }

// The value type a get-like op loads.
Type Loaded(const Ctx& c) { return c.op.results[0]->type; }

bool Shared(const Type& t) {
  return t.is_ref() && (t.space() == MemorySpace::kHbm || t.space() == MemorySpace::kVmemShared);
}

bool InSmem(const Type& t) { return t.is_ref() && t.space() == MemorySpace::kSmem; }

// --- Trace-time checks of the SC load/swap primitives (sc_primitives.py) -------------

std::optional<Violation> MaskDtype(const Ctx& c) {  // GET-8
  if (!c.op.mask) return std::nullopt;
  Type m = c.op.mask->type();
  if (m.element() == ElementType::kI1) return std::nullopt;
  return Violation{DiagId::kGet8, c.op.mask->loc, {{"mask.dtype", std::string(NumpyName(m.element()))}},
                   Cat("the mask ", Print(*c.op.mask), " has type ", m.ToString()), ""};
}

std::optional<Violation> MaskShape(const Ctx& c) {  // GET-9
  if (!c.op.mask) return std::nullopt;
  Type m = c.op.mask->type();
  const Type& view = ViewOf(c);
  if (m.shape() == view.shape()) return std::nullopt;
  return Violation{DiagId::kGet9, c.op.mask->loc,
                   {{"tref.shape", view.ShapeRepr()}, {"mask.shape", m.ShapeRepr()}},
                   Cat("the ref view ", Described(RefOperand(c)), "; the mask ", Print(*c.op.mask), " : ", m.ToString()),
                   ""};
}

std::optional<Violation> ValueDtype(const Ctx& c) {  // SWAP-7
  Type x = Stored(c).type();
  const Type& view = ViewOf(c);
  if (x.element() == view.element()) return std::nullopt;
  return Violation{DiagId::kSwap7, Stored(c).loc,
                   {{"ref.dtype", std::string(NumpyName(view.element()))}, {"x.dtype", std::string(NumpyName(x.element()))}},
                   Cat("the ref view ", Described(RefOperand(c)), "; the value ", Print(Stored(c)), " : ", x.ToString()),
                   Cat("`convert` ", Print(Stored(c)), " to ", Type::Vector(view.element(), x.shape()).ToString(), " first")};
}

std::optional<Violation> ValueShape(const Ctx& c) {  // SWAP-8
  Type x = Stored(c).type();
  const Type& view = ViewOf(c);
  if (x.shape() == view.shape()) return std::nullopt;
  return Violation{DiagId::kSwap8, Stored(c).loc, {{"tref.shape", view.ShapeRepr()}, {"x.shape", x.ShapeRepr()}},
                   Cat("the ref view ", Described(RefOperand(c)), "; the value ", Print(Stored(c)), " : ", x.ToString()),
                   ""};
}

// --- Lowering checks (sc_lowering.py _load_lowering_rule / _store_lowering_rule) -----

std::optional<Violation> LoadFromShared(const Ctx& c) {  // GET-1
  const Type& t = RefOperand(c).value->type;
  if (!Shared(t)) return std::nullopt;
  return Violation{DiagId::kGet1, RefOperand(c).loc, {{"ref_memory_space!r", SpaceRepr(t)}},
                   Cat("%", RefOperand(c).value->name, " is ", t.ToString()), ""};
}

std::optional<Violation> StoreToShared(const Ctx& c) {  // SWAP-1
  const Type& t = RefOperand(c).value->type;
  if (!Shared(t)) return std::nullopt;
  return Violation{DiagId::kSwap1, RefOperand(c).loc, {{"ref_memory_space!r", SpaceRepr(t)}},
                   Cat("%", RefOperand(c).value->name, " is ", t.ToString()), ""};
}

// An integer index in the final indexer after a dimension of size other than 1.
std::optional<Violation> IntegerAfterSlice(const Ctx& c) {  // GET-2 (get and swap sites)
  const Operand& ref = RefOperand(c);
  const Type& base = ref.value->type;
  bool seen_slice = false;
  for (size_t d = 0; d < ref.index.size() && static_cast<int>(d) < base.rank(); ++d) {
    const IndexEntry& e = ref.index[d];
    int64_t size = base.shape()[d];
    switch (e.kind) {
      case IndexEntry::Kind::kIndex:
        if (seen_slice) {
          return Violation{DiagId::kGet2, e.loc, {},
                           Cat("index ", Print(e.start), " of dimension ", d,
                               " follows a slice of size other than 1 in ", Print(ref)),
                           ""};
        }
        continue;
      case IndexEntry::Kind::kSlice:
        size = e.size.is_literal() ? e.size.int_value : kDynamic;
        break;
      case IndexEntry::Kind::kRange:
        size = e.hi.value_or(size) - e.lo.value_or(0);
        break;
      default:
        break;
    }
    if (size != 1) seen_slice = true;
  }
  return std::nullopt;
}

// The strides of an indexer over every dimension of the ref, as Pallas' lowering
// computes them (1 for an integer index or an unindexed dimension): `(1, 2)`.
std::string StrideTuple(const Operand& ref) {
  std::vector<std::string> items;
  for (const IndexEntry& e : ref.index) {
    bool strided = e.kind == IndexEntry::Kind::kSlice && e.stride;
    items.push_back(Cat(strided ? e.stride->int_value : 1));
  }
  const Type* base = ref.value_type();
  for (size_t d = items.size(); base != nullptr && d < base->shape().size(); ++d) items.push_back("1");
  return PyTuple(items);
}

// A shape as Python prints a tuple of ints: `(8,)`.
std::string ShapeTuple(const Shape& shape) {
  std::vector<std::string> items;
  for (int64_t d : shape) items.push_back(Cat(d));
  return PyTuple(items);
}

std::optional<Violation> Strided(const Ctx& c, DiagId id) {  // GET-3, SWAP-2
  for (const IndexEntry& e : RefOperand(c).index) {
    if (e.kind == IndexEntry::Kind::kSlice && e.stride && e.stride->int_value != 1) {
      return Violation{id, e.loc, {{"stride_tuple", StrideTuple(RefOperand(c))}},
                       Cat("the slice ", Print(RefOperand(c)), " has stride ", e.stride->int_value), ""};
    }
  }
  return std::nullopt;
}
std::optional<Violation> LoadStrided(const Ctx& c) { return Strided(c, DiagId::kGet3); }
std::optional<Violation> StoreStrided(const Ctx& c) { return Strided(c, DiagId::kSwap2); }

// GET-4, GET-5, GET-6: scalars come from SMEM only, and SMEM gives only scalars.
std::optional<Violation> LoadScalarRule(const Ctx& c) {
  const Type& view = ViewOf(c);
  const Operand& ref = RefOperand(c);
  if (InSmem(view) && view.rank() > 0) {
    return Violation{DiagId::kGet4, ref.loc, {{"shape_tuple", ShapeTuple(view.shape())}},
                     Cat("the ref view ", Described(ref), " is an array in SMEM"), ""};
  }
  if (view.rank() == 0 && view.is_ref() && view.space() == MemorySpace::kVmem) {
    return Violation{DiagId::kGet5, ref.loc, {}, Cat("the ref view ", Described(ref), " is one element of VMEM"), ""};
  }
  if (view.rank() == 0 && !InSmem(view)) {
    return Violation{DiagId::kGet6, ref.loc, {{"ref_memory_space!r", SpaceRepr(view)}},
                     Cat("the ref view ", Described(ref), " is a scalar in ", SpaceRepr(view)), ""};
  }
  return std::nullopt;
}

std::optional<Violation> MaskedScalarLoad(const Ctx& c) {  // GET-7
  const Type& view = ViewOf(c);
  if (!(InSmem(view) && view.rank() == 0)) return std::nullopt;
  return Violation{DiagId::kGet7, c.op.loc, {},
                   Cat("the ref view ", Described(RefOperand(c)), " is a 0-d element of SMEM; the mask is ",
                       Print(*c.op.mask), " : ", c.op.mask->type().ToString()),
                   ""};
}

// SWAP-3, SWAP-4.
std::optional<Violation> StoreScalarRule(const Ctx& c) {
  const Type& view = ViewOf(c);
  const Operand& ref = RefOperand(c);
  if (InSmem(view) && view.rank() > 0) {
    return Violation{DiagId::kSwap3, ref.loc, {{"shape_tuple", ShapeTuple(view.shape())}},
                     Cat("the ref view ", Described(ref), " is an array in SMEM"), ""};
  }
  if (view.rank() == 0 && !InSmem(view)) {
    return Violation{DiagId::kSwap4, ref.loc, {{"ref_memory_space!r", SpaceRepr(view)}},
                     Cat("the ref view ", Described(ref), " is a scalar in ", SpaceRepr(view)), ""};
  }
  return std::nullopt;
}

std::optional<Violation> MaskedScalarStore(const Ctx& c) {  // SWAP-5
  const Type& view = ViewOf(c);
  if (!(InSmem(view) && view.rank() == 0)) return std::nullopt;
  return Violation{DiagId::kSwap5, RefOperand(c).loc, {},
                   Cat("the target ", Print(RefOperand(c)), " is a 0-d element of ", RefOperand(c).value->type.ToString(),
                       "; the mask is ", Print(*c.op.mask), " : ", c.op.mask->type().ToString()),
                   Cat("use an unmasked scalar `store` inside `if ", Print(*c.op.mask), " { ... }`")};
}

std::optional<Violation> AtomicScalarAdd(const Ctx& c) {  // SWAP-6
  const Type& view = ViewOf(c);
  if (!(InSmem(view) && view.rank() == 0)) return std::nullopt;
  return Violation{DiagId::kSwap6, RefOperand(c).loc, {},
                   Cat("the target ", Print(RefOperand(c)), " is a 0-d element of ", RefOperand(c).value->type.ToString()),
                   ""};
}

// SHAPE-2, SHAPE-1: with layout_passes = false, every vector loaded or stored is
// one register (sc_core.supported_shapes).
std::optional<Violation> RegisterShape(const Ctx& c) {
  if (c.kernel.layout_passes()) return std::nullopt;
  bool is_load = c.op.kind == OpKind::kGet || c.op.kind == OpKind::kLoadExpanded;
  Type aval = is_load ? Loaded(c) : Stored(c).type();
  if (!aval.is_vector()) return std::nullopt;
  Location loc = is_load ? c.op.loc : Stored(c).loc;
  int bytes = ByteWidth(aval.element());
  if (bytes > 4) {
    return Violation{DiagId::kShape2, loc, {{"dtype", std::string(NumpyName(aval.element()))}},
                     Cat("the value has type ", aval.ToString()), ""};
  }
  std::vector<Shape> supported = RegisterShapes(c.target, bytes);
  for (const Shape& s : supported) {
    if (aval.shape() == s) return std::nullopt;
  }
  std::string list;
  for (const Shape& s : supported) Append(&list, list.empty() ? "" : ", ", ShapeRepr(s));
  return Violation{DiagId::kShape1,
                   loc,
                   {{"caller", is_load ? "Get" : "Swap"},
                    {"aval.dtype", std::string(NumpyName(aval.element()))},
                    {"', '.join(map(repr, supported_shapes))", list},
                    {"aval.shape", aval.ShapeRepr()}},
                   Cat("the value has type ", aval.ToString(), "; a ", c.target.name, " register holds ", list),
                   ""};
}

// --- The table ----------------------------------------------------------------------

using K = OpKind;
const std::vector<OpKind> kLoads = {K::kGet, K::kLoadExpanded};
const std::vector<OpKind> kStores = {K::kStore, K::kSwap, K::kStoreCompressed, K::kAddupdate, K::kAddupdateCompressed};
const std::vector<OpKind> kMasked = {K::kLoadExpanded, K::kStoreCompressed, K::kAddupdateCompressed};
const std::vector<OpKind> kScSwaps = {K::kStoreCompressed, K::kAddupdate, K::kAddupdateCompressed};

// In catalog order per op: trace-time checks of the SC primitives, then the
// lowering rule's checks (sc-errors.md §6 and §7 give the orders).
const std::vector<OpRule> kRules = {
    {DiagId::kGet8, kMasked, MaskDtype},
    {DiagId::kGet9, kMasked, MaskShape},
    {DiagId::kSwap7, kScSwaps, ValueDtype},
    {DiagId::kSwap8, kScSwaps, ValueShape},
    // Get: GET-1, (XF-*), GET-2, GET-3, GET-4/5/6, GET-7, SHAPE-1.
    {DiagId::kGet1, kLoads, LoadFromShared},
    {DiagId::kGet2, kLoads, IntegerAfterSlice},
    {DiagId::kGet3, kLoads, LoadStrided},
    {DiagId::kGet4, kLoads, LoadScalarRule, {DiagId::kGet5, DiagId::kGet6}},
    {DiagId::kGet7, {K::kLoadExpanded}, MaskedScalarLoad},
    {DiagId::kShape1, kLoads, RegisterShape, {DiagId::kShape2}},
    // Swap: SWAP-1, (XF-*), GET-2, SWAP-2, SWAP-3/4, SWAP-5, SWAP-6, SHAPE-1.
    {DiagId::kSwap1, kStores, StoreToShared},
    {DiagId::kGet2, kStores, IntegerAfterSlice},
    {DiagId::kSwap2, kStores, StoreStrided},
    {DiagId::kSwap3, kStores, StoreScalarRule, {DiagId::kSwap4}},
    {DiagId::kSwap5, {K::kStoreCompressed, K::kAddupdateCompressed}, MaskedScalarStore},
    {DiagId::kSwap6, {K::kAddupdate}, AtomicScalarAdd},
    {DiagId::kShape1, kStores, RegisterShape, {DiagId::kShape2}},
};

}  // namespace

const std::vector<OpRule>& GetSwapRules() { return kRules; }

}  // namespace scjit::rules
