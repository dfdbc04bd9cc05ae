// The statements of generated kernels: memory ops on the tables, DMAs, control
// flow, synchronization between subcores, and the epilogue that copies every
// result out. Value ops are gen_ops.cc's; the state is gen_builder.h's.
#include "tests/fuzz/kernel_gen.h"

#include <algorithm>
#include <deque>
#include <string>
#include <vector>

#include "absl/strings/str_join.h"
#include "tests/fuzz/gen_builder.h"

namespace scjit::fuzz {
namespace {

constexpr ESet kMemory = kNum;  // element types a ref may hold (not i1)

void Block(Builder& b, int count);

// A permutation of [0, n) (or, with duplicates, any rows in [0, n)) as a constant.
std::string RowList(Builder& b, int n, bool duplicates) {
  std::vector<int> rows(n);
  for (int i = 0; i < n; ++i) rows[i] = duplicates ? b.rng().Below(n) : i;
  for (int i = n - 1; i > 0 && !duplicates; --i) std::swap(rows[i], rows[b.rng().Below(i + 1)]);
  std::string list = b.Fresh("list");
  b.Line(list, " = const dense<[", absl::StrJoin(rows, ", "), "]> : vector<", n, "xi32>");
  return list;
}

// An L-lane i32 index vector with every lane in [0, bound), bound a power of two.
std::string LaneIndices(Builder& b, int bound) {
  std::string src;
  {
    Builder::Deciding deciding(b);
    src = b.Get(VType{E::kI32, b.lanes()});
  }
  std::string r = b.Fresh("li");
  b.Line(r, " = and ", src, ", ", bound - 1, " : vector<", b.lanes(), "xi32>");
  return r;
}

// An operand that decides something (a mask, a count): see Builder::Deciding.
std::string Decided(Builder& b, VType t) {
  Builder::Deciding deciding(b);
  return b.Get(t);
}

// A table of memory ops: a VMEM table's rows, or an SMEM table's words.
bool MemoryOp(Builder& b) {
  auto row = b.ChooseType(kMemory, kScalarOk | kVectorOk);
  if (!row) return false;
  Table* tab = b.TableOf(*row);
  if (tab == nullptr) return false;
  const Table t = *tab;
  std::string i = b.Index(t.rows), ref = absl::StrCat(t.buf, "[", i, "]");
  VType v = t.row;
  Rng& rng = b.rng();

  if (v.scalar()) {
    if (!b.writes_allowed()) return false;
    if (v.e == E::kI32 && rng.Chance(40)) {
      std::string d = Decided(b, v), old = b.Fresh();
      b.Line(old, " = fetch_and_add ", ref, ", ", d, " {subcore = ", b.subcore, "} : i32");
      b.ReadTable(t);
      b.Define(old, v);
    } else {
      b.Line("store ", ref, ", ", b.Get(v));
    }
    tab->written = true;
    b.WroteTable(tab);
    return true;
  }
  bool gs = (v.e == E::kI32 || v.e == E::kF32) && (v.n & (v.n - 1)) == 0;
  int form = rng.Below(gs ? 9 : 6);
  if (!b.writes_allowed() && form != 5 && form != 6) return false;
  VType mask{E::kI1, v.n}, lanes{v.e, b.lanes()};
  auto opt_mask = [&](int n) {
    return rng.Chance(50) ? absl::StrCat(" mask ", Decided(b, VType{E::kI1, n})) : std::string();
  };
  switch (form) {
    case 0: b.Line("store ", ref, ", ", b.Get(v)); break;
    case 1: {
      std::string x = b.Get(v), old = b.Fresh();
      b.Line(old, " = swap ", ref, ", ", x, " : ", v.Text());
      b.ReadTable(t);
      b.Define(old, v);
      break;
    }
    case 2: b.Line("addupdate ", ref, ", ", b.Get(v)); break;
    case 3: {
      std::string x = b.Get(v), m = Decided(b, mask);
      b.Line("store_compressed ", ref, ", ", x, " mask ", m);
      break;
    }
    case 4: {
      std::string x = b.Get(v), m = Decided(b, mask);
      b.Line("addupdate_compressed ", ref, ", ", x, " mask ", m);
      break;
    }
    case 5: {
      std::string m = Decided(b, mask), r = b.Fresh();
      b.Line(r, " = load_expanded ", ref, " mask ", m, " : ", v.Text());
      b.ReadTable(t);
      b.Define(r, v);
      return true;
    }
    case 6: {
      std::string r = b.Fresh();
      if (rng.Chance(50)) {
        std::string ci = LaneIndices(b, v.n), m = opt_mask(b.lanes());
        b.Line(r, " = load_gather ", ref, " [", ci, "]", m, " : ", lanes.Text());
      } else {
        std::string ri = LaneIndices(b, t.rows), ci = LaneIndices(b, v.n), m = opt_mask(b.lanes());
        b.Line(r, " = load_gather ", t.buf, "[:, :] [", ri, ", ", ci, "]", m, " : ", lanes.Text());
      }
      b.ReadTable(t);
      b.Define(r, lanes);
      return true;
    }
    default: {
      const char* op = form == 7 ? "store_scatter" : "addupdate_scatter";
      std::string ci = LaneIndices(b, v.n), x = b.Get(lanes), m = opt_mask(b.lanes());
      b.Line(op, " ", ref, " [", ci, "], ", x, m);
      break;
    }
  }
  tab->written = true;
  b.WroteTable(tab);
  return true;
}

// Views that reinterpret a VMEM table (view_bitcast, view_reshape: Pallas'
// ref.bitcast and ref.reshape): a bitcast to another integer type of the same
// width, a narrower one (the rows grow) or a wider one (they shrink), a
// narrowing and the widening back, or a reshape to 2 x rows/2 rows; then a row
// read, written or copied to another row through it. Integer tables only: a
// float's NaN bits are not the same on both engines, which a reinterpretation
// would show as integers.
bool ViewOp(Builder& b) {
  constexpr ESet kInts8to32 = kInts & ~(Bit(E::kI4) | Bit(E::kU4));
  auto row = b.ChooseType(kInts8to32, kVectorOk);
  if (!row) return false;
  Table* tab = b.TableOf(*row);
  if (tab == nullptr) return false;
  const Table t = *tab;
  Rng& rng = b.rng();
  const int bits = Info(t.row.e).bits, n = t.row.n;
  std::string view = b.Fresh("rv");
  VType vrow = t.row;
  std::vector<int64_t> shape;  // the view's, but the row
  switch (rng.Below(3)) {
    case 0: {  // a bitcast
      std::vector<E> to;
      for (int k = 0; k < static_cast<int>(E::kCount); ++k) {
        E e = static_cast<E>(k);
        int eb = Info(e).bits;
        bool fits = eb >= bits ? (t.rows * bits) % eb == 0 && (n <= 2 * b.lanes() || n == b.lanes() * PerLane(e))
                               : true;
        if (In(e, kInts8to32 & b.options().types) && fits) to.push_back(e);
      }
      if (to.empty()) return false;
      E e = rng.Pick(to);
      shape = {t.rows * bits / Info(e).bits};
      vrow = VType{e, n};
      b.Line(view, " = view_bitcast ", t.buf, " : ", Builder::RefType("vmem", e, {shape[0], n}));
      break;
    }
    case 1: {  // a narrowing and the widening back: the table again
      if (bits == 8) return false;
      E narrow = bits == 32 ? (rng.Chance(50) ? E::kI16 : E::kU8) : E::kI8;
      if (!In(narrow, b.options().types)) return false;
      std::string y = b.Fresh("nv");
      b.Line(y, " = view_bitcast ", t.buf, " : ", Builder::RefType("vmem", narrow, {t.rows * bits / Info(narrow).bits, n}));
      shape = {t.rows};
      b.Line(view, " = view_bitcast ", y, " : ", Builder::RefType("vmem", t.row.e, {t.rows, n}));
      break;
    }
    default: {  // a reshape
      if (t.rows < 2) return false;
      shape = {2, t.rows / 2};
      b.Line(view, " = view_reshape ", t.buf, " : ", Builder::RefType("vmem", t.row.e, {2, t.rows / 2, n}));
      break;
    }
  }
  auto at = [&] {
    std::string idx;
    for (int64_t size : shape) absl::StrAppend(&idx, b.Index(static_cast<int>(size)), ", ");
    return absl::StrCat(view, "[", idx, ":]");
  };
  int form = b.writes_allowed() ? rng.Below(4) : 0;
  if (form == 0 || form == 1) {
    std::string r = b.Fresh();
    b.Line(r, " = get ", at(), " : ", vrow.Text());
    b.ReadTable(t);
    b.Define(r, vrow);
    return true;
  }
  if (form == 2) {
    b.Line("store ", at(), ", ", b.Get(vrow));
  } else {
    b.Line("copy ", at(), " -> ", at());
  }
  tab->written = true;
  b.WroteTable(tab);
  return true;
}

// DMAs in the body: a table loaded again, a row copied to another, rows
// scatter-added into an inout parameter.
bool DmaOp(Builder& b) {
  if (!b.writes_allowed()) return false;
  auto row = b.ChooseType(kMemory, kVectorOk);
  if (!row) return false;
  Table* tab = b.TableOf(*row);
  if (tab == nullptr) return false;
  const Table t = *tab;
  Rng& rng = b.rng();
  int form = rng.Below(3);
  if (form == 0) {
    b.LoadTable(t);
    return true;
  }
  if (form == 1 && t.rows > 1) {
    int from = rng.Below(t.rows), to = (from + 1 + rng.Below(t.rows - 1)) % t.rows;
    std::string src = absl::StrCat(t.buf, "[", from, "]"), dst = absl::StrCat(t.buf, "[", to, "]");
    if (rng.Chance(25)) {
      // The source row chosen at run time by a select_ref of two row views (pl.select_ref):
      // either is another row than the destination.
      int alt = (to + 1 + rng.Below(t.rows - 1)) % t.rows;
      std::string type = Builder::RefType("vmem", t.row.e, {t.row.n});
      std::string ra = b.Fresh("ra"), rb = b.Fresh("rb"), rs = b.Fresh("rs"), k = b.Index(2);
      b.Line(ra, " = view ", src, " : ", type);
      b.Line(rb, " = view ", t.buf, "[", alt, "] : ", type);
      b.Line(rs, " = select_ref ", k, ", ", ra, ", ", rb, " : ", type);
      src = rs;
    }
    if (rng.Chance(50)) {
      b.Line("copy ", src, " -> ", dst);
    } else {
      b.Line("dma_start ", src, " -> ", dst, ", ", b.dma_sem);
      b.Line("dma_wait ", src, " -> ", dst, ", ", b.dma_sem);
    }
    tab->written = true;
    return true;
  }
  std::string acc = b.AddParam("acc", ParamDirection::kInOut, t.row.e, {b.workers(), t.rows, t.row.n});
  std::string view = b.Fresh("aw"), list = RowList(b, t.rows, true);
  b.Line(view, " = view ", acc, "[", b.worker, "] : ", Builder::RefType("hbm", t.row.e, {t.rows, t.row.n}));
  b.Line("copy ", t.buf, " -> ", view, "[idx(", list, ")] add");
  return true;
}

// Subcores of one core meeting: a row passed to the next subcore through
// VMEM_SHARED, rows scatter-added by every subcore into VMEM_SHARED, or a
// semaphore passed around the ring. Top level only (every subcore reaches it).
bool SyncOp(Builder& b) {
  std::string next = b.Fresh("next"), nextm = b.Fresh("nextm");
  auto ring_neighbour = [&] {
    b.Line(next, " = add ", b.subcore, ", 1 : i32");
    b.Line(nextm, " = and ", next, ", ", b.subcores() - 1, " : i32");
  };
  Rng& rng = b.rng();
  int form = rng.Below(3);
  if (form == 2) {
    std::string ring = b.AddScratch("ring", "sem");
    ring_neighbour();
    b.Line("sem_signal ", ring, ", 1 {subcore = ", nextm, "}");
    b.Line("sem_wait ", ring, ", 1");
    return true;
  }
  // Scatter-adds of several subcores into one row land in an order LaunchOptions::seed
  // may change: float sums (and which NaN survives) would depend on it.
  ESet types = form == 1 && b.subcores() > 1 ? kInts : kMemory;
  auto row = b.ChooseType(types, kVectorOk);
  if (!row) return false;
  Table* tab = b.TableOf(*row);
  if (tab == nullptr) return false;
  const Table t = *tab;
  tab->written = true;
  if (form == 0) {
    std::string shared =
        b.AddScratch("sh", Builder::RefType("vmem_shared", t.row.e, {b.subcores(), t.row.n}));
    std::string from = b.Index(t.rows);
    b.Line("copy ", t.buf, "[", from, "] -> ", shared, "[", b.subcore, "]");
    b.Line("barrier");
    ring_neighbour();
    std::string to = b.Index(t.rows);
    b.Line("copy ", shared, "[", nextm, "] -> ", t.buf, "[", to, "]");
    b.Line("barrier");
    return true;
  }
  std::string shared = b.AddScratch("sa", Builder::RefType("vmem_shared", t.row.e, {t.rows, t.row.n}));
  std::string first = b.Fresh("first");
  b.Line(first, " = cmp eq ", b.subcore, ", 0 : i1");
  b.Line("if ", first, " {");
  b.Line("  copy ", t.buf, " -> ", shared);
  b.Line("}");
  b.Line("barrier");
  std::string list = RowList(b, t.rows, true);
  b.Line("copy ", t.buf, " -> ", shared, "[idx(", list, ")] add");
  b.Line("barrier");
  b.Line("copy ", shared, " -> ", t.buf);
  return true;
}

// A `pipeline` over a new input, split over every worker (partition(core,
// subcore)): blocks of R rows in, each row through a few statements that may
// read the tables, out to a new output. Top level only.
bool Pipeline(Builder& b) {
  auto row = b.ChooseType(kMemory, kVectorOk);
  if (!row) return false;
  Rng& rng = b.rng();
  int grid = b.workers() * (1 + rng.Below(2)), rows = 1 << rng.Below(3);
  std::vector<int64_t> shape = {grid * rows, row->n};
  std::string in = b.AddParam("p", ParamDirection::kIn, row->e, shape);
  std::string out = b.AddParam("q", ParamDirection::kOut, row->e, shape);
  std::string iv = b.Fresh("pin"), ov = b.Fresh("pout"), i = b.Fresh("i"), j = b.Fresh("j"), r = b.Fresh("r");
  std::string block = absl::StrCat("block [", rows, ", ", row->n, "], map (", i, ", ", j, ") -> (", i, ", ", j, ")");
  std::string buffer = Builder::RefType("vmem", row->e, {rows, row->n});
  b.Line("pipeline grid(", grid, ", 1) partition(core, subcore) parallel");
  b.Line("    in(", in, ", ", block, ")");
  b.Line("    out(", out, ", ", block, ")");
  b.Line("    body(", iv, ": ", buffer, ", ", ov, ": ", buffer, ") {");
  size_t mark = b.Mark();
  b.Indent(1);
  b.Nest(1);
  b.Line("for ", r, " = 0 to ", rows, " step 1 {");
  b.Indent(1);
  b.Nest(1);
  std::string v = b.Fresh("pv");
  b.Line(v, " = get ", iv, "[", r, "] : ", row->Text());
  b.Define(v, *row);
  b.ForbidWrites(1);
  Block(b, 1 + rng.Below(3));
  b.ForbidWrites(-1);
  b.Line("store ", ov, "[", r, "], ", b.Get(*row));
  b.Nest(-1);
  b.Indent(-1);
  b.Line("}");
  b.Nest(-1);
  b.Indent(-1);
  b.Restore(mark);
  b.Line("}");
  return true;
}

// A `scoped` region with a VMEM buffer of its own (alloc: unwritten at entry),
// stored, read back, and used by the region's statements. With partial
// writes, the buffer is sometimes written in part (the first popcount(mask)
// elements, one half) or not at all before it is read back.
bool Scoped(Builder& b) {
  auto t = b.ChooseType(kMemory, kVectorOk);
  if (!t) return false;
  b.Line("scoped {");
  size_t mark = b.Mark();
  b.Indent(1);
  b.Nest(1);
  std::string a = b.Fresh("a"), w = b.Fresh("w");
  b.Line(a, " = alloc ", Builder::RefType("vmem", t->e, {t->n}));
  bool part = b.partial() && b.rng().Chance(50);
  if (!part) {
    b.Line("store ", a, ", ", b.Get(*t));
  } else {
    int h = t->n / 2, form = b.rng().Below(3);
    if (form == 2 && (Is4Bit(t->e) || t->n % 2 != 0 || !GeneratedLength(b, t->e, h))) form = 1;
    if (form == 1) {
      std::string x = b.Get(*t), m = Decided(b, VType{E::kI1, t->n});
      b.Line("store_compressed ", a, ", ", x, " mask ", m);
    } else if (form == 2) {
      int at = b.rng().Chance(50) ? 0 : h;
      b.Line("store ", a, "[", at, ":", at + h, "], ", b.Get(VType{t->e, h}));
    }
  }
  b.Line(w, " = get ", a, " : ", t->Text());
  b.Define(w, *t, part);
  Block(b, 1 + b.rng().Below(b.options().block_statements));
  b.Nest(-1);
  b.Indent(-1);
  b.Restore(mark);
  b.Line("}");
  return true;
}

std::string Results(Builder& b, const std::vector<VType>& types, std::vector<std::string>* names) {
  for (size_t i = 0; i < types.size(); ++i) names->push_back(b.Fresh());
  return names->empty() ? "" : absl::StrCat(absl::StrJoin(*names, ", "), " = ");
}

std::string TypeList(const std::vector<VType>& types) {
  std::vector<std::string> t;
  for (const VType& v : types) t.push_back(v.Text());
  return absl::StrJoin(t, ", ");
}

std::vector<VType> CarriedTypes(Builder& b) {
  std::vector<VType> types;
  int n = b.rng().Below(3);
  for (int i = 0; i < n; ++i) {
    if (auto t = b.ChooseType(kAll, kScalarOk | kVectorOk)) types.push_back(*t);
  }
  return types;
}

void Yield(Builder& b, const std::vector<VType>& types, const std::string& first = "") {
  std::vector<std::string> values;
  if (!first.empty()) values.push_back(first);
  for (const VType& t : types) values.push_back(b.Get(t));
  if (!values.empty()) b.Line("yield ", absl::StrJoin(values, ", "));
}

// A region's values: `defs` first (tainted as they say: partial writes),
// then statements, then the yield. True when what it yields is tainted.
struct Def {
  std::string name;
  VType t;
  bool partial = false;
};

bool Region(Builder& b, const std::vector<Def>& defs, const std::vector<VType>& yields,
            const std::string& first_yield = "") {
  size_t mark = b.Mark();
  b.Indent(1);
  b.Nest(1);
  b.ClearTaint();
  for (const Def& d : defs) b.Define(d.name, d.t, d.partial);
  Block(b, 1 + b.rng().Below(b.options().block_statements));
  b.ClearTaint();
  Yield(b, yields, first_yield);
  bool tainted = b.tainted();
  b.Nest(-1);
  b.Indent(-1);
  b.Restore(mark);
  return tainted;
}

void DefineAll(Builder& b, const std::vector<std::string>& names, const std::vector<VType>& types,
               bool partial) {
  for (size_t i = 0; i < names.size(); ++i) b.Define(names[i], types[i], partial);
}

// for / parallel_for with carried values, a literal or a run-time trip count.
void Loop(Builder& b, bool parallel) {
  Rng& rng = b.rng();
  std::vector<VType> types = CarriedTypes(b);
  std::vector<std::string> inits;
  for (const VType& t : types) inits.push_back(b.Get(t));
  bool carried = b.tainted();
  std::string hi = rng.Chance(60) ? absl::StrCat(1 + rng.Below(4)) : b.Index(4);
  int step = rng.Chance(75) ? 1 : 2;
  std::vector<std::string> names;
  std::string results = Results(b, types, &names);
  std::string k = b.Fresh("k"), header = absl::StrCat(parallel ? "parallel_for " : "for ", k, " = 0 to ", hi,
                                                      " step ", step, rng.Chance(10) ? " {unroll = 2}" : "");
  std::vector<Def> defs = {{k, VType{E::kI32, 0}}};
  if (!types.empty()) {
    std::vector<std::string> carries;
    for (size_t i = 0; i < types.size(); ++i) {
      std::string c = b.Fresh("c");
      carries.push_back(absl::StrCat(c, " = ", inits[i]));
      defs.push_back({c, types[i], carried});
    }
    absl::StrAppend(&header, " iter(", absl::StrJoin(carries, ", "), ") : ", TypeList(types));
  }
  b.Line(results, header, " {");
  if (parallel) b.ForbidWrites(1);
  bool out = Region(b, defs, types);
  if (parallel) b.ForbidWrites(-1);
  b.Line("}");
  DefineAll(b, names, types, carried || out);
}

void While(Builder& b) {
  std::vector<VType> types = CarriedTypes(b);
  std::vector<std::string> inits;
  for (const VType& t : types) inits.push_back(b.Get(t));
  bool carried = b.tainted();
  std::string zero = b.Fresh(), bound = b.rng().Chance(50) ? absl::StrCat(1 + b.rng().Below(3)) : b.Index(4);
  b.Line(zero, " = const 0 : i32");
  std::vector<VType> all = {VType{E::kI32, 0}};
  all.insert(all.end(), types.begin(), types.end());
  std::vector<std::string> names;
  std::string results = Results(b, all, &names);
  std::string count = b.Fresh("n"), go = b.Fresh("go"), next = b.Fresh("n");
  std::vector<std::string> carries = {absl::StrCat(count, " = ", zero)};
  std::vector<Def> defs = {{count, VType{E::kI32, 0}}};
  for (size_t i = 0; i < types.size(); ++i) {
    std::string c = b.Fresh("c");
    carries.push_back(absl::StrCat(c, " = ", inits[i]));
    defs.push_back({c, types[i], carried});
  }
  b.Line(results, "while iter(", absl::StrJoin(carries, ", "), ") : ", TypeList(all), " cond {");
  b.Line("  ", go, " = cmp lt ", count, ", ", bound, " : i1");
  b.Line("  condition ", go);
  b.Line("} body {");
  b.Line("  ", next, " = add ", count, ", 1 : i32");
  defs.push_back({next, VType{E::kI32, 0}});
  bool out = Region(b, defs, types, next);
  b.Line("}");
  DefineAll(b, names, all, carried || out);
}

void If(Builder& b) {
  std::string c = b.Condition();
  std::vector<VType> types = CarriedTypes(b);
  std::vector<std::string> names;
  std::string results = Results(b, types, &names);
  if (types.empty()) {
    b.Line("if ", c, " {");
  } else {
    b.Line(results, "if ", c, " : ", TypeList(types), " {");
  }
  bool out = Region(b, {}, types);
  if (!types.empty() || b.rng().Chance(50)) {
    b.Line("} else {");
    out = Region(b, {}, types) || out;
  }
  b.Line("}");
  DefineAll(b, names, types, out);
}

bool Control(Builder& b) {
  switch (b.rng().Below(5)) {
    case 0: case 1: Loop(b, false); break;
    case 2: Loop(b, true); break;
    case 3: While(b); break;
    default: If(b); break;
  }
  return true;
}

bool Print(Builder& b) {
  if (b.pool().empty()) return false;
  const Val& v = b.rng().Pick(b.pool());
  if (v.t.scalar() && IsInt(v.t.e) && Is32(v.t.e) && b.rng().Chance(30)) {
    // A debug_check that holds (an integer equals itself). Its condition decides.
    Builder::Deciding deciding(b);
    if (b.clean_only() && v.partial) return false;
    std::string c = b.Fresh("ok");
    b.Line(c, " = cmp eq ", v.name, ", ", v.name, " : i1");
    b.Line("debug_check ", c, ", \"", v.name.substr(1), " is itself\"");
    return true;
  }
  if (v.t.scalar() && !Is32(v.t.e)) return false;
  b.Line("debug_print \"v\" ", v.name);
  return true;
}

// --- Partial writes (GenOptions::partial_writes) --------------------------------

constexpr int kMaxPartialBuffers = 4;

// A row (or word) index of a partial buffer: a literal, or a run-time index.
std::string PartialIndex(Builder& b, int rows) {
  return b.rng().Chance(50) ? absl::StrCat(b.rng().Below(rows)) : b.Index(rows);
}

// Rows [a, a + h) of `t` (its scratch copy, or its input) DMA'd to rows [c, c + h)
// of `dst`: a prefix, a suffix or a middle of it.
void PartialDma(Builder& b, const Table& t, const std::string& dst, int dst_rows) {
  Rng& rng = b.rng();
  int h = 1 + rng.Below(std::min(t.rows, dst_rows) - 1);
  int a = rng.Below(t.rows - h + 1), c = rng.Chance(50) ? 0 : rng.Below(dst_rows - h + 1);
  std::string src = !t.staged && rng.Chance(50) ? absl::StrCat(t.param, "[", b.worker, ", ", a, ":", a + h, "]")
                                                 : absl::StrCat(t.buf, "[", a, ":", a + h, "]");
  std::string to = absl::StrCat(dst, "[", c, ":", c + h, "]");
  b.ReadTable(t);
  if (rng.Chance(50)) {
    b.Line("copy ", src, " -> ", to);
  } else {
    b.Line("dma_start ", src, " -> ", to, ", ", b.dma_sem);
    b.Line("dma_wait ", src, " -> ", to, ", ", b.dma_sem);
  }
}

// An SMEM buffer of scalars: some words stored, a DMA'd range of a scalar
// table, fetch_and_add on a word (maybe unwritten); then words read.
void PartialWords(Builder& b, const PartialBuffer& p) {
  Rng& rng = b.rng();
  VType s = p.row;
  for (int w = 1 + rng.Below(3); w > 0; --w) {
    int form = rng.Below(s.e == E::kI32 ? 4 : 3);
    Table* t = form == 2 ? b.TableOf(s) : nullptr;
    if (form == 2 && t != nullptr && t->rows > 1) {
      PartialDma(b, *t, p.buf, p.rows);
    } else if (form == 3) {
      std::string at = PartialIndex(b, p.rows), d = Decided(b, s), old = b.Fresh();
      b.Line(old, " = fetch_and_add ", p.buf, "[", at, "], ", d, " {subcore = ", b.subcore, "} : i32");
      b.Define(old, s, true);
    } else {
      std::string at = PartialIndex(b, p.rows);
      b.Line("store ", p.buf, "[", at, "], ", b.Get(s));
    }
  }
  for (int r = 1 + rng.Below(3); r > 0; --r) {
    std::string at = PartialIndex(b, p.rows), v = b.Fresh();
    b.Line(v, " = get ", p.buf, "[", at, "] : ", s.Text());
    b.Define(v, s, true);
  }
}

// A VMEM buffer of rows: a DMA'd range of a table's rows, a row stored
// (whole, compressed under a mask, one half of it, scattered), an addupdate
// of a row (which reads it), the buffer through HBM or a row through
// VMEM_SHARED and back; then rows read (whole, expanded under a mask,
// gathered). Or, for a row of L lanes, its first K elements stored compressed
// and the row read back with the other lanes replaced by a select of the
// same mask (jnp.where): written, whatever the rest holds.
void PartialRows(Builder& b, const PartialBuffer& p) {
  Rng& rng = b.rng();
  VType v = p.row, lanes{v.e, b.lanes()};
  bool gs = (v.e == E::kI32 || v.e == E::kF32) && (v.n & (v.n - 1)) == 0;
  if (v.n == b.lanes() && rng.Chance(25)) {
    int r = rng.Below(p.rows), k = 1 + rng.Below(v.n - 1);
    std::string li = b.Fresh("li"), valid = b.Fresh("valid"), got = b.Fresh(), fill = b.Fresh(), kept = b.Fresh();
    VType mask{E::kI1, v.n};
    b.Line(li, " = iota : vector<", v.n, "xi32>");
    b.Line(valid, " = cmp lt ", li, ", ", k, " : ", mask.Text());
    std::string x = b.Get(v);
    b.Line("store_compressed ", p.buf, "[", r, "], ", x, " mask ", valid);
    b.Line(got, " = get ", p.buf, "[", r, "] : ", v.Text());
    b.Define(got, v, true);
    b.Line(fill, " = const dense<", b.Literal(v.e), "> : ", v.Text());
    b.Line(kept, " = select ", valid, ", ", got, ", ", fill, " : ", v.Text());
    b.Define(kept, v);  // tainted only by x
    return;
  }
  for (int w = 1 + rng.Below(2); w > 0; --w) {
    std::string at = PartialIndex(b, p.rows), ref = absl::StrCat(p.buf, "[", at, "]");
    switch (rng.Below(gs ? 9 : 8)) {
      case 0: {
        Table* t = b.TableOf(v);
        if (t != nullptr) {
          PartialDma(b, *t, p.buf, p.rows);
          break;
        }
        [[fallthrough]];
      }
      case 1: b.Line("store ", ref, ", ", b.Get(v)); break;
      case 2: {
        std::string x = b.Get(v), m = Decided(b, VType{E::kI1, v.n});
        b.Line("store_compressed ", ref, ", ", x, " mask ", m);
        break;
      }
      case 3: {
        int h = v.n / 2;
        if (!Is4Bit(v.e) && v.n % 2 == 0 && GeneratedLength(b, v.e, h)) {
          int from = rng.Chance(50) ? 0 : h;
          b.Line("store ", p.buf, "[", at, ", ", from, ":", from + h, "], ", b.Get(VType{v.e, h}));
        } else {
          b.Line("store ", ref, ", ", b.Get(v));
        }
        break;
      }
      case 4: b.Line("addupdate ", ref, ", ", b.Get(v)); break;
      case 5: {
        std::string x = b.Get(v), m = Decided(b, VType{E::kI1, v.n});
        b.Line("addupdate_compressed ", ref, ", ", x, " mask ", m);
        break;
      }
      case 6: {
        // Through HBM: the buffer out to this worker's slice of a new output,
        // a range of its rows back (the states go and come with the bytes).
        std::string rt = b.AddParam("rt", ParamDirection::kOut, v.e, {b.workers(), p.rows, v.n});
        int h = 1 + rng.Below(p.rows), a = rng.Below(p.rows - h + 1), c = rng.Below(p.rows - h + 1);
        b.Line("copy ", p.buf, " -> ", rt, "[", b.worker, "]");
        b.Line("copy ", rt, "[", b.worker, ", ", a, ":", a + h, "] -> ", p.buf, "[", c, ":", c + h, "]");
        break;
      }
      case 7: {
        // Through VMEM_SHARED (at the top level, which every subcore reaches):
        // a row to the next subcore, which stores it in another row.
        if (b.depth() > 0) {
          b.Line("store ", ref, ", ", b.Get(v));
          break;
        }
        std::string sh = b.AddScratch("psh", Builder::RefType("vmem_shared", v.e, {b.subcores(), v.n}));
        std::string next = b.Fresh("next"), nextm = b.Fresh("nextm");
        b.Line("copy ", p.buf, "[", rng.Below(p.rows), "] -> ", sh, "[", b.subcore, "]");
        b.Line("barrier");
        b.Line(next, " = add ", b.subcore, ", 1 : i32");
        b.Line(nextm, " = and ", next, ", ", b.subcores() - 1, " : i32");
        b.Line("copy ", sh, "[", nextm, "] -> ", p.buf, "[", rng.Below(p.rows), "]");
        b.Line("barrier");
        break;
      }
      default: {
        const char* op = rng.Chance(70) ? "store_scatter" : "addupdate_scatter";
        std::string ci = LaneIndices(b, v.n), x = b.Get(lanes);
        std::string m = rng.Chance(50) ? absl::StrCat(" mask ", Decided(b, VType{E::kI1, b.lanes()})) : "";
        b.Line(op, " ", ref, " [", ci, "], ", x, m);
        break;
      }
    }
  }
  for (int reads = 1 + rng.Below(2); reads > 0; --reads) {
    std::string at = PartialIndex(b, p.rows), r = b.Fresh();
    int form = rng.Below(gs ? 4 : 3);
    if (form <= 1) {
      b.Line(r, " = get ", p.buf, "[", at, "] : ", v.Text());
      b.Define(r, v, true);
    } else if (form == 2) {
      std::string m = Decided(b, VType{E::kI1, v.n});
      b.Line(r, " = load_expanded ", p.buf, "[", at, "] mask ", m, " : ", v.Text());
      b.Define(r, v, true);
    } else {
      std::string ri = LaneIndices(b, p.rows), ci = LaneIndices(b, v.n);
      std::string m = rng.Chance(50) ? absl::StrCat(" mask ", Decided(b, VType{E::kI1, b.lanes()})) : "";
      b.Line(r, " = load_gather ", p.buf, "[:, :] [", ri, ", ", ci, "]", m, " : ", lanes.Text());
      b.Define(r, lanes, true);
    }
  }
}

// A scratch buffer written in part and read whole (kernels with partial
// writes only): a new one, or one an earlier PartialOp made (which may have
// written other parts, or, in a loop, the same part the iteration before).
bool PartialOp(Builder& b) {
  std::deque<PartialBuffer>& buffers = b.partial_buffers();
  auto row = b.ChooseType(kMemory, kScalarOk | kVectorOk);
  if (!row) return false;
  Rng& rng = b.rng();
  const PartialBuffer* p = nullptr;
  for (const PartialBuffer& q : buffers) {
    if (q.row == *row && rng.Chance(40)) p = &q;
  }
  if (p == nullptr) {
    if (static_cast<int>(buffers.size()) >= kMaxPartialBuffers) return false;
    PartialBuffer q;
    q.row = *row;
    q.copy_out = rng.Chance(60);
    q.rows = row->scalar() ? 8 << rng.Below(2) : 2 << rng.Below(2);
    std::vector<int64_t> shape = {q.rows};
    if (!row->scalar()) shape.push_back(row->n);
    q.buf = b.AddScratch("pw", Builder::RefType(row->scalar() ? "smem" : "vmem", row->e, shape));
    buffers.push_back(q);
    p = &buffers.back();
  }
  const PartialBuffer q = *p;  // TableOf below may add to the kernel
  if (q.row.scalar()) {
    PartialWords(b, q);
  } else {
    PartialRows(b, q);
  }
  return true;
}

void Statement(Builder& b) {
  struct Choice {
    bool (*emit)(Builder&);
    int weight;
    bool ok;
  };
  bool top = b.depth() == 0;
  b.ClearTaint();
  const Choice choices[] = {
      {&EmitValueOp, 60, true},
      {&MemoryOp, 14, true},
      {&ViewOp, 3, true},
      {&Control, 12, b.depth() < b.options().max_depth},
      {&Scoped, 2, b.depth() < b.options().max_depth},
      {&DmaOp, 5, b.writes_allowed()},
      {&SyncOp, 5, top},
      {&Pipeline, 2, top},
      {&Print, 1, true},
      {&PartialOp, 8, b.partial() && b.writes_allowed()},
  };
  int total = 0;
  for (const Choice& c : choices) total += c.ok ? c.weight : 0;
  for (int attempt = 0; attempt < 6; ++attempt) {
    int pick = b.rng().Below(total);
    for (const Choice& c : choices) {
      if (!c.ok || (pick -= c.weight) >= 0) continue;
      if (c.emit(b)) return;
      break;
    }
  }
}

void Block(Builder& b, int count) {
  for (int i = 0; i < count; ++i) Statement(b);
}

// Every written table, and the values nothing used, copied out to this
// worker's slice of an output.
void Epilogue(Builder& b) {
  Rng& rng = b.rng();
  for (const Table& t : b.tables()) {
    if (!t.written) continue;
    std::vector<int64_t> shape = {b.workers(), t.rows};
    if (!t.row.scalar()) shape.push_back(t.row.n);
    std::string out = b.AddParam("o", ParamDirection::kOut, t.row.e, shape);
    std::string dst = absl::StrCat(out, "[", b.worker, "]");
    int form = rng.Below(t.row.scalar() ? 2 : 3);
    if (form == 0) {
      b.Line("copy ", t.buf, " -> ", dst);
    } else if (form == 1) {
      b.Line("dma_start ", t.buf, " -> ", dst, ", ", b.dma_sem);
      b.Line("dma_wait ", t.buf, " -> ", dst, ", ", b.dma_sem);
    } else {
      std::string view = b.Fresh("ow"), list = RowList(b, t.rows, false);
      b.Line(view, " = view ", dst, " : ", Builder::RefType("hbm", t.row.e, {t.rows, t.row.n}));
      b.Line("copy ", t.buf, " -> ", view, "[idx(", list, ")]");
    }
  }
  for (const PartialBuffer& p : b.partial_buffers()) {
    if (!p.copy_out) continue;
    std::vector<int64_t> shape = {b.workers(), p.rows};
    if (!p.row.scalar()) shape.push_back(p.row.n);
    std::string out = b.AddParam("o", ParamDirection::kOut, p.row.e, shape);
    std::string dst = absl::StrCat(out, "[", b.worker, "]");
    if (rng.Chance(50)) {
      b.Line("copy ", p.buf, " -> ", dst);
    } else {
      b.Line("dma_start ", p.buf, " -> ", dst, ", ", b.dma_sem);
      b.Line("dma_wait ", p.buf, " -> ", dst, ", ", b.dma_sem);
    }
  }
  std::vector<Val> outs;
  const std::vector<Val>& pool = b.pool();
  for (int i = static_cast<int>(pool.size()) - 1; i >= 3 && outs.size() < 5; --i) {
    if (pool[i].uses == 0) outs.push_back(pool[i]);
  }
  if (outs.empty() && pool.size() > 3) outs.push_back(pool.back());
  for (Val v : outs) {
    if (IsBool(v.t.e)) {
      VType wide{E::kI32, v.t.n};
      std::string c = b.Fresh();
      b.Line(c, " = convert ", v.name, " : ", wide.Text());
      v = Val{c, wide};
    }
    if (v.t.scalar()) {
      VType vec{v.t.e, b.lanes()};
      std::string c = b.Fresh();
      b.Line(c, " = broadcast ", v.name, " : ", vec.Text());
      v = Val{c, vec};
    }
    std::string out = b.AddParam("res", ParamDirection::kOut, v.t.e, {b.workers(), v.t.n});
    std::string buf = b.AddScratch("ob", Builder::RefType("vmem", v.t.e, {v.t.n}));
    b.Line("store ", buf, ", ", v.name);
    b.Line("copy ", buf, " -> ", out, "[", b.worker, "]");
  }
}

}  // namespace

GeneratedKernel Generate(uint64_t seed, const GenOptions& options) {
  Builder b(seed, options);
  Block(b, options.statements);
  Epilogue(b);
  return b.Finish({});
}

}  // namespace scjit::fuzz
