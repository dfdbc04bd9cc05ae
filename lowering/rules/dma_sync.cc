// SC rules of DMAs, semaphores, fetch_and_add, debug_print and ref transforms
// (sc-errors.md §9, §20-§22, §4): DMA, SEM, FAA, DBG, XF, and GEN-3 where
// Mosaic's verifier rejects what these ops lower to.
//
// How .scir maps onto Pallas here (sc-rules.md §1, kernel-ir.md §4.2):
// - A `view` is `ref.at[...]` (an NDIndexer transform), `view_bitcast` is
//   `ref.bitcast`, `view_reshape` is `ref.reshape`; an operand's own indexer
//   `%r[...]` is one more `.at[...]`. A ref reached through views is a Pallas
//   TransformedRef; a parameter, scratch or alloc used directly is a plain Ref.
//   A `select_ref` result is a multi-ref TransformedRef (pl.select_ref).
// - `dma_start a -> b, %s` is `pltpu.async_copy(a, b, s)`; with `src_sem %t`
//   and a device id (`{device = ...}` or device axes by name) it is
//   `make_async_remote_copy(a, b, t, s, device_id)`. `dma_wait` is its
//   `.wait()`, `copy` is `pltpu.sync_copy`.
// - `idx(%v)` in the first entry of an indexer is the indirect (gather/scatter)
//   offset list of sc_lowering.py::_extract_indirect_offsets_from_indices.
// - Errors of a ref transform are reported at the view op that makes it, once;
//   the ops that consume the view report only their own indexer's.
#include <algorithm>
#include <optional>
#include <string>
#include <vector>

#include "lowering/ir/printer.h"
#include "lowering/rules/rule.h"
#include "lowering/rules/uses.h"
#include "lowering/base/strings.h"

namespace scjit::rules {
namespace {

using K = OpKind;

const Op* DefOf(const Value* v) {
  return v != nullptr && v->kind == Value::Kind::kResult ? v->def : nullptr;
}

// --- Python renderings ----------------------------------------------------------------

// A shape with dynamic dims rendered as `dynamic`.
std::string PyShape(const Shape& s, std::string_view dynamic) {
  std::vector<std::string> items;
  for (int64_t d : s) items.push_back(d == kDynamic ? std::string(dynamic) : Cat(d));
  return PyTuple(items);
}

// A traced scalar as JAX prints it inside a tuple (a dynamic slice size, an index).
constexpr std::string_view kTracer = "JitTracer(int32[])";
constexpr std::string_view kWeakTracer = "JitTracer(~int32[])";

// The dtype of a ref or semaphore ref as JAX prints it: `int32`, `dma_sem`.
std::string DtypeOf(const Type& t) {
  if (t.is_semaphore()) return t.semaphore_kind() == SemaphoreKind::kDma ? "dma_sem" : "semaphore";
  return Dtype(t.element());
}

// str() of a memory space (`hbm`, `semaphore_mem`).
std::string SpaceStr(const Type& t) {
  if (t.is_semaphore()) return "semaphore_mem";
  return std::string(SpaceName(t.space()));
}

// str() of a ref's aval: `Ref<vmem>{int32[16]}`.
std::string RefAval(const Type& t) {
  std::string inner = Cat(DtypeOf(t), "[");
  for (int d = 0; d < t.rank(); ++d) Append(&inner, d ? "," : "", t.shape()[d] == kDynamic ? std::string("?") : Cat(t.shape()[d]));
  inner += "]";
  return Cat("Ref<", SpaceStr(t), ">{", inner, "}");
}

// --- Ref chains: the transforms between a root ref and an operand ---------------------

struct Xform {
  enum class Kind { kIndexer, kBitcast, kReshape };
  Kind kind;
  const Operand* operand;  // kIndexer: the operand carrying the indexer; else the view op's input
  const Op* op;            // the view op; null for the consuming op's own indexer
  Type in, out;            // the ref before and after
};

struct Chain {
  const Value* base = nullptr;  // the root ref
  const Op* select = nullptr;   // the select_ref the chain starts from (a multi-ref), if any
  std::vector<Xform> xforms;    // in application order
};

void WalkBack(const Value* v, Chain* c) {
  const Op* def = DefOf(v);
  // (A subcore slice is a memref of its own, which later views start from.)
  if (def != nullptr && IsViewOp(def->kind) && def->kind != K::kViewSubcoreSlice && !def->operands.empty() &&
      def->operands[0].value != nullptr) {
    const Operand& in = def->operands[0];
    WalkBack(in.value, c);
    if (def->kind == K::kView) {
      if (in.indexed) c->xforms.push_back({Xform::Kind::kIndexer, &in, def, in.value->type, in.view});
    } else {
      c->xforms.push_back({def->kind == K::kViewBitcast ? Xform::Kind::kBitcast : Xform::Kind::kReshape, &in, def,
                           in.value->type, def->results[0]->type});
    }
    return;
  }
  c->base = v;
  if (def != nullptr && def->kind == K::kSelectRef) c->select = def;
}

Chain ChainOf(const Operand& o) {
  Chain c;
  if (o.value == nullptr) return c;
  WalkBack(o.value, &c);
  if (o.indexed) c.xforms.push_back({Xform::Kind::kIndexer, &o, nullptr, o.value->type, o.view});
  return c;
}

// Pallas' block shape of a ref: its shape, except for a pipeline body's block
// ref, whose `squeezed` block dims stay in the block shape as pl.Squeezed.
constexpr int64_t kSqueezedDim = -2;

std::vector<int64_t> BlockShapeOf(const Value* v) {
  if (v->kind == Value::Kind::kRegionArg && v->region != nullptr && v->region->parent != nullptr) {
    const Op& p = *v->region->parent;
    if (p.kind == K::kPipeline && p.pipeline != nullptr && !p.regions.empty() && p.regions[0].get() == v->region &&
        v->index >= 0 && v->index < static_cast<int>(p.pipeline->operands.size())) {
      std::vector<int64_t> out;
      for (const BlockDim& d : p.pipeline->operands[v->index].block) {
        out.push_back(d.kind == BlockDim::Kind::kSqueezed ? kSqueezedDim : d.size);
      }
      return out;
    }
  }
  return v->type.shape();
}

// The block shape of `op`'s input ref (a view_bitcast or view_reshape).
std::vector<int64_t> BlockShapeBefore(const Op& op) {
  Chain c;
  WalkBack(op.operands[0].value, &c);
  std::vector<int64_t> block = BlockShapeOf(c.base);
  for (const Xform& x : c.xforms) {
    switch (x.kind) {
      case Xform::Kind::kIndexer:
      case Xform::Kind::kReshape:
        block = x.out.shape();
        break;
      case Xform::Kind::kBitcast: {
        size_t n = block.size();
        if (n >= 2 && block[n - 2] != kSqueezedDim && block[n - 2] != kDynamic) {
          block[n - 2] = block[n - 2] * BitWidth(x.in.element()) / BitWidth(x.out.element());
        }
        break;
      }
    }
  }
  return block;
}

std::string PyBlockShape(const std::vector<int64_t>& block) {
  std::vector<std::string> items;
  for (int64_t d : block) {
    items.push_back(d == kSqueezedDim ? std::string("Squeezed()") : d == kDynamic ? std::string(kTracer) : Cat(d));
  }
  return PyTuple(items);
}

// --- Indirect offsets (sc_lowering.py::_extract_indirect_offsets_from_indices) -------

enum class IndexKind { kArray, kRef, kTransformedRef };

IndexKind KindOfIndexList(const Operand& list) {
  if (!list.value->type.is_memory()) return IndexKind::kArray;
  const Op* def = DefOf(list.value);
  if (def != nullptr && (IsViewOp(def->kind) || def->kind == K::kSelectRef)) return IndexKind::kTransformedRef;
  return IndexKind::kRef;
}

// The indirect entry of an indexer transform: its first entry when it is idx(...).
const IndexEntry* IndirectEntry(const Xform& x) {
  if (x.kind != Xform::Kind::kIndexer || x.operand->index.empty()) return nullptr;
  const IndexEntry& e = x.operand->index[0];
  return e.kind == IndexEntry::Kind::kIndirect ? &e : nullptr;
}

// Where a DMA reports a finding about transform `x` of its operand `o`: the
// entry itself when it is in the DMA's own indexer, else the operand.
Location At(const Xform& x, const Operand& o, Location entry) { return x.op == nullptr ? entry : o.loc; }

std::string ViewNote(const Xform& x) {
  if (x.op == nullptr) return "";
  return Cat(" (made by the `", x.op->name(), "` on line ", x.op->loc.line, ")");
}

// The checks of one index list: rank (DMA-18) and shape (DMA-19) of Ref and array
// indices, dtype of transformed-ref indices (DMA-20), memory space of refs (DMA-21).
// `expected` is the other side's shape (only when extracting, not when testing).
std::optional<Violation> CheckIndexList(const Xform& x, const IndexEntry& e, const Operand& dma_operand,
                                        const std::optional<Shape>& expected) {
  const Operand& list = e.start;
  const Type& t = list.value->type;
  IndexKind kind = KindOfIndexList(list);
  Location loc = At(x, dma_operand, e.loc);
  std::string what = Cat("the index list ", Print(list), " : ", t.ToString(), ViewNote(x));
  if (kind != IndexKind::kTransformedRef) {
    if (t.rank() != 1) {
      return Violation{DiagId::kDma18, loc, {{"len(offsets_aval.shape)", Cat(t.rank())}},
                       Cat(what, " has rank ", t.rank()), ""};
    }
    if (expected) {
      Shape got = x.out.shape();
      if (got != *expected) {
        std::vector<std::string> got_items;
        for (int64_t d : got) got_items.push_back(d == kDynamic ? std::string(kTracer) : Cat(d));
        std::vector<std::string> want_items;
        for (int64_t d : *expected) want_items.push_back(d == kDynamic ? std::string(kMlirDynamic) : Cat(d));
        return Violation{DiagId::kDma19,
                         loc,
                         {{"expected_shape", PyTuple(want_items)}, {"shape", PyTuple(got_items)}},
                         Cat("the indexed side ", Print(*x.operand), ViewNote(x), " selects ", x.out.ToString(),
                             ", but the other side of the copy has shape ", PyShape(*expected, "?"),
                             std::count(expected->begin(), expected->end(), kDynamic) > 0
                                 ? "; Mosaic's static shape gives a dynamic dimension the size -9223372036854775808"
                                 : ""),
                         ""};
      }
    }
  } else if (!t.is_ref() || t.element() != ElementType::kI32) {
    return Violation{DiagId::kDma20, loc, {}, Cat(what, " has dtype ", DtypeOf(t)), ""};
  }
  if (kind != IndexKind::kArray) {
    if (!t.is_ref() || t.space() != MemorySpace::kVmem) {
      return Violation{DiagId::kDma21, loc, {{"offsets_memory_space!r", SpaceRepr(t)}},
                       Cat(what, " is in ", SpaceRepr(t)), ""};
    }
  }
  return std::nullopt;
}

// _has_indirect_offsets: does any indexer of the chain start with idx(...)?
std::optional<Violation> HasIndirect(const Chain& c, const Operand& o, const Xform** found) {
  *found = nullptr;
  for (const Xform& x : c.xforms) {
    const IndexEntry* e = IndirectEntry(x);
    if (e == nullptr) continue;
    if (auto v = CheckIndexList(x, *e, o, std::nullopt)) return v;
    *found = &x;
    return std::nullopt;
  }
  return std::nullopt;
}

// _extract_indirect_offsets: the checks with the expected shape, and DMA-22.
std::optional<Violation> ExtractIndirect(const Chain& c, const Operand& o, const Shape& expected, const Xform** found) {
  *found = nullptr;
  for (size_t i = 0; i < c.xforms.size(); ++i) {
    const Xform& x = c.xforms[i];
    const IndexEntry* e = IndirectEntry(x);
    if (e == nullptr) continue;
    if (auto v = CheckIndexList(x, *e, o, expected)) return v;
    if (i + 1 != c.xforms.size()) {
      const Xform& next = c.xforms[i + 1];
      std::string after = next.op != nullptr ? Cat("`", next.op->name(), "` on line ", next.op->loc.line)
                                             : Cat("the indexer of ", Print(o));
      return Violation{DiagId::kDma22, At(x, o, e->loc), {},
                       Cat("the idx(...) indexer of ", Print(*x.operand), ViewNote(x), " is followed by ", after), ""};
    }
    *found = &x;
    return std::nullopt;
  }
  return std::nullopt;
}

// The strided-slice check of _slice_memref on an operand's own indexer (XF-1).
std::optional<Violation> StridedIndexer(const Operand& o) {
  for (const IndexEntry& e : o.index) {
    if (e.kind == IndexEntry::Kind::kSlice && e.stride && e.stride->int_value != 1) {
      return Violation{DiagId::kXf1, e.loc, {}, Cat("the slice in ", Print(o), " has stride ", e.stride->int_value), ""};
    }
  }
  return std::nullopt;
}

// XF-9's arguments for the refs of a select_ref (scjit names them as written).
std::vector<std::pair<std::string, std::string>> SelectArgs(const Op& select) {
  std::vector<std::string> names, tys, shapes;
  for (size_t i = 1; i < select.operands.size(); ++i) {
    names.push_back(Print(select.operands[i]));
    tys.push_back(RefAval(select.operands[i].value->type));
    shapes.push_back(select.operands[i].value->type.ShapeRepr());
  }
  return {{"ref = ", Cat("ref = ", PyTuple(names))},
          {"ref_ty = ", Cat("ref_ty = ", PyTuple(tys))},
          {"ref_block_shape = ", Cat("ref_block_shape = ", PyTuple(shapes))},
          {"transforms = ", Cat("transforms = (SelectTransform(idx=", kTracer, "),)")}};
}

// _transform_ref on a DMA operand: its own indexer (view ops report theirs), and
// a multi-ref where only a single ref is accepted (XF-9).
std::optional<Violation> TransformRef(const Chain& c, const Operand& o, bool multiref_ok) {
  if (c.select != nullptr && !multiref_ok) {
    return Violation{DiagId::kXf9,
                     o.loc,
                     SelectArgs(*c.select),
                     Cat(Print(o), " is chosen by the `select_ref` on line ", c.select->loc.line,
                         "; a gather/scatter-direction DMA transforms its operands one ref at a time (scjit shows the "
                         "refs by their .scir names)"),
                     "select_ref works for DMAs between other memory spaces (e.g. HBM to HBM); otherwise choose the "
                     "ref with `if` and write one DMA per branch"};
  }
  if (o.indexed) return StridedIndexer(o);
  return std::nullopt;
}

// --- DMA: trace-time checks ------------------------------------------------------------

const Operand& SemOperand(const Op& op) { return op.operands[2]; }

std::string KindWord(const Type& t) {
  if (t.is_vector()) return "a vector value";
  if (t.is_scalar()) return "a scalar value";
  if (t.is_semaphore()) return "a semaphore ref";
  return "a ref";
}

// A remote copy (make_async_remote_copy) has both a send semaphore and a
// device id; a local one neither.
// From JAX 0.12.0 on a local copy may name a source semaphore (a push
// stream's, DMA-24 otherwise); DMA-1 is then the remote half alone.
constexpr JaxRelease kPushStreams{0, 12, 0};

std::optional<Violation> SrcSemAndDevice(const Ctx& c) {  // DMA-1
  DeviceTarget t = DeviceTargetOf(c.op, c.kernel);
  bool device = t.form != DeviceTarget::Form::kLocal;
  if (c.op.has_src_sem == device) return std::nullopt;
  if (c.op.has_src_sem && !(c.jax < kPushStreams)) return std::nullopt;
  if (c.op.has_src_sem) {
    const Operand& s = c.op.operands[3];
    return Violation{DiagId::kDma1, s.loc, {},
                     Cat("`src_sem ", Print(s), "` makes this a remote copy (make_async_remote_copy), but it names no "
                         "device"),
                     "name the target device (`{device = %d}` or its mesh coordinates), or drop `src_sem`: a local "
                     "copy signals only its destination semaphore"};
  }
  return Violation{DiagId::kDma1, t.loc, {},
                   "the device id makes this a remote copy (make_async_remote_copy), which also needs a send semaphore",
                   "add `src_sem %send`: a dma_sem of this subcore that the copy credits with the bytes it sent"};
}

// Pallas' _is_push_stream: a local copy out of the vector subcore's VMEM (and,
// in 0.12.0 only, from VMEM_SHARED into SMEM on either subcore).
bool PushStream(const Ctx& c) {
  const Type& src = c.op.operands[0].value->type;
  const Type& dst = c.op.operands[1].value->type;
  if (!src.is_ref() || !dst.is_ref()) return false;
  bool vector = c.kernel.mesh.kind == MeshKind::kVector;
  if (vector && src.space() == MemorySpace::kVmem && dst.space() != MemorySpace::kVmem) return true;
  return c.jax < JaxRelease{0, 12, 1} && src.space() == MemorySpace::kVmemShared &&
         dst.space() == MemorySpace::kSmem;
}

bool Local(const Ctx& c) { return DeviceTargetOf(c.op, c.kernel).form == DeviceTarget::Form::kLocal; }

bool Indirect(const Operand& o);

// DMA-24: `src_sem` on a local copy that is no push stream (0.12.0 on).
std::optional<Violation> LocalSrcSem(const Ctx& c) {
  if (!c.op.has_src_sem || !Local(c) || Indirect(c.op.operands[0]) || Indirect(c.op.operands[1]) ||
      PushStream(c)) {
    return std::nullopt;
  }
  DiagId id = c.op.kind == K::kDmaWait ? DiagId::kDma26 : DiagId::kDma24;
  const Operand& s = c.op.operands[3];
  return Violation{id, s.loc, {},
                   Cat("the copy from ", Described(c.op.operands[0]), " to ", Described(c.op.operands[1]),
                       " is local and no push stream, and names `src_sem ", Print(s), "`"),
                   ""};
}

// DMA-25: `src_sem` on a gather or scatter (0.12.0 on).
std::optional<Violation> IndirectSrcSem(const Ctx& c) {
  if (!c.op.has_src_sem || !Local(c)) return std::nullopt;
  if (!Indirect(c.op.operands[0]) && !Indirect(c.op.operands[1])) return std::nullopt;
  const Operand& s = c.op.operands[3];
  return Violation{DiagId::kDma25, s.loc, {},
                   Cat("the copy is a ", Indirect(c.op.operands[0]) ? "gather" : "scatter", " and names `src_sem ",
                       Print(s), "`"),
                   ""};
}

std::optional<Violation> SrcSemNotRef(const Ctx& c) {  // DMA-6 (_dma_start_abstract_eval)
  if (!c.op.has_src_sem) return std::nullopt;
  const Operand& s = c.op.operands[3];
  const Type& t = s.value->type;
  if (t.is_memory()) return std::nullopt;
  return Violation{DiagId::kDma6, s.loc, {},
                   Cat("the send semaphore ", Print(s), " is ", KindWord(t), " (", t.ToString(), "), not a ref"),
                   "pass a DMA semaphore ref, e.g. `src_sem %send`"};
}

std::optional<Violation> NegativePriority(const Ctx& c) {  // DMA-3
  const Attribute* a = c.op.FindAttr("priority");
  if (a == nullptr || a->value.operand.int_value >= 0) return std::nullopt;
  return Violation{DiagId::kDma3, a->loc, {{"priority", Cat(a->value.operand.int_value)}},
                   Cat("priority = ", a->value.operand.int_value), "use priority 0 (the default, highest) or 1"};
}

std::optional<Violation> OperandsNotRefs(const Ctx& c) {  // DMA-4
  size_t n = c.op.kind == K::kCopy ? 2 : 3;
  static constexpr std::string_view kRoles[] = {"source", "destination", "semaphore"};
  for (size_t i = 0; i < n && i < c.op.operands.size(); ++i) {
    const Operand& o = c.op.operands[i];
    const Type& t = o.value->type;
    if (t.is_memory()) continue;
    // (JAX 0.12.0 on: the semaphore has a check, and words, of its own.)
    DiagId id = i == 2 && !(c.jax < JaxRelease{0, 12, 0}) ? DiagId::kDma27 : DiagId::kDma4;
    return Violation{id, o.loc, {},
                     Cat("the ", kRoles[i], " ", Print(o), " is ", KindWord(t), " (", t.ToString(), "), not a ref"),
                     i < 2 ? Cat("DMAs copy between refs: `store` the value into a vmem scratch ref and copy that")
                           : std::string("pass a DMA semaphore ref, e.g. `%sem` or `%sems[%i]`")};
  }
  return std::nullopt;
}

std::optional<Violation> StartSemShape(const Ctx& c) {  // DMA-5
  const Operand& s = SemOperand(c.op);
  if (s.view.rank() == 0) return std::nullopt;
  if (s.view.is_ref()) {
    return Violation{DiagId::kDma5, s.loc, {{"dst_sem_shape", s.view.ShapeRepr()}},
                     Cat(Described(s), " is a data ref of shape ", s.view.ShapeRepr(), ", not a semaphore"),
                     "pass one DMA semaphore, e.g. `%sem` or `%sems[%i]`"};
  }
  return Violation{DiagId::kDma5, s.loc, {{"dst_sem_shape", s.view.ShapeRepr()}},
                   Cat("the semaphore ", Described(s), " is an array"),
                   Cat("index the semaphore array down to one semaphore, e.g. `", Print(s), "[0]`")};
}

// The send semaphore, as the destination one (Pallas checks both in
// _dma_start_abstract_eval).
std::optional<Violation> SrcSemShape(const Ctx& c) {  // DMA-5
  if (!c.op.has_src_sem || !c.op.operands[3].value->type.is_memory()) return std::nullopt;
  const Operand& s = c.op.operands[3];
  if (s.view.rank() == 0) return std::nullopt;
  return Violation{DiagId::kDma5, s.loc, {{"dst_sem_shape", s.view.ShapeRepr()}},
                   Cat("the send semaphore ", Described(s), " is ", s.view.is_ref() ? "a data ref" : "an array"),
                   "pass one DMA semaphore, e.g. `src_sem %send` or `src_sem %sends[%i]`"};
}

// A wait with a source semaphore (.wait() of a remote copy or a push stream)
// first waits on that one (wait_send/wait_read: the semaphores swapped), which
// JAX 0.12.0 on calls the source semaphore.
std::optional<Violation> WaitSrcSemNotRef(const Ctx& c) {  // DMA-7 (_dma_wait_abstract_eval)
  if (!c.op.has_src_sem) return std::nullopt;
  const Operand& s = c.op.operands[3];
  const Type& t = s.value->type;
  if (t.is_memory()) return std::nullopt;
  return Violation{DiagId::kDma7, s.loc, {{"sem_name", c.jax < JaxRelease{0, 12, 0} ? "destination" : "source"}},
                   Cat("the send semaphore ", Print(s), " is ", KindWord(t), " (", t.ToString(), "), which the wait ",
                       "waits on first"),
                   "pass the DMA semaphore ref the copy was started with, e.g. `src_sem %send`"};
}

std::optional<Violation> WaitSemNotRef(const Ctx& c) {  // DMA-7
  const Operand& s = SemOperand(c.op);
  if (s.value->type.is_memory()) return std::nullopt;
  return Violation{DiagId::kDma7, s.loc, {{"sem_name", "destination"}},
                   Cat("the semaphore ", Print(s), " is ", KindWord(s.value->type), " (", s.value->type.ToString(), ")"),
                   ""};
}

std::optional<Violation> WaitSemNotDma(const Ctx& c) {  // DMA-8
  const Operand& s = SemOperand(c.op);
  const Type& t = s.value->type;
  if (t.is_semaphore() && t.semaphore_kind() == SemaphoreKind::kDma) return std::nullopt;
  return Violation{DiagId::kDma8, s.loc, {},
                   t.is_semaphore() ? Cat("the semaphore ", Described(s), " is a regular semaphore")
                                    : Cat(Described(s), " is a data ref of dtype ", DtypeOf(t),
                                          ", not a DMA semaphore (Pallas' message says \"regular semaphore\" for any "
                                          "non-DMA dtype)"),
                   ""};
}

// `.wait()` of a remote copy waits its send semaphore too (wait_send: dma_wait
// with the semaphores swapped), which must then be a DMA semaphore.
std::optional<Violation> WaitSendSemNotDma(const Ctx& c) {  // DMA-8
  if (!c.op.has_src_sem || !c.op.operands[3].value->type.is_memory()) return std::nullopt;
  const Operand& s = c.op.operands[3];
  const Type& t = s.value->type;
  if (t.is_semaphore() && t.semaphore_kind() == SemaphoreKind::kDma) return std::nullopt;
  return Violation{DiagId::kDma8, s.loc, {},
                   Cat("the send semaphore ", Described(s), " is ",
                       t.is_semaphore() ? "a regular semaphore" : Cat("a data ref of dtype ", DtypeOf(t))),
                   ""};
}

// A ref operand whose first index, or that of a view it is made from, is an
// `idx(...)` list.
bool Indirect(const Operand& o) {
  for (const Operand* at = &o; at != nullptr;) {
    if (!at->index.empty() && at->index[0].kind == IndexEntry::Kind::kIndirect) return true;
    const Op* def = DefOf(at->value);
    at = def != nullptr && def->kind == K::kView ? &def->operands[0] : nullptr;
  }
  return false;
}

std::optional<Violation> RemoteIndirect(const Ctx& c) {  // DMA-15
  if (Local(c)) return std::nullopt;
  for (int i = 0; i < 2; ++i) {
    const Operand& o = c.op.operands[static_cast<size_t>(i)];
    if (!o.value->type.is_memory() || !Indirect(o)) continue;
    return Violation{DiagId::kDma15, o.loc, {},
                     Cat("the ", i == 0 ? "source " : "destination ", Print(o),
                         " is indexed by an idx(...) list and the copy goes to another device"),
                     ""};
  }
  return std::nullopt;
}

// A mesh-coordinate device id gives one coordinate per device axis.
std::optional<Violation> DeviceIdRank(const Ctx& c) {  // DEV-6
  DeviceTarget t = DeviceTargetOf(c.op, c.kernel);
  size_t axes = c.kernel.device_axes().size();
  if (!t.listed || t.coords.size() == axes) return std::nullopt;
  return Violation{DiagId::kDev6, t.loc, {{"len(device_ids)", Cat(t.coords.size())}, {"len(mesh_strides)", Cat(axes)}},
                   Cat("kernel @", c.kernel.name, "'s device mesh has ", axes, axes == 1 ? " axis" : " axes",
                       axes == 0 ? " (no 'devices' clause)" : ""),
                   axes == 0 ? std::string("drop `device`, or give the kernel a device mesh: `devices(x = 2)`")
                             : Cat("give ", axes, axes == 1 ? " coordinate" : " coordinates", " in the order of the 'devices' clause, or name the axes: `{",
                                   c.kernel.device_axes()[0].name, " = %i}`")};
}

// The values of a device id are i32 (Pallas: device_id leaves).
std::optional<Violation> DeviceCoordDtype(const Ctx& c) {  // SEM-5
  DeviceTarget t = DeviceTargetOf(c.op, c.kernel);
  std::vector<const Operand*> leaves = t.coords;
  if (t.logical != nullptr) leaves.push_back(t.logical);
  for (const Operand* o : leaves) {
    if (o == nullptr || !o->is_value()) continue;
    const Type& type = o->value->type;
    if (type.element() == ElementType::kI32) continue;
    return Violation{DiagId::kSem5, o->loc, {{"aval.dtype", Dtype(type.element())}},
                     Cat("the device id ", Print(*o), " is ", type.ToString()),
                     Cat("`convert` ", Print(*o), " to i32 first")};
  }
  return std::nullopt;
}

// --- DMA: _prepare_dma_refs (sc_lowering.py) --------------------------------------------

bool Shared(const Type& t) {
  return t.is_ref() && (t.space() == MemorySpace::kHbm || t.space() == MemorySpace::kVmemShared);
}
bool Vmem(const Type& t) { return t.is_ref() && t.space() == MemorySpace::kVmem; }

enum class Direction { kGather, kScatter, kOther };

Direction DirectionOf(const Op& op) {
  const Type& s = op.operands[0].value->type;
  const Type& d = op.operands[1].value->type;
  if (Shared(s) && Vmem(d)) return Direction::kGather;
  if (Vmem(s) && Shared(d)) return Direction::kScatter;
  return Direction::kOther;
}

std::string Spaces(const Op& op) {
  return Cat(SpaceRepr(op.operands[0].value->type), " to ", SpaceRepr(op.operands[1].value->type));
}

std::optional<Violation> PrepareDmaRefs(const Ctx& c) {
  const Op& op = c.op;
  const Operand& src = op.operands[0];
  const Operand& dst = op.operands[1];
  Chain sc = ChainOf(src), dc = ChainOf(dst);
  bool add = op.dma_add;
  Direction dir = DirectionOf(op);
  if (dir == Direction::kScatter && add && RuleIn(DiagId::kDma23, c.jax) &&
      op.operands[1].value->type.space() != MemorySpace::kVmemShared) {
    return Violation{DiagId::kDma23, op.loc, {{"dst_memory_space!r", SpaceRepr(dst.value->type)}},
                     Cat("`add` copies from ", Spaces(op)), ""};
  }
  if (dir != Direction::kOther) {
    bool gather = dir == Direction::kGather;
    const Operand& plain = gather ? dst : src;
    const Operand& indexed = gather ? src : dst;
    const Chain& pc = gather ? dc : sc;
    const Chain& ic = gather ? sc : dc;
    const Xform* found = nullptr;
    if (auto v = HasIndirect(pc, plain, &found)) return v;
    if (found != nullptr) {
      const IndexEntry& e = *IndirectEntry(*found);
      return Violation{gather ? DiagId::kDma9 : DiagId::kDma10,
                       At(*found, plain, e.loc),
                       {},
                       Cat("a copy from ", Spaces(op), " is a ", gather ? "gather" : "scatter", ", but its ",
                           gather ? "destination " : "source ", Print(plain), ViewNote(*found), " is indexed with ",
                           Print(e.start)),
                       ""};
    }
    if (auto v = TransformRef(pc, plain, false)) return v;
    if (auto v = ExtractIndirect(ic, indexed, plain.view.shape(), &found)) return v;
    if (auto v = TransformRef(ic, indexed, false)) return v;
    if (add && found == nullptr) {
      std::string ref = gather ? "src_ref" : "dst_ref";
      return Violation{DiagId::kDma13, op.loc, {{"ref", ref}},
                       Cat("`add` copies from ", Spaces(op), ", but ", Print(indexed), " has no idx(...) index list"),
                       Cat("index the first dimension of %", indexed.value->name,
                           " with idx(%ids), %ids a vector of row numbers (an iota for all rows) or an i32 vmem ref")};
    }
    return std::nullopt;
  }
  const Xform* found = nullptr;
  const Operand* side = &src;
  if (auto v = HasIndirect(sc, src, &found)) return v;
  if (found == nullptr) {
    side = &dst;
    if (auto v = HasIndirect(dc, dst, &found)) return v;
  }
  if (found != nullptr) {
    return Violation{DiagId::kDma11,
                     At(*found, *side, IndirectEntry(*found)->loc),
                     {{"src_memory_space!r", SpaceRepr(src.value->type)}, {"dst_memory_space!r", SpaceRepr(dst.value->type)}},
                     Cat(Print(*side), ViewNote(*found), " carries an idx(...) index list, but the copy goes from ",
                         Spaces(op)),
                     ""};
  }
  if (add) {
    return Violation{DiagId::kDma12, op.loc,
                     {{"(src_aval.memory_space, dst_aval.memory_space)",
                       Cat("(", SpaceRepr(src.value->type), ", ", SpaceRepr(dst.value->type), ")")}},
                     Cat("`add` copies from ", Spaces(op)), ""};
  }
  // The regular DMA's operands are transformed destination first
  // (lowering.py::lower_with_transformed_refs); multi-refs are fine here.
  if (auto v = TransformRef(dc, dst, true)) return v;
  if (auto v = TransformRef(sc, src, true)) return v;
  return std::nullopt;
}

// --- DMA: what Mosaic's verifier rejects (GEN-3) ---------------------------------------

// tpu.memref_slice gets a vector or memref start from an idx(...) list that is not
// the first entry of its indexer, or from an integer index broadcast against one.
std::optional<Violation> SliceOperands(const Operand& o, std::string_view where) {
  if (!o.indexed) return std::nullopt;
  bool leading_idx = !o.index.empty() && o.index[0].kind == IndexEntry::Kind::kIndirect;
  for (size_t d = 0; d < o.index.size(); ++d) {
    const IndexEntry& e = o.index[d];
    if (e.kind == IndexEntry::Kind::kIndirect && d > 0) {
      return Gen3(e.loc, "tpu.memref_slice",
                  OperandMustBe(static_cast<int>(d) + 1, "variadic of 32-bit signless integer", e.start.value->type),
                  Cat("in ", where, ", idx(", Print(e.start), ") indexes dimension ", d,
                      ": Pallas treats only an index list in the first dimension as a gather/scatter, and lowers this "
                      "one as a slice start"),
                  "put the idx(...) list first (`view` away the leading dimensions first, e.g. %x[%i] then [idx(...)])");
    }
    if (leading_idx && e.kind == IndexEntry::Kind::kIndex) {
      const Type& list = o.index[0].start.value->type;
      int64_t n = list.rank() >= 1 ? list.shape()[0] : 1;
      Type broadcast = Type::Vector(e.start.type().element(), {n});
      return Gen3(e.loc, "tpu.memref_slice",
                  OperandMustBe(static_cast<int>(d) + 1, "variadic of 32-bit signless integer", broadcast),
                  Cat("in ", where, ", the integer index ", Print(e.start),
                      " shares an indexer with an idx(...) list; Pallas broadcasts it to the list's shape"),
                  "apply integer indices in a `view` before the one with idx(...) (e.g. %x[%i] then [idx(...)])");
    }
  }
  return std::nullopt;
}

// The index list of an indirect DMA, if it is one.
struct IndirectDma {
  bool gather = false;
  const Operand* indexed = nullptr;
  const Operand* plain = nullptr;
  const Xform* x = nullptr;
  const IndexEntry* e = nullptr;
};

std::optional<Violation> GatherScatterShapes(const IndirectDma& d, const Shape& offsets, Location loc) {
  // verifyGather / verifyScatter (tpu_dialect.cc) on the indexed operand with its
  // indexed dimension restored to the whole dimension.
  Shape operand = d.x->out.shape();
  operand[0] = d.x->in.shape()[0];
  // Squeezed (integer-indexed) dims of the indexer are gone from x->out; the
  // restored first dim is the input's first dim.
  const Shape& other = d.plain->view.shape();
  const char* op_name = "tpu.enqueue_indirect_dma";
  std::string note = Cat("the indexed side ", Print(*d.indexed), " is ", MlirType(d.x->in.WithShape(operand)),
                         " with offsets of shape (", MlirShape(offsets), "), the other side ", Described(*d.plain));
  size_t orank = offsets.size();
  auto join = [](const Shape& s) { return MlirShape(s); };
  if ((orank != 1 && orank != 2) || (orank == 2 && offsets[0] != 1)) {
    return Gen3(loc, op_name, Cat("Offsets shape must be 1D or (1, N), got (", join(offsets), ")"), note);
  }
  const Shape& result = other;  // the gather result, or the scatter updates
  if (result.size() < orank) {
    return Gen3(loc, op_name,
                Cat("Offsets shape (", join(offsets), ") must match the majormost dimensions of the ",
                    d.gather ? "target (gather result)" : "source (scatter updates)", " shape (", join(result), ")"),
                note);
  }
  size_t slice_rank = result.size() - orank;
  if (operand.size() <= slice_rank) {
    return Gen3(loc, op_name,
                Cat(d.gather ? "Source (gather operand) rank must be > slice rank, got source rank: "
                             : "Target (scatter operand) rank must be > slice rank, got target rank: ",
                    operand.size(), ", slice rank: ", slice_rank),
                note);
  }
  size_t sample_rank = operand.size() - slice_rank;
  Shape sample(operand.begin(), operand.begin() + static_cast<long>(sample_rank));
  if (sample_rank > 2 || (sample_rank == 2 && sample[0] != 1)) {
    return Gen3(loc, op_name,
                Cat(d.gather ? "Source (gather operand)" : "Target (scatter operand)", " sample shape must be 1D or (1, N), got (",
                    join(sample), ")"),
                note);
  }
  if (sample_rank != orank) {
    return Gen3(loc, op_name,
                Cat(d.gather ? "Source (gather operand)" : "Target (scatter operand)", " sample rank must match offsets rank, got ",
                    sample_rank, " vs ", orank),
                note);
  }
  Shape lead(result.begin(), result.begin() + static_cast<long>(orank));
  if (lead != offsets) {
    return Gen3(loc, op_name,
                Cat("Offsets shape (", join(offsets), ") must match the majormost dimensions of the ",
                    d.gather ? "target (gather result)" : "source (scatter updates)", " shape (", join(result), ")"),
                note);
  }
  Shape rs(result.end() - static_cast<long>(slice_rank), result.end());
  Shape os(operand.end() - static_cast<long>(slice_rank), operand.end());
  if (rs != os) {
    std::string plural = slice_rank == 1 ? "" : "s";
    return Gen3(loc, op_name,
                d.gather ? Cat(slice_rank, " minormost dimension", plural, " of the source (gather operand) shape (",
                               join(operand), ") must match the minormost dimension", plural,
                               " of the target (gather result) shape (", join(result), ")")
                         : Cat(slice_rank, " minormost dimension", plural, " of the target (scatter operand) shape (",
                               join(operand), ") must match the minormost dimension", plural,
                               " of the source (scatter updates) shape (", join(result), ")"),
                note);
  }
  return std::nullopt;
}

// Mosaic's operand #2 of tpu.enqueue_indirect_dma: the index list of entry `e`
// must be an i32 memref or a 1-D i32 vector.
std::optional<Violation> IndexListType(const IndexEntry& e, std::string_view mlir_op) {
  const Operand& list = e.start;
  const Type& lt = list.value->type;
  bool i32 = !lt.is_semaphore() && IsInteger(lt.element()) && BitWidth(lt.element()) == 32;
  bool ok = lt.is_ref() ? i32 : (lt.is_vector() && lt.rank() == 1 && i32);
  if (ok) return std::nullopt;
  return Gen3(e.loc, mlir_op,
              OperandMustBe(2,
                            "memref of 32-bit signless integer values or vector of 32-bit signless integer "
                            "values of ranks 1",
                            lt),
              Cat("the index list ", Print(list), " is ", lt.ToString()),
              "use an i32 index list (`convert` a vector, or copy the indices into an i32 vmem ref)");
}

std::optional<Violation> MosaicDma(const Ctx& c) {
  const Op& op = c.op;
  const Operand& src = op.operands[0];
  const Operand& dst = op.operands[1];
  bool is_wait = op.kind == K::kDmaWait;
  // The memref_slice ops of the operands' own indexers come first.
  if (auto v = SliceOperands(dst, Cat("the destination ", Print(dst)))) return v;
  if (auto v = SliceOperands(src, Cat("the source ", Print(src)))) return v;

  IndirectDma d;
  Chain ic;
  Direction dir = DirectionOf(op);
  if (dir != Direction::kOther) {
    d.gather = dir == Direction::kGather;
    d.indexed = d.gather ? &src : &dst;
    d.plain = d.gather ? &dst : &src;
    ic = ChainOf(*d.indexed);
    for (const Xform& x : ic.xforms) {
      if (const IndexEntry* e = IndirectEntry(x)) {
        d.x = &x;
        d.e = e;
        break;
      }
    }
  }
  const Operand* sem = op.kind == K::kCopy ? nullptr : &SemOperand(op);
  if (d.e != nullptr) {
    std::string_view name = is_wait ? "tpu.wait_indirect_dma" : "tpu.enqueue_indirect_dma";
    if (!is_wait) {
      // ODS: offsets (#2), semaphore (#3), offset_filter (#4).
      if (auto v = IndexListType(*d.e, name)) return v;
      if (sem != nullptr) {
        const Type& st = sem->view;
        if (!(st.is_semaphore() && st.semaphore_kind() == SemaphoreKind::kDma)) {
          return Gen3(sem->loc, name, OperandMustBe(3, "memref of  values", st),
                      Cat("an indirect DMA signals a DMA semaphore; ", Described(*sem), " is not one"),
                      "allocate the semaphore as `dma_sem`");
        }
      }
      if (d.e->ignore && d.e->ignore->is_value()) {
        const Type& it = d.e->ignore->value->type;
        if (!(IsInteger(it.element()) && BitWidth(it.element()) == 32)) {
          return Gen3(d.e->ignore->loc, name, OperandMustBe(4, "32-bit signless integer", it),
                      Cat("the ignore value ", Print(*d.e->ignore), " is ", it.ToString()),
                      "`convert` the ignore value to i32");
        }
      }
    }
    if (is_wait) {
      if (sem->view.rank() != 0) {
        return Gen3(sem->loc, name, "Indirect DMA wait semaphore must be rank 0",
                    Cat("the semaphore ", Described(*sem), " is an array"),
                    Cat("index it down to one semaphore, e.g. `", Print(*sem), "[0]`"));
      }
      return std::nullopt;
    }
    if (MlirElement(src.view.element()) != MlirElement(dst.view.element())) {
      return Gen3(op.loc, name, "Source and target element type mismatch",
                  Cat("the source ", Described(src), " and the destination ", Described(dst), " hold different types"),
                  "copy between refs of one element type (convert values with `get`, `convert`, `store`)");
    }
    Shape offsets = d.e->start.value->type.shape();
    return GatherScatterShapes(d, offsets, op.loc);
  }

  if (is_wait) {
    if (sem->view.rank() != 0) {
      return Gen3(sem->loc, "tpu.wait_dma2", "DMA wait semaphore must be rank 0",
                  Cat("the semaphore ", Described(*sem), " is an array"),
                  Cat("index it down to one semaphore, e.g. `", Print(*sem), "[0]`"));
    }
    return std::nullopt;
  }
  if (sem != nullptr && !sem->view.is_semaphore()) {
    return Gen3(sem->loc, "tpu.enqueue_dma", OperandMustBe(2, "memref of  or  values", sem->view),
                Cat(Described(*sem), " is a data ref, not a semaphore"), "pass a `dma_sem` semaphore");
  }
  if (MlirElement(src.view.element()) != MlirElement(dst.view.element())) {
    return Gen3(op.loc, "tpu.enqueue_dma", "DMA source and target element type mismatch",
                Cat("the source ", Described(src), " is ", MlirType(src.view), " and the destination ", Described(dst),
                    " is ", MlirType(dst.view)),
                "copy between refs of one element type (convert values with `get`, `convert`, `store`)");
  }
  if (src.view.shape() != dst.view.shape()) {
    return Gen3(op.loc, "tpu.enqueue_dma", "DMA source and target shape mismatch.",
                Cat("the source ", Described(src), " is ", MlirType(src.view), " and the destination ", Described(dst),
                    " is ", MlirType(dst.view)),
                "make both sides the same shape after their indexers (a dynamic size matches only another dynamic "
                "size)");
  }
  if (const Attribute* a = op.FindAttr("priority"); a != nullptr && a->value.operand.int_value > 1) {
    return Gen3(a->loc, "tpu.enqueue_dma",
                Cat("Not implemented: only support priority 0 or 1, but got ", a->value.operand.int_value),
                Cat("priority = ", a->value.operand.int_value), "use priority 0 (the default) or 1");
  }
  return std::nullopt;
}

// --- Ref transforms (XF) --------------------------------------------------------------

std::optional<Violation> StridedView(const Ctx& c) {  // XF-1
  return StridedIndexer(c.op.operands[0]);
}

// A view with an idx(...) list that no DMA consumes as a gather/scatter index.
std::optional<Violation> IndirectViewMisuse(const Ctx& c) {  // GEN-3
  const Operand& in = c.op.operands[0];
  if (auto v = SliceOperands(in, Cat("the view ", Print(in)))) return v;
  if (in.index.empty() || in.index[0].kind != IndexEntry::Kind::kIndirect) return std::nullopt;
  const Op* bad = c.uses.FirstBadUse(c.op.results[0], [](UseKind k) { return k == UseKind::kDmaData; });
  if (bad == nullptr) return std::nullopt;
  const IndexEntry& e = in.index[0];
  return Gen3(e.loc, "tpu.memref_slice", OperandMustBe(1, "variadic of 32-bit signless integer", e.start.value->type),
              Cat("the view ", Print(in), " is used by the `", bad->name(), "` on line ", bad->loc.line,
                  ", which slices it like a ref: only a DMA's source or destination takes an idx(...) list"),
              "use idx(...) views only as DMA operands; load the rows with `load_gather` instead");
}

std::optional<Violation> BitcastTrace(const Ctx& c) {  // XF-2, XF-4, XF-5 (state/utils.py::bitcast)
  const Type& in = c.op.operands[0].value->type;
  const Type& out = c.op.results[0]->type;
  if (!in.is_ref() || !out.is_ref()) return std::nullopt;
  int from = BitWidth(in.element()), to = BitWidth(out.element());
  std::string what = Cat("%", c.op.operands[0].value->name, " is ", in.ToString(), ", viewed as ", out.ToString());
  if (from != to && in.rank() < 2) {
    return Violation{DiagId::kXf2, c.op.loc, {}, what,
                     Cat("declare the ref 2-D (", Type::Ref(in.space(), in.element(), {1, in.rank() ? in.shape()[0] : 1}).ToString(),
                         "; a 1-D ref cannot be reshaped either, XF-6), or bitcast loaded values with `bitcast`")};
  }
  if (from != to) {
    int64_t minor2 = in.shape()[in.rank() - 2];
    if (minor2 != kDynamic && (minor2 * from) % to != 0) {
      return Violation{DiagId::kXf4, c.op.loc, {},
                       Cat(what, ": the second-minor dimension ", minor2, " times ", from, " bits is not a multiple of ",
                           to, " bits"),
                       ""};
    }
  }
  if (from == to && in.rank() < 2) {
    return Violation{DiagId::kXf5, c.op.loc, {},
                     Cat(what, "; Pallas' ref bitcast always rescales the second-minor dimension, which a ",
                         in.rank(), "-D ref does not have"),
                     "bitcast the loaded value instead (`bitcast` keeps the shape for equal widths), or declare the "
                     "ref 2-D"};
  }
  return std::nullopt;
}

std::optional<Violation> BitcastSqueezed(const Ctx& c) {  // XF-3 (lowering.py::_bitcast_memref)
  const Type& in = c.op.operands[0].value->type;
  const Type& out = c.op.results[0]->type;
  if (!in.is_ref() || !out.is_ref() || BitWidth(in.element()) == BitWidth(out.element())) return std::nullopt;
  std::vector<int64_t> block = BlockShapeBefore(c.op);
  if (block.size() < 2 || block[block.size() - 2] != kSqueezedDim) return std::nullopt;
  return Violation{DiagId::kXf3, c.op.loc, {},
                   Cat("%", c.op.operands[0].value->name, " is a pipeline block ref of block shape ", PyBlockShape(block),
                       ": its second-minor block dimension is squeezed"),
                   ""};
}

std::optional<Violation> SubcoreSliceShape(const Ctx& c) {  // XF-13 (sc_core.py::SharedMemRefSliceTransform)
  const Type& in = c.op.operands[0].value->type;
  const Type& out = c.op.results[0]->type;
  int64_t n = in.shape().back(), subcores = c.target.subcores;
  if (n % subcores != 0) {
    return Violation{DiagId::kXf13, c.op.loc, {{"n", Cat(n)}, {"subcores", Cat(subcores)}},
                     Cat("%", c.op.operands[0].value->name, " : ", in.ToString(), " on ", c.target.name), ""};
  }
  if (out.shape().back() == n / subcores) return std::nullopt;
  return Violation{DiagId::kXf13, c.op.loc, {{"n", Cat(n)}, {"subcores", Cat(subcores)}},
                   Cat("it is: each of the ", subcores, " subcores of ", c.target.name, " sees ", n / subcores,
                       " of the ", n, " columns, not ", out.shape().back()),
                   Cat("declare the view's minor dimension ", n / subcores)};
}

std::optional<Violation> SubcoreSliceMesh(const Ctx& c) {  // XF-14 (lowering.py::_transform_ref)
  if (c.kernel.mesh.kind != MeshKind::kScalar) return std::nullopt;
  return Violation{DiagId::kXf14, c.op.loc, {{"kernel_type", "sc_scalar_subcore"}}, "the kernel's mesh is scalar", ""};
}

std::optional<Violation> ReshapeRules(const Ctx& c) {  // XF-6, XF-7, XF-8 (lowering.py::_reshape_memref)
  const Type& in = c.op.operands[0].value->type;
  const Type& out = c.op.results[0]->type;
  // Pallas applies a ref's transforms only where a DMA uses it, after checking
  // that nothing follows an indirect indexer: that is DMA-22's to report.
  Chain chain;
  WalkBack(c.op.operands[0].value, &chain);
  for (const Xform& x : chain.xforms) {
    if (IndirectEntry(x) != nullptr) return std::nullopt;
  }
  std::vector<int64_t> block = BlockShapeBefore(c.op);
  std::string what = Cat("%", c.op.operands[0].value->name, " : ", in.ToString(), " is viewed as ", out.ToString());
  if (block.size() < 2) {
    return Violation{DiagId::kXf6, c.op.loc, {}, Cat(what, "; the ref has rank ", block.size()),
                     "reshape the loaded value instead (`reshape`), or start from a ref of rank 2 or more"};
  }
  size_t n = block.size();
  if (block[n - 2] == kSqueezedDim || block[n - 1] == kSqueezedDim) {
    return Violation{DiagId::kXf7, c.op.loc, {},
                     Cat(what, "; its block shape is ", PyBlockShape(block)), ""};
  }
  int64_t count = 1;
  bool dynamic = false;
  for (int64_t d : block) {
    if (d == kDynamic) dynamic = true;
    count *= d == kSqueezedDim ? 1 : d;
  }
  int64_t want = out.NumElements();
  if (dynamic || want == kDynamic || count != want) {
    return Violation{DiagId::kXf8, c.op.loc,
                     {{"ref_block_shape", PyBlockShape(block)}, {"reshaper.shape", PyShape(out.shape(), kTracer)}},
                     dynamic ? Cat(what, "; the element count of a dynamically sized ref is not known when the kernel "
                                         "is compiled (Pallas: `Reshape ref with dynamic size is not supported.`)")
                             : Cat(what, ": ", count, " elements vs ", want,
                                   " (Pallas' ref.reshape itself rejects this first, with `cannot reshape ref of shape "
                                   "...`)"),
                     ""};
  }
  return std::nullopt;
}

std::optional<Violation> SelectRefUses(const Ctx& c) {  // XF-9
  const Op* bad =
      c.uses.FirstBadUse(c.op.results[0], [](UseKind k) { return k == UseKind::kDmaData || k == UseKind::kDmaSem; });
  if (bad == nullptr) return std::nullopt;
  return Violation{DiagId::kXf9,
                   c.op.loc,
                   SelectArgs(c.op),
                   Cat("%", c.op.results[0]->name, " is used by the `", bad->name(), "` on line ", bad->loc.line,
                       ", which takes a single ref (scjit shows the refs by their .scir names)"),
                   ""};
}

// --- Semaphores (SEM) -----------------------------------------------------------------

std::string SemName(const Op& op) {
  return op.kind == K::kSemSignal ? "signal" : op.kind == K::kSemWait ? "wait" : "read";
}

std::optional<Violation> SemNotRef(const Ctx& c) {  // SEM-1
  const Operand& s = c.op.operands[0];
  const Type& t = s.value->type;
  if (t.is_memory()) return std::nullopt;
  return Violation{DiagId::kSem1, s.loc, {{"name", SemName(c.op)}, {"sem_aval", Aval(t)}},
                   Cat(Print(s), " is ", KindWord(t), " (", t.ToString(), ")"),
                   "pass a semaphore ref (`sem` scratch or alloc, indexed down to one semaphore)"};
}

std::optional<Violation> SemShape(const Ctx& c) {  // SEM-2
  const Operand& s = c.op.operands[0];
  if (s.view.rank() == 0) return std::nullopt;
  if (s.view.is_ref()) {
    return Violation{DiagId::kSem2, s.loc, {{"name", SemName(c.op)}, {"sem_shape", s.view.ShapeRepr()}},
                     Cat(Described(s), " is a data ref of shape ", s.view.ShapeRepr(), ", not a semaphore"),
                     "pass one `sem` semaphore"};
  }
  return Violation{DiagId::kSem2, s.loc, {{"name", SemName(c.op)}, {"sem_shape", s.view.ShapeRepr()}},
                   Cat("the semaphore ", Described(s), " is an array"),
                   Cat("index the semaphore array down to one semaphore, e.g. `", Print(s), "[0]`")};
}

std::optional<Violation> SemKind(const Ctx& c) {  // SEM-3
  const Operand& s = c.op.operands[0];
  const Type& t = s.value->type;
  bool read = c.op.kind == K::kSemRead;
  if (t.is_semaphore() && (t.semaphore_kind() == SemaphoreKind::kRegular || read)) return std::nullopt;
  if (t.is_ref() && t.element() == ElementType::kI16) return std::nullopt;  // the interpret-mode dtype: GEN-3 below
  std::string allowed = read ? "{<class 'jax._src.pallas.mosaic.core.dma_semaphore'>, <class "
                               "'jax._src.pallas.core.semaphore'>, <class 'jax._src.pallas.core.barrier_semaphore'>, "
                               "<class 'jax.numpy.int16'>}"
                             : "{<class 'jax._src.pallas.core.semaphore'>, <class "
                               "'jax._src.pallas.core.barrier_semaphore'>, <class 'jax.numpy.int16'>}";
  return Violation{DiagId::kSem3,
                   s.loc,
                   {{"name", SemName(c.op)}, {"allowed_semaphore_types", allowed}, {"sem_dtype", DtypeOf(t)}},
                   Cat(Described(s), t.is_semaphore() ? " is a DMA semaphore" : " is a data ref",
                       " (Python prints the set in an arbitrary order)"),
                   t.is_semaphore() ? "a DMA semaphore is waited by `dma_wait` and read by `sem_read`; signal and wait a "
                                      "`sem` semaphore instead"
                                    : "pass a `sem` semaphore"};
}

std::optional<Violation> SignalValueDtype(const Ctx& c) {  // SEM-4
  Type t = c.op.operands[1].type();
  if (t.element() == ElementType::kI32) return std::nullopt;
  return Violation{DiagId::kSem4, c.op.operands[1].loc, {{"value_aval.dtype", Dtype(t.element())}},
                   Cat("the increment ", Print(c.op.operands[1]), " is ", t.ToString()),
                   Cat("`convert` ", Print(c.op.operands[1]), " to i32 first")};
}

std::optional<Violation> DeviceIdDtype(const Ctx& c) {  // SEM-5
  for (std::string_view name : {"core", "subcore"}) {  // device_id leaves, in key order
    const Attribute* a = c.op.FindAttr(name);
    if (a == nullptr || !a->value.operand.is_value()) continue;
    const Type& t = a->value.operand.value->type;
    if (t.element() == ElementType::kI32) continue;
    return Violation{DiagId::kSem5, a->value.loc, {{"aval.dtype", Dtype(t.element())}},
                     Cat("`", name, " = ", Print(a->value.operand), "` is ", t.ToString(),
                         " (sem_signal's core and subcore are Pallas' device_id)"),
                     Cat("`convert` ", Print(a->value.operand), " to i32 first")};
  }
  return std::nullopt;
}

// A scalar part's signal of a vector part's semaphore names no subcore: the
// destination's subcore axis is one the scalar mesh lacks
// (lowering.py::_device_id_to_logical.jax_fn).
std::optional<Violation> MissingTargetSubcore(const Ctx& c) {  // DEV-2
  const Value* sem = c.op.operands[0].value;
  if (sem == nullptr || sem->other_mesh != MeshKind::kVector || c.kernel.mesh.kind != MeshKind::kScalar) {
    return std::nullopt;
  }
  if (c.op.FindAttr("subcore") != nullptr) return std::nullopt;
  return Violation{DiagId::kDev2, c.op.operands[0].loc,
                   {{"dest_kernel_type", "sc_vector_subcore"},
                    {"kernel_type", "sc_scalar_subcore"},
                    {"set(core_axis_indices.keys())", c.op.FindAttr("core") != nullptr ? "{'core'}" : "set()"},
                    {"missing_mpmd_axes", "{'subcore'}"},
                    {"ctx.lowering_context.grid_names", "('core',)"}},
                   Cat("%", sem->name, " is a semaphore of the vector part, and this scalar subcore does not say which "
                                       "vector subcore of the core to signal"),
                   "give `subcore`, as in `{subcore = 0}`"};
}

// device_id={'core': c, 'subcore': s} on a scalar mesh, whose only axis is the core
// (lowering.py::_device_id_to_logical).
std::optional<Violation> UnknownDeviceAxis(const Ctx& c) {  // DEV-3
  // The axes are those of the semaphore's mesh: another part's (`@vector`), or this one's.
  const Value* sem = c.op.operands[0].value;
  bool other = sem != nullptr && sem->other_mesh.has_value();
  MeshKind target = other ? *sem->other_mesh : c.kernel.mesh.kind;
  if (target != MeshKind::kScalar) return std::nullopt;
  const Attribute* a = c.op.FindAttr("subcore");
  if (a == nullptr) return std::nullopt;
  return Violation{DiagId::kDev3, a->loc,
                   {{"core_axis_indices", Cat("{'subcore': ", a->value.operand.is_literal() ? kWeakTracer : kTracer, "}")}},
                   other ? Cat("%", sem->name, " is a semaphore of the scalar part, whose only axis is the core; "
                               "`subcore` names an axis it does not have")
                         : std::string("this kernel runs on a scalar mesh, whose only axis is the core; `subcore` names "
                                       "an axis it does not have"),
                   "drop `subcore`: a scalar mesh has one subcore per core"};
}

std::optional<Violation> WaitValueDtype(const Ctx& c) {  // SEM-6
  Type t = c.op.operands[1].type();
  if (t.element() == ElementType::kI32) return std::nullopt;
  return Violation{DiagId::kSem6, c.op.operands[1].loc, {},
                   Cat("the count ", Print(c.op.operands[1]), " is ", t.ToString()),
                   Cat("`convert` ", Print(c.op.operands[1]), " to i32 first")};
}

std::optional<Violation> NonDecrementingWait(const Ctx& c) {  // SEM-8
  const Attribute* a = c.op.FindAttr("decrement");
  if (a == nullptr || a->value.operand.int_value != 0) return std::nullopt;
  return Violation{DiagId::kSem8, a->loc, {}, "decrement = false",
                   "drop `decrement = false`; to look at a semaphore without consuming it, use `sem_read`"};
}

// tpu.sem_signal / sem_wait / sem_read operand types (ODS).
std::optional<Violation> MosaicSem(const Ctx& c) {  // GEN-3
  const Operand& s = c.op.operands[0];
  std::string name = Cat("tpu.sem_", SemName(c.op));
  if (s.value->type.is_ref()) {
    return Gen3(s.loc, name,
                OperandMustBe(0, c.op.kind == K::kSemRead ? "memref of  or  values" : "memref of  values", s.view),
                Cat(Described(s), " is a data ref; its int16 dtype passes Pallas' check (it is the interpret-mode "
                                  "semaphore dtype), Mosaic's op takes semaphores only"),
                "pass a `sem` semaphore");
  }
  if (c.op.kind != K::kSemRead) {
    const Operand& n = c.op.operands[1];
    Type t = n.type();
    if (!t.is_scalar()) {
      return Gen3(n.loc, name, OperandMustBe(1, "32-bit signless integer", t),
                  Cat("the ", c.op.kind == K::kSemSignal ? "increment " : "count ", Print(n), " is ", t.ToString()),
                  "pass one i32 scalar (`extract` a lane, or `reduce_sum` the vector)");
    }
  }
  return std::nullopt;
}

// --- fetch_and_add (FAA) --------------------------------------------------------------

const Operand& FaaRef(const Ctx& c) { return c.op.operands[0]; }

std::optional<Violation> FaaNotScalar(const Ctx& c) {  // FAA-1
  const Operand& r = FaaRef(c);
  if (r.view.NumElements() == 1) return std::nullopt;
  return Violation{DiagId::kFaa1, r.loc, {{"x_ref.shape=", Cat("x_ref.shape=", PyShape(r.view.shape(), kTracer))}},
                   Cat("the target ", Described(r), " has ", r.view.NumElements() == kDynamic ? std::string("a dynamic number of")
                                                                                              : Cat(r.view.NumElements()),
                       " elements"),
                   Cat("index every dimension of %", ChainOf(r).base->name, " with an integer, e.g. `%",
                       ChainOf(r).base->name, "[", ChainOf(r).base->type.rank() > 1 ? "0, 0" : "0", "]`")};
}

// Python's repr of one NDIndexer entry (after NDIndexer.from_indices_shape).
std::string PyIndexEntry(const IndexEntry& e, int64_t dim) {
  auto scalar = [](const Operand& o) {
    if (o.is_literal()) return Cat(o.int_value);
    return std::string(kTracer);
  };
  switch (e.kind) {
    case IndexEntry::Kind::kIndex:
      return e.start.is_literal() ? std::string(kWeakTracer) : std::string(kTracer);
    case IndexEntry::Kind::kSlice:
      return Cat("Slice(start=", scalar(e.start), ", size=", scalar(e.size), ", stride=", e.stride ? e.stride->int_value : 1,
                 ")");
    case IndexEntry::Kind::kRange: {
      int64_t lo = e.lo.value_or(0), hi = e.hi.value_or(dim);
      return Cat("Slice(start=", lo, ", size=", hi - lo, ", stride=1)");
    }
    case IndexEntry::Kind::kAll:
      return Cat("Slice(start=0, size=", dim, ", stride=1)");
    case IndexEntry::Kind::kIndirect: {
      const Type& t = e.start.value->type;
      return t.is_memory() ? RefAval(t) : Cat("JitTracer(", Aval(t), ")");
    }
  }
  return "";
}

std::string PyIndices(const Operand& o) {
  const Type& base = o.value->type;
  std::vector<std::string> items;
  for (int d = 0; d < base.rank(); ++d) {
    int64_t dim = base.shape()[d];
    if (d < static_cast<int>(o.index.size())) {
      items.push_back(PyIndexEntry(o.index[d], dim));
    } else {
      items.push_back(Cat("Slice(start=0, size=", dim, ", stride=1)"));
    }
  }
  return PyTuple(items);
}

bool AnySlice(const Operand& o) {
  if (static_cast<int>(o.index.size()) < o.value->type.rank()) return true;  // padded with `:`
  for (const IndexEntry& e : o.index) {
    if (e.kind == IndexEntry::Kind::kSlice || e.kind == IndexEntry::Kind::kRange || e.kind == IndexEntry::Kind::kAll) {
      return true;
    }
  }
  return false;
}

std::string PyTransform(const Xform& x) {
  switch (x.kind) {
    case Xform::Kind::kIndexer:
      return Cat("NDIndexer(indices=", PyIndices(*x.operand), ", shape=", x.in.ShapeRepr(),
                 ", int_indexer_shape=(), validate=True)");
    case Xform::Kind::kBitcast:
      return Cat("BitcastTransform(dtype=dtype('", Dtype(x.out.element()), "'))");
    case Xform::Kind::kReshape:
      return Cat("ReshapeTransform(shape=", x.out.ShapeRepr(), ")");
  }
  return "";
}

std::optional<Violation> FaaTransforms(const Ctx& c) {  // FAA-2, FAA-3
  const Operand& r = FaaRef(c);
  Chain ch = ChainOf(r);
  if (ch.select != nullptr && ch.xforms.empty()) {
    return Violation{DiagId::kFaa3, r.loc, {{"transforms", Cat("(SelectTransform(idx=", kTracer, "),)")}},
                     Cat("the target ", Print(r), " is chosen by the `select_ref` on line ", ch.select->loc.line),
                     "choose the target with `if`, one fetch_and_add per branch"};
  }
  if (ch.xforms.empty()) return std::nullopt;
  if (ch.xforms.size() == 1 && ch.xforms[0].kind == Xform::Kind::kIndexer && ch.select == nullptr) {
    const Operand& o = *ch.xforms[0].operand;
    if (!AnySlice(o)) return std::nullopt;
    return Violation{DiagId::kFaa2, r.loc, {{"indices", PyIndices(o)}},
                     Cat("the target ", Print(o), " is sliced; scjit renders literal integers as JAX's weak-typed "
                         "tracers and SSA values as tracers"),
                     Cat("index every dimension of %", o.value->name, " with an integer, e.g. `%", o.value->name, "[",
                         std::string(o.value->type.rank() > 1 ? "0, 0" : "0"), "]`")};
  }
  std::vector<std::string> items;
  for (const Xform& x : ch.xforms) items.push_back(PyTransform(x));
  return Violation{DiagId::kFaa3, r.loc, {{"transforms", PyTuple(items)}},
                   Cat("the target ", Print(r), " is reached through ", ch.xforms.size(), " transform",
                       ch.xforms.size() == 1 ? "" : "s", " (views, bitcasts, reshapes and its own indexer)"),
                   Cat("index the SMEM ref itself, once: `fetch_and_add %", ch.base->name, "[...]`")};
}

const Type& FaaBase(const Ctx& c) { return ChainOf(FaaRef(c)).base->type; }

std::optional<Violation> FaaDtype(const Ctx& c) {  // FAA-4
  const Type& t = FaaBase(c);
  if (t.is_ref() && t.element() == ElementType::kI32) return std::nullopt;
  return Violation{DiagId::kFaa4, FaaRef(c).loc, {{"x_ref.dtype", DtypeOf(t)}},
                   Cat("the target ref is ", t.ToString()), "keep the counters in an i32 smem ref"};
}

std::optional<Violation> FaaSpace(const Ctx& c) {  // FAA-5
  const Type& t = FaaBase(c);
  if (t.is_ref() && t.space() == MemorySpace::kSmem) return std::nullopt;
  return Violation{DiagId::kFaa5, FaaRef(c).loc, {{"x_ref", RefAval(t)}}, Cat("the target ref is ", t.ToString()),
                   "keep the counters in an smem ref"};
}

std::optional<Violation> FaaValue(const Ctx& c) {  // FAA-6
  const Operand& v = c.op.operands[1];
  Type t = v.type();
  const Type& ref = FaaBase(c);
  if (t.is_scalar() && t.element() == ref.element()) return std::nullopt;
  return Violation{DiagId::kFaa6, v.loc, {{"x_ref.dtype", DtypeOf(ref)}, {"value", Aval(t)}},
                   Cat("the increment ", Print(v), " is ", t.ToString()),
                   "add an i32 scalar (`convert` it, or `extract` a lane of a vector)"};
}

std::optional<Violation> FaaIndices(const Ctx& c) {  // FAA-7
  Chain ch = ChainOf(FaaRef(c));
  if (ch.xforms.empty()) return std::nullopt;
  const Operand& o = *ch.xforms[0].operand;
  std::vector<std::string> avals;
  bool bad = false;
  for (const IndexEntry& e : o.index) {
    Type t = e.start.type();
    if (e.kind == IndexEntry::Kind::kIndirect) {
      bad = true;
      avals.push_back(t.is_memory() ? RefAval(t) : Cat("ShapedArray(", Aval(t), ")"));
      continue;
    }
    if (e.start.is_literal()) {
      avals.push_back("ShapedArray(int32[], weak_type=True)");
      continue;
    }
    if (t.element() != ElementType::kI32) bad = true;
    avals.push_back(Cat("ShapedArray(", Aval(t), ")"));
  }
  if (!bad) return std::nullopt;
  std::string list = "[";
  for (size_t i = 0; i < avals.size(); ++i) Append(&list, i ? ", " : "", avals[i]);
  list += "]";
  return Violation{DiagId::kFaa7, o.loc, {{"indices", list}}, Cat("the target is ", Print(o)),
                   "index with i32 scalars (`convert` other integers first)"};
}

std::optional<Violation> FaaSubcore(const Ctx& c) {  // FAA-8
  const Attribute* a = c.op.FindAttr("subcore");
  if (a == nullptr || !a->value.operand.is_value()) return std::nullopt;
  const Type& t = a->value.operand.value->type;
  if (t.is_scalar() && t.element() == ElementType::kI32) return std::nullopt;
  return Violation{DiagId::kFaa8, a->value.loc, {{"subcore_id", Aval(t)}},
                   Cat("`subcore = ", Print(a->value.operand), "` is ", t.ToString()),
                   Cat("`convert` ", Print(a->value.operand), " to i32 first")};
}

std::optional<Violation> FaaScalarSubcore(const Ctx& c) {  // GEN-3
  if (c.kernel.mesh.kind != MeshKind::kScalar) return std::nullopt;
  return Gen3(c.op.loc, "tpu.fetch_and_add_sync", "SC scalar subcore target not supported yet",
              "this kernel runs on scalar subcores, whose SMEM fetch_and_add cannot target",
              "run the kernel on a vector mesh");
}

// --- debug_print (DBG) ----------------------------------------------------------------

std::optional<Violation> OrderedPrint(const Ctx& c) {  // DBG-1
  const Attribute* a = c.op.FindAttr("ordered");
  if (a == nullptr || a->value.operand.int_value == 0) return std::nullopt;
  return Violation{DiagId::kDbg1, a->loc, {}, "ordered = true",
                   "drop `ordered = true`"};
}

// Whether Python's string.Formatter().parse(fmt) yields a replacement field
// first (debugging.py: `has_placeholders`). Malformed braces make Python raise a
// ValueError of its own; they are treated as no placeholder here.
bool FirstSegmentHasField(const std::string& fmt) {
  for (size_t i = 0; i < fmt.size(); ++i) {
    char ch = fmt[i];
    if (ch != '{' && ch != '}') continue;
    if (i + 1 < fmt.size() && fmt[i + 1] == ch) return false;  // `{{` or `}}` ends the first literal
    if (ch == '}') return false;
    int depth = 1;
    for (size_t j = i + 1; j < fmt.size(); ++j) {
      if (fmt[j] == '{') ++depth;
      if (fmt[j] == '}' && --depth == 0) return true;
    }
    return false;
  }
  return false;
}

std::optional<Violation> PrintPlaceholders(const Ctx& c) {  // DBG-2
  if (!FirstSegmentHasField(c.op.text)) return std::nullopt;
  return Violation{DiagId::kDbg2, c.op.loc, {},
                   Cat("the format string \"", c.op.text, "\" has a replacement field"),
                   "drop the `{...}`: the value is printed after the text"};
}

std::optional<Violation> PrintManyInputs(const Ctx& c) {  // DBG-3
  if (c.op.operands.size() <= 1) return std::nullopt;
  return Violation{DiagId::kDbg3, c.op.operands[1].loc, {},
                   Cat("debug_print has ", c.op.operands.size(), " values"), "use one `debug_print` per value"};
}

std::optional<Violation> PrintVectorOnScalar(const Ctx& c) {  // GEN-3
  if (c.kernel.mesh.kind != MeshKind::kScalar || c.op.operands.size() != 1) return std::nullopt;
  const Operand& o = c.op.operands[0];
  if (!o.value->type.is_vector()) return std::nullopt;
  return Gen3(o.loc, "tpu.log", "SC scalar subcore does not support logging vectors",
              Cat(Print(o), " is ", o.value->type.ToString(), " and this kernel runs on scalar subcores"),
              "print the vector from a vector-subcore kernel, or print its elements one at a time");
}

// --- Pipelines' indirect blocks -----------------------------------------------------

// An `indirect(L)` block moves by indirect DMA with the list its map yields
// (Pallas' pl.Indirect: emit_pipeline's async_copy of src.at[indices]), so the
// list meets the checks of a DMA's idx(...) list: DMA-18...21 when the copy is
// lowered, then Mosaic's operand type (GEN-3).
std::optional<Violation> PipelineIndexLists(const Ctx& c) {
  for (const PipelineOperand& p : c.op.pipeline->operands) {
    if (p.block.empty() || p.block[0].kind != BlockDim::Kind::kIndirect || p.map == nullptr || p.map->ops.empty()) {
      continue;
    }
    const Op& yield = *p.map->ops.back();
    if (yield.map_entries.empty() || yield.map_entries[0].kind != IndexEntry::Kind::kIndirect) continue;
    const IndexEntry& e = yield.map_entries[0];
    Xform x{Xform::Kind::kIndexer, &p.ref, nullptr, p.ref.value->type, p.ref.value->type};
    if (auto v = CheckIndexList(x, e, p.ref, std::nullopt)) return v;
    if (auto v = IndexListType(e, "tpu.enqueue_indirect_dma")) return v;
  }
  return std::nullopt;
}

// --- The table ----------------------------------------------------------------------

const std::vector<OpKind> kDmas = OpsOf(OpFamily::kDma);
const std::vector<OpKind> kSemOps = OpsOf(OpFamily::kSemaphore);

// In catalog order per op: trace-time checks (the Python wrappers, then the
// primitive's abstract eval), then the lowering rule's, then Mosaic's verifier.
const std::vector<OpRule> kRules = {
    // dma_start: AsyncCopyDescriptor, _dma_start_abstract_eval. copy (sync_copy)
    // starts then waits one internal DMA semaphore.
    {DiagId::kDma1, {K::kDmaStart, K::kDmaWait}, SrcSemAndDevice},
    {DiagId::kDev6, {K::kDmaStart, K::kDmaWait}, DeviceIdRank},
    {DiagId::kSem5, {K::kDmaStart, K::kDmaWait}, DeviceCoordDtype},
    {DiagId::kDma3, {K::kDmaStart}, NegativePriority},
    {DiagId::kDma4, {K::kDmaStart, K::kCopy}, OperandsNotRefs, {DiagId::kDma27}},
    {DiagId::kDma5, {K::kDmaStart}, StartSemShape},
    {DiagId::kDma6, {K::kDmaStart}, SrcSemNotRef},
    {DiagId::kDma5, {K::kDmaStart}, SrcSemShape},
    // dma_wait: _dma_wait_abstract_eval.
    {DiagId::kDma7, {K::kDmaWait}, WaitSrcSemNotRef},
    {DiagId::kDma7, {K::kDmaWait}, WaitSemNotRef},
    {DiagId::kDma8, {K::kDmaWait}, WaitSemNotDma},
    {DiagId::kDma8, {K::kDmaWait}, WaitSendSemNotDma},
    // Lowering: _prepare_dma_refs (directions, indirect offsets, transforms).
    {DiagId::kDma9,
     kDmas,
     PrepareDmaRefs,
     {DiagId::kDma10, DiagId::kDma11, DiagId::kDma12, DiagId::kDma13, DiagId::kDma18, DiagId::kDma19, DiagId::kDma20, DiagId::kDma23,
      DiagId::kDma21, DiagId::kDma22, DiagId::kXf1, DiagId::kXf9}},
    {DiagId::kDma15, {K::kDmaStart, K::kDmaWait}, RemoteIndirect},
    {DiagId::kDma25, {K::kDmaStart}, IndirectSrcSem},
    {DiagId::kDma24, {K::kDmaStart, K::kDmaWait}, LocalSrcSem, {DiagId::kDma26}},
    // Mosaic's verifier: tpu.enqueue_dma / wait_dma2 / enqueue_indirect_dma / ...
    {DiagId::kGen3, kDmas, MosaicDma},
    // The indirect DMAs of a pipeline's indirect(L) blocks, as the DMAs above.
    {DiagId::kDma21, {K::kPipeline}, PipelineIndexLists, {DiagId::kDma18, DiagId::kDma20, DiagId::kGen3}},
    // Ref transforms, at the view ops that make them.
    {DiagId::kXf1, {K::kView}, StridedView},
    {DiagId::kGen3, {K::kView}, IndirectViewMisuse},
    {DiagId::kXf2, {K::kViewBitcast}, BitcastTrace, {DiagId::kXf4, DiagId::kXf5}},
    {DiagId::kXf3, {K::kViewBitcast}, BitcastSqueezed},
    {DiagId::kXf6, {K::kViewReshape}, ReshapeRules, {DiagId::kXf7, DiagId::kXf8}},
    {DiagId::kXf9, {K::kSelectRef}, SelectRefUses},
    {DiagId::kXf14, {K::kViewSubcoreSlice}, SubcoreSliceMesh},
    {DiagId::kXf13, {K::kViewSubcoreSlice}, SubcoreSliceShape},
    // Semaphores: check_sem_avals (signal/wait at trace time, read when lowered),
    // the abstract evals, the lowering rules, then Mosaic's operand types.
    {DiagId::kSem1, kSemOps, SemNotRef},
    {DiagId::kSem2, kSemOps, SemShape},
    {DiagId::kSem3, kSemOps, SemKind},
    {DiagId::kSem4, {K::kSemSignal}, SignalValueDtype},
    {DiagId::kSem5, {K::kSemSignal}, DeviceIdDtype},
    {DiagId::kSem5, {K::kSemSignal}, DeviceCoordDtype},
    {DiagId::kDev6, {K::kSemSignal}, DeviceIdRank},
    {DiagId::kDev2, {K::kSemSignal}, MissingTargetSubcore},
    {DiagId::kDev3, {K::kSemSignal}, UnknownDeviceAxis},
    {DiagId::kSem6, {K::kSemWait}, WaitValueDtype},
    {DiagId::kSem8, {K::kSemWait}, NonDecrementingWait},
    {DiagId::kGen3, kSemOps, MosaicSem},
    // fetch_and_add: the Python wrapper (FAA-1..3), the abstract eval (FAA-4..8),
    // Mosaic's verifier.
    {DiagId::kFaa1, {K::kFetchAndAdd}, FaaNotScalar},
    {DiagId::kFaa2, {K::kFetchAndAdd}, FaaTransforms, {DiagId::kFaa3}},
    {DiagId::kFaa4, {K::kFetchAndAdd}, FaaDtype},
    {DiagId::kFaa5, {K::kFetchAndAdd}, FaaSpace},
    {DiagId::kFaa6, {K::kFetchAndAdd}, FaaValue},
    {DiagId::kFaa7, {K::kFetchAndAdd}, FaaIndices},
    {DiagId::kFaa8, {K::kFetchAndAdd}, FaaSubcore},
    {DiagId::kGen3, {K::kFetchAndAdd}, FaaScalarSubcore},
    // debug_print: sc_lowering.py::_debug_print_lowering_rule, then tpu.log.
    {DiagId::kDbg1, {K::kDebugPrint}, OrderedPrint},
    {DiagId::kDbg2, {K::kDebugPrint}, PrintPlaceholders},
    {DiagId::kDbg3, {K::kDebugPrint}, PrintManyInputs},
    {DiagId::kGen3, {K::kDebugPrint}, PrintVectorOnScalar},
};

}  // namespace

const std::vector<OpRule>& DmaSyncRules() { return kRules; }

}  // namespace scjit::rules
