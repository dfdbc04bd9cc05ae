// view_bitcast and view_reshape (kernel-ir.md §4.2, sc-semantics.md §2.2), for
// clarity rather than speed: such a view maps each byte of each of its elements
// to a byte of the view it reinterprets, stage by stage back to a strided view.
//   - bitcast to an element k times narrower: the second-minor dimension grows
//     k-fold, and y[..., r*k + j, c] is the j-th little-endian piece of
//     x[..., r, c]; k times wider: piece j of y[..., r, c] is x[..., r*k + j, c];
//     the same width: the same elements reinterpreted;
//   - reshape: the element at the same row-major position;
//   - an indexer on such a view: a start per dimension, some dimensions kept.
// When the mapping is a strided one after all (a reshape of a contiguous ref, a
// same-width bitcast, a widening of what a bitcast narrowed...), the view
// becomes a plain strided Ref, so that ops take it as the emitter's code does
// (emit_views.cc also keeps such views strided); otherwise ops go unit by unit
// (Ref::ByteAt), as the emitter's code through a chain (emit_view_access.cc).
#include "jit/interp/program.h"

namespace scjit::interp {
namespace {

// Row-major coordinates of position `k` in `sizes`, and back.
std::vector<int64_t> Coordinates(const std::vector<int64_t>& sizes, int64_t k) {
  std::vector<int64_t> idx(sizes.size());
  for (size_t d = sizes.size(); d-- > 0;) {
    idx[d] = sizes[d] > 0 ? k % sizes[d] : 0;
    k = sizes[d] > 0 ? k / sizes[d] : 0;
  }
  return idx;
}

int64_t Linear(const std::vector<int64_t>& sizes, const std::vector<int64_t>& idx) {
  int64_t k = 0;
  for (size_t d = 0; d < sizes.size(); ++d) k = k * sizes[d] + idx[d];
  return k;
}

// The address of byte `b` of the element at `idx` of the chain's last stage.
uint8_t* ChainByte(const ViewChain& c, std::vector<int64_t> idx, int64_t b) {
  for (size_t s = c.stages.size(); s-- > 0;) {
    const ViewStage& st = c.stages[s];
    const std::vector<int64_t>& before = s > 0 ? c.stages[s - 1].sizes : c.base.sizes;
    ElementType prev = s > 0 ? c.stages[s - 1].element : c.base.element;
    std::vector<int64_t> next(before.size());
    switch (st.kind) {
      case ViewStage::Kind::kIndex:
        for (size_t d = 0; d < before.size(); ++d) next[d] = st.starts[d] + (st.kept[d] >= 0 ? idx[st.kept[d]] : 0);
        break;
      case ViewStage::Kind::kReshape:
        next = Coordinates(before, Linear(st.sizes, idx));
        break;
      case ViewStage::Kind::kBitcast: {
        next = idx;
        int64_t from = ByteWidth(prev), to = ByteWidth(st.element);
        int64_t& row = next[next.size() - 2];  // the verifier's XF-2: 2-D when the widths differ
        if (from > to) {
          b += (row % (from / to)) * to;
          row /= from / to;
        } else if (from < to) {
          row = row * (to / from) + b / from;
          b %= from;
        }
        break;
      }
    }
    idx = std::move(next);
  }
  return c.base.At(Linear(c.base.sizes, idx)) + b;
}

// `v` as a strided view when its units are where strides put them: each
// element's units in a row, the elements at equal steps along each dimension.
void MakeStrided(Ref* v) {
  const ViewChain& c = *v->chain;
  int w = ByteWidth(v->element);
  int64_t n = v->count();
  if (n == 0) return;
  uint8_t* origin = ChainByte(c, std::vector<int64_t>(v->sizes.size(), 0), 0);
  std::vector<int64_t> steps(v->sizes.size(), 0);  // bytes
  for (size_t d = 0; d < v->sizes.size(); ++d) {
    if (v->sizes[d] < 2) continue;
    std::vector<int64_t> one(v->sizes.size(), 0);
    one[d] = 1;
    steps[d] = ChainByte(c, one, 0) - origin;
    if (steps[d] < 0 || steps[d] % w != 0) return;
  }
  for (int64_t k = 0; k < n; ++k) {
    std::vector<int64_t> idx = Coordinates(v->sizes, k);
    int64_t at = 0;
    for (size_t d = 0; d < idx.size(); ++d) at += idx[d] * steps[d];
    for (int u = 0; u < w / c.unit_bytes; ++u) {
      if (ChainByte(c, idx, int64_t{u} * c.unit_bytes) != origin + at + u * c.unit_bytes) return;
    }
  }
  v->ptr = origin;
  v->strides.clear();
  for (int64_t step : steps) v->strides.push_back(step / w);
  v->chain = nullptr;
}

// The view of `r` (strided or chained) through one more stage.
Ref Chained(const Ref& r, ViewStage stage) {
  auto c = std::make_shared<ViewChain>();
  if (r.chain != nullptr) {
    *c = *r.chain;
  } else {
    c->base = r;
    c->unit_bytes = ByteWidth(r.element);
  }
  c->unit_bytes = std::min(c->unit_bytes, ByteWidth(stage.element));
  Ref v;
  v.space = r.space;
  v.element = stage.element;
  v.arena = r.arena;
  v.static_shape = r.static_shape;
  v.sizes = stage.sizes;
  c->stages.push_back(std::move(stage));
  v.chain = std::move(c);
  MakeStrided(&v);
  return v;
}

}  // namespace

int Ref::UnitBytes() const { return chain != nullptr ? chain->unit_bytes : ByteWidth(element); }

uint8_t* Ref::ByteAt(int64_t k, int b) const {
  if (chain == nullptr) return At(k) + b;
  return ChainByte(*chain, Coordinates(sizes, k), b);
}

Ref Reinterpret(const Ref& r, const Op& op) {
  const Type& out = op.results[0]->type;
  ViewStage stage;
  stage.element = out.element();
  std::vector<int64_t> groups;
  if (op.kind == OpKind::kViewReshape) {
    stage.kind = ViewStage::Kind::kReshape;
    stage.sizes.assign(out.shape().begin(), out.shape().end());  // static (PrepareView)
  } else {
    stage.kind = ViewStage::Kind::kBitcast;
    stage.sizes = r.sizes;  // a ds(%i, %n) view's may be known only now
    int64_t from = ByteWidth(r.element), to = ByteWidth(out.element());
    if (stage.sizes.size() >= 2 && from != to) {
      int rows = static_cast<int>(stage.sizes.size()) - 2;
      stage.sizes[rows] = stage.sizes[rows] * from / to;
      // Narrowing packs each row's pieces as a group of rows; widening by k
      // takes k rows of a group as the pieces of one element.
      for (int d = 0; d < r.rank(); ++d) groups.push_back(r.group(d));
      int64_t& g = groups[rows];
      g = from > to ? g * (from / to) : g >= to / from ? g / (to / from) : 1;
    } else {
      groups = r.groups;
    }
  }
  Ref v = Chained(r, std::move(stage));
  if (std::any_of(groups.begin(), groups.end(), [](int64_t g) { return g > 1; })) v.groups = std::move(groups);
  return v;
}

Ref SubcoreSlice(const Ref& r, int64_t n, int subcore) {
  Ref v = r;
  int last = v.rank() - 1;
  v.ptr += subcore * n * v.strides[last] * ByteWidth(v.element);
  v.sizes[last] = n;
  return v;
}

Ref IndexChain(const Ref& r, ViewStage stage, std::vector<int64_t> groups) {
  stage.kind = ViewStage::Kind::kIndex;
  stage.element = r.element;
  Ref v = Chained(r, std::move(stage));
  v.groups = std::move(groups);
  return v;
}

namespace {

// A slice [s, s + count) of a dimension packed in groups of g (-1: not static)
// that lies within one group: the emitter fixes the group and goes on in it.
bool WithinOneGroup(int64_t g, int64_t s, int64_t count) {
  return s >= 0 && count > 0 && s / g == (s + count - 1) / g && (s % g != 0 || count % g != 0);
}

// The static start and count of a slice or range entry (-1: not static).
std::pair<int64_t, int64_t> StaticBounds(const IndexEntry& e, int64_t size) {
  if (e.kind == IndexEntry::Kind::kRange) {
    int64_t lo = e.lo.value_or(0);
    return {lo, (e.hi ? *e.hi : size) - lo};
  }
  return {e.start.is_literal() ? e.start.int_value : -1, e.size.is_literal() ? e.size.int_value : -1};
}

int32_t CheckAligned(Exec& x, int64_t* v, int64_t group, int dim, int site) {
  int64_t rem = *v % group;
  if (rem == 0) return 0;
  if (int32_t s = x.ReportBounds(site, SCJIT_BOUNDS_ALIGN, dim, *v, group); s != 0) return s;
  *v -= rem;
  return 0;
}

}  // namespace

bool Straddles(const Operand& o, const Ref& r) {
  for (int d = 0; d < r.rank() && d < static_cast<int>(o.index.size()); ++d) {
    const IndexEntry& e = o.index[d];
    int64_t g = r.group(d);
    if (g < 2 || (e.kind != IndexEntry::Kind::kSlice && e.kind != IndexEntry::Kind::kRange)) continue;
    auto [s, count] = StaticBounds(e, r.sizes[d]);
    if (WithinOneGroup(g, s, count)) continue;
    if ((s >= 0 && s % g != 0) || (count >= 0 && count % g != 0)) return true;
  }
  return false;
}

int32_t AlignToGroup(Exec& x, const IndexEntry& e, int64_t group, int dim, int site, int64_t* start, int64_t* n,
                     int64_t* kept_group) {
  *kept_group = group;
  if (group < 2) return 0;
  int64_t s = *start, count = *n;  // a range's are static
  if (e.kind == IndexEntry::Kind::kSlice) {
    s = e.start.is_literal() ? e.start.int_value : -1;
    count = e.size.is_literal() ? e.size.int_value : -1;
  }
  if (WithinOneGroup(group, s, count)) {
    *kept_group = 1;
    return 0;
  }
  if (int32_t st = CheckAligned(x, start, group, dim, site); st != 0) return st;
  return count < 0 ? CheckAligned(x, n, group, dim, site) : 0;
}

bool Reinterpreted(const Value* v) {
  const Op* def = v->def;
  if (def == nullptr) return false;
  switch (def->kind) {
    case OpKind::kViewBitcast:
    case OpKind::kViewReshape:
      return true;
    case OpKind::kView:
      return Reinterpreted(def->operands[0].value);
    case OpKind::kSelectRef:
      for (size_t i = 1; i < def->operands.size(); ++i) {
        if (Reinterpreted(def->operands[i].value)) return true;
      }
      return false;
    default:
      return false;
  }
}

int NarrowestBytes(const Value* v) {
  int w = ByteWidth(v->type.element());
  const Op* def = v->def;
  if (def == nullptr) return w;
  switch (def->kind) {
    case OpKind::kViewBitcast:
    case OpKind::kViewReshape:
    case OpKind::kView:
      return std::min(w, NarrowestBytes(def->operands[0].value));
    case OpKind::kSelectRef:
      for (size_t i = 1; i < def->operands.size(); ++i) w = std::min(w, NarrowestBytes(def->operands[i].value));
      return w;
    default:
      return w;
  }
}

}  // namespace scjit::interp
