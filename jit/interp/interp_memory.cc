// Memory ops (kernel-ir.md §4.3): get, swap, store, addupdate, their masked
// forms and fetch_and_add; and the init and race checks of the kernel's own
// VMEM/SMEM accesses (runtime.md §5), made per access as the emitter's code
// makes them (emit_access_checks.cc): a load or store of a small value is one
// access (or one per row of a strided view), a large value is copied row by row
// with a bulk check of each row; a chained view (interp_views.cc) is accessed
// unit by unit, one access per unit of every element (per chunk of a large
// value), as emit_view_access.cc does.
#include "jit/interp/program.h"
#include "lowering/ir/printer.h"

namespace scjit::interp {

std::vector<uint8_t*> Exec::Elements(const Ref& r) {
  std::vector<uint8_t*> out;
  int64_t n = r.count();
  for (int64_t k = 0; k < n; ++k) out.push_back(r.At(k));
  return out;
}

int32_t Exec::Touch(const Ref& r, const std::vector<uint8_t*>& addrs, bool write, int site, bool run, int width) {
  if (!program.options.access_checks || !r.arena || addrs.empty()) return 0;
  int w = width > 0 ? width : ByteWidth(r.element);
  uint8_t mask = write ? SCJIT_SHADOW_WRITE_MASK : SCJIT_SHADOW_READ_MASK;
  for (uint8_t* p : addrs) {
    const uint8_t* state = p + ctx->shadow_delta;
    bool bad = false;
    for (int k = 0; k < w; ++k) bad = bad || (state[k] & mask) != 0;
    if (!bad) continue;
    int64_t bytes = run ? static_cast<int64_t>(addrs.size()) * w : w;
    return scjit_rt_access_fault(ctx, site, write ? 1 : 0, run ? addrs[0] : p, bytes);  // one fault per access
  }
  return 0;
}

int32_t Exec::TouchBulk(const Ref& r, const uint8_t* p, int64_t bytes, bool write, int site) {
  if (!program.options.access_checks || !r.arena) return 0;
  return scjit_rt_access_check(ctx, site, write ? 1 : 0, p, bytes);
}

namespace {

// The rows the emitter's code moves a strided view in: runs along a unit-stride
// minor dimension, else single elements (its ForEachRow / CopyView).
std::vector<std::vector<uint8_t*>> Rows(const Ref& r) {
  bool unit_minor = r.rank() > 0 && r.strides.back() == 1;
  int64_t row_len = unit_minor ? r.sizes.back() : 1;
  std::vector<std::vector<uint8_t*>> rows;
  int64_t n = r.count();
  for (int64_t k = 0; k < n; k += std::max<int64_t>(row_len, 1)) {
    std::vector<uint8_t*> row;
    for (int64_t j = 0; j < row_len; ++j) row.push_back(r.At(k + j));
    rows.push_back(std::move(row));
  }
  return rows;
}

// Copies between a chained view and a value's bytes: unit u of every element
// of a chunk is one access (the emitter's LoadUnits, StoreUnits, CopyUnits).
int32_t MoveUnits(Exec& x, const Ref& r, Val* v, bool to_value, int site) {
  int w = ByteWidth(r.element), unit = r.UnitBytes();
  int64_t n = v->count();
  int64_t chunk = Large(v->type) ? kChunkElements : n;
  for (int64_t first = 0; first < n; first += chunk) {
    int64_t width = std::min(chunk, n - first);
    for (int u = 0; u < w / unit; ++u) {
      std::vector<uint8_t*> units;
      for (int64_t k = first; k < first + width; ++k) units.push_back(r.ByteAt(k, u * unit));
      if (int32_t s = x.Touch(r, units, !to_value, site, /*run=*/false, unit); s != 0) return s;
      for (int64_t j = 0; j < width; ++j) {
        uint8_t* val = v->bytes.data() + (first + j) * w + u * unit;
        to_value ? std::copy_n(units[j], unit, val) : std::copy_n(val, unit, units[j]);
      }
    }
  }
  return 0;
}

// The address of each byte of the first `count` elements of r, element by
// element (a chained view's units where its elements have them).
std::vector<uint8_t*> BytesOf(const Ref& r, int64_t count) {
  int w = ByteWidth(r.element), unit = r.chain != nullptr ? r.UnitBytes() : w;
  std::vector<uint8_t*> out;
  out.reserve(static_cast<size_t>(count * w));
  for (int64_t k = 0; k < count; ++k) {
    uint8_t* element = r.chain != nullptr ? nullptr : r.At(k);
    for (int j = 0; j < w; ++j) out.push_back(r.chain != nullptr ? r.ByteAt(k, j / unit * unit) + j % unit : element + j);
  }
  return out;
}

// Init check: after a move of the first `count` elements between r and v, a
// load gives v their shadow, a store gives them v's (once the whole access is
// made, as the emitter's code does).
int32_t MoveShadows(Exec& x, const Ref& r, Val* v, int64_t count, bool to_value, int site) {
  if (!x.shadows() || !r.arena) return 0;
  std::vector<uint8_t*> bytes = BytesOf(r, count);
  std::vector<int64_t> elements = FirstElements(count);
  if (!to_value) return x.StoreShadow(*v, elements, bytes);
  // A 1-D strided view's lanes are evenly spaced: extract names the lane it takes.
  bool lanes = r.rank() == 1 && r.chain == nullptr && v->type.is_vector();
  return x.LoadShadow(v, elements, bytes, site, lanes ? r.ptr : nullptr, lanes ? r.strides[0] * v->width() : 0);
}

int32_t MoveBytes(Exec& x, const Ref& r, Val* v, bool to_value, int site);

// Copies between a view and a value's bytes, access by access, and their shadows.
int32_t Move(Exec& x, const Ref& r, Val* v, bool to_value, int site) {
  if (int32_t s = MoveBytes(x, r, v, to_value, site); s != 0) return s;
  return MoveShadows(x, r, v, v->count(), to_value, site);
}

int32_t MoveBytes(Exec& x, const Ref& r, Val* v, bool to_value, int site) {
  if (r.chain != nullptr) return MoveUnits(x, r, v, to_value, site);
  int w = ByteWidth(r.element);
  auto copy = [&](const std::vector<uint8_t*>& elems, int64_t first) {
    for (size_t j = 0; j < elems.size(); ++j) {
      uint8_t* mem = elems[j];
      uint8_t* val = v->bytes.data() + (first + static_cast<int64_t>(j)) * w;
      to_value ? std::copy_n(mem, w, val) : std::copy_n(val, w, mem);
    }
  };
  if (Large(v->type)) {  // memcpy of the whole view, or of each row, each checked in bulk
    std::vector<std::vector<uint8_t*>> rows = r.Contiguous() ? std::vector<std::vector<uint8_t*>>{Exec::Elements(r)}
                                                             : Rows(r);
    int64_t first = 0;
    for (const auto& row : rows) {
      if (int32_t s = x.TouchBulk(r, row[0], static_cast<int64_t>(row.size()) * w, !to_value, site); s != 0) return s;
      copy(row, first);
      first += static_cast<int64_t>(row.size());
    }
    return 0;
  }
  if (!v->type.is_vector() || r.Contiguous()) {
    std::vector<uint8_t*> elems = v->type.is_vector() ? Exec::Elements(r) : std::vector<uint8_t*>{r.ptr};
    if (int32_t s = x.Touch(r, elems, !to_value, site); s != 0) return s;
    copy(elems, 0);
    return 0;
  }
  int64_t first = 0;
  for (const auto& row : Rows(r)) {
    if (int32_t s = x.Touch(r, row, !to_value, site); s != 0) return s;
    copy(row, first);
    first += static_cast<int64_t>(row.size());
  }
  return 0;
}

// Copies between the first `count` elements of a view (row-major) and those
// of a value, as one access (one per unit of the element for a chained view):
// the emitter's LoadUnits/StoreUnits with a mask of the first lanes.
int32_t MovePrefix(Exec& x, const Ref& r, Val* v, int64_t count, bool to_value, int site) {
  int w = ByteWidth(r.element);
  int unit = r.chain != nullptr ? r.UnitBytes() : w;
  for (int u = 0; u < w / unit; ++u) {
    std::vector<uint8_t*> units;
    for (int64_t k = 0; k < count; ++k) units.push_back(r.chain != nullptr ? r.ByteAt(k, u * unit) : r.At(k));
    if (int32_t s = x.Touch(r, units, !to_value, site, /*run=*/false, unit); s != 0) return s;
    for (int64_t k = 0; k < count; ++k) {
      uint8_t* val = v->bytes.data() + k * w + u * unit;
      to_value ? std::copy_n(units[k], unit, val) : std::copy_n(val, unit, units[k]);
    }
  }
  if (int32_t s = MoveShadows(x, r, v, count, to_value, site); s != 0) return s;
  return 0;
}

// The elements of the window a masked access touches: popcount(mask).
int64_t ActiveLanes(Exec& x, const Op& op) {
  Val mask = x.Get(*op.mask);
  int64_t active = 0;
  for (int64_t i = 0; i < mask.count(); ++i) active += mask.at(i) & 1;
  return active;
}

// load_expanded, store_compressed, addupdate_compressed: the elements touched
// are the view's first popcount(mask), in row-major order, and no others; a
// contiguous view is used in place, any other through a copy of those
// elements (loaded first, and for the stores stored back).
int32_t Masked(Exec& x, const Op& op, const Ref& view, int site) {
  const Type& t = op.kind == OpKind::kLoadExpanded ? op.results[0]->type : op.operands[1].type();
  Val mask = x.Get(*op.mask);
  int64_t n = t.NumElements();
  int64_t active = ActiveLanes(x, op);
  bool direct = view.Contiguous();
  Val mem = Val::Of(t);  // the view's first `active` elements
  std::vector<uint8_t*> run;
  if (direct) {
    for (int64_t k = 0; k < active; ++k) run.push_back(view.At(k));
  } else if (int32_t s = MovePrefix(x, view, &mem, active, /*to_value=*/true, site); s != 0) {
    return s;
  }
  auto read_run = [&]() -> int32_t {  // the expandload's source elements
    if (!direct) return 0;
    if (int32_t s = x.Touch(view, run, false, site, /*run=*/true); s != 0) return s;
    for (int64_t k = 0; k < active; ++k) mem.set(k, LoadBits(run[k], mem.width()));
    return MoveShadows(x, view, &mem, active, /*to_value=*/true, site);
  };
  ElementType e = t.element();
  if (op.kind == OpKind::kLoadExpanded) {
    if (int32_t s = read_run(); s != 0) return s;
    Val out = Val::Of(t);  // masked-off lanes: the poison value, written (runtime.md §7.1)
    for (int64_t i = 0, k = 0; i < n; ++i) {
      if ((mask.at(i) & 1) == 0) {
        out.set(i, PoisonBits(e));
        continue;
      }
      out.set_shadow(i, mem.shadow_at(k));
      out.set(i, mem.at(k++));
    }
    out.Settle(mem.origin);
    x.Set(op.results[0], std::move(out));
    return 0;
  }
  Val v = x.Get(op.operands[1]);
  int32_t origin = v.origin;
  if (op.kind == OpKind::kAddupdateCompressed) {
    if (int32_t s = read_run(); s != 0) return s;
    for (int64_t i = 0, k = 0; i < n; ++i) {
      bool on = (mask.at(i) & 1) != 0;
      Bits old = on ? mem.at(k) : 0;
      if (on) v.set_shadow(i, v.shadow_at(i) | mem.shadow_at(k++));
      v.set(i, Binary(OpKind::kAdd, old, v.at(i), e));
    }
    origin = Computed(mem.origin != 0 ? mem.origin : v.origin);
  }
  Val packed = mem;
  packed.shadow.clear();
  for (int64_t i = 0, k = 0; i < n; ++i) {
    if ((mask.at(i) & 1) == 0) continue;
    packed.set_shadow(k, v.shadow_at(i));
    packed.set(k++, v.at(i));
  }
  packed.Settle(origin);
  if (!direct) return MovePrefix(x, view, &packed, active, /*to_value=*/false, site);
  if (int32_t s = x.Touch(view, run, true, site, /*run=*/true); s != 0) return s;
  for (int64_t k = 0; k < active; ++k) StoreBits(run[k], packed.width(), packed.at(k));
  return MoveShadows(x, view, &packed, active, /*to_value=*/false, site);
}

}  // namespace

int32_t Exec::Load(const Ref& r, const Type& t, int site, Val* out) {
  *out = Val::Of(t);
  return Move(*this, r, out, /*to_value=*/true, site);
}

int32_t Exec::Store(const Ref& r, const Val& v, int site) {
  Val copy = v;
  return Move(*this, r, &copy, /*to_value=*/false, site);
}

absl::Status PrepareMemory(Builder& b, const Op& op) {
  const Operand& ref = op.operands[0];
  b.SitesOf(op).main = b.Site(op, Print(ref), ref.loc);
  b.AccessSite(op);
  bool masked = op.kind == OpKind::kLoadExpanded || op.kind == OpKind::kStoreCompressed ||
                op.kind == OpKind::kAddupdateCompressed;
  if (masked) {
    const Type& t = op.kind == OpKind::kLoadExpanded ? op.results[0]->type : op.operands[1].type();
    if (!t.is_vector()) return b.Unsupported(op, "masked scalar access");
  }
  if (op.kind == OpKind::kFetchAndAdd && Reinterpreted(ref.value)) {
    return b.Unsupported(op, "fetch_and_add through a view_bitcast or view_reshape");
  }
  return absl::OkStatus();
}

int32_t ExecMemory(Exec& x, const Op& op) {
  const auto& ops = op.operands;
  const OpSites& sites = x.program.SitesOf(op);
  bool masked = op.kind == OpKind::kLoadExpanded || op.kind == OpKind::kStoreCompressed ||
                op.kind == OpKind::kAddupdateCompressed;
  Ref view;
  if (int32_t s = x.View(ops[0], sites.main, &view, masked ? ActiveLanes(x, op) : -1); s != 0) return s;
  int site = sites.access;
  switch (op.kind) {
    case OpKind::kGet: {
      Val v;
      if (int32_t s = x.Load(view, op.results[0]->type, site, &v); s != 0) return s;
      x.Set(op.results[0], std::move(v));
      return 0;
    }
    case OpKind::kSwap:
    case OpKind::kStore: {
      Val v = x.Get(ops[1]);
      if (op.kind == OpKind::kSwap) {
        Val old;
        if (int32_t s = x.Load(view, v.type, site, &old); s != 0) return s;
        x.Set(op.results[0], std::move(old));
      }
      return x.Store(view, v, site);
    }
    case OpKind::kAddupdate: {
      Val v = x.Get(ops[1]);
      Val sum;
      if (int32_t s = x.Load(view, v.type, site, &sum); s != 0) return s;
      for (int64_t i = 0; i < sum.count(); ++i) {
        sum.set(i, Binary(OpKind::kAdd, sum.at(i), v.at(i), v.element()));
        sum.set_shadow(i, sum.shadow_at(i) | v.shadow_at(i));
      }
      sum.Settle(Computed(sum.origin != 0 ? sum.origin : v.origin));
      return x.Store(view, sum, site);
    }
    case OpKind::kLoadExpanded:
    case OpKind::kStoreCompressed:
    case OpKind::kAddupdateCompressed:
      return Masked(x, op, view, site);
    case OpKind::kFetchAndAdd: {
      int64_t offset = view.ptr - x.ctx->smem;  // the word's byte offset in the target's SMEM
      auto target = static_cast<int32_t>(x.Scalar(op.FindAttr("subcore")->value.operand));
      int32_t old = 0;
      auto value = static_cast<int32_t>(x.Scalar(ops[1]));
      if (int32_t s = scjit_rt_fetch_and_add(x.ctx, offset, value, target, sites.main, &old); s != 0) return s;
      Val out = Val::Of(op.results[0]->type);
      out.set(0, static_cast<uint32_t>(old));
      x.Set(op.results[0], std::move(out));
      return 0;
    }
    default:
      return 0;
  }
}

}  // namespace scjit::interp
