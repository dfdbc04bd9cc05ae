// Views that reinterpret a ref (kernel-ir.md §4.2; sc-semantics.md §2.2):
// view_bitcast and view_reshape, and indexing the dimensions they make.
//
// Such a view is still a strided view of the same bytes when it can be: one of
// its dimensions may span several physical ones (RefVal::spans), read as a
// mixed-radix index, and its elements may be made of several narrower units
// (RefVal::pieces). A bitcast to an element k times narrower keeps the shape
// but for the second-minor dimension, which grows k-fold with the logical
// mapping of sc-semantics.md §2.2: y[r*k + j, c] is the j-th little-endian piece
// of x[r, c]. In x's bytes that is dimension r split into physical (r, j) with
// strides (k * stride_r, 1), the other strides scaled by k. Widening is the
// inverse: wide element (r, c) is made of the narrow (r*k + j, c), which are
// adjacent when the ref was narrowed before, and otherwise a row apart; then the
// view goes on counting narrow units, with a "piece" dimension (k, stride_r)
// that no logical dimension covers. A reshape regroups the physical dimensions.
//
// What strides cannot describe (a static slice across the groups of a packed
// dimension, a reshape of a strided ref whose dimensions do not divide the new
// shape, a widening whose pieces are not equally spaced) becomes a chain of
// stages from the last strided view (RefVal::chain), whose element addresses
// the generated code computes (emit_view_access.cc).
#include "lowering/emit/emitter.h"
#include "llvm/IR/Constants.h"
#include "runtime/abi.h"

namespace scjit::emit {
namespace {

struct Part {
  llvm::Value* size;    // i64
  llvm::Value* stride;  // i64, in units
};

std::vector<Part> PartsOf(const RefVal& r, int d) {
  std::vector<Part> parts;
  for (int j = r.first(d); j < r.first(d) + r.span(d); ++j) parts.push_back({r.sizes[j], r.strides[j]});
  return parts;
}

// The product of the sizes of parts[from...] (static by construction).
int64_t Inner(const std::vector<Part>& parts, size_t from = 1) {
  int64_t n = 1;
  for (size_t j = from; j < parts.size(); ++j) n *= StaticInt(parts[j].size);
  return n;
}

// True when a slice [s, s + count) (-1: not static) of a dimension made of
// `parts` neither holds whole groups of the inner parts nor lies within one
// group, at some level: strides cannot describe it. A dynamic start with a
// count of whole groups is taken as aligned (IndexGroup checks it).
bool Straddles(const std::vector<Part>& parts, int64_t s, int64_t count) {
  for (size_t p = 0; p + 1 < parts.size(); ++p) {
    int64_t inner = Inner(parts, p + 1);
    if (s >= 0 && count > 0 && s / inner == (s + count - 1) / inner && (s % inner != 0 || count % inner != 0)) {
      s %= inner;  // within one group: the inner parts decide
      continue;
    }
    return (s >= 0 && s % inner != 0) || (count >= 0 && count % inner != 0);
  }
  return false;
}

// A view's dimensions as parts, and its pieces.
struct Layout {
  std::vector<std::vector<Part>> dims;
  std::vector<Part> pieces;
};

Layout LayoutOf(const RefVal& r) {
  Layout l;
  for (int d = 0; d < r.dims(); ++d) l.dims.push_back(PartsOf(r, d));
  for (int j = r.rank() - r.pieces; j < r.rank(); ++j) l.pieces.push_back({r.sizes[j], r.strides[j]});
  return l;
}

// The strided view `l` of r's memory, with elements of type `e`.
RefVal Build(const RefVal& r, ElementType e, const Layout& l) {
  RefVal v;
  v.space = r.space;
  v.element = e;
  v.ptr = r.ptr;
  bool grouped = false;
  for (const auto& parts : l.dims) {
    for (const Part& p : parts) {
      v.sizes.push_back(p.size);
      v.strides.push_back(p.stride);
    }
    v.spans.push_back(static_cast<int>(parts.size()));
    grouped = grouped || parts.size() > 1;
  }
  for (const Part& p : l.pieces) {
    v.sizes.push_back(p.size);
    v.strides.push_back(p.stride);
  }
  v.pieces = static_cast<int>(l.pieces.size());
  if (!grouped) v.spans.clear();
  return v;
}

// Splits `parts` (outer first, static power-of-two sizes) into outer ones and
// inner ones of `inner` elements.
std::pair<std::vector<Part>, std::vector<Part>> SplitParts(llvm::IRBuilder<>& b, std::vector<Part> parts,
                                                           int64_t inner) {
  std::vector<Part> in;
  while (inner > 1 && !parts.empty()) {
    Part& p = parts.back();
    int64_t size = StaticInt(p.size);
    if (size <= inner) {
      in.insert(in.begin(), p);
      inner /= size;
      parts.pop_back();
    } else {
      in.insert(in.begin(), Part{b.getInt64(inner), p.stride});
      p = {b.getInt64(size / inner), b.CreateMul(p.stride, b.getInt64(inner))};
      inner = 1;
    }
  }
  return {parts, in};
}

// A view of `r` through one more stage.
RefVal Chained(const RefVal& r, RefStage stage) {
  auto chain = std::make_shared<RefChain>();
  if (r.chain != nullptr) {
    *chain = *r.chain;
  } else {
    chain->base = r;
  }
  RefVal v;
  v.space = r.space;
  v.element = stage.element;
  v.ptr = chain->base.ptr;
  v.sizes = stage.sizes;
  v.strides.assign(v.sizes.size(), nullptr);
  chain->stages.push_back(std::move(stage));
  v.chain = std::move(chain);
  return v;
}

}  // namespace

int UnitBits(const RefVal& r) {
  if (r.chain != nullptr) {
    int bits = UnitBits(r.chain->base);
    for (const RefStage& s : r.chain->stages) bits = std::min(bits, BitWidth(s.element));
    return bits;
  }
  int64_t units = 1;
  for (int j = r.rank() - r.pieces; j < r.rank(); ++j) units *= StaticInt(r.sizes[j]);
  return BitWidth(r.element) / static_cast<int>(units);
}

llvm::Value* Emitter::DimSize(const RefVal& r, int d) {
  if (r.chain != nullptr) return r.sizes[d];
  llvm::Value* n = I64(1);
  for (const Part& p : PartsOf(r, d)) n = b_.CreateMul(n, p.size);
  return n;
}

llvm::Value* Emitter::CheckAligned(llvm::Value* v, int64_t group, int dim, int site) {
  if (group <= 1) return v;
  llvm::Value* rem = b_.CreateURem(v, I64(group));
  ReportUnless(b_.CreateICmpEQ(rem, I64(0)),
               [&] { return std::vector<llvm::Value*>{I32(site), I32(SCJIT_BOUNDS_ALIGN), I32(dim), v, I64(group)}; });
  return b_.CreateSub(v, rem);
}

std::pair<llvm::Value*, llvm::Value*> Emitter::SliceBounds(const IndexEntry& e, llvm::Value* size, int d, int site) {
  if (e.kind == IndexEntry::Kind::kRange) {
    llvm::Value* start = I64(e.lo.value_or(0));
    return {start, b_.CreateSub(e.hi ? I64(*e.hi) : size, start)};
  }
  llvm::Value* start = b_.CreateSExt(ValueOf(e.start), b_.getInt64Ty());
  llvm::Value* n = b_.CreateSExt(ValueOf(e.size), b_.getInt64Ty());
  if (!e.size.is_literal()) n = CheckIndex(n, b_.CreateAdd(size, I64(1)), SCJIT_BOUNDS_SLICE_SIZE, d, site);
  start = CheckIndex(start, b_.CreateSub(size, b_.CreateSub(n, I64(1))), SCJIT_BOUNDS_SLICE_START, d, site);
  return {start, n};
}

bool Emitter::NeedsChain(const RefVal& r, const Operand& o) {
  if (r.chain != nullptr) return true;
  for (int d = 0; d < r.dims() && d < static_cast<int>(o.index.size()); ++d) {
    const IndexEntry& e = o.index[d];
    if (r.span(d) < 2 || (e.kind != IndexEntry::Kind::kSlice && e.kind != IndexEntry::Kind::kRange)) continue;
    int64_t s = -1, count = -1;
    if (e.kind == IndexEntry::Kind::kRange) {
      int64_t total = StaticInt(DimSize(r, d));
      s = e.lo.value_or(0);
      count = e.hi ? *e.hi - s : total >= 0 ? total - s : -1;
    } else {
      if (e.start.is_literal()) s = e.start.int_value;
      if (e.size.is_literal()) count = e.size.int_value;
    }
    if (Straddles(PartsOf(r, d), s, count)) return true;
  }
  return false;
}

absl::StatusOr<RefVal> Emitter::ChainView(const Op& op, const Operand& o, const RefVal& r, int site) {
  RefStage stage{RefStage::Kind::kIndex, r.element, {}, {}, {}};
  for (int d = 0; d < r.dims(); ++d) {
    const IndexEntry* e = d < static_cast<int>(o.index.size()) ? &o.index[d] : nullptr;
    llvm::Value* size = DimSize(r, d);
    if (e == nullptr || e->kind == IndexEntry::Kind::kAll) {
      stage.starts.push_back(I64(0));
      stage.kept.push_back(static_cast<int>(stage.sizes.size()));
      stage.sizes.push_back(size);
      continue;
    }
    switch (e->kind) {
      case IndexEntry::Kind::kIndex:
        stage.starts.push_back(
            CheckIndex(b_.CreateSExt(ValueOf(e->start), b_.getInt64Ty()), size, SCJIT_BOUNDS_INDEX, d, site));
        stage.kept.push_back(-1);
        break;
      case IndexEntry::Kind::kSlice:
      case IndexEntry::Kind::kRange: {
        // Strided slices of refs are XF-1 (views, DMAs, gathers), GET-3 and
        // SWAP-2 (get, swap and the masked forms): no checked kernel has one.
        if (e->stride && e->stride->int_value != 1) {
          return Unsupported(kernel_, op, "strided slices of a view made by view_bitcast or view_reshape");
        }
        auto [start, n] = SliceBounds(*e, size, d, site);
        stage.starts.push_back(start);
        stage.kept.push_back(static_cast<int>(stage.sizes.size()));
        stage.sizes.push_back(n);
        break;
      }
      default:
        // idx(...) lists are the indirect DMAs' (their emitter takes plain views).
        return Unsupported(kernel_, op, "an idx(...) list on a view that strides do not describe");
    }
  }
  return Chained(r, std::move(stage));
}

absl::Status Emitter::IndexGroup(const Op& op, const RefVal& r, int d, const IndexEntry* e, int site, RefVal* out,
                                 std::vector<int>* spans, llvm::Value** offset) {
  auto keep = [&](const std::vector<Part>& parts) {
    for (const Part& p : parts) {
      out->sizes.push_back(p.size);
      out->strides.push_back(p.stride);
    }
    spans->push_back(static_cast<int>(parts.size()));
  };
  auto advance = [&](llvm::Value* index, llvm::Value* stride) {
    *offset = b_.CreateAdd(*offset, b_.CreateMul(index, stride));
  };
  std::vector<Part> parts = PartsOf(r, d);
  if (e == nullptr || e->kind == IndexEntry::Kind::kAll) {
    keep(parts);
    return absl::OkStatus();
  }
  llvm::Value* total = DimSize(r, d);
  switch (e->kind) {
    case IndexEntry::Kind::kIndex: {
      llvm::Value* i = CheckIndex(b_.CreateSExt(ValueOf(e->start), b_.getInt64Ty()), total, SCJIT_BOUNDS_INDEX, d, site);
      for (size_t j = parts.size() - 1; j > 0; --j) {
        advance(b_.CreateURem(i, parts[j].size), parts[j].stride);
        i = b_.CreateUDiv(i, parts[j].size);
      }
      advance(i, parts[0].stride);
      return absl::OkStatus();
    }
    case IndexEntry::Kind::kSlice:
    case IndexEntry::Kind::kRange:
      break;
    default:
      // idx(...) lists are the indirect DMAs' (their emitter takes plain views).
      return Unsupported(kernel_, op, "an idx(...) list on a dimension made by view_bitcast or view_reshape");
  }
  // Strided slices of refs are XF-1, GET-3 and SWAP-2: no checked kernel has one.
  if (e->stride && e->stride->int_value != 1) {
    return Unsupported(kernel_, op, "strided slices of a dimension made by view_bitcast or view_reshape");
  }
  auto [start, n] = SliceBounds(*e, total, d, site);
  // A slice holds whole groups of the inner parts (then it slices the outer
  // part), or lies within one group (then it fixes the outer part and slices
  // the inner ones); any other static slice made View a chain (NeedsChain). A
  // dynamic start of whole groups must be a multiple of the group: checked here.
  while (parts.size() > 1) {
    int64_t inner = Inner(parts), s = StaticInt(start), count = StaticInt(n);
    if (s >= 0 && count > 0 && s / inner == (s + count - 1) / inner && (s % inner != 0 || count % inner != 0)) {
      advance(I64(s / inner), parts[0].stride);
      parts.erase(parts.begin());
      start = I64(s % inner);
      continue;
    }
    start = CheckAligned(start, inner, d, site);
    if (count < 0) n = CheckAligned(n, inner, d, site);
    advance(b_.CreateUDiv(start, I64(inner)), parts[0].stride);
    parts[0].size = b_.CreateUDiv(n, I64(inner));
    keep(parts);
    return absl::OkStatus();
  }
  advance(start, parts[0].stride);
  keep({{n, parts[0].stride}});
  return absl::OkStatus();
}

void Emitter::ToUnits(RefVal* r, int bits) {
  int per = UnitBits(*r) / bits;
  if (per > 1) {
    for (llvm::Value*& s : r->strides) s = b_.CreateMul(s, I64(per));
    r->sizes.push_back(I64(per));
    r->strides.push_back(I64(1));
  }
  if (r->pieces > 0 || per > 1) r->element = IntOfBits(bits);
  r->pieces = 0;
  r->spans.clear();
}

absl::Status Emitter::MatchDims(const Op& op, RefVal* a, RefVal* b, int site, bool* runs) {
  *runs = a->chain != nullptr || b->chain != nullptr;
  if (*runs || (a->spans.empty() && b->spans.empty() && a->pieces == 0 && b->pieces == 0)) return absl::OkStatus();
  const RefVal a0 = *a, b0 = *b;
  auto fall_back = [&] {  // to a DMA per run (emit_view_access.cc)
    *a = a0;
    *b = b0;
    *runs = true;
    return absl::OkStatus();
  };
  if (a->pieces > 0 || b->pieces > 0) {
    // Both sides as units, the pieces of an element its innermost dimension.
    // (An add moves whole elements of units: an add DMA has an idx(...) list,
    // DMA-13, and IndirectInUnits makes its descriptor say so.)
    int bits = std::min(UnitBits(*a), UnitBits(*b));
    ToUnits(a, bits);
    ToUnits(b, bits);
  }
  auto squeezed = [](const RefVal& r) {
    std::vector<Part> parts;
    for (int j = 0; j < r.rank(); ++j) {
      if (StaticInt(r.sizes[j]) != 1) parts.push_back({r.sizes[j], r.strides[j]});
    }
    return parts;
  };
  std::vector<Part> x = squeezed(*a), y = squeezed(*b), mx, my;  // mx, my: inner first
  // Splits the innermost part of `p` so that its inner piece has `size` elements.
  auto split = [&](std::vector<Part>& p, int64_t size) {
    Part& outer = p.back();
    Part inner{I64(size), outer.stride};
    outer.size = b_.CreateUDiv(CheckAligned(outer.size, size, static_cast<int>(p.size()) - 1, site), I64(size));
    outer.stride = b_.CreateMul(outer.stride, I64(size));
    return inner;
  };
  while (!x.empty() && !y.empty()) {
    int64_t sx = StaticInt(x.back().size), sy = StaticInt(y.back().size);
    if (x.back().size == y.back().size || (sx < 0 && sy < 0)) {
      mx.push_back(x.back());
      my.push_back(y.back());
      x.pop_back();
      y.pop_back();
    } else if (sy > 0 && (sx < 0 || sx % sy == 0)) {
      mx.push_back(split(x, sy));
      my.push_back(y.back());
      y.pop_back();
    } else if (sx > 0 && (sy < 0 || sy % sx == 0)) {
      my.push_back(split(y, sx));
      mx.push_back(x.back());
      x.pop_back();
    } else {
      return fall_back();  // dimensions that do not divide each other
    }
  }
  // Whatever is left makes the shapes differ: the runtime reports it.
  for (auto [rest, matched, r] : {std::tuple{&x, &mx, a}, std::tuple{&y, &my, b}}) {
    std::vector<Part> all(rest->begin(), rest->end());
    all.insert(all.end(), matched->rbegin(), matched->rend());
    if (all.size() > SCJIT_MAX_RANK) return fall_back();
    r->sizes.clear();
    r->strides.clear();
    r->spans.clear();
    for (const Part& p : all) {
      r->sizes.push_back(p.size);
      r->strides.push_back(p.stride);
    }
  }
  return absl::OkStatus();
}

std::optional<RefVal> Emitter::StridedBitcast(const RefVal& r, ElementType to_type) {
  Layout l = LayoutOf(r);
  int from = BitWidth(r.element), to = BitWidth(to_type), unit = UnitBits(r);
  auto scale = [&](int64_t mul, int64_t div) {
    auto rescale = [&](Part& p) { p.stride = b_.CreateUDiv(b_.CreateMul(p.stride, I64(mul)), I64(div)); };
    for (Part& p : l.pieces) rescale(p);
    for (auto& parts : l.dims) {
      for (Part& p : parts) rescale(p);
    }
  };
  std::vector<Part>& rows = l.dims[l.dims.size() - 2];  // XF-2 makes the view 2-D at least
  if (from > to && to <= unit) {
    // Each unit becomes `per` narrower ones; the pieces of an element, now
    // elements, count along the rows: y[r*k + j] with j = piece * per + sub.
    int64_t per = unit / to;
    scale(per, 1);
    rows.insert(rows.end(), l.pieces.begin(), l.pieces.end());
    if (per > 1) rows.push_back({I64(per), I64(1)});
    l.pieces.clear();
  } else if (from > to) {
    // The new elements are still several units: the outer pieces count along
    // the rows, the inner ones make the new element.
    auto [outer, inner] = SplitParts(b_, l.pieces, to / unit);
    rows.insert(rows.end(), outer.begin(), outer.end());
    l.pieces = inner;
  } else if (from < to) {
    // k consecutive rows make a row of wide elements: the innermost part of the
    // rows splits into (rows / k, k), and k is the outermost piece.
    int64_t k = to / from;
    if (rows.size() > 1 && StaticInt(rows.back().size) == 1) rows.pop_back();
    Part& last = rows.back();
    int64_t size = StaticInt(last.size);
    if (size <= 0 || size % k != 0) return std::nullopt;  // the pieces are not equally spaced
    l.pieces.insert(l.pieces.begin(), Part{I64(k), last.stride});
    last = {I64(size / k), b_.CreateMul(last.stride, I64(k))};
    if (size == k && rows.size() > 1) rows.pop_back();
    // Adjacent units in the order of their bits make a plain element, when
    // every other stride counts whole elements.
    int64_t units = 1;
    bool adjacent = true;
    for (auto p = l.pieces.rbegin(); p != l.pieces.rend(); ++p) {
      adjacent = adjacent && (StaticInt(p->size) == 1 || StaticInt(p->stride) == units);
      units *= StaticInt(p->size);
    }
    for (const auto& parts : l.dims) {
      for (const Part& p : parts) adjacent = adjacent && StaticInt(p.stride) >= 0 && StaticInt(p.stride) % units == 0;
    }
    if (adjacent) {
      l.pieces.clear();
      scale(1, units);
    }
  }
  return Build(r, to_type, l);
}

std::optional<RefVal> Emitter::StridedReshape(const RefVal& r, const Type& out) {
  // The physical dimensions (but the pieces), size 1 dropped and contiguous
  // neighbours merged, regrouped from the minor end into the new shape.
  std::vector<std::pair<int64_t, int64_t>> phys;  // (size, stride), static
  for (int j = 0; j < r.rank() - r.pieces; ++j) {
    int64_t size = StaticInt(r.sizes[j]), stride = StaticInt(r.strides[j]);
    if (size < 0 || stride < 0) return std::nullopt;  // a select_ref's: chosen at run time
    if (size == 0) phys.clear();
    if (size == 0) break;
    if (size == 1) continue;
    if (!phys.empty() && phys.back().second == stride * size) {
      phys.back() = {phys.back().first * size, stride};
    } else {
      phys.push_back({size, stride});
    }
  }
  Layout l = LayoutOf(r);
  l.dims.assign(out.rank(), {});
  for (int d = out.rank() - 1; d >= 0; --d) {
    int64_t n = out.shape()[d];
    while (n > 1 && !phys.empty()) {
      auto& [size, stride] = phys.back();
      if (size % n == 0) {
        l.dims[d].insert(l.dims[d].begin(), Part{I64(n), I64(stride)});
        size /= n;
        stride *= n;
        if (size == 1) phys.pop_back();
        n = 1;
      } else if (n % size == 0) {
        l.dims[d].insert(l.dims[d].begin(), Part{I64(size), I64(stride)});
        n /= size;
        phys.pop_back();
      } else {
        return std::nullopt;  // a strided ref whose dimensions do not divide the new shape
      }
    }
    if (l.dims[d].empty() || n > 1) l.dims[d].insert(l.dims[d].begin(), Part{I64(n), I64(1)});
  }
  return Build(r, r.element, l);
}

// plsc.slice_subcore_vmem_from_shared: subcore s sees columns [s*n, (s+1)*n)
// of the shared ref's minor dimension. The view stays in VMEM_SHARED's memory
// (its DMAs are shared ones); its loads and stores are not in the arenas the
// race and init checks watch (docs/runtime.md).
absl::Status Emitter::EmitSubcoreSlice(const Op& op) {
  RefVal r = *BaseRef(op.operands[0].value);
  if (r.semaphore || r.reinterpreted() || !r.spans.empty() || r.indices || r.rank() == 0) {
    return Unsupported(kernel_, op, "view_subcore_slice of a view_bitcast, view_reshape or idx(...) view");
  }
  int last = r.rank() - 1;
  int64_t n = op.results[0]->type.shape().back();
  llvm::Value* subcore = b_.CreateZExt(Ctx(CtxField::kSubcore), b_.getInt64Ty());
  llvm::Value* offset = b_.CreateMul(b_.CreateMul(subcore, I64(n)), r.strides[last]);
  RefVal v = r;
  v.sizes[last] = I64(n);
  v.ptr = Address(r, offset);
  vals_[op.results[0]].ref = std::make_shared<RefVal>(std::move(v));
  return absl::OkStatus();
}

absl::Status Emitter::EmitRefView(const Op& op) {
  if (op.kind == OpKind::kViewSubcoreSlice) return EmitSubcoreSlice(op);
  RefVal r = *BaseRef(op.operands[0].value);
  const Type& in = op.operands[0].value->type;
  const Type& out = op.results[0]->type;
  auto mismatch = [&](std::string_view what) {
    return absl::InvalidArgumentError(Cat(op.name(), " at line ", op.loc.line, " of kernel @", kernel_.name, ": ",
                                          in.ToString(), " ", what, " ", out.ToString()));
  };
  // The verifier gives both a data ref type (semaphores are not refs there).
  if (r.semaphore) return Unsupported(kernel_, op, Cat(op.name(), " of semaphores"));
  bool bitcast = op.kind == OpKind::kViewBitcast;
  if (bitcast && (IsInt4(in.element()) || IsInt4(out.element()))) return Int4BitcastUnsupported(kernel_, op, in, out);
  if (bitcast && BitWidth(r.element) != BitWidth(out.element()) && r.dims() < 2) {
    return mismatch("is 1-D, so no bitcast to another width gives (XF-2)");
  }
  if (!bitcast && in.NumElements() != out.NumElements()) return mismatch("has another element count than (XF-8)");
  std::optional<RefVal> v;
  if (r.chain == nullptr) v = bitcast ? StridedBitcast(r, out.element()) : StridedReshape(r, out);
  if (!v) {
    RefStage stage{bitcast ? RefStage::Kind::kBitcast : RefStage::Kind::kReshape, out.element(), {}, {}, {}};
    for (int64_t n : out.shape()) stage.sizes.push_back(n == kDynamic ? nullptr : I64(n));
    if (bitcast) {  // dimensions the view keeps may be dynamic (a ds(%i, %n) view)
      int rows = out.rank() - 2, from = BitWidth(r.element), to = BitWidth(out.element());
      for (int d = 0; d < out.rank(); ++d) {
        if (stage.sizes[d] == nullptr || d == rows) stage.sizes[d] = DimSize(r, d);
      }
      stage.sizes[rows] = b_.CreateUDiv(b_.CreateMul(stage.sizes[rows], I64(from)), I64(to));
    }
    v = Chained(r, std::move(stage));
  }
  if (out.rank() != v->dims()) return mismatch("is not viewed as (XF-4, XF-8)");
  for (int d = 0; d < out.rank(); ++d) {
    int64_t size = StaticInt(DimSize(*v, d));
    if (out.shape()[d] != kDynamic && size >= 0 && size != out.shape()[d]) return mismatch("is not viewed as (XF-4, XF-8)");
  }
  vals_[op.results[0]].ref = std::make_shared<RefVal>(*std::move(v));
  return absl::OkStatus();
}

}  // namespace scjit::emit
