// Gathers and scatters (kernel-ir.md §4.3; sc-semantics.md §3.5-3.7; runtime.md
// §7.1, §7.11): load_gather, store_scatter, addupdate_scatter, lane by lane as
// emit_gather.cc defines them. Lanes go in chunks of the emitter's (all at once
// for a small value, 64 at a time for a large one), each chunk one access.
#include "jit/interp/program.h"
#include "lowering/ir/printer.h"

namespace scjit::interp {
namespace {

// The lanes [first, first + width) of a gather or scatter: their addresses
// after the bounds check (out-of-range lanes clamped, lanes of an empty
// dimension off), or a non-zero status. A chained view's lanes are element
// positions, accessed unit by unit (interp_views.cc).
struct Lanes {
  std::vector<bool> active;
  std::vector<uint8_t*> addr;
  std::vector<int64_t> element;

  uint8_t* Unit(const Ref& r, int64_t i, int u) const {
    return r.chain != nullptr ? r.ByteAt(element[i], u * r.UnitBytes()) : addr[i] + u * r.UnitBytes();
  }
};

int32_t LaneAddresses(Exec& x, const Op& op, const Ref& r, const std::vector<Val>& idx, const std::optional<Val>& mask,
                      int64_t first, int64_t width, Lanes* out) {
  const OpSites& sites = x.program.SitesOf(op);
  int dims = r.rank();
  out->active.assign(static_cast<size_t>(width), true);
  std::vector<std::vector<int32_t>> lane_idx(static_cast<size_t>(dims));
  for (int64_t i = 0; i < width; ++i) {
    if (mask) out->active[i] = (mask->at(first + i) & 1) != 0;
    for (int d = 0; d < dims; ++d) {
      const Val& v = idx[d];
      Bits bits = v.at(first + i);
      int64_t wide = IsUnsigned(v.element()) ? static_cast<int64_t>(bits) : SignExtend(bits, ComputeBits(v.element()));
      lane_idx[d].push_back(static_cast<int32_t>(wide));  // zext/sext or trunc to i32
    }
  }
  // The report names the lowest bad lane of the first dimension that has one.
  for (int d = 0; d < dims; ++d) {
    auto size32 = static_cast<int32_t>(r.sizes[d]);
    for (int64_t i = 0; i < width; ++i) {
      bool in = static_cast<uint32_t>(lane_idx[d][i]) < static_cast<uint32_t>(size32);
      if (!out->active[i] || in) continue;
      auto what = static_cast<int32_t>(((first + i) << 8) | SCJIT_BOUNDS_LANE);
      if (int32_t s = x.ReportBounds(sites.more[d], what, d, lane_idx[d][i], r.sizes[d]); s != 0) return s;
      d = dims;  // reported (or not, unchecked): one report per chunk
      break;
    }
  }
  out->addr.assign(static_cast<size_t>(width), nullptr);
  out->element.assign(static_cast<size_t>(width), 0);
  for (int d = 0; d < dims; ++d) {
    auto size32 = static_cast<int32_t>(r.sizes[d]);
    for (int64_t i = 0; i < width; ++i) {
      bool in = static_cast<uint32_t>(lane_idx[d][i]) < static_cast<uint32_t>(size32);
      if (!in) lane_idx[d][i] = size32 > 0 ? size32 - 1 : 0;
      if (size32 <= 0) out->active[i] = false;
    }
  }
  if (r.chain != nullptr) {
    for (int64_t i = 0; i < width; ++i) {
      for (int d = 0; d < dims; ++d) out->element[i] = out->element[i] * r.sizes[d] + lane_idx[d][i];
    }
    return 0;
  }
  for (int64_t i = 0; i < width; ++i) {
    uint32_t offset = 0;  // i32 lane arithmetic, as the emitter's
    for (int d = 0; d < dims; ++d) {
      offset += static_cast<uint32_t>(lane_idx[d][i]) * static_cast<uint32_t>(r.strides[d]);
    }
    out->addr[i] = r.ptr + static_cast<int64_t>(static_cast<int32_t>(offset)) * ByteWidth(r.element);
  }
  return 0;
}

}  // namespace

absl::Status PrepareGatherScatter(Builder& b, const Op& op) {
  const auto& ops = op.operands;
  bool gather = op.kind == OpKind::kLoadGather;
  OpSites& sites = b.SitesOf(op);
  sites.main = b.Site(op, Print(ops[0]), ops[0].loc);
  const Type& ref = ops[0].indexed ? ops[0].view : ops[0].value->type;
  const Type& t = gather ? op.results[0]->type : ops[1].type();
  int64_t n = t.NumElements();
  bool shaped = t.is_vector() && t.rank() == 1 && static_cast<int>(op.index_vectors.size()) == ref.rank() &&
                (!op.mask || op.mask->type() == Type::Vector(ElementType::kI1, {n}));
  for (const Operand& iv : op.index_vectors) {
    shaped = shaped && iv.type().is_vector() && iv.type().shape() == t.shape() && IsInteger(iv.type().element());
  }
  if (!shaped) {
    return b.Unsupported(op, Cat(op.name(), " whose index vectors, mask and value are not ", ref.rank(),
                                 " integer, one i1 and one vector of one length"));
  }
  for (const Operand& iv : op.index_vectors) sites.more.push_back(b.Site(op, Print(ops[0]), iv.loc));
  b.AccessSite(op);
  return absl::OkStatus();
}

int32_t ExecGatherScatter(Exec& x, const Op& op) {
  const auto& ops = op.operands;
  const OpSites& sites = x.program.SitesOf(op);
  bool gather = op.kind == OpKind::kLoadGather;
  Ref r;
  if (int32_t s = x.View(ops[0], sites.main, &r); s != 0) return s;
  const Type& t = gather ? op.results[0]->type : ops[1].type();
  ElementType e = t.element();
  int w = ByteWidth(e), unit = r.UnitBytes();
  int64_t n = t.NumElements();
  std::vector<Val> idx;
  for (const Operand& iv : op.index_vectors) idx.push_back(x.Get(iv));
  std::optional<Val> mask;
  if (op.mask) mask = x.Get(*op.mask);
  Val v = gather ? Val::Of(t) : x.Get(ops[1]);
  int64_t chunk = Large(t) ? kChunkElements : n;
  for (int64_t first = 0; first < n; first += chunk) {
    int64_t width = std::min(chunk, n - first);
    Lanes lanes;
    if (int32_t s = LaneAddresses(x, op, r, idx, mask, first, width, &lanes); s != 0) return s;
    // Unit u of every active lane: one access (a chained view's elements have
    // several units; a strided view's element is one).
    auto units = [&](int u) {
      std::vector<uint8_t*> out;
      for (int64_t i = 0; i < width; ++i) {
        if (lanes.active[i]) out.push_back(lanes.Unit(r, i, u));
      }
      return out;
    };
    // The bytes of the active lanes, lane by lane (init check).
    auto lane_bytes = [&](int64_t i, std::vector<int64_t>* elements, std::vector<uint8_t*>* bytes) {
      elements->push_back(first + i);
      for (int j = 0; j < w; ++j) bytes->push_back(lanes.Unit(r, i, j / unit) + j % unit);
    };
    if (op.kind == OpKind::kAddupdateScatter) {
      // Duplicates add from the lowest lane to the highest.
      for (int64_t i = 0; i < width; ++i) {
        if (!lanes.active[i]) continue;
        std::vector<uint8_t> old(static_cast<size_t>(w));
        for (int u = 0; u < w / unit; ++u) {
          uint8_t* p = lanes.Unit(r, i, u);
          if (int32_t s = x.Touch(r, {p}, false, sites.access, false, unit); s != 0) return s;
          std::copy_n(p, unit, old.data() + u * unit);
        }
        Bits sum = Binary(OpKind::kAdd, LoadBits(old.data(), w), v.at(first + i), e);
        StoreBits(old.data(), w, sum);
        for (int u = 0; u < w / unit; ++u) {
          uint8_t* p = lanes.Unit(r, i, u);
          if (int32_t s = x.Touch(r, {p}, true, sites.access, false, unit); s != 0) return s;
          std::copy_n(old.data() + u * unit, unit, p);
        }
        if (!x.shadows() || !r.arena) continue;
        // The element's and the lane's bits: the sum is unwritten where either is.
        std::vector<int64_t> element;
        std::vector<uint8_t*> bytes;
        lane_bytes(i, &element, &bytes);
        Val lane = Val::Of(Type::Scalar(e));
        lane.set_shadow(0, v.shadow_at(first + i));
        lane.Settle(v.origin);
        Val was = Val::Of(Type::Scalar(e));
        if (int32_t s = x.LoadShadow(&was, {0}, bytes, sites.access); s != 0) return s;
        Val now = Val::Of(Type::Scalar(e));
        now.set_shadow(0, was.shadow_at(0) | lane.shadow_at(0));
        now.Settle(Computed(was.origin != 0 ? was.origin : lane.origin));
        if (int32_t s = x.StoreShadow(now, {0}, bytes); s != 0) return s;
      }
      continue;
    }
    for (int u = 0; u < w / unit; ++u) {
      if (int32_t s = x.Touch(r, units(u), !gather, sites.access, false, unit); s != 0) return s;
      for (int64_t i = 0; i < width; ++i) {
        uint8_t* lane = v.bytes.data() + (first + i) * w + u * unit;
        if (gather) {  // masked-off lanes read the poison value
          if (lanes.active[i]) std::copy_n(lanes.Unit(r, i, u), unit, lane);
        } else if (lanes.active[i]) {  // store_scatter: the highest lane wins
          std::copy_n(lane, unit, lanes.Unit(r, i, u));
        }
      }
    }
    if (gather) {
      for (int64_t i = 0; i < width; ++i) {
        if (!lanes.active[i]) v.set(first + i, PoisonBits(e));
      }
    }
    if (x.shadows() && r.arena) {
      std::vector<int64_t> elements;
      std::vector<uint8_t*> bytes;
      for (int64_t i = 0; i < width; ++i) {
        if (lanes.active[i]) lane_bytes(i, &elements, &bytes);
      }
      int32_t s = gather ? x.LoadShadow(&v, elements, bytes, sites.access) : x.StoreShadow(v, elements, bytes);
      if (s != 0) return s;
    }
  }
  if (gather) x.Set(op.results[0], std::move(v));
  return 0;
}

}  // namespace scjit::interp
