// Views that reinterpret a ref (kernel-ir.md §4.2; sc-semantics.md §2.2):
// view_bitcast and view_reshape, and indexing the dimensions they make.
//
// Such a view is still a strided view of the same bytes, but one of its
// dimensions may span several physical ones (RefVal::spans), read as a
// mixed-radix index. A bitcast to an element k times narrower keeps the shape
// but for the second-minor dimension, which grows k-fold with the logical
// mapping of sc-semantics.md §2.2: y[r*k + j, c] is the j-th little-endian piece
// of x[r, c]. In x's bytes that is dimension r split into physical (r, j) with
// strides (k * stride_r, 1), the other strides scaled by k. Widening is the
// inverse, possible when the k pieces of each wide element are adjacent (the
// ref was narrowed before). A reshape regroups the physical dimensions; any
// reshape of a contiguous ref is a view.
#include "lowering/emitter.h"
#include "llvm/IR/Constants.h"
#include "runtime/abi.h"

namespace scjit::emit {
namespace {

struct Part {
  llvm::Value* size;    // i64
  llvm::Value* stride;  // i64, elements
};

// A constant's value, or -1.
int64_t Static(llvm::Value* v) {
  auto* c = llvm::dyn_cast<llvm::ConstantInt>(v);
  return c != nullptr ? c->getSExtValue() : -1;
}

std::vector<Part> PartsOf(const RefVal& r, int d) {
  std::vector<Part> parts;
  for (int j = r.first(d); j < r.first(d) + r.span(d); ++j) parts.push_back({r.sizes[j], r.strides[j]});
  return parts;
}

// The product of the sizes of parts[1...] (static by construction).
int64_t Inner(const std::vector<Part>& parts) {
  int64_t n = 1;
  for (size_t j = 1; j < parts.size(); ++j) n *= Static(parts[j].size);
  return n;
}

}  // namespace

llvm::Value* Emitter::DimSize(const RefVal& r, int d) {
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
      return Unsupported(kernel_, op, "indirect indices into a view_bitcast or view_reshape");
  }
  llvm::Value *start, *n;
  if (e->kind == IndexEntry::Kind::kRange) {
    start = I64(e->lo.value_or(0));
    n = b_.CreateSub(e->hi ? I64(*e->hi) : total, start);
  } else {
    if (e->stride && e->stride->int_value != 1) {
      return Unsupported(kernel_, op, "strided slices of a dimension made by view_bitcast or view_reshape");
    }
    start = b_.CreateSExt(ValueOf(e->start), b_.getInt64Ty());
    n = b_.CreateSExt(ValueOf(e->size), b_.getInt64Ty());
    if (!e->size.is_literal()) n = CheckIndex(n, b_.CreateAdd(total, I64(1)), SCJIT_BOUNDS_SLICE_SIZE, d, site);
    start = CheckIndex(start, b_.CreateSub(total, b_.CreateSub(n, I64(1))), SCJIT_BOUNDS_SLICE_START, d, site);
  }
  // A slice holds whole groups of the inner parts (then it slices the outer
  // part), or lies within one group (then it fixes the outer part and slices
  // the inner ones).
  while (parts.size() > 1) {
    int64_t inner = Inner(parts), s = Static(start), count = Static(n);
    if (s >= 0 && count > 0 && s / inner == (s + count - 1) / inner && (s % inner != 0 || count % inner != 0)) {
      advance(I64(s / inner), parts[0].stride);
      parts.erase(parts.begin());
      start = I64(s % inner);
      continue;
    }
    if ((s >= 0 && s % inner != 0) || (count >= 0 && count % inner != 0)) {
      return Unsupported(kernel_, op,
                         Cat("a slice [", s, ", ", s + count, ") of a dimension that a view_bitcast or view_reshape",
                             " makes of groups of ", inner, " (a slice must hold whole groups or lie within one)"));
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

absl::Status Emitter::MatchDims(const Op& op, RefVal* a, RefVal* b, int site) {
  if (a->spans.empty() && b->spans.empty()) return absl::OkStatus();
  auto squeezed = [](const RefVal& r) {
    std::vector<Part> parts;
    for (int j = 0; j < r.rank(); ++j) {
      if (Static(r.sizes[j]) != 1) parts.push_back({r.sizes[j], r.strides[j]});
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
    int64_t sx = Static(x.back().size), sy = Static(y.back().size);
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
      return Unsupported(kernel_, op, "a DMA between views whose dimensions do not divide each other");
    }
  }
  // Whatever is left makes the shapes differ: the runtime reports it.
  for (auto [rest, matched, r] : {std::tuple{&x, &mx, a}, std::tuple{&y, &my, b}}) {
    std::vector<Part> all(rest->begin(), rest->end());
    all.insert(all.end(), matched->rbegin(), matched->rend());
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

absl::Status Emitter::EmitRefView(const Op& op) {
  RefVal r = *BaseRef(op.operands[0].value);
  const Type& out = op.results[0]->type;
  if (r.semaphore) return Unsupported(kernel_, op, Cat(op.name(), " of semaphores"));
  std::vector<std::vector<Part>> dims;  // the result's dimensions
  for (int d = 0; d < r.dims(); ++d) dims.push_back(PartsOf(r, d));
  if (op.kind == OpKind::kViewBitcast) {
    int from = BitWidth(r.element), to = BitWidth(out.element());
    if (from != to && r.dims() < 2) return Unsupported(kernel_, op, "view_bitcast of a 1-D ref to another width (XF-2)");
    auto scale = [&](int64_t mul, int64_t div) {
      for (auto& parts : dims) {
        for (Part& p : parts) p.stride = b_.CreateUDiv(b_.CreateMul(p.stride, I64(mul)), I64(div));
      }
    };
    if (from > to) {  // each element becomes k pieces, adjacent, along dimension -2
      int64_t k = from / to;
      scale(k, 1);
      dims[dims.size() - 2].push_back({I64(k), I64(1)});
    } else if (from < to) {  // k adjacent pieces become one element
      int64_t k = to / from;
      Part& pieces = dims[dims.size() - 2].back();
      bool adjacent = Static(pieces.stride) == 1 && Static(pieces.size) > 0 && Static(pieces.size) % k == 0;
      for (const auto& parts : dims) {
        for (const Part& p : parts) adjacent = adjacent && (&p == &pieces || (Static(p.stride) >= 0 && Static(p.stride) % k == 0));
      }
      if (!adjacent) {
        return Unsupported(kernel_, op,
                           Cat("view_bitcast from ", IrName(r.element), " to ", IrName(out.element()),
                               " of a ref whose rows are not packed in memory (only a ref narrowed by a view_bitcast is)"));
      }
      pieces.size = I64(Static(pieces.size) / k);
      pieces.stride = I64(k);  // scaled back to 1 below
      scale(1, k);
      auto& second = dims[dims.size() - 2];
      if (Static(second.back().size) == 1 && second.size() > 1) second.pop_back();
    }
  } else {
    // view_reshape: the physical dimensions, size 1 dropped and contiguous
    // neighbours merged, regrouped from the minor end into the new shape.
    if (op.operands[0].value->type.NumElements() != out.NumElements()) {
      return absl::InvalidArgumentError(Cat(op.name(), " at line ", op.loc.line, " of kernel @", kernel_.name, ": ",
                                            op.operands[0].value->type.ToString(), " has another element count than ",
                                            out.ToString(), " (XF-8)"));
    }
    std::vector<std::pair<int64_t, int64_t>> phys;  // (size, stride), static
    for (int j = 0; j < r.rank(); ++j) {
      int64_t size = Static(r.sizes[j]), stride = Static(r.strides[j]);
      if (size < 0 || stride < 0) return Unsupported(kernel_, op, "view_reshape of a ref of dynamic size");
      if (size == 0) phys.clear();
      if (size == 0) break;
      if (size == 1) continue;
      if (!phys.empty() && phys.back().second == stride * size) {
        phys.back() = {phys.back().first * size, stride};
      } else {
        phys.push_back({size, stride});
      }
    }
    dims.assign(out.rank(), {});
    for (int d = out.rank() - 1; d >= 0; --d) {
      int64_t n = out.shape()[d];
      while (n > 1 && !phys.empty()) {
        auto& [size, stride] = phys.back();
        if (size % n == 0) {
          dims[d].insert(dims[d].begin(), Part{I64(n), I64(stride)});
          size /= n;
          stride *= n;
          if (size == 1) phys.pop_back();
          n = 1;
        } else if (n % size == 0) {
          dims[d].insert(dims[d].begin(), Part{I64(size), I64(stride)});
          n /= size;
          phys.pop_back();
        } else {
          return Unsupported(kernel_, op, "view_reshape of a strided ref whose dimensions do not divide the new shape");
        }
      }
      if (dims[d].empty() || n > 1) dims[d].insert(dims[d].begin(), Part{I64(n), I64(1)});
    }
  }
  RefVal v;
  v.space = r.space;
  v.element = out.element();
  v.ptr = r.ptr;
  bool grouped = false;
  for (int d = 0; d < static_cast<int>(dims.size()); ++d) {
    for (const Part& p : dims[d]) {
      v.sizes.push_back(p.size);
      v.strides.push_back(p.stride);
    }
    v.spans.push_back(static_cast<int>(dims[d].size()));
    grouped = grouped || dims[d].size() > 1;
    if (out.rank() != static_cast<int>(dims.size()) || Static(DimSize(v, d)) != out.shape()[d]) {
      return absl::InvalidArgumentError(Cat(op.name(), " at line ", op.loc.line, " of kernel @", kernel_.name,
                                            ": the view of ", op.operands[0].value->type.ToString(), " is not ",
                                            out.ToString(), " (XF-4, XF-8)"));
    }
  }
  if (!grouped) v.spans.clear();
  vals_[op.results[0]].ref = std::make_shared<RefVal>(std::move(v));
  return absl::OkStatus();
}

}  // namespace scjit::emit
