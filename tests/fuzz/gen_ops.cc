// The value ops of generated kernels: one emitter per form of gen_ops.def.
#include <optional>
#include <string>
#include <vector>

#include "tests/fuzz/gen_builder.h"

namespace scjit::fuzz {
namespace {

struct OpRow;
using Form = bool (*)(Builder&, const OpRow&);
struct OpRow {
  const char* name;
  Form form;
  ESet types;
  unsigned shapes;
  int weight;
};

std::string Result(Builder& b, VType t) {
  std::string r = b.Fresh();
  b.Define(r, t);
  return r;
}

// An operand of t, sometimes a literal (broadcast to a vector, language.md §6).
std::string OperandOrLiteral(Builder& b, VType t, const char* op) {
  if (IsBool(t.e) || !b.rng().Chance(15)) return b.Get(t);
  std::string_view name = op;
  if (name == "shl" || name == "shr") return absl::StrCat(b.rng().Below(Info(t.e).bits + 3));
  return b.Literal(t.e);
}

std::string MaybeMask(Builder& b, int n) {
  if (!b.rng().Chance(40)) return "";
  return absl::StrCat(" mask ", b.Get(VType{E::kI1, n}));
}

bool Binary(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  std::string x = b.Get(*t), y = OperandOrLiteral(b, *t, op.name);
  b.Line(Result(b, *t), " = ", op.name, " ", x, ", ", y, " : ", t->Text());
  return true;
}

bool Unary(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  std::string x = b.Get(*t);
  b.Line(Result(b, *t), " = ", op.name, " ", x, " : ", t->Text());
  return true;
}

bool Clamp(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  std::string lo = b.Get(*t), x = b.Get(*t), hi = b.Get(*t);
  b.Line(Result(b, *t), " = clamp ", lo, ", ", x, ", ", hi, " : ", t->Text());
  return true;
}

bool Cmp(Builder& b, const OpRow& op) {
  static const char* kPreds[] = {"eq", "ne", "lt", "le", "gt", "ge"};
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  std::string x = b.Get(*t), y = OperandOrLiteral(b, *t, "cmp");
  VType r{E::kI1, t->n};
  b.Line(Result(b, r), " = cmp ", kPreds[b.rng().Below(6)], " ", x, ", ", y, " : ", r.Text());
  return true;
}

bool Select(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  VType cond{E::kI1, t->scalar() || b.rng().Chance(25) ? 0 : t->n};
  std::string c = b.Get(cond), x = OperandOrLiteral(b, *t, "select"), y = b.Get(*t);
  b.Line(Result(b, *t), " = select ", c, ", ", x, ", ", y, " : ", t->Text());
  return true;
}

bool Convert(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  std::vector<VType> from;
  for (const Val& v : b.pool()) {
    if (v.t.n == t->n && ConvertLegal(v.t.e, t->e)) from.push_back(v.t);
  }
  if (from.empty() || b.rng().Chance(30)) {
    for (int i = 0; i < static_cast<int>(E::kCount); ++i) {
      E e = static_cast<E>(i);
      if (In(e, b.options().types) && ConvertLegal(e, t->e) && (!t->scalar() || Is32(e) || IsBool(e))) {
        from.push_back(VType{e, t->n});
      }
    }
  }
  if (from.empty()) return false;
  std::string x = b.Get(b.rng().Pick(from));
  b.Line(Result(b, *t), " = convert ", x, " : ", t->Text());
  return true;
}

bool Bitcast(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  std::vector<VType> to;
  for (int i = 0; i < static_cast<int>(E::kCount); ++i) {
    E e = static_cast<E>(i);
    if (e == t->e || !In(e, op.types & b.options().types)) continue;
    int from_bits = Info(t->e).bits, to_bits = Info(e).bits;
    if (t->scalar()) {
      if (from_bits == to_bits && Is32(e)) to.push_back(VType{e, 0});
    } else if ((t->n * from_bits) % to_bits == 0) {
      to.push_back(VType{e, t->n * from_bits / to_bits});
    }
  }
  if (to.empty()) return false;
  std::string x = b.Get(*t);
  if (IsFloat(t->e)) {
    // Which NaN an op makes is unspecified (language.md, "Floats"); a bitcast
    // would show its bits as numbers: NaNs become 0 first.
    // (Compares are ordered: `eq` is false exactly for a NaN.)
    std::string number = b.Fresh(), zero = b.Fresh(), clean = b.Fresh();
    b.Line(number, " = cmp eq ", x, ", ", x, " : ", VType{E::kI1, t->n}.Text());
    b.Line(zero, " = const ", t->scalar() ? "0.0" : "dense<0.0>", " : ", t->Text());
    b.Line(clean, " = select ", number, ", ", x, ", ", zero, " : ", t->Text());
    x = clean;
  }
  VType r = b.rng().Pick(to);
  b.Line(Result(b, r), " = bitcast ", x, " : ", r.Text());
  return true;
}

bool Broadcast(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  std::string s = b.Get(VType{t->e, 0});
  b.Line(Result(b, *t), " = broadcast ", s, " : ", t->Text());
  return true;
}

bool Iota(Builder& b, const OpRow&) {
  VType t{E::kI32, b.lanes()};
  b.Line(Result(b, t), " = iota : ", t.Text());
  return true;
}

bool Extract(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  std::string v = b.Get(*t), i = b.Index(t->n);
  VType r{t->e, 0};
  b.Line(Result(b, r), " = extract ", v, "[", i, "] : ", r.Text());
  return true;
}

bool Insert(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  std::string s = b.Get(VType{t->e, 0}), v = b.Get(*t), i = b.Index(t->n);
  b.Line(Result(b, *t), " = insert ", s, ", ", v, "[", i, "] : ", t->Text());
  return true;
}

bool Rev(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  std::string v = b.Get(*t);
  b.Line(Result(b, *t), " = rev ", v, " {axis = 0} : ", t->Text());
  return true;
}

bool Gather(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  std::string v = b.Get(*t), idx = b.Get(VType{E::kI32, t->n});
  b.Line(Result(b, *t), " = gather ", v, ", ", idx, " {axis = 0} : ", t->Text());
  return true;
}

// A vector of `op.types` whose half is a generated length too, or nullopt.
std::optional<VType> Halvable(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t || t->n % 2 != 0 || !GeneratedLength(b, t->e, t->n / 2)) return std::nullopt;
  return t;
}

// One half of a vector, by a static value slice.
bool Slice(Builder& b, const OpRow& op) {
  auto t = Halvable(b, op);
  if (!t) return false;
  int h = t->n / 2, at = b.rng().Chance(50) ? 0 : h;
  std::string v = b.Get(*t);
  VType r{t->e, h};
  b.Line(Result(b, r), " = slice ", v, "[", at, ":", at + h, "] : ", r.Text());
  return true;
}

// Two vectors (or one twice) joined.
bool Concat(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t || !GeneratedLength(b, t->e, 2 * t->n)) return false;
  std::string x = b.Get(*t), y = b.Get(*t);
  VType r{t->e, 2 * t->n};
  b.Line(Result(b, r), " = concat ", x, ", ", y, " {axis = 0} : ", r.Text());
  return true;
}

// A rank-2 value on the way: a vector reshaped to two rows, one row sliced
// (with the minor dimension whole, or as `:`), reshaped back to rank 1.
bool Regroup(Builder& b, const OpRow& op) {
  auto t = Halvable(b, op);
  if (!t) return false;
  int h = t->n / 2, row = b.rng().Below(2);
  std::string v = b.Get(*t), grid = b.Fresh(), picked = b.Fresh();
  std::string e = VType{t->e, 0}.Text();
  b.Line(grid, " = reshape ", v, " : vector<2x", h, "x", e, ">");
  std::string minor = b.rng().Chance(50) ? ":" : absl::StrCat("0:", h);
  b.Line(picked, " = slice ", grid, "[", row, ":", row + 1, ", ", minor, "] : vector<1x", h, "x", e, ">");
  VType r{t->e, h};
  b.Line(Result(b, r), " = reshape ", picked, " : ", r.Text());
  return true;
}

bool Reduce(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  std::string v = b.Get(*t);
  VType r{t->e, 0};
  b.Line(Result(b, r), " = ", op.name, " ", v, " : ", r.Text());
  return true;
}

bool Scan(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  std::string v = b.Get(*t), mask = MaybeMask(b, t->n);
  b.Line(Result(b, *t), " = ", op.name, " ", v, mask, " : ", t->Text());
  return true;
}

bool ScanCount(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  std::string v = b.Get(*t), mask = MaybeMask(b, t->n);
  VType count{E::kI32, t->n}, last{E::kI1, t->n};
  std::string c = Result(b, count), l = Result(b, last);
  b.Line(c, ", ", l, " = scan_count ", v, mask, " : ", count.Text(), ", ", last.Text());
  return true;
}

bool MaskAll(Builder& b, const OpRow& op) {
  VType m{E::kI1, b.lanes()};
  std::string v = b.Get(m);
  int log = 0;
  while ((2 << log) <= b.lanes()) ++log;
  int reduce = 1 << b.rng().Below(log + 1);
  VType r{E::kI32, b.lanes() / reduce};
  b.Line(Result(b, r), " = ", op.name, " ", v, " {reduce = ", reduce, "} : ", r.Text());
  return true;
}

bool SortKeyVal(Builder& b, const OpRow& op) {
  auto k = b.ChooseType(op.types, op.shapes);
  auto v = b.ChooseType(op.types, op.shapes);
  if (!k || !v) return false;
  std::string keys = b.Get(*k), vals = b.Get(*v), mask = MaybeMask(b, k->n);
  std::string attrs = b.rng().Chance(50) ? " {descending = true}" : "";
  std::string rk = Result(b, *k), rv = Result(b, *v);
  std::string results = absl::StrCat(rk, ", ", rv), types = absl::StrCat(k->Text(), ", ", v->Text());
  if (!mask.empty()) {
    VType m{E::kI1, k->n};
    absl::StrAppend(&results, ", ", Result(b, m));
    absl::StrAppend(&types, ", ", m.Text());
  }
  b.Line(results, " = sort_key_val ", keys, ", ", vals, mask, attrs, " : ", types);
  return true;
}

bool Sort(Builder& b, const OpRow& op) {
  auto k = b.ChooseType(op.types, op.shapes);
  if (!k) return false;
  std::string keys = b.Get(*k);
  if (b.rng().Chance(50)) {
    b.Line(Result(b, *k), " = sort ", keys, " : ", k->Text());
    return true;
  }
  auto v = b.ChooseType(op.types, op.shapes);
  if (!v) return false;
  std::string vals = b.Get(*v);
  std::string rk = Result(b, *k), rv = Result(b, *v);
  b.Line(rk, ", ", rv, " = sort ", keys, ", ", vals, " : ", k->Text(), ", ", v->Text());
  return true;
}

// plsc.pack: two 32-bit vectors to one of half width, interleaved (2N,); or
// compressed (N, 2) and unpacked again at once (rank-2 values are not kept).
bool Pack(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t) return false;
  E half = t->e == E::kF32 ? E::kBF16 : E::kI16;
  if (!In(half, b.options().types)) return false;
  std::string x = b.Get(*t), y = b.Get(*t);
  if (b.rng().Chance(70)) {
    VType r{half, 2 * t->n};
    b.Line(Result(b, r), " = pack ", x, ", ", y, " {format = \"interleaved\"} : ", r.Text());
    return true;
  }
  std::string packed = b.Fresh("pk");
  b.Line(packed, " = pack ", x, ", ", y, " {format = \"compressed\"} : vector<", t->n, "x2x", Info(half).name, ">");
  std::string ra = Result(b, *t), rb = Result(b, *t);
  b.Line(ra, ", ", rb, " = unpack ", packed, " {format = \"compressed\"} : ", t->Text(), ", ", t->Text());
  return true;
}

// plsc.unpack of an interleaved 16-bit vector (an even length) to two of double width.
bool Unpack(Builder& b, const OpRow& op) {
  auto t = b.ChooseType(op.types, op.shapes);
  if (!t || t->n % 2 != 0) return false;
  VType wide{t->e == E::kBF16 ? E::kF32 : E::kI32, t->n / 2};
  if (!In(wide.e, b.options().types)) return false;
  std::string v = b.Get(*t), ra = Result(b, wide), rb = Result(b, wide);
  b.Line(ra, ", ", rb, " = unpack ", v, " {format = \"interleaved\"} : ", wide.Text(), ", ", wide.Text());
  return true;
}

constexpr OpRow kOps[] = {
#define GEN_OP(name, Form, types, shapes, weight) {#name, &Form, types, shapes, weight},
#include "tests/fuzz/gen_ops.def"
};

}  // namespace

bool EmitValueOp(Builder& b) {
  int total = 0;
  for (const OpRow& op : kOps) total += op.weight;
  for (int attempt = 0; attempt < 8; ++attempt) {
    int pick = b.rng().Below(total);
    for (const OpRow& op : kOps) {
      if ((pick -= op.weight) >= 0) continue;
      if (op.form(b, op)) return true;
      break;
    }
  }
  return false;
}

}  // namespace scjit::fuzz
