// DMAs, semaphores and synchronization (kernel-ir.md §4.4, §4.5): each is a
// call of the runtime function the emitter's code calls (runtime/abi.h), with
// the descriptor and arguments it would pass (emit_memory.cc, emit_indirect.cc).
#include "jit/interp/program.h"
#include "lowering/analysis/indirect_views.h"
#include "lowering/ir/printer.h"

namespace scjit::interp {
namespace {

void FillRef(scjit_ref* dst, const Ref& r) {
  dst->base = r.ptr;
  for (int d = 0; d < SCJIT_MAX_RANK; ++d) {
    dst->sizes[d] = d < r.rank() ? r.sizes[d] : 1;
    dst->strides[d] = d < r.rank() ? r.strides[d] : 0;
  }
  dst->rank = r.rank();
  dst->space = static_cast<int32_t>(r.space);
}

// The checks the emitter makes of an idx(...) list when it compiles the DMA.
absl::Status CheckIndexList(Builder& b, const Op& op, const IndexEntry& e) {
  const Operand& list = e.start;
  const Type& t = list.value->type;
  if (t.is_memory()) {
    if (Reinterpreted(list.value)) {
      return b.Unsupported(op, "an idx(...) list read through a view_bitcast or view_reshape");
    }
    if (t.is_semaphore() || ByteWidth(t.element()) != 4 || !IsInteger(t.element())) {
      return b.Unsupported(op, Cat("an idx(...) list of type ", t.ToString(), " (index refs hold i32)"));
    }
    bool base = list.value->def == nullptr || list.value->def->kind == OpKind::kAlloc;
    if (t.rank() > 1 && !base) {
      return b.Unsupported(op, "an idx(...) list that is a strided view of several dimensions");
    }
    return absl::OkStatus();
  }
  if (!t.is_vector() || !IsInteger(t.element()) || IsBool(t.element())) {
    return b.Unsupported(op, Cat("an idx(...) list of type ", t.ToString()));
  }
  return absl::OkStatus();
}

absl::Status CheckIndexLists(Builder& b, const Op& op, const Operand& o) {
  for (const IndexEntry& e : o.index) {
    if (e.kind != IndexEntry::Kind::kIndirect) continue;
    if (&e != &o.index[0]) return b.Unsupported(op, "an idx(...) list on another than a plain first dimension");
    if (absl::Status s = CheckIndexList(b, op, e); !s.ok()) return s;
  }
  return absl::OkStatus();
}

}  // namespace

IndexList MakeIndexList(Exec& x, const IndexEntry& e) {
  IndexList out;
  if (e.ignore) out.ignore = static_cast<int32_t>(x.SInt(*e.ignore));
  const Operand& list = e.start;
  const Type& t = list.value->type;
  if (t.is_memory()) {  // a VMEM ref, read by the runtime at dma_start
    const Ref& r = x.RefOf(list.value);
    if (r.rank() == 1) {
      out.count = r.sizes[0];
      out.stride = r.strides[0];
    } else {
      out.count = r.count();
      out.stride = 1;
    }
    out.list = reinterpret_cast<const int32_t*>(r.ptr);
    out.in_vmem = true;
    return out;
  }
  // A vector value: its i32 copy, which the runtime reads at dma_start.
  Val v = x.Get(list);
  out.copy = std::make_shared<std::vector<int32_t>>();
  for (int64_t i = 0; i < v.count(); ++i) {
    out.copy->push_back(static_cast<int32_t>(Convert(v.at(i), v.element(), ElementType::kI32)));
  }
  out.list = out.copy->data();
  out.count = v.count();
  out.stride = 1;
  return out;
}

int32_t IssueDma(Exec& x, DmaFn fn, const Ref& src, const Ref& dst, int32_t sem, bool add, const Type* sem_type,
                 int site, DmaExtras extras) {
  scjit_dma dma{};
  dma.send_sem = extras.send_sem;
  dma.device = extras.device;
  dma.add_pieces = add ? extras.add_pieces : 0;
  FillRef(&dma.src, src);
  FillRef(&dma.dst, dst);
  dma.elem_bytes = ByteWidth(dst.element);
  dma.dtype = static_cast<int32_t>(dma.add_pieces > 1 ? extras.add_element : dst.element);
  dma.sem = sem;
  dma.add = add ? 1 : 0;
  // A regular semaphore counts completed DMAs, a DMA semaphore bytes (sc-semantics.md §4.6).
  bool regular = sem_type != nullptr && sem_type->is_semaphore() && sem_type->semaphore_kind() != SemaphoreKind::kDma;
  dma.sem_unit = regular ? SCJIT_SEM_ONE : SCJIT_SEM_BYTES;
  const std::optional<IndexList>& list = src.indices ? src.indices : dst.indices;
  dma.indexed = !list ? SCJIT_DMA_PLAIN : src.indices ? SCJIT_DMA_GATHER : SCJIT_DMA_SCATTER;
  if (list) {
    dma.indices = list->list;
    dma.index_count = list->count;
    dma.index_stride = list->stride;
    dma.list_in_vmem = list->in_vmem ? 1 : 0;
    dma.has_ignore = list->ignore ? 1 : 0;
    dma.ignore = list->ignore.value_or(0);
  }
  return fn(x.ctx, &dma, site);
}

namespace {

// The integer type of 1, 2 or 4 bytes (the emitter's IntOfBits).
ElementType IntOfBytes(int bytes) {
  return bytes == 1 ? ElementType::kI8 : bytes == 2 ? ElementType::kI16 : ElementType::kI32;
}

// A one-dimensional view of `count` units of `element` from `ptr`, `step` units apart.
Ref Run(const Ref& like, ElementType element, uint8_t* ptr, int64_t count, int64_t step) {
  Ref v;
  v.space = like.space;
  v.element = element;
  v.arena = like.arena;
  v.ptr = ptr;
  v.sizes = {count};
  v.strides = {step};
  return v;
}

std::vector<int64_t> Squeezed(const std::vector<int64_t>& sizes) {
  std::vector<int64_t> out;
  for (int64_t n : sizes) {
    if (n != 1) out.push_back(n);
  }
  return out;
}

// A DMA with a chained view on either side (interp_views.cc), as the emitter's
// DmaRuns: unit by unit of the elements, element by element in row-major
// order, one runtime transfer per run of equally spaced units on both sides.
int32_t DmaRuns(Exec& x, DmaFn fn, const Op& op, const Ref& src, const Ref& dst, int32_t sem, const Type* sem_type,
                int site, DmaExtras extras) {
  int unit = std::min(src.UnitBytes(), dst.UnitBytes());
  int per = ByteWidth(dst.element) / unit;
  ElementType e = per > 1 ? IntOfBytes(unit) : dst.element;
  int64_t n = dst.count();
  auto issue = [&](const Ref& a, const Ref& b) {
    return IssueDma(x, fn, a, b, sem, op.dma_add, sem_type, site, extras);
  };
  if (fn == scjit_rt_dma_wait) {  // only the byte count matters
    return issue(Run(src, e, src.ptr, n * per, 0), Run(dst, e, dst.ptr, n * per, 0));
  }
  if (Squeezed(src.sizes) != Squeezed(dst.sizes)) {  // for the runtime's report
    Ref a = Run(src, e, nullptr, 1, 0), b = Run(dst, e, nullptr, 1, 0);
    a.sizes = src.sizes;
    b.sizes = dst.sizes;
    a.sizes.resize(std::min<size_t>(a.sizes.size(), SCJIT_MAX_RANK));
    b.sizes.resize(std::min<size_t>(b.sizes.size(), SCJIT_MAX_RANK));
    a.strides.assign(a.sizes.size(), 0);
    b.strides.assign(b.sizes.size(), 0);
    return issue(a, b);
  }
  for (int u = 0; u < per; ++u) {
    uint8_t *s0 = nullptr, *d0 = nullptr;
    int64_t len = 0, ss = 0, ds = 0;  // the run: its first units, length and steps (in bytes)
    for (int64_t k = 0; k <= n; ++k) {
      uint8_t* so = k < n ? src.ByteAt(k, u * unit) : nullptr;
      uint8_t* dof = k < n ? dst.ByteAt(k, u * unit) : nullptr;
      if (len == 1 && k < n && so >= s0 && dof >= d0) {  // a second unit sets the steps
        ss = so - s0;
        ds = dof - d0;
        ++len;
        continue;
      }
      if (len > 1 && k < n && so == s0 + len * ss && dof == d0 + len * ds) {
        ++len;
        continue;
      }
      if (len > 0) {
        if (int32_t s = issue(Run(src, e, s0, len, ss / unit), Run(dst, e, d0, len, ds / unit)); s != 0) return s;
      }
      s0 = so;
      d0 = dof;
      len = 1;
      ss = ds = 0;
    }
  }
  return 0;
}

// `r` in units of `unit` bytes: its dimensions, then (when an element is
// several units) the units of one, lowest first. A view_bitcast that widened
// a strided ref (the one chain an indirect DMA takes, indirect_views.h) is
// strided so: its element (..., r, c) is units (..., r*k + j, c) of the ref.
Ref InUnits(const Ref& r, int unit) {
  Ref u = r;
  u.chain = nullptr;
  u.groups.clear();
  if (r.chain != nullptr) {
    const Ref& base = r.chain->base;
    int k = ByteWidth(r.element) / ByteWidth(base.element);
    u.ptr = base.ptr;
    u.strides = base.strides;
    u.strides[u.strides.size() - 2] *= k;
    u.sizes.push_back(k);
    u.strides.push_back(base.strides[base.strides.size() - 2]);
    u.element = base.element;
    return InUnits(u, unit);
  }
  int per = ByteWidth(r.element) / unit;
  if (per > 1) {
    u.element = IntOfBytes(unit);
    for (int64_t& s : u.strides) s *= per;
    u.sizes.push_back(per);
    u.strides.push_back(1);
  }
  return u;
}

bool IsIndirect(const Operand& o) {
  return std::any_of(o.index.begin(), o.index.end(),
                     [](const IndexEntry& e) { return e.kind == IndexEntry::Kind::kIndirect; });
}

// An indirect DMA through a view_bitcast or view_reshape: both sides in
// units of the narrower element, as the emitter's IndirectInUnits.
int32_t IndirectViews(Exec& x, const Op& op, int site, Ref* src, Ref* dst) {
  const Ref& a = x.RefOf(op.operands[0].value);
  const Ref& b = x.RefOf(op.operands[1].value);
  int unit = std::min(a.UnitBytes(), b.UnitBytes());
  if (int32_t s = x.ViewOf(InUnits(a, unit), op.operands[0], site, src); s != 0) return s;
  return x.ViewOf(InUnits(b, unit), op.operands[1], site, dst);
}

}  // namespace

absl::Status PrepareDma(Builder& b, const Op& op) {
  const auto& ops = op.operands;
  b.SitesOf(op).main = b.Site(op, Cat(Print(ops[0]), " -> ", Print(ops[1]), op.dma_add ? " add" : ""));
  if (ops[0].value == nullptr || !ops[0].value->type.is_ref() || !ops[1].value->type.is_ref()) {
    return b.Unsupported(op, "DMA operands that are not refs");
  }
  bool src_list = false, dst_list = false;
  for (const IndexEntry& e : ops[0].index) src_list = src_list || e.kind == IndexEntry::Kind::kIndirect;
  for (const IndexEntry& e : ops[1].index) dst_list = dst_list || e.kind == IndexEntry::Kind::kIndirect;
  if (src_list && dst_list) return b.Unsupported(op, "a DMA with idx(...) lists on both sides");
  bool reinterpreted = Reinterpreted(ops[0].value) || Reinterpreted(ops[1].value);
  if ((src_list || dst_list) && reinterpreted) {
    for (int k = 0; k < 2; ++k) {
      if (std::optional<std::string> limit = IndirectViewLimit(ops[k].value)) return b.Unsupported(op, *limit);
    }
  }
  for (int k = 0; k < 2; ++k) {
    if (absl::Status s = CheckIndexLists(b, op, ops[k]); !s.ok()) return s;
    if (ops[k].value->type.rank() > SCJIT_MAX_RANK) {
      return b.Unsupported(op, Cat("DMAs of more than ", SCJIT_MAX_RANK, " dimensions"));
    }
  }
  return absl::OkStatus();
}

int32_t ExecDma(Exec& x, const Op& op) {
  const auto& ops = op.operands;
  int site = x.program.SitesOf(op).main;
  Ref src, dst, sem;
  DmaExtras extras;
  bool indirect = IsIndirect(ops[0]) || IsIndirect(ops[1]);
  if (indirect && (Reinterpreted(ops[0].value) || Reinterpreted(ops[1].value))) {
    if (int32_t s = IndirectViews(x, op, site, &src, &dst); s != 0) return s;
    // An add into a view that a view_bitcast widened: elements of units.
    extras.add_element = ops[1].value->type.element();
    extras.add_pieces = ByteWidth(extras.add_element) / ByteWidth(dst.element);
    if (extras.add_pieces < 2) extras.add_pieces = 0;
  } else {
    if (int32_t s = x.View(ops[0], site, &src); s != 0) return s;
    if (int32_t s = x.View(ops[1], site, &dst); s != 0) return s;
  }
  int32_t sem_index = -1;
  if (ops.size() > 2) {
    if (int32_t s = x.View(ops[2], site, &sem); s != 0) return s;
    sem_index = static_cast<int32_t>(sem.sem);
  }
  DmaFn fn = op.kind == OpKind::kDmaStart ? scjit_rt_dma_start : op.kind == OpKind::kDmaWait ? scjit_rt_dma_wait
                                                                                            : scjit_rt_copy;
  const Type* sem_type = ops.size() > 2 ? &ops[2].value->type : nullptr;
  if (op.has_src_sem) {
    Ref send;
    if (int32_t s = x.View(ops[3], site, &send); s != 0) return s;
    extras.send_sem = static_cast<int32_t>(send.sem);
  }
  if (int32_t s = x.TargetDevice(op, site, &extras.device); s != 0) return s;
  if (src.chain != nullptr || dst.chain != nullptr) {
    return DmaRuns(x, fn, op, src, dst, sem_index, sem_type, site, extras);
  }
  return IssueDma(x, fn, src, dst, sem_index, op.dma_add, sem_type, site, extras);
}

// ------------------------------------------------------------------------------------
// Semaphores, barrier, debug_print, debug_check, alloc.

absl::Status PrepareSync(Builder& b, const Op& op) {
  OpSites& sites = b.SitesOf(op);
  switch (op.kind) {
    case OpKind::kSemSignal:
    case OpKind::kSemWait:
    case OpKind::kSemRead:
      sites.main = b.Site(op, Print(op.operands[0]), op.operands[0].loc);
      break;
    case OpKind::kBarrier:
      sites.main = b.Site(op);
      break;
    case OpKind::kDebugPrint:
    case OpKind::kDebugCheck:
      sites.main = b.Site(op, op.text);
      break;
    default:
      break;
  }
  return absl::OkStatus();
}

namespace {

int32_t Print(Exec& x, const Op& op, int site) {
  if (op.operands.empty()) return scjit_rt_debug_print(x.ctx, site, SCJIT_PRINT_NONE, 0, nullptr, 0, nullptr);
  const Operand& o = op.operands[0];
  if (o.value->type.is_memory()) {
    Ref r;
    if (int32_t s = x.View(o, site, &r); s != 0) return s;
    scjit_ref ref{};
    if (r.semaphore) {  // the view's shape, and its first semaphore's index
      FillRef(&ref, r);
      ref.base = nullptr;
      return scjit_rt_debug_print(x.ctx, site, SCJIT_PRINT_SEMS, 0, nullptr, r.sem, &ref);
    }
    std::vector<uint8_t> copy;
    if (r.chain != nullptr) {
      // The runtime prints a strided ref: print a row-major copy (the emitter's too).
      int w = ByteWidth(r.element), unit = r.UnitBytes();
      copy.resize(static_cast<size_t>(r.count() * w));
      for (int64_t k = 0; k < r.count(); ++k) {
        for (int u = 0; u < w / unit; ++u) std::copy_n(r.ByteAt(k, u * unit), unit, copy.data() + k * w + u * unit);
      }
      Ref flat = Run(r, r.element, copy.data(), 0, 0);
      flat.sizes = r.sizes;
      flat.strides.assign(r.sizes.size(), 1);
      for (size_t d = r.sizes.size(); d-- > 1;) flat.strides[d - 1] = flat.strides[d] * r.sizes[d];
      r = std::move(flat);
    }
    FillRef(&ref, r);
    return scjit_rt_debug_print(x.ctx, site, SCJIT_PRINT_REF, static_cast<int32_t>(r.element), nullptr, 0, &ref);
  }
  Val v = x.Get(o);  // i1 elements are bytes
  return scjit_rt_debug_print(x.ctx, site, SCJIT_PRINT_VALUE, static_cast<int32_t>(v.element()), v.bytes.data(),
                              v.type.NumElements(), nullptr);
}

}  // namespace

int32_t ExecSync(Exec& x, const Op& op) {
  const auto& ops = op.operands;
  int site = x.program.SitesOf(op).main;
  switch (op.kind) {
    case OpKind::kSemSignal:
    case OpKind::kSemWait:
    case OpKind::kSemRead: {
      Ref sem;
      if (int32_t s = x.View(ops[0], site, &sem); s != 0) return s;
      auto index = static_cast<int32_t>(sem.sem);
      if (op.kind == OpKind::kSemRead) {
        int32_t value = 0;
        if (int32_t s = scjit_rt_sem_read(x.ctx, index, site, &value); s != 0) return s;
        Val out = Val::Of(op.results[0]->type);
        out.set(0, static_cast<uint32_t>(value));
        x.Set(op.results[0], std::move(out));
        return 0;
      }
      auto n = static_cast<int32_t>(x.Scalar(ops[1]));
      if (op.kind == OpKind::kSemWait) return scjit_rt_sem_wait(x.ctx, index, n, site);
      const Attribute* core = op.FindAttr("core");
      const Attribute* subcore = op.FindAttr("subcore");
      auto c = core != nullptr ? static_cast<int32_t>(x.Scalar(core->value.operand)) : -1;
      auto sc = subcore != nullptr ? static_cast<int32_t>(x.Scalar(subcore->value.operand)) : -1;
      int32_t device = -1;
      if (int32_t s = x.TargetDevice(op, site, &device); s != 0) return s;
      return scjit_rt_sem_signal(x.ctx, index, n, c, sc, device, ops[0].value->other_part, site);
    }
    case OpKind::kBarrier:
      return scjit_rt_barrier(x.ctx, site);
    case OpKind::kDebugPrint:
      return Print(x, op, site);
    case OpKind::kDebugCheck:  // whatever the checks: the kernel asked for it
      if ((x.Scalar(ops[0]) & 1) != 0) return 0;
      return scjit_rt_check_failed(x.ctx, site);
    case OpKind::kAlloc: {
      const Value* v = op.results[0];
      const Ref& r = x.RefOf(v);
      if (r.semaphore) {
        return scjit_rt_alloc(x.ctx, nullptr, v->type.NumElements(), 0, static_cast<int32_t>(r.sem));
      }
      return scjit_rt_alloc(x.ctx, r.ptr, v->type.NumElements(), static_cast<int32_t>(v->type.element()),
                            SCJIT_POISON_UNWRITTEN);
    }
    default:
      return 0;
  }
}

}  // namespace scjit::interp
