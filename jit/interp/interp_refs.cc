// Refs and views (kernel-ir.md §4.2): the base ref of a parameter, scratch ref
// or alloc, views through indexers with their bounds checks, select_ref, and
// the grid ops (mesh coordinates, or a pipeline's grid).
#include "jit/interp/program.h"
#include "lowering/ir/printer.h"

namespace scjit::interp {
namespace {

// The emitter folds what it knows at compile time: literals and `const` results.
bool KnownAtCompileTime(const Operand& o) {
  return o.is_literal() || (o.value != nullptr && o.value->def != nullptr && o.value->def->kind == OpKind::kConst);
}

bool InsidePipeline(const Op& op) {
  for (const Region* r = op.parent; r != nullptr; r = r->parent != nullptr ? r->parent->parent : nullptr) {
    if (r->is_pipeline_map || (r->parent != nullptr && r->parent->kind == OpKind::kPipeline)) return true;
  }
  return false;
}

}  // namespace

int64_t Ref::count() const {
  int64_t n = 1;
  for (int64_t s : sizes) n *= s;
  return n;
}

bool Ref::Contiguous() const {
  if (!static_shape) return false;
  int64_t expect = 1;
  for (int d = rank() - 1; d >= 0; --d) {
    if (sizes[d] != 1 && strides[d] != expect) return false;
    expect *= sizes[d];
  }
  return true;
}

uint8_t* Ref::At(int64_t k) const {
  int64_t offset = 0;
  for (int d = rank() - 1; d >= 0; --d) {
    offset += (k % sizes[d]) * strides[d];
    k /= sizes[d];
  }
  return ptr + offset * ByteWidth(element);
}

const Ref& Exec::RefOf(const Value* v) {
  Binding& b = env[v];
  if (b.ref != nullptr) return *b.ref;
  const Slot& slot = program.slots.at(v);
  const Type& t = v->type;
  Ref r;
  r.semaphore = t.is_semaphore();
  r.element = r.semaphore ? ElementType::kI32 : t.element();
  r.space = r.semaphore ? MemorySpace::kSmem : t.space();
  r.sizes.resize(t.rank());
  r.strides.resize(t.rank());
  int64_t stride = 1;
  for (int d = t.rank() - 1; d >= 0; --d) {
    r.sizes[d] = t.shape()[d];
    r.strides[d] = stride;
    stride *= t.shape()[d];
  }
  if (r.semaphore) {
    r.sem = slot.semaphore;
  } else if (OffCore(slot.space) && slot.param >= 0) {
    r.ptr = ctx->hbm[slot.param];
  } else {
    uint8_t* base = slot.space == MemorySpace::kSmem         ? ctx->smem
                    : slot.space == MemorySpace::kVmemShared ? ctx->vmem_shared
                                                             : ctx->vmem;
    r.ptr = base + slot.offset;
    r.arena = slot.space == MemorySpace::kSmem || slot.space == MemorySpace::kVmem;
  }
  b.ref = std::make_shared<const Ref>(std::move(r));
  return *b.ref;
}

int32_t Exec::ReportBounds(int site, int what, int dim, int64_t index, int64_t limit) {
  if (!program.options.bounds_checks) return 0;
  return scjit_rt_bounds_error(ctx, site, what, dim, index, limit);
}

int32_t Exec::DeviceCoordinate(int axis) const {
  const KernelDef& k = *program.kernel;
  return static_cast<int32_t>((ctx->device / k.device_stride(axis)) % k.device_axes()[static_cast<size_t>(axis)].size);
}

int32_t Exec::TargetDevice(const Op& op, int site, int32_t* device) {
  const KernelDef& k = *program.kernel;
  DeviceTarget t = DeviceTargetOf(op, k);
  auto checked = [&](const Operand& o, int64_t limit, int dim, int64_t* v) {
    *v = static_cast<int32_t>(Scalar(o));
    return CheckIndex(v, limit, SCJIT_BOUNDS_DEVICE, dim, site);
  };
  *device = -1;
  if (t.form == DeviceTarget::Form::kLogical) {
    int64_t v = 0;
    if (int32_t s = checked(*t.logical, k.device_count(), -1, &v); s != 0) return s;
    *device = static_cast<int32_t>(v);
  } else if (t.form == DeviceTarget::Form::kMesh) {
    int64_t id = 0;
    for (size_t axis = 0; axis < t.coords.size(); ++axis) {
      int a = static_cast<int>(axis);
      int64_t c = DeviceCoordinate(a);
      if (t.coords[axis] != nullptr) {
        if (int32_t s = checked(*t.coords[axis], k.device_axes()[axis].size, a, &c); s != 0) return s;
      }
      id += c * k.device_stride(a);
    }
    *device = static_cast<int32_t>(id);
  }
  return 0;
}

int32_t Exec::CheckIndex(int64_t* index, int64_t limit, int what, int dim, int site) {
  if (static_cast<uint64_t>(*index) < static_cast<uint64_t>(limit)) return 0;
  if (int32_t s = ReportBounds(site, what, dim, *index, limit); s != 0) return s;
  // Clamped into [0, limit) (0 when the range is empty): with checks off, or
  // when findings are warnings, no access leaves its ref.
  *index = limit > 0 ? limit - 1 : 0;
  return 0;
}

int32_t Exec::Slice(const IndexEntry& e, int64_t size, int dim, int site, int64_t* start, int64_t* n,
                    int64_t reach) {
  if (e.kind == IndexEntry::Kind::kRange) {
    *start = e.lo.value_or(0);
    *n = (e.hi ? *e.hi : size) - *start;
    return 0;
  }
  *start = SInt(e.start);
  *n = SInt(e.size);
  int64_t k = e.stride ? e.stride->int_value : 1;
  if (!e.size.is_literal()) {
    if (int32_t s = CheckIndex(n, size + 1, SCJIT_BOUNDS_SLICE_SIZE, dim, site); s != 0) return s;
  }
  // The last element start + (n-1)*k must be inside: start < size - (n-1)*k
  // (of those touched, when the op touches the window in part).
  int64_t last = (reach >= 0 ? std::min(*n, reach) : *n) - 1;
  return CheckIndex(start, size - last * k, SCJIT_BOUNDS_SLICE_START, dim, site);
}

namespace {

// How many of the window's coordinates in each dimension of r the positions
// [0, touched) reach, in row-major order (-1 for the dimensions `o` indexes
// away): the emitter's TouchedLengths.
std::vector<int64_t> TouchedLengths(Exec& x, const Ref& r, const Operand& o, int64_t touched) {
  std::vector<int64_t> window(static_cast<size_t>(r.rank()), -1);
  for (int d = 0; d < r.rank(); ++d) {
    const IndexEntry* e = d < static_cast<int>(o.index.size()) ? &o.index[d] : nullptr;
    if (e == nullptr || e->kind == IndexEntry::Kind::kAll) {
      window[d] = r.sizes[d];
    } else if (e->kind == IndexEntry::Kind::kSlice) {
      window[d] = x.SInt(e->size);
    } else if (e->kind == IndexEntry::Kind::kRange) {
      window[d] = (e->hi ? *e->hi : r.sizes[d]) - e->lo.value_or(0);
    }
  }
  std::vector<int64_t> lengths(window.size(), -1);
  int64_t step = 1;
  for (size_t d = window.size(); d-- > 0;) {
    if (window[d] < 0) continue;
    lengths[d] = touched <= 0 ? 0 : std::min(window[d], (touched - 1) / step + 1);
    step *= window[d];
  }
  return lengths;
}

}  // namespace

namespace {

// An indexer on a chained view: a stage of starts and kept dimensions (the
// emitter's ChainView; strided slices and idx(...) lists are refused when the
// program is built).
int32_t ViewOfChain(Exec& x, const Operand& o, const Ref& r, int site, Ref* out) {
  ViewStage stage;
  bool straddles = Straddles(o, r);
  std::vector<int64_t> groups;
  for (int d = 0; d < r.rank(); ++d) {
    const IndexEntry* e = d < static_cast<int>(o.index.size()) ? &o.index[d] : nullptr;
    int64_t size = r.sizes[d], start = 0, n = size;
    if (e != nullptr && e->kind == IndexEntry::Kind::kIndex) {
      start = x.SInt(e->start);
      if (int32_t s = x.CheckIndex(&start, size, SCJIT_BOUNDS_INDEX, d, site); s != 0) return s;
      stage.starts.push_back(start);
      stage.kept.push_back(-1);
      continue;
    }
    int64_t group = straddles ? 1 : r.group(d);
    if (e != nullptr && e->kind != IndexEntry::Kind::kAll) {
      if (int32_t s = x.Slice(*e, size, d, site, &start, &n); s != 0) return s;
      if (int32_t s = AlignToGroup(x, *e, group, d, site, &start, &n, &group); s != 0) return s;
    }
    stage.starts.push_back(start);
    stage.kept.push_back(static_cast<int>(stage.sizes.size()));
    stage.sizes.push_back(n);
    groups.push_back(group);
  }
  if (std::all_of(groups.begin(), groups.end(), [](int64_t g) { return g < 2; })) groups.clear();
  *out = IndexChain(r, std::move(stage), std::move(groups));
  return 0;
}

}  // namespace

int32_t Exec::View(const Operand& o, int site, Ref* out, int64_t touched) {
  return ViewOf(RefOf(o.value), o, site, out, touched);
}

int32_t Exec::ViewOf(const Ref& r, const Operand& o, int site, Ref* out, int64_t touched) {
  if (!o.indexed) {
    *out = r;
    return 0;
  }
  if (r.chain != nullptr) return ViewOfChain(*this, o, r, site, out);
  std::vector<int64_t> reach;
  if (touched >= 0 && r.groups.empty()) reach = TouchedLengths(*this, r, o, touched);
  Ref v;
  v.space = r.space;
  v.semaphore = r.semaphore;
  v.element = r.element;
  v.arena = r.arena;
  v.static_shape = r.static_shape;
  int64_t offset = 0;
  bool straddles = !r.groups.empty() && Straddles(o, r);
  for (int d = 0; d < r.rank(); ++d) {
    const IndexEntry* e = d < static_cast<int>(o.index.size()) ? &o.index[d] : nullptr;
    int64_t size = r.sizes[d], stride = r.strides[d];
    int64_t group = straddles ? 1 : r.group(d);
    if (e == nullptr || e->kind == IndexEntry::Kind::kAll) {
      v.sizes.push_back(size);
      v.strides.push_back(stride);
      v.groups.push_back(group);
      continue;
    }
    switch (e->kind) {
      case IndexEntry::Kind::kIndex: {
        int64_t i = SInt(e->start);
        if (int32_t s = CheckIndex(&i, size, SCJIT_BOUNDS_INDEX, d, site); s != 0) return s;
        offset += i * stride;
        break;
      }
      case IndexEntry::Kind::kSlice:
      case IndexEntry::Kind::kRange: {
        int64_t start = 0, n = 0;
        if (int32_t s = Slice(*e, size, d, site, &start, &n, reach.empty() ? -1 : reach[d]); s != 0) return s;
        if (int32_t s = AlignToGroup(*this, *e, group, d, site, &start, &n, &group); s != 0) return s;
        int64_t k = e->stride ? e->stride->int_value : 1;
        offset += start * stride;
        v.groups.push_back(group);
        v.sizes.push_back(n);
        v.strides.push_back(stride * k);
        v.static_shape = v.static_shape && (e->kind == IndexEntry::Kind::kRange || KnownAtCompileTime(e->size));
        break;
      }
      case IndexEntry::Kind::kAll:
        break;
      case IndexEntry::Kind::kIndirect:  // the rows the list picks (interp_dma.cc)
        v.indices = MakeIndexList(*this, *e);
        v.sizes.push_back(size);
        v.strides.push_back(stride);
        v.groups.push_back(group);
        break;
    }
  }
  if (std::all_of(v.groups.begin(), v.groups.end(), [](int64_t g) { return g < 2; })) v.groups.clear();
  if (r.semaphore) {
    v.sem = r.sem + static_cast<int32_t>(offset);
  } else {
    v.ptr = r.ptr + offset * ByteWidth(r.element);
  }
  *out = std::move(v);
  return 0;
}

// ------------------------------------------------------------------------------------
// The kView, kRefChoice and kGrid families.

absl::Status PrepareView(Builder& b, const Op& op) {
  const Operand& ref = op.operands[0];
  if (op.kind != OpKind::kView) {  // the emitter's EmitRefView refuses these
    const Type& in = ref.value->type;
    const Type& out = op.results[0]->type;
    if (in.is_semaphore()) return b.Unsupported(op, Cat(op.name(), " of semaphores"));
    if (op.kind == OpKind::kViewBitcast && (IsInt4(in.element()) || IsInt4(out.element()))) {
      return b.Unsupported(op, Cat(op.name(), " from ", in.ToString(), " to ", out.ToString(), " (4-bit types)"));
    }
    if (op.kind == OpKind::kViewReshape && out.NumElements() == kDynamic) {
      return b.Unsupported(op, "a view_reshape to a shape of dynamic size");
    }
    if (op.kind == OpKind::kViewSubcoreSlice && Reinterpreted(ref.value)) {
      return b.Unsupported(op, "view_subcore_slice of a view_bitcast, view_reshape or idx(...) view");
    }
  }
  b.SitesOf(op).main = b.Site(op, Print(ref), ref.loc);
  return absl::OkStatus();
}

int32_t ExecView(Exec& x, const Op& op) {
  Ref v;
  if (int32_t s = x.View(op.operands[0], x.program.SitesOf(op).main, &v); s != 0) return s;
  if (op.kind == OpKind::kViewSubcoreSlice) {
    v = SubcoreSlice(v, op.results[0]->type.shape().back(), x.ctx->subcore);
  } else if (op.kind != OpKind::kView) {
    v = Reinterpret(v, op);
  }
  x.SetRef(op.results[0], std::move(v));
  return 0;
}

absl::Status PrepareRefChoice(Builder& b, const Op& op) { return absl::OkStatus(); }

int32_t ExecRefChoice(Exec& x, const Op& op) {
  const auto& ops = op.operands;
  int64_t k = x.SInt(ops[0]);
  Ref r = x.RefOf(ops[1].value);
  for (size_t i = 2; i < ops.size(); ++i) {
    if (k == static_cast<int64_t>(i - 1)) r = x.RefOf(ops[i].value);
  }
  // The emitter selects every size and stride: known only when the choice is.
  r.static_shape = r.static_shape && KnownAtCompileTime(ops[0]);
  x.SetRef(op.results[0], std::move(r));
  return 0;
}

absl::Status PrepareGrid(Builder& b, const Op& op) {
  if ((op.kind == OpKind::kProgramId || op.kind == OpKind::kNumPrograms) && op.operands[0].int_value > 1 &&
      !InsidePipeline(op)) {
    return b.Unsupported(op, "program_id beyond the mesh axes");
  }
  return absl::OkStatus();
}

int32_t ExecGrid(Exec& x, const Op& op) {
  int32_t v = 0;
  if (op.axis == MeshAxis::kDevice && (op.kind == OpKind::kAxisIndex || op.kind == OpKind::kAxisSize)) {
    int axis = x.program.kernel->FindDeviceAxis(op.device_axis);
    v = op.kind == OpKind::kAxisSize ? static_cast<int32_t>(x.program.kernel->device_axes()[static_cast<size_t>(axis)].size)
                                     : x.DeviceCoordinate(axis);
  } else if (op.kind == OpKind::kAxisIndex || op.kind == OpKind::kAxisSize) {
    bool core = op.axis == MeshAxis::kCore;
    v = op.kind == OpKind::kAxisIndex ? (core ? x.ctx->core : x.ctx->subcore)
                                      : (core ? x.ctx->num_cores : x.ctx->num_subcores);
  } else {
    bool is_id = op.kind == OpKind::kProgramId;
    int64_t axis = op.operands[0].int_value;
    if (!x.grids.empty()) {  // inside a pipeline: its grid
      const Exec::GridFrame& g = x.grids.back();
      v = is_id ? g.index[axis] : g.size[axis];
    } else {  // the mesh: axis 0 is the core, axis 1 the subcore
      v = axis == 0 ? (is_id ? x.ctx->core : x.ctx->num_cores) : (is_id ? x.ctx->subcore : x.ctx->num_subcores);
    }
  }
  Val out = Val::Of(op.results[0]->type);
  out.set(0, static_cast<uint32_t>(v));
  x.Set(op.results[0], std::move(out));
  return 0;
}

}  // namespace scjit::interp
