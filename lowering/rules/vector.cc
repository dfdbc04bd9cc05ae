// SC rules of value ops, gathers and scatters (sc-errors.md §8, §10-§17, §19,
// §25): IOTA, GS, BC, PK, UP, SCAN, CUM, RED, SORT, REV, MR, EL; also SHAPE-1
// for load_gather (caller "Gather", always checked) and GET-8 for the masks of
// gathers and scatters.
//
// Which Pallas API an IR op stands for (sc-rules.md §1): `cumsum` without a
// mask is jnp.cumsum (lax.cumsum_p, CUM-4...6), with a mask plsc.cumsum (CUM-1,
// then SCAN-*); `cummax`/`cummin` are plsc.cummax/cummin (CUM-2/3, then SCAN-*);
// `sort` is lax.sort (sc-errors.md numbers its lowering checks SORT-1...3) and
// `sort_key_val` is plsc.sort_key_val (SORT-4...9); `bitcast` is plsc.bitcast;
// the result type of `pack`/`unpack` carries preferred_element_type.
#include <optional>
#include <string>
#include <vector>

#include "lowering/ir/printer.h"
#include "lowering/rules/rule.h"
#include "lowering/base/strings.h"

namespace scjit::rules {
namespace {

using K = OpKind;
using E = ElementType;

// --- Small helpers -------------------------------------------------------------------

// A dtype as JAX prints it; semaphore refs have Pallas' `sem` / `dma_sem` dtypes.
std::string DtypeOf(const Type& t) {
  if (t.is_semaphore()) return t.semaphore_kind() == SemaphoreKind::kDma ? "dma_sem" : "sem";
  return Dtype(t.element());
}

int Bits(E e) { return BitWidth(e); }

// `%v : vector<16xi32>` (an operand and its type).
std::string Typed(const Operand& o) { return Cat(Print(o), " : ", o.type().ToString()); }

// A tuple of ints as Python prints it: `()`, `(0,)`, `(0, 1)`.
std::string Tuple(const std::vector<int64_t>& v) { return ShapeRepr(Shape(v.begin(), v.end())); }

// `(0, 1, ..., rank - 1)`.
std::string AllAxes(int rank) {
  std::vector<int64_t> axes;
  for (int d = 0; d < rank; ++d) axes.push_back(d);
  return Tuple(axes);
}

// An integer attribute, or `fallback` when it is not written.
int64_t IntAttr(const Op& op, std::string_view name, int64_t fallback) {
  const Attribute* a = op.FindAttr(name);
  return a != nullptr ? a->value.operand.int_value : fallback;
}

bool BoolAttr(const Op& op, std::string_view name) {
  const Attribute* a = op.FindAttr(name);
  return a != nullptr && a->value.operand.int_value != 0;
}

Location AttrLoc(const Op& op, std::string_view name) {
  const Attribute* a = op.FindAttr(name);
  return a != nullptr ? a->loc : op.loc;
}

std::string StrAttr(const Op& op, std::string_view name) {
  const Attribute* a = op.FindAttr(name);
  return a != nullptr ? a->value.str : "";
}

bool VectorMesh(const Ctx& c) { return c.kernel.mesh.kind == MeshKind::kVector; }

// `(L,)`: the one register shape of 32-bit lanes.
Shape Lanes(const Ctx& c) { return {c.target.lanes}; }

bool Is32BitKey(E e) { return e == E::kU32 || e == E::kI32 || e == E::kF32; }

// --- IOTA (sc_lowering.py _iota_lowering_rule_sc) ----------------------------------------

std::optional<Violation> IotaShape(const Ctx& c) {  // IOTA-1
  if (!VectorMesh(c)) return std::nullopt;  // GEN-1 on the scalar subcore
  const Type& r = c.op.results[0]->type;
  if (r.shape() == Lanes(c)) return std::nullopt;
  std::string lanes = ShapeRepr(Lanes(c));
  return Violation{DiagId::kIota1, c.op.loc, {{"shape", r.ShapeRepr()}, {"(sc_info.num_lanes,)", lanes}},
                   Cat("the iota has type ", r.ToString(), "; a ", c.target.name, " register has ", c.target.lanes,
                       " lanes"),
                   Cat("build iotas of exactly ", c.target.lanes, " elements (`iota : vector<", c.target.lanes,
                       "x", IrName(r.element()), ">`) and `add` an offset for the other rows")};
}

// --- GS: load_gather / store_scatter / addupdate_scatter (sc_primitives.py) -------------

const Operand& GsRef(const Ctx& c) { return c.op.operands[0]; }
const Type& GsView(const Ctx& c) { return GsRef(c).view; }
// The number of lanes: the length of the index vectors (checked equal by GS-6).
int64_t GsLanes(const Ctx& c) { return c.op.index_vectors[0].type().shape()[0]; }
std::string GsShape(const Ctx& c) { return ShapeRepr(Shape{GsLanes(c)}); }

std::optional<Violation> GsEmptyIndices(const Ctx& c) {  // GS-2 (scatters)
  if (!c.op.index_vectors.empty()) return std::nullopt;
  return Violation{DiagId::kGs2, GsRef(c).loc, {},
                   Cat("`", c.op.name(), "` has no index vectors after ", Print(GsRef(c))),
                   Cat("give one index vector per dimension of the ref: `", c.op.name(), " ",
                       Print(GsRef(c)), GsRef(c).indexed ? "" : "[:]", " [%i], %v`")};
}

std::optional<Violation> GsNotARef(const Ctx& c) {  // GS-1
  const Operand& r = GsRef(c);
  if (r.type().is_memory()) return std::nullopt;
  Type v = r.view.is_none() ? r.type() : r.view;
  return Violation{DiagId::kGs1,
                   r.loc,
                   {{"function_name", std::string(c.op.name())}, {"ref", Cat("Traced<", Aval(v), ">with<DynamicJaxprTrace>")}},
                   Cat(Print(r), " is a ", v.ToString(), " value, not a ref (scjit prints it as JAX prints the traced "
                                                          "value)"),
                   Cat("pass the vmem ref (or a view of it) that holds the data, e.g. `", c.op.name(), " %buf[:] [%i]",
                       c.op.kind == K::kLoadGather ? "" : ", %v", "`; a value is indexed with `gather`")};
}

std::optional<Violation> GsRefDtype(const Ctx& c) {  // GS-3
  const Type& view = GsView(c);
  if (view.is_ref() && (view.element() == E::kI32 || view.element() == E::kF32)) return std::nullopt;
  return Violation{DiagId::kGs3, GsRef(c).loc, {{"ref.dtype", DtypeOf(view)}},
                   Cat("the ref view ", Described(GsRef(c)), " has dtype ", DtypeOf(view)),
                   "gather from and scatter to i32 or f32 refs: `convert` the data before it is stored, or "
                   "`view_bitcast` a 2-D ref of another 32-bit type to i32"};
}

// GS-4, GS-5, GS-6 (sc_primitives.py _indexed_shape).
std::optional<Violation> GsIndices(const Ctx& c) {
  const Type& view = GsView(c);
  const auto& iv = c.op.index_vectors;
  if (static_cast<int>(iv.size()) != view.rank()) {
    return Violation{DiagId::kGs4,
                     iv.empty() ? GsRef(c).loc : iv[0].loc,
                     {{"ref.ndim=", Cat("ref.ndim=", view.rank())}},
                     Cat(iv.size(), " index vector", iv.size() == 1 ? "" : "s", " for the ref view ", Described(GsRef(c)),
                         " of rank ", view.rank()),
                     Cat("give exactly one index vector per dimension of the ref view (", view.rank(), ")")};
  }
  for (size_t i = 0; i < iv.size(); ++i) {
    Type t = iv[i].type();
    if (t.rank() != 1) {
      return Violation{DiagId::kGs5, iv[i].loc, {{"idx.shape", t.ShapeRepr()}},
                       Cat("index vector ", i, " is ", Typed(iv[i])),
                       t.rank() == 0 ? Cat("`broadcast` the scalar index to a vector<", c.target.lanes, "x",
                                           IrName(t.element()), ">")
                                     : Cat("`reshape` the indices to vector<", t.NumElements(), "x", IrName(t.element()),
                                           ">")};
    }
    if (i > 0) {
      int64_t prev = iv[i - 1].type().shape()[0], size = t.shape()[0];
      if (prev != size) {
        // JAX 0.10.2 and 0.11.0 raise the template itself (no f-string): its braces stay.
        std::vector<std::pair<std::string, std::string>> sizes;
        if (!(c.jax < kCatalogJax)) sizes = {{"prev_idx.size", Cat(prev)}, {"idx.size", Cat(size)}};
        return Violation{DiagId::kGs6, iv[i].loc, std::move(sizes),
                         Cat("index vector ", i - 1, " is ", Typed(iv[i - 1]), "; index vector ", i, " is ",
                             Typed(iv[i])),
                         "give every index vector the same length"};
      }
    }
  }
  return std::nullopt;
}

// SHAPE-1 ("Gather"): the gathered vector is one register, always.
std::optional<Violation> GatherShape(const Ctx& c) {
  if (c.op.index_vectors.empty()) return std::nullopt;
  int64_t n = GsLanes(c);
  if (n == c.target.lanes) return std::nullopt;
  std::string dtype = Dtype(GsView(c).element());
  std::string lanes = ShapeRepr(Lanes(c));
  return Violation{DiagId::kShape1,
                   c.op.loc,
                   {{"caller", "Gather"},
                    {"aval.dtype", dtype},
                    {"', '.join(map(repr, supported_shapes))", lanes},
                    {"aval.shape", GsShape(c)}},
                   Cat("the index vectors have ", n, " lanes, so the gather gives vector<", n, "x",
                       IrName(GsView(c).element()), ">; a ", c.target.name, " register holds ", c.target.lanes,
                       " 32-bit lanes"),
                   Cat("gather exactly one register (", c.target.lanes, " indices) at a time")};
}

std::optional<Violation> GatherMaskShape(const Ctx& c) {  // GS-7
  if (c.op.index_vectors.empty()) return std::nullopt;
  if (!c.op.mask) return std::nullopt;
  Type m = c.op.mask->type();
  if (m.shape() == Shape{GsLanes(c)}) return std::nullopt;
  return Violation{DiagId::kGs7, c.op.mask->loc,
                   {{"mask.shape=", Cat("mask.shape=", m.ShapeRepr())}, {"out_aval.shape", GsShape(c)}},
                   Cat("the mask is ", Typed(*c.op.mask), "; the gather gives ", GsLanes(c), " lanes"),
                   "use a mask with one lane per index"};
}

std::optional<Violation> GsMaskDtype(const Ctx& c) {  // GET-8
  if (!c.op.mask) return std::nullopt;
  Type m = c.op.mask->type();
  if (m.element() == E::kI1) return std::nullopt;
  return Violation{DiagId::kGet8, c.op.mask->loc, {{"mask.dtype", DtypeOf(m)}}, Cat("the mask is ", Typed(*c.op.mask)),
                   ""};
}

std::optional<Violation> GatherSpace(const Ctx& c) {  // GS-8
  const Type& t = GsRef(c).value->type;
  if (t.is_ref() && t.space() == MemorySpace::kVmem) return std::nullopt;
  std::string space = t.is_semaphore() ? "semaphore_mem" : std::string(SpaceName(t.space()));
  return Violation{DiagId::kGs8, GsRef(c).loc, {{"ref_aval.memory_space", space}},
                   Cat("%", GsRef(c).value->name, " is ", t.ToString()),
                   "copy the table into a vmem scratch ref (`copy` or `dma_start`) and gather from that, or gather "
                   "rows from HBM with an indirect `copy %table[idx(%i)] -> %rows`"};
}

std::optional<Violation> ScatterValueShape(const Ctx& c) {  // GS-9
  if (c.op.index_vectors.empty()) return std::nullopt;
  const Operand& x = c.op.operands[1];
  Type t = x.type();
  if (t.shape() == Shape{GsLanes(c)}) return std::nullopt;
  return Violation{DiagId::kGs9, x.loc, {{"x.shape=", Cat("x.shape=", t.ShapeRepr())}, {"expected_shape", GsShape(c)}},
                   Cat("the value is ", Typed(x), "; the index vectors have ", GsLanes(c), " lanes"),
                   "scatter a 1-D value with one lane per index"};
}

std::optional<Violation> ScatterValueDtype(const Ctx& c) {  // GS-10
  const Operand& x = c.op.operands[1];
  Type t = x.type();
  const Type& view = GsView(c);
  if (t.element() == view.element()) return std::nullopt;
  return Violation{DiagId::kGs10, x.loc, {{"x.dtype", Dtype(t.element())}, {"ref.dtype", Dtype(view.element())}},
                   Cat("the value is ", Typed(x), "; the ref view ", Described(GsRef(c))),
                   Cat("`convert` the value to ", Type::Vector(view.element(), t.shape()).ToString(), " first")};
}

std::optional<Violation> ScatterMaskShape(const Ctx& c) {  // GS-11
  if (c.op.index_vectors.empty()) return std::nullopt;
  if (!c.op.mask) return std::nullopt;
  Type m = c.op.mask->type();
  if (m.shape() == Shape{GsLanes(c)}) return std::nullopt;
  return Violation{DiagId::kGs11, c.op.mask->loc,
                   {{"mask.shape=", Cat("mask.shape=", m.ShapeRepr())}, {"expected_shape", GsShape(c)}},
                   Cat("the mask is ", Typed(*c.op.mask), "; the index vectors have ", GsLanes(c), " lanes"),
                   "use a mask with one lane per index"};
}

std::optional<Violation> ScatterSpace(const Ctx& c) {  // GS-13
  const Type& t = GsRef(c).value->type;
  if (t.is_ref() && t.space() == MemorySpace::kVmem) return std::nullopt;
  std::string space = t.is_semaphore() ? "semaphore_mem" : std::string(SpaceName(t.space()));
  return Violation{DiagId::kGs13, GsRef(c).loc, {{"memory_space", space}},
                   Cat("%", GsRef(c).value->name, " is ", t.ToString()),
                   "scatter into a vmem ref and copy it out, or scatter rows into HBM/VMEM_SHARED with an indirect "
                   "`copy %rows -> %dst[idx(%i)]`"};
}

// --- BC: plsc.bitcast ------------------------------------------------------------------

// The dimension a bitcast rescales: -1 (plsc.bitcast) or -2 ({dim = -2}).
int64_t BitcastDim(const Op& op) { return IntAttr(op, "dim", -1); }

std::optional<Violation> BitcastRank(const Ctx& c) {  // BC-5 (primitives.py::bitcast, 0.12.0 on)
  if (BitcastDim(c.op) != -2 || c.op.operands[0].type().rank() >= 2) return std::nullopt;
  return Violation{DiagId::kBc5, c.op.loc, {}, Cat("the operand is ", Typed(c.op.operands[0])),
                   "bitcast along the minor dimension (drop `dim`), or `reshape` to 2-D first"};
}

std::optional<Violation> BitcastScalar(const Ctx& c) {  // BC-1
  Type in = c.op.operands[0].type();
  const Type& out = c.op.results[0]->type;
  // From JAX 0.12.0 on plsc.bitcast is pltpu.bitcast(dim=-1), whose axis check
  // refuses every 0-d operand, of the same width too.
  bool any_scalar = !(c.jax < JaxRelease{0, 12, 0});
  if (!in.is_scalar() || (!any_scalar && Bits(in.element()) == Bits(out.element()))) return std::nullopt;
  return Violation{DiagId::kBc1,
                   c.op.loc,
                   {{"old_bitwidth=", Cat("old_bitwidth=", Bits(in.element()))},
                    {"new_bitwidth=", Cat("new_bitwidth=", Bits(out.element()))}},
                   Cat("the operand is ", Typed(c.op.operands[0]), "; the result is ", out.ToString()),
                   "bitcast a vector (`broadcast` the scalar first), or pick a type of the same width"};
}

std::optional<Violation> BitcastMinor(const Ctx& c) {  // BC-2
  Type in = c.op.operands[0].type();
  const Type& out = c.op.results[0]->type;
  if (!in.is_vector()) return std::nullopt;
  int old_bits = Bits(in.element()), new_bits = Bits(out.element());
  bool second_minor = BitcastDim(c.op) == -2;  // (JAX 0.12.0's words only: GEN-1 before)
  int dim = in.rank() - (second_minor ? 2 : 1);
  int64_t minor = in.shape()[dim];
  if ((minor * old_bits) % new_bits == 0) return std::nullopt;
  return Violation{DiagId::kBc2,
                   c.op.loc,
                   {{"x.dtype", Dtype(in.element())},
                    {"old_bitwidth", Cat(old_bits)},
                    {"dtype", Dtype(out.element())},
                    {"new_bitwidth", Cat(new_bits)},
                    {"x.shape[-1]=", Cat("x.shape[-1]=", minor)},
                    {"dim", Cat(dim)},  // JAX 0.12.0's words
                    {"dim_size", Cat(minor)},
                    {"ty", Dtype(out.element())}},
                   Cat("the operand is ", Typed(c.op.operands[0]), ": its ", second_minor ? "second-minor" : "minor",
                       " dimension holds ", minor * old_bits, " bits, not a multiple of ", new_bits),
                   second_minor ? "make the second-minor dimension's bit size a multiple of the new width"
                                : "make the minor dimension's bit size a multiple of the new width (bitcast rescales "
                                  "the last dimension)"};
}

// --- PK / UP: plsc.pack / plsc.unpack ---------------------------------------------------

// PK-7, UP-5 (0.11.2 on): pack and unpack lower without the layout passes only.
std::optional<Violation> PackWithLayoutPasses(const Ctx& c) {
  if (!c.kernel.layout_passes()) return std::nullopt;
  return Violation{c.op.kind == K::kPack ? DiagId::kPk7 : DiagId::kUp5, c.op.loc, {},
                   Cat("kernel @", c.kernel.name, " has the layout passes (`layout_passes = true`, the default)"), ""};
}

// The element type Pallas gives a pack/unpack without preferred_element_type.
std::optional<E> PackDefault(E in) {
  if (in == E::kF32) return E::kBF16;
  if (in == E::kI32) return E::kI16;
  return std::nullopt;
}
std::optional<E> UnpackDefault(E in) {
  if (in == E::kBF16) return E::kF32;
  if (in == E::kI16) return E::kI32;
  return std::nullopt;
}

std::optional<Violation> PackShapes(const Ctx& c) {  // PK-1
  Type a = c.op.operands[0].type(), b = c.op.operands[1].type();
  if (a.shape() == b.shape()) return std::nullopt;
  return Violation{DiagId::kPk1, c.op.operands[1].loc, {{"a.shape", a.ShapeRepr()}, {"b.shape", b.ShapeRepr()}},
                   Cat("the operands are ", Typed(c.op.operands[0]), " and ", Typed(c.op.operands[1])),
                   "pack two vectors of the same shape"};
}

std::optional<Violation> PackRank(const Ctx& c) {  // PK-2
  Type a = c.op.operands[0].type();
  if (a.rank() == 1) return std::nullopt;
  return Violation{DiagId::kPk2, c.op.operands[0].loc, {{"a.ndim", Cat(a.rank())}},
                   Cat("the operands are ", a.ToString(), " (rank ", a.rank(), ")"),
                   "pack 1-D vectors (`reshape` them first)"};
}

std::optional<Violation> PackDtypes(const Ctx& c) {  // PK-3
  Type a = c.op.operands[0].type(), b = c.op.operands[1].type();
  if (a.element() == b.element()) return std::nullopt;
  return Violation{DiagId::kPk3, c.op.operands[1].loc,
                   {{"a.dtype", Dtype(a.element())}, {"b.dtype", Dtype(b.element())}},
                   Cat("the operands are ", Typed(c.op.operands[0]), " and ", Typed(c.op.operands[1])),
                   "`convert` both operands to one element type"};
}

// PK-4 / PK-5: the result's element type is preferred_element_type, unless it is
// the default Pallas infers without one (f32 -> bf16, i32 -> i16).
std::optional<Violation> PackDtype(const Ctx& c) {
  E a = c.op.operands[0].type().element();
  const Type& r = c.op.results[0]->type;
  std::optional<E> def = PackDefault(a);
  if (def && r.element() == *def) return std::nullopt;
  int packed_bw = Bits(a) / 2;
  if (Bits(r.element()) == packed_bw) return std::nullopt;  // a valid preferred_element_type
  if (!def) {
    return Violation{DiagId::kPk4, c.op.loc, {{"a.dtype", Dtype(a)}},
                     Cat("the operands are ", IrName(a), " and the result ", r.ToString(), " is not ", packed_bw,
                         "-bit, so it names no preferred_element_type: scjit reports what Pallas says without one"),
                     "pack f32 (to bf16) or i32 (to i16) vectors, or write a result of half the operands' width "
                     "(preferred_element_type)"};
  }
  return Violation{DiagId::kPk5,
                   c.op.loc,
                   {{"packed_bw", Cat(packed_bw)}, {"dtypes.itemsize_bits(preferred_element_type)", Cat(Bits(r.element()))}},
                   Cat("the result ", r.ToString(), " asks for ", IrName(r.element()), " (preferred_element_type); ",
                       IrName(a), " operands pack to ", packed_bw, "-bit elements"),
                   Cat("write a result of ", packed_bw, "-bit elements, e.g. ", IrName(*def))};
}

std::optional<Violation> PackFormat(const Ctx& c) {  // PK-6
  std::string f = StrAttr(c.op, "format");
  if (f == "interleaved" || f == "compressed") return std::nullopt;
  return Violation{DiagId::kPk6, AttrLoc(c.op, "format"), {{"format", f}},
                   Cat("format = \"", f, "\" is not a PackFormat"),
                   "use format = \"interleaved\" or format = \"compressed\""};
}

std::optional<Violation> UnpackShape(const Ctx& c) {  // UP-1, UP-2
  std::string f = StrAttr(c.op, "format");
  Type ab = c.op.operands[0].type();
  if (f == "interleaved" && !(ab.rank() == 1 && ab.shape()[0] % 2 == 0)) {
    return Violation{DiagId::kUp1, c.op.operands[0].loc, {{"ab.shape", ab.ShapeRepr()}},
                     Cat("the operand is ", Typed(c.op.operands[0])),
                     "unpack a 1-D vector of even length (what an interleaved `pack` produces)"};
  }
  if (f == "compressed" && !(ab.rank() == 2 && ab.shape()[1] == 2)) {
    return Violation{DiagId::kUp2, c.op.operands[0].loc, {{"ab.shape", ab.ShapeRepr()}},
                     Cat("the operand is ", Typed(c.op.operands[0])),
                     "unpack a vector<Nx2x...> (what a compressed `pack` produces)"};
  }
  return std::nullopt;
}

// UP-3 / UP-4: the results' element type is preferred_element_type, unless it
// is the default (bf16 -> f32, i16 -> i32).
std::optional<Violation> UnpackDtype(const Ctx& c) {
  E ab = c.op.operands[0].type().element();
  const Type& r = c.op.results[0]->type;
  std::optional<E> def = UnpackDefault(ab);
  if (def && r.element() == *def) return std::nullopt;
  int unpacked_bw = Bits(ab) * 2;
  if (Bits(r.element()) == unpacked_bw) return std::nullopt;
  if (!def) {
    return Violation{DiagId::kUp3, c.op.loc, {{"ab.dtype", Dtype(ab)}},
                     Cat("the operand is ", IrName(ab), " and the results ", r.ToString(), " are not ", unpacked_bw,
                         "-bit, so they name no preferred_element_type: scjit reports what Pallas says without one"),
                     "unpack bf16 (to f32) or i16 (to i32) vectors, or write results of twice the operand's width "
                     "(preferred_element_type)"};
  }
  return Violation{DiagId::kUp4,
                   c.op.loc,
                   {{"unpacked_bw", Cat(unpacked_bw)},
                    {"dtypes.itemsize_bits(preferred_element_type)", Cat(Bits(r.element()))}},
                   Cat("the results ", r.ToString(), " ask for ", IrName(r.element()),
                       " (preferred_element_type); an operand of ", IrName(ab), " unpacks to ", unpacked_bw,
                       "-bit elements"),
                   Cat("write results of ", unpacked_bw, "-bit elements, e.g. ", IrName(*def))};
}

// --- SCAN: scan_count and the masked cumulative ops ----------------------------------------

// scan_count, cummax and cummin always; cumsum only with a mask (plsc.cumsum).
bool IsMaskedScan(const Ctx& c) { return c.op.kind != K::kCumsum || c.op.mask.has_value(); }

std::optional<Violation> ScanDtype(const Ctx& c) {  // SCAN-1
  if (!IsMaskedScan(c)) return std::nullopt;
  const Operand& x = c.op.operands[0];
  if (Is32BitKey(x.type().element())) return std::nullopt;
  return Violation{DiagId::kScan1, x.loc, {{"x.dtype", Dtype(x.type().element())}}, Cat("the operand is ", Typed(x)),
                   Cat("`convert` the operand to i32, u32 or f32 before `", c.op.name(), "`")};
}

std::optional<Violation> ScanMaskDtype(const Ctx& c) {  // SCAN-2
  if (!IsMaskedScan(c) || !c.op.mask) return std::nullopt;
  Type m = c.op.mask->type();
  if (m.element() == E::kI1) return std::nullopt;
  return Violation{DiagId::kScan2, c.op.mask->loc, {{"mask.dtype", Dtype(m.element())}},
                   Cat("the mask is ", Typed(*c.op.mask)),
                   "pass an i1 mask, e.g. `%m = cmp gt %v, %zero : vector<16xi1>`"};
}

std::optional<Violation> ScanMaskShape(const Ctx& c) {  // SCAN-3
  if (!IsMaskedScan(c) || !c.op.mask) return std::nullopt;
  Type x = c.op.operands[0].type(), m = c.op.mask->type();
  if (x.shape() == m.shape()) return std::nullopt;
  return Violation{DiagId::kScan3, c.op.mask->loc, {{"x.shape", x.ShapeRepr()}, {"mask.shape", m.ShapeRepr()}},
                   Cat("the operand is ", Typed(c.op.operands[0]), "; the mask is ", Typed(*c.op.mask)),
                   "use a mask of the operand's shape"};
}

// --- CUM ---------------------------------------------------------------------------------

// CUM-1 (plsc.cumsum), CUM-2 (plsc.cummax), CUM-3 (plsc.cummin).
std::optional<Violation> CumRank(const Ctx& c) {
  if (c.op.kind == K::kCumsum && !c.op.mask) return std::nullopt;  // jnp.cumsum: CUM-4...6
  const Operand& x = c.op.operands[0];
  Type t = x.type();
  if (t.rank() == 1) return std::nullopt;
  DiagId id = c.op.kind == K::kCumsum ? DiagId::kCum1 : c.op.kind == K::kCummax ? DiagId::kCum2 : DiagId::kCum3;
  return Violation{id, x.loc, {{"x.aval", Aval(t)}}, Cat("the operand is ", Typed(x)),
                   Cat("apply `", c.op.name(), "` to 1-D vectors, one row at a time (`slice` + `reshape`)")};
}

int64_t CumsumAxis(const Ctx& c) {
  int64_t axis = IntAttr(c.op, "axis", 0);
  int rank = c.op.operands[0].type().rank();
  return axis < 0 ? axis + rank : axis;  // lax.cumsum canonicalizes the axis
}

std::optional<Violation> CumsumAxisRule(const Ctx& c) {  // CUM-4
  if (c.op.mask) return std::nullopt;
  int64_t axis = CumsumAxis(c);
  if (axis == 0) return std::nullopt;
  return Violation{DiagId::kCum4, AttrLoc(c.op, "axis"), {{"axis", Cat(axis)}},
                   Cat("the cumsum runs along axis ", axis, " of ", Typed(c.op.operands[0])),
                   "cumsum 1-D vectors along axis 0, one row at a time"};
}

std::optional<Violation> CumsumRank(const Ctx& c) {  // CUM-5
  if (c.op.mask) return std::nullopt;
  const Operand& x = c.op.operands[0];
  Type t = x.type();
  if (t.rank() == 1) return std::nullopt;
  return Violation{DiagId::kCum5, x.loc, {{"ctx.avals_in[0]", Aval(t)}}, Cat("the operand is ", Typed(x)),
                   "cumsum 1-D vectors, one row at a time (`slice` + `reshape`)"};
}

std::optional<Violation> CumsumReverse(const Ctx& c) {  // CUM-6
  if (c.op.mask || !BoolAttr(c.op, "reverse")) return std::nullopt;
  return Violation{DiagId::kCum6, AttrLoc(c.op, "reverse"), {}, "the cumsum has {reverse = true}",
                   "reverse the vector with `rev`, cumsum it, and `rev` the result"};
}

// --- RED (sc_primitives.py _reduce_op_lowering_rule) ---------------------------------------

std::optional<Violation> ReduceAxes(const Ctx& c) {  // RED-1
  if (!VectorMesh(c)) return std::nullopt;  // GEN-1 on the scalar subcore
  const Operand& x = c.op.operands[0];
  Type t = x.type();
  if (t.rank() == 1) return std::nullopt;
  return Violation{DiagId::kRed1, x.loc, {{"axes", AllAxes(t.rank())}},
                   Cat("`", c.op.name(), "` reduces every axis of ", Typed(x)),
                   "reduce 1-D vectors: `reshape` to 1-D first, or reduce row by row"};
}

// RED-3 (0.12.0 on): reduce_max/reduce_min of booleans (the scan unit's
// max/min takes floats and integers).
std::optional<Violation> BoolReduce(const Ctx& c) {
  if (!VectorMesh(c) || c.op.operands[0].type().element() != E::kI1) return std::nullopt;
  return Violation{DiagId::kRed3, c.op.operands[0].loc, {{"dtype", "bool"}},
                   Cat("`", c.op.name(), "` of ", Typed(c.op.operands[0])), ""};
}

// RED-2 (0.12.0 on): reduce_max/reduce_min of signed integers other than i32.
std::optional<Violation> NarrowSignedReduce(const Ctx& c) {
  if (!VectorMesh(c)) return std::nullopt;
  E e = c.op.operands[0].type().element();
  if (!IsInteger(e) || IsUnsigned(e) || Bits(e) == 32) return std::nullopt;
  return Violation{DiagId::kRed2, c.op.operands[0].loc, {}, Cat("`", c.op.name(), "` of ", Typed(c.op.operands[0])),
                   ""};
}

// --- SORT: lax.sort (SORT-1...3, 10) and plsc.sort_key_val (SORT-4...9) ---------------------------

std::optional<Violation> SortDimension(const Ctx& c) {  // SORT-1
  if (!VectorMesh(c)) return std::nullopt;
  int rank = c.op.operands[0].type().rank();
  int64_t d = IntAttr(c.op, "dimension", -1);
  if (d < 0) d += rank;  // lax.sort canonicalizes the dimension
  if (d == 0) return std::nullopt;
  return Violation{DiagId::kSort1, AttrLoc(c.op, "dimension"), {{"dimension", Cat(d)}},
                   Cat("the sort runs along dimension ", d, " of ", Typed(c.op.operands[0]),
                       c.op.FindAttr("dimension") == nullptr ? " (lax.sort's default is the last dimension)" : ""),
                   "sort 1-D vectors, one row at a time"};
}

std::optional<Violation> SortKeys(const Ctx& c) {  // SORT-2
  if (!VectorMesh(c)) return std::nullopt;
  int64_t n = IntAttr(c.op, "num_keys", 1);
  if (n == 1) return std::nullopt;
  return Violation{DiagId::kSort2, AttrLoc(c.op, "num_keys"), {}, Cat("the sort has {num_keys = ", n, "}"),
                   "sort by one key: combine the keys into one i32 key (e.g. `shl` and `or`)"};
}

std::optional<Violation> SortShapes(const Ctx& c) {  // SORT-3
  if (!VectorMesh(c)) return std::nullopt;
  for (size_t i = 0; i < c.op.operands.size(); ++i) {
    Type t = c.op.operands[i].type();
    if (t.shape() == Lanes(c)) continue;
    return Violation{DiagId::kSort3,
                     c.op.operands[i].loc,
                     {{"i", Cat(i)}, {"aval.shape", t.ShapeRepr()}, {"supported_shape", ShapeRepr(Lanes(c))}},
                     Cat("operand ", i, " is ", Typed(c.op.operands[i]), "; a ", c.target.name, " register has ",
                         c.target.lanes, " lanes"),
                     Cat("sort exactly ", c.target.lanes, " elements at a time")};
  }
  return std::nullopt;
}

std::optional<Violation> SortKeyDtype(const Ctx& c) {  // SORT-10 (JAX 0.12.1 on)
  if (!VectorMesh(c)) return std::nullopt;
  const Operand& k = c.op.operands[0];
  if (Is32BitKey(k.type().element())) return std::nullopt;
  return Violation{DiagId::kSort10, k.loc, {{"key_dtype", Dtype(k.type().element())}}, Cat("the keys are ", Typed(k)),
                   ""};
}

// Before JAX 0.12.1 (no SORT-10), keys of other types reach Mosaic's tpu.sort,
// whose verifier takes 32-bit keys only.
std::optional<Violation> MosaicSortKeys(const Ctx& c) {  // GEN-3
  if (!VectorMesh(c)) return std::nullopt;
  const Operand& k = c.op.operands[0];
  if (Is32BitKey(k.type().element())) return std::nullopt;
  return Gen3(k.loc, "tpu.sort", OperandMustBe(0, "vector of 32-bit signless integer or 32-bit float values", k.type()),
              Cat("the keys are ", Typed(k)), "sort f32, i32 or u32 keys (`convert` them first)");
}

std::optional<Violation> KeysDtype(const Ctx& c) {  // SORT-4
  const Operand& k = c.op.operands[0];
  if (Is32BitKey(k.type().element())) return std::nullopt;
  return Violation{DiagId::kSort4, k.loc, {{"keys.dtype", Dtype(k.type().element())}}, Cat("the keys are ", Typed(k)),
                   "sort u32, i32 or f32 keys (`convert` them first)"};
}

std::optional<Violation> KeysShape(const Ctx& c) {  // SORT-5
  const Operand& k = c.op.operands[0];
  if (k.type().shape() == Lanes(c)) return std::nullopt;
  return Violation{DiagId::kSort5, k.loc, {{"keys.shape", k.type().ShapeRepr()}, {"supported_shape", ShapeRepr(Lanes(c))}},
                   Cat("the keys are ", Typed(k), "; a ", c.target.name, " register has ", c.target.lanes, " lanes"),
                   Cat("sort exactly ", c.target.lanes, " keys at a time")};
}

std::optional<Violation> ValuesDtype(const Ctx& c) {  // SORT-6
  const Operand& v = c.op.operands[1];
  if (Bits(v.type().element()) == 32) return std::nullopt;
  return Violation{DiagId::kSort6, v.loc, {{"values.dtype", Dtype(v.type().element())}},
                   Cat("the values are ", Typed(v)),
                   "sort 32-bit values (`convert` them, or `bitcast` packed data to a 32-bit type)"};
}

std::optional<Violation> ValuesShape(const Ctx& c) {  // SORT-7
  const Operand& v = c.op.operands[1];
  if (v.type().shape() == Lanes(c)) return std::nullopt;
  return Violation{DiagId::kSort7, v.loc,
                   {{"values.shape", v.type().ShapeRepr()}, {"supported_shape", ShapeRepr(Lanes(c))}},
                   Cat("the values are ", Typed(v), "; a ", c.target.name, " register has ", c.target.lanes, " lanes"),
                   Cat("sort exactly ", c.target.lanes, " values at a time")};
}

std::optional<Violation> SortMaskDtype(const Ctx& c) {  // SORT-8
  if (!c.op.mask) return std::nullopt;
  Type m = c.op.mask->type();
  if (m.element() == E::kI1) return std::nullopt;
  return Violation{DiagId::kSort8, c.op.mask->loc, {{"mask.dtype", Dtype(m.element())}},
                   Cat("the mask is ", Typed(*c.op.mask)),
                   "pass an i1 mask, e.g. `%m = cmp gt %v, %zero : vector<16xi1>`"};
}

std::optional<Violation> SortMaskShape(const Ctx& c) {  // SORT-9
  if (!c.op.mask) return std::nullopt;
  Type m = c.op.mask->type();
  if (m.shape() == Lanes(c)) return std::nullopt;
  return Violation{DiagId::kSort9, c.op.mask->loc,
                   {{"mask.shape", m.ShapeRepr()}, {"supported_shape", ShapeRepr(Lanes(c))}},
                   Cat("the mask is ", Typed(*c.op.mask), "; a ", c.target.name, " register has ", c.target.lanes,
                       " lanes"),
                   Cat("use a vector<", c.target.lanes, "xi1> mask")};
}

// --- REV (sc_lowering.py _rev_lowering_rule) ----------------------------------------------

std::optional<Violation> RevDimensions(const Ctx& c) {  // REV-1
  if (!VectorMesh(c)) return std::nullopt;
  int64_t axis = IntAttr(c.op, "axis", 0);
  if (axis == 0) return std::nullopt;
  return Violation{DiagId::kRev1, AttrLoc(c.op, "axis"), {{"dimensions", Tuple({axis})}},
                   Cat("the rev reverses axis ", axis, " of ", Typed(c.op.operands[0])),
                   "reverse 1-D vectors (axis 0), one row at a time"};
}

// --- MR: popcount_all / ffs_all -------------------------------------------------------------

std::optional<Violation> MaskReduceDtype(const Ctx& c) {  // MR-1
  const Operand& x = c.op.operands[0];
  if (x.type().element() == E::kI1) return std::nullopt;
  return Violation{DiagId::kMr1, x.loc, {{"x.dtype", Dtype(x.type().element())}}, Cat("the operand is ", Typed(x)),
                   "pass an i1 mask, e.g. `%m = cmp ne %v, %zero : vector<16xi1>`"};
}

std::optional<Violation> MaskReduceFactor(const Ctx& c) {  // MR-2
  int64_t reduce = IntAttr(c.op, "reduce", 1);
  if (reduce >= 1) return std::nullopt;
  // Before JAX 0.11.1 Pallas divides by `reduce` unchecked: 0 is a
  // ZeroDivisionError (jax_messages.def), a negative one no error.
  if (c.jax < kCatalogJax && reduce != 0) return std::nullopt;
  return Violation{DiagId::kMr2, AttrLoc(c.op, "reduce"), {{"reduce", Cat(reduce)}},
                   Cat("the op has {reduce = ", reduce, "}"), "use reduce = 1 (or another divisor of the mask length)"};
}

// MR-3 (1-D, `reduce` does not divide) or MR-4 (not 1-D).
std::optional<Violation> MaskReduceShape(const Ctx& c) {
  const Operand& x = c.op.operands[0];
  Type t = x.type();
  int64_t reduce = IntAttr(c.op, "reduce", 1);
  if (t.rank() != 1) {
    return Violation{DiagId::kMr4, x.loc, {}, Cat("the operand is ", Typed(x)), "pass a 1-D mask"};
  }
  if (t.shape()[0] % reduce == 0) return std::nullopt;
  return Violation{DiagId::kMr3, AttrLoc(c.op, "reduce"),
                   {{"reduce=", Cat("reduce=", reduce)}, {"minor_dim", Cat(t.shape()[0])}},
                   Cat("the mask is ", Typed(x), " and ", reduce, " does not divide ", t.shape()[0]),
                   Cat("use a reduce that divides ", t.shape()[0], " (e.g. reduce = 1)")};
}

// --- EL: shared lowering rules (lowering.py) ---------------------------------------------

// One cast that Pallas' lowering refuses.
struct CastFailure {
  DiagId id;
  E from, to;
  bool recursion = false;  // Pallas recurses without end (RecursionError)
};

std::optional<CastFailure> LowerConvert(E from, E to, int depth);

// lowering.py _convert_helper (traced with lower_fun: each astype is lowered by
// _convert_element_type_lowering_rule again).
std::optional<CastFailure> ConvertHelper(E from, E to, int depth) {
  auto bytes = [](E e) { return ByteWidth(e); };
  if (from == E::kI1) {
    if (auto f = LowerConvert(E::kI1, E::kI32, depth + 1)) return f;
    return ConvertHelper(E::kI32, to, depth + 1);
  }
  if (to == E::kI1) {
    if (IsFloat(from) && bytes(from) < 4) return LowerConvert(from, E::kF32, depth + 1);
    if (IsInteger(from) && bytes(from) < 4) return LowerConvert(from, E::kI32, depth + 1);
    return std::nullopt;  // x != 0
  }
  if (IsInteger(from) && !IsUnsigned(from)) {
    E cur = from;
    if (bytes(from) < 4) {
      if (auto f = LowerConvert(from, E::kI32, depth + 1)) return f;
      cur = E::kI32;
    }
    if (IsFloat(to) && bytes(to) < 4) {
      if (auto f = LowerConvert(cur, E::kF32, depth + 1)) return f;
      cur = E::kF32;
    }
    return LowerConvert(cur, to, depth + 1);
  }
  if (IsUnsigned(from)) {
    E cur = from;
    if (bytes(from) < 4) {
      if (auto f = LowerConvert(from, E::kU32, depth + 1)) return f;
      cur = E::kU32;
    }
    if (!IsFloat(to)) return LowerConvert(cur, to, depth + 1);
  }
  return CastFailure{DiagId::kEl2, from, to};
}

// lowering.py _convert_element_type_lowering_rule.
std::optional<CastFailure> LowerConvert(E from, E to, int depth) {
  if (from == to) return std::nullopt;
  if (depth > 8) return CastFailure{DiagId::kEl1, from, to, true};
  int bf = ByteWidth(from), bt = ByteWidth(to);
  if (bt == 8) return CastFailure{DiagId::kEl1, from, to};
  bool signed_from = IsInteger(from) && !IsUnsigned(from), signed_to = IsInteger(to) && !IsUnsigned(to);
  if (IsFloat(from) && IsFloat(to)) {
    if ((bf < bt && bt == 4) || (bf > bt && bf == 4)) return std::nullopt;
  } else if (IsInteger(from) && IsInteger(to)) {
    if (bf < bt && bt == 4) {
      if (!(signed_from && signed_to)) return CastFailure{DiagId::kEl2, from, to};
      return std::nullopt;
    }
    if ((bf > bt && bf == 4) || bf == bt) return std::nullopt;
  } else if (IsFloat(from) && signed_to) {
    return std::nullopt;
  } else if (signed_from && IsFloat(to)) {
    return std::nullopt;
  } else if (from == E::kI1 && IsInteger(to) && bt == 4) {
    return std::nullopt;
  }
  return ConvertHelper(from, to, depth);
}

std::optional<Violation> ConvertRule(const Ctx& c) {  // EL-1, EL-2
  const Operand& x = c.op.operands[0];
  E from = x.type().element(), to = c.op.results[0]->type.element();
  std::optional<CastFailure> f = LowerConvert(from, to, 0);
  if (!f) return std::nullopt;
  std::string what = Cat("the cast is ", IrName(from), " -> ", IrName(to), " (", Typed(x), ")");
  if (f->id == DiagId::kEl1) {
    if (f->recursion) {
      Append(&what, "; Pallas' lowering recurses without end on this cast (RecursionError), scjit reports EL-1");
    }
    return Violation{DiagId::kEl1, c.op.loc, {}, what, "stay at 32 bits or below"};
  }
  if (f->from != from || f->to != to) {
    Append(&what, "; Pallas lowers it through ", IrName(f->from), " -> ", IrName(f->to), ", which has no direct "
                                                                                           "conversion");
  }
  std::string help = "convert through f32 (`convert` twice)";
  if (IsUnsigned(from) || IsUnsigned(to)) {
    E u = IsUnsigned(from) ? from : to;
    E s = u == E::kU4 ? E::kI4 : Bits(u) == 8 ? E::kI8 : Bits(u) == 16 ? E::kI16 : Bits(u) == 32 ? E::kI32 : E::kI64;
    help = Cat("convert through ", IrName(s), ", the signed type of ", IrName(u), "'s width (`convert` twice; the "
               "values must fit in ", IrName(s), ")");
  }
  return Violation{DiagId::kEl2, c.op.loc, {{"from_dtype", Dtype(f->from)}, {"to_dtype", Dtype(f->to)}}, what, help};
}

std::optional<Violation> ExtractScalar(const Ctx& c) {  // EL-3
  const Type& out = c.op.results[0]->type;
  if (ByteWidth(out.element()) == 4) return std::nullopt;
  const Operand& v = c.op.operands[0];
  return Violation{DiagId::kEl3, v.loc, {{"aval_out.dtype", Dtype(out.element())}},
                   Cat("the vector is ", v.value->type.ToString(), "; the scalar would be ", out.ToString()),
                   Cat("`convert` the vector to ",
                       Type::Vector(IsFloat(out.element()) ? E::kF32 : E::kI32, v.value->type.shape()).ToString(),
                       " first, then `extract` from that")};
}

std::optional<Violation> GatherLike(const Ctx& c) {  // EL-5, EL-6
  Type src = c.op.operands[0].type(), idx = c.op.operands[1].type();
  int64_t axis = IntAttr(c.op, "axis", 0);
  if (src.rank() != idx.rank()) {
    return Violation{DiagId::kEl5, c.op.operands[1].loc, {},
                     Cat("the source is ", Typed(c.op.operands[0]), " (rank ", src.rank(), "); the indices are ",
                         Typed(c.op.operands[1]), " (rank ", idx.rank(), ")"),
                     "give the indices the source's rank (take_along_axis), or gather from a ref with "
                     "`load_gather`"};
  }
  for (int d = 0; d < src.rank(); ++d) {
    if (d == axis || src.shape()[d] == idx.shape()[d]) continue;
    return Violation{DiagId::kEl6, c.op.operands[1].loc, {},
                     Cat("the source is ", Typed(c.op.operands[0]), " and the indices are ", Typed(c.op.operands[1]),
                         ": dimension ", d, " differs (", src.shape()[d], " vs ", idx.shape()[d],
                         ") but is not the gather axis ", axis),
                     "give the indices the source's size in every dimension but the gather axis"};
  }
  return std::nullopt;
}

std::optional<Violation> CmpDtypes(const Ctx& c) {  // EL-7
  const Operand& x = c.op.operands[0];
  const Operand& y = c.op.operands[1];
  E a = x.type().element(), b = y.type().element();
  if (a == b) return std::nullopt;
  return Violation{DiagId::kEl7, y.loc, {{"x_aval.dtype", Dtype(a)}, {"y_aval.dtype", Dtype(b)}},
                   Cat("the operands are ", Typed(x), " and ", Typed(y)),
                   "`convert` one operand to the other's element type"};
}

std::optional<Violation> Accuracy(const Ctx& c) {  // EL-10
  const Attribute* a = c.op.FindAttr("accuracy");
  if (a == nullptr) return std::nullopt;
  if (!VectorMesh(c) && c.op.info().has(kVectorOnly)) return std::nullopt;  // GEN-1
  return Violation{DiagId::kEl10, a->loc, {}, Cat("`", c.op.name(), "` has {accuracy = \"", a->value.str, "\"}"),
                   "drop the accuracy attribute"};
}

std::optional<Violation> BoolArithmetic(const Ctx& c) {  // EL-11
  const Type& out = c.op.results[0]->type;
  if (out.element() != E::kI1) return std::nullopt;
  return Violation{DiagId::kEl11, c.op.loc, {{"aval_out.dtype", "bool"}},
                   Cat("`", c.op.name(), "` on ", out.ToString(), " (a boolean)"),
                   "use `and`/`or`/`xor`/`not` on i1, or `convert` to i32 and compute there"};
}

std::optional<Violation> BoolSign(const Ctx& c) {  // EL-12
  const Operand& x = c.op.operands[0];
  if (x.type().element() != E::kI1) return std::nullopt;
  return Violation{DiagId::kEl12, x.loc, {{"x.dtype", "bool"}}, Cat("the operand is ", Typed(x)),
                   "`convert` the operand to i32 or f32 first"};
}

std::optional<Violation> MulhiDtype(const Ctx& c) {  // EL-14
  const Type& out = c.op.results[0]->type;
  E e = out.element();
  if (e == E::kI32 || e == E::kU32) return std::nullopt;
  return Violation{DiagId::kEl14, c.op.loc, {{"aval_out.dtype", Dtype(e)}}, Cat("`mulhi` on ", out.ToString()), ""};
}

// --- The table ----------------------------------------------------------------------------

// The op groups come from ops.def: families, and the gathers (loads) and
// scatters (stores) among the gather/scatter ops.
const std::vector<OpKind> kGs = OpsOf(OpFamily::kGatherScatter);
const std::vector<OpKind> kGathers =
    OpsWhere([](const OpInfo& i) { return i.family == OpFamily::kGatherScatter && !i.has(kSideEffect); });
const std::vector<OpKind> kScatters =
    OpsWhere([](const OpInfo& i) { return i.family == OpFamily::kGatherScatter && i.has(kSideEffect); });
const std::vector<OpKind> kScans = OpsOf(OpFamily::kScan);
const std::vector<OpKind> kReduces = OpsOf(OpFamily::kReduction);
const std::vector<OpKind> kMaskReduces = OpsOf(OpFamily::kMaskReduction);
const std::vector<OpKind> kAccuracy = OpsWhere([](const OpInfo& i) { return i.AcceptsAttr("accuracy"); });
// EL-11's own list: the ops whose Pallas lowering rejects booleans (not a family).
const std::vector<OpKind> kArith = {K::kAdd, K::kSub, K::kMul, K::kDiv, K::kRem,
                                    K::kAbs, K::kMax, K::kMin, K::kNeg};

// In catalog order per op: trace-time checks of the primitive first, then its
// lowering rule's.
const std::vector<OpRule> kRules = {
    {DiagId::kIota1, {K::kIota}, IotaShape},
    // load_gather: GS-1, GS-3, GS-4/5/6, SHAPE-1, GS-7, GET-8, then GS-8.
    // Scatters: GS-2, GS-1, GS-3, GS-4/5/6, GS-9, GS-10, GS-11, GET-8, then GS-13.
    {DiagId::kGs2, kScatters, GsEmptyIndices},
    {DiagId::kGs1, kGs, GsNotARef},
    {DiagId::kGs3, kGs, GsRefDtype},
    {DiagId::kGs4, kGs, GsIndices, {DiagId::kGs5, DiagId::kGs6}},
    {DiagId::kShape1, kGathers, GatherShape},
    {DiagId::kGs7, kGathers, GatherMaskShape},
    {DiagId::kGs9, kScatters, ScatterValueShape},
    {DiagId::kGs10, kScatters, ScatterValueDtype},
    {DiagId::kGs11, kScatters, ScatterMaskShape},
    {DiagId::kGet8, kGs, GsMaskDtype},
    {DiagId::kGs8, kGathers, GatherSpace},
    {DiagId::kGs13, kScatters, ScatterSpace},
    // plsc.bitcast.
    {DiagId::kBc5, {K::kBitcast}, BitcastRank},
    {DiagId::kBc1, {K::kBitcast}, BitcastScalar},
    {DiagId::kBc2, {K::kBitcast}, BitcastMinor},
    // plsc.pack / plsc.unpack.
    {DiagId::kPk1, {K::kPack}, PackShapes},
    {DiagId::kPk2, {K::kPack}, PackRank},
    {DiagId::kPk3, {K::kPack}, PackDtypes},
    {DiagId::kPk4, {K::kPack}, PackDtype, {DiagId::kPk5}},
    {DiagId::kPk6, {K::kPack}, PackFormat},
    {DiagId::kPk7, {K::kPack}, PackWithLayoutPasses},
    {DiagId::kUp1, {K::kUnpack}, UnpackShape, {DiagId::kUp2}},
    {DiagId::kUp3, {K::kUnpack}, UnpackDtype, {DiagId::kUp4}},
    {DiagId::kUp5, {K::kUnpack}, PackWithLayoutPasses},
    // plsc.cumsum/cummax/cummin check the rank before binding; then the shared
    // scan checks. jnp.cumsum (cumsum without a mask): CUM-4, CUM-5, CUM-6.
    {DiagId::kCum1, {K::kCumsum, K::kCummax, K::kCummin}, CumRank, {DiagId::kCum2, DiagId::kCum3}},
    {DiagId::kScan1, kScans, ScanDtype},
    {DiagId::kScan2, kScans, ScanMaskDtype},
    {DiagId::kScan3, kScans, ScanMaskShape},
    {DiagId::kCum4, {K::kCumsum}, CumsumAxisRule},
    {DiagId::kCum5, {K::kCumsum}, CumsumRank},
    {DiagId::kCum6, {K::kCumsum}, CumsumReverse},
    {DiagId::kRed1, kReduces, ReduceAxes},
    {DiagId::kRed3, {K::kReduceMax, K::kReduceMin}, BoolReduce},
    {DiagId::kRed2, {K::kReduceMax, K::kReduceMin}, NarrowSignedReduce},
    // lax.sort (lowering) and plsc.sort_key_val (abstract eval).
    {DiagId::kSort1, {K::kSort}, SortDimension},
    {DiagId::kSort2, {K::kSort}, SortKeys},
    {DiagId::kSort3, {K::kSort}, SortShapes},
    {DiagId::kSort10, {K::kSort}, SortKeyDtype},
    {DiagId::kGen3, {K::kSort}, MosaicSortKeys},
    {DiagId::kSort4, {K::kSortKeyVal}, KeysDtype},
    {DiagId::kSort5, {K::kSortKeyVal}, KeysShape},
    {DiagId::kSort6, {K::kSortKeyVal}, ValuesDtype},
    {DiagId::kSort7, {K::kSortKeyVal}, ValuesShape},
    {DiagId::kSort8, {K::kSortKeyVal}, SortMaskDtype},
    {DiagId::kSort9, {K::kSortKeyVal}, SortMaskShape},
    {DiagId::kRev1, {K::kRev}, RevDimensions},
    // Mask all-reduces: MR-1, MR-2, then MR-3 or MR-4.
    {DiagId::kMr1, kMaskReduces, MaskReduceDtype},
    {DiagId::kMr2, kMaskReduces, MaskReduceFactor},
    {DiagId::kMr3, kMaskReduces, MaskReduceShape, {DiagId::kMr4}},
    // Shared elementwise and shape rules.
    {DiagId::kEl1, {K::kConvert}, ConvertRule, {DiagId::kEl2}},
    {DiagId::kEl3, {K::kExtract}, ExtractScalar},
    {DiagId::kEl5, {K::kGather}, GatherLike, {DiagId::kEl6}},
    {DiagId::kEl7, {K::kCmp}, CmpDtypes},
    {DiagId::kEl10, kAccuracy, Accuracy},
    {DiagId::kEl11, kArith, BoolArithmetic},
    {DiagId::kEl12, {K::kSign}, BoolSign},
    {DiagId::kEl14, {K::kMulhi}, MulhiDtype},
};

}  // namespace

const std::vector<OpRule>& VectorRules() { return kRules; }

}  // namespace scjit::rules
