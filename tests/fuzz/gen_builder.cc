#include "tests/fuzz/gen_builder.h"

#include <algorithm>
#include <numeric>
#include <string_view>

#include "absl/strings/str_join.h"

namespace scjit::fuzz {
namespace {

struct Chip {
  std::string_view name;
  int cores, subcores, lanes;
};
constexpr Chip kChips[] = {
    {"v5p", 4, 16, 8}, {"v6e", 2, 16, 8}, {"v7x", 2, 16, 16}, {"v8i", 1, 4, 16}, {"v8t", 2, 16, 16},
};

constexpr int kMaxTables = 6;

int64_t IntMin(E e) {
  if (!IsInt(e) || IsUnsigned(e)) return 0;
  int bits = Is4Bit(e) ? 4 : Info(e).bits;
  return -(int64_t{1} << (bits - 1));
}
int64_t IntMax(E e) {
  int bits = Is4Bit(e) ? 4 : Info(e).bits;
  return IsUnsigned(e) ? (int64_t{1} << bits) - 1 : (int64_t{1} << (bits - 1)) - 1;
}

}  // namespace

uint64_t Rng::Next() {
  uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

Builder::Builder(uint64_t seed, const GenOptions& options) : rng_(seed), options_(options) {
  std::vector<const Chip*> chips;
  for (const Chip& c : kChips) {
    if (std::find(options_.targets.begin(), options_.targets.end(), c.name) != options_.targets.end()) {
      chips.push_back(&c);
    }
  }
  if (chips.empty()) chips.push_back(&kChips[2]);
  const Chip& chip = *chips[rng_.Below(static_cast<int>(chips.size()))];
  target_ = chip.name;
  lanes_ = chip.lanes;
  cores_ = 1 + rng_.Below(std::min(options_.max_cores, chip.cores));
  int max_sub = std::min(options_.max_subcores, chip.subcores), choices = 0;
  while ((2 << choices) <= max_sub) ++choices;
  subcores_ = 1 << rng_.Below(choices + 1);
  // Partial writes: decided apart from rng_, which then draws the same
  // numbers as before for every other kernel.
  Rng partial(seed ^ 0x9A27141E5ULL);
  partial_ = partial.Below(100) < options_.partial_writes;
  decide_percent_ = partial.Pick(std::vector<int>{0, 10, 30, 100});

  dma_sem = AddScratch("dsem", "dma_sem");
  sem = AddScratch("rsem", "sem");
  core = "%core";
  subcore = "%sub";
  worker = "%wk";
  prologue_.push_back("  %core = axis_index core : i32");
  prologue_.push_back("  %sub = axis_index subcore : i32");
  prologue_.push_back(absl::StrCat("  %wk0 = mul %core, ", subcores_, " : i32"));
  prologue_.push_back("  %wk = add %wk0, %sub : i32");
  Define(core, VType{E::kI32, 0});
  Define(subcore, VType{E::kI32, 0});
  Define(worker, VType{E::kI32, 0});
}

std::string Builder::Fresh(const char* prefix) { return absl::StrCat("%", prefix, next_++); }

const Val& Builder::Define(const std::string& name, VType t, bool partial) {
  pool_.push_back(Val{name, t, 0, partial || tainted_});
  return pool_.back();
}

int Builder::VectorLength(E e) {
  int r = rng_.Below(10);
  if (r < 6) return lanes_;
  if (r < 9 && PerLane(e) > 1) return lanes_ * PerLane(e);
  return 2 * lanes_;
}

std::optional<VType> Builder::ChooseType(ESet set, unsigned shapes) {
  set &= options_.types;
  if (set == 0) return std::nullopt;
  auto fits = [&](const VType& t) {
    if (!In(t.e, set)) return false;
    if (t.scalar()) return (shapes & kScalarOk) != 0;
    if (!(shapes & kVectorOk)) return false;
    return !(shapes & kLanesOnly) || t.n == lanes_;
  };
  if (rng_.Chance(60)) {
    std::vector<VType> seen;
    for (const Val& v : pool_) {
      if (fits(v.t)) seen.push_back(v.t);
    }
    if (!seen.empty()) return rng_.Pick(seen);
  }
  std::vector<E> elems;
  for (int i = 0; i < static_cast<int>(E::kCount); ++i) {
    if (In(static_cast<E>(i), set)) elems.push_back(static_cast<E>(i));
  }
  for (int attempt = 0; attempt < 8; ++attempt) {
    E e = rng_.Pick(elems);
    bool scalar_ok = (shapes & kScalarOk) && (Is32(e) || IsBool(e));
    if (scalar_ok && (!(shapes & kVectorOk) || rng_.Chance(25))) return VType{e, 0};
    if (!(shapes & kVectorOk)) continue;
    return VType{e, (shapes & kLanesOnly) ? lanes_ : VectorLength(e)};
  }
  return std::nullopt;
}

std::string Builder::Literal(E e) {
  if (IsBool(e)) return rng_.Chance(50) ? "1" : "0";
  if (IsFloat(e)) {
    static const std::vector<std::string> kF32 = {"0.0", "-0.0", "1.0", "-1.5", "0.5", "3.0", "1e30", "-1e-30",
                                                  "1e-40", "inf", "-inf", "nan", "65504.0", "2.5e-8", "-7.25"};
    static const std::vector<std::string> k16 = {"0.0", "-0.0", "1.0", "-1.5", "0.5", "3.0", "inf", "-inf",
                                                 "nan", "-7.25", "100.0"};
    static const std::vector<std::string> k8 = {"0.0", "1.0", "-1.5", "0.5", "2.0", "-4.0", "0.25"};
    if (e == E::kF32) return rng_.Pick(kF32);
    if (Info(e).bits == 16) return rng_.Pick(k16);
    return rng_.Pick(k8);
  }
  int64_t lo = IntMin(e), hi = IntMax(e);
  switch (rng_.Below(6)) {
    case 0: return absl::StrCat(lo);
    case 1: return absl::StrCat(hi);
    case 2: return absl::StrCat(std::min<int64_t>(hi, rng_.Below(3)));
    case 3: return IsUnsigned(e) ? absl::StrCat(hi) : "-1";
    default: return absl::StrCat(lo + static_cast<int64_t>(rng_.Next() % static_cast<uint64_t>(hi - lo + 1)));
  }
}

std::string Builder::Index(int bound) {
  if (bound <= 1) return "0";
  if (rng_.Chance(35)) return absl::StrCat(rng_.Below(bound));
  std::string src;
  {
    Deciding deciding(*this);
    src = Get(VType{E::kI32, 0}, 1);
  }
  std::string d = Fresh("ix");
  Line(d, " = and ", src, ", ", bound - 1, " : i32");
  return d;
}

std::string Builder::Get(VType t, int depth) {
  std::vector<int> have;
  for (int i = 0; i < static_cast<int>(pool_.size()); ++i) {
    if (pool_[i].t == t && !(clean_only_ && pool_[i].partial)) have.push_back(i);
  }
  if (prefer_partial_) {  // (a decision that may, and should, be tainted: Deciding)
    std::vector<int> partial;
    for (int i : have) {
      if (pool_[i].partial) partial.push_back(i);
    }
    if (!partial.empty()) {
      int pick = rng_.Pick(partial);
      pool_[pick].uses++;
      Taint();
      return pool_[pick].name;
    }
  }
  if (!have.empty() && (depth > 2 || rng_.Chance(75))) {
    int pick = rng_.Chance(60) ? have[std::max<int>(0, static_cast<int>(have.size()) - 1 - rng_.Below(3))]
                               : rng_.Pick(have);
    pool_[pick].uses++;
    if (pool_[pick].partial) Taint();
    return pool_[pick].name;
  }
  return MakeValue(t, depth);
}

// A new value is tainted by what it is made of, not by the other operands of
// the statement that needs it.
std::string Builder::MakeValue(VType t, int depth) {
  bool outer = tainted_;
  tainted_ = false;
  std::string r = MakeValueOf(t, depth);
  tainted_ = outer || tainted_;
  return r;
}

std::string Builder::MakeValueOf(VType t, int depth) {
  std::string r = Fresh();
  auto done = [&](const std::string& rhs) {
    Line(r, " = ", rhs, " : ", t.Text());
    Define(r, t);
    return r;
  };
  // A row (or word) of the table of t's type, at an index in range.
  auto from_table = [&]() -> std::optional<std::string> {
    Table* tab = TableOf(t);
    if (tab == nullptr || (clean_only_ && tab->partial)) return std::nullopt;
    ReadTable(*tab);
    std::string buf = tab->buf, i = Index(tab->rows);
    return absl::StrCat("get ", buf, "[", i, "]");
  };
  if (IsBool(t.e)) {
    static const char* kPreds[] = {"eq", "ne", "lt", "le", "gt", "ge"};
    E e = E::kI32;
    if (!t.scalar() && depth < 2) {
      std::optional<VType> c = ChooseType(kNum & ~kBool, kVectorOk);
      if (c) e = c->e;
    }
    if (t.scalar() && rng_.Chance(30) && In(E::kF32, options_.types)) e = E::kF32;
    VType operand{e, t.n};
    std::string a = Get(operand, depth + 1);
    std::string b = rng_.Chance(30) ? Literal(e) : Get(operand, depth + 1);
    return done(absl::StrCat("cmp ", kPreds[rng_.Below(6)], " ", a, ", ", b));
  }
  int choice = depth > 2 ? 99 : rng_.Below(100);
  if (t.scalar()) {
    if (choice < 40) {
      if (auto rhs = from_table()) return done(*rhs);
    } else if (choice < 70) {
      std::string src = Get(VType{t.e, lanes_}, depth + 1), i = Index(lanes_);
      return done(absl::StrCat("extract ", src, "[", i, "]"));
    }
    return done(absl::StrCat("const ", Literal(t.e)));
  }
  if (choice < 50) {
    if (auto rhs = from_table()) return done(*rhs);
  } else if (choice < 60 && Is32(t.e)) {
    return done(absl::StrCat("broadcast ", Get(VType{t.e, 0}, depth + 1)));
  } else if (choice < 72) {
    std::vector<std::string> from;
    for (const Val& v : pool_) {
      if (v.t.n == t.n && ConvertLegal(v.t.e, t.e)) from.push_back(v.name);
    }
    if (!from.empty()) return done(absl::StrCat("convert ", rng_.Pick(from)));
  } else if (choice < 78 && t.e == E::kI32 && t.n == lanes_) {
    return done("iota");
  }
  if (rng_.Chance(40)) return done(absl::StrCat("const dense<", Literal(t.e), ">"));
  std::vector<std::string> elems;
  for (int i = 0; i < t.n; ++i) elems.push_back(Literal(t.e));
  return done(absl::StrCat("const dense<[", absl::StrJoin(elems, ", "), "]>"));
}

std::string Builder::RefType(const char* space, E e, const std::vector<int64_t>& shape) {
  if (shape.empty()) return absl::StrCat(space, "<", Name(e), ">");
  return absl::StrCat(space, "<", absl::StrJoin(shape, "x"), "x", Name(e), ">");
}

std::string Builder::AddParam(const char* prefix, ParamDirection dir, E e, std::vector<int64_t> shape,
                              const char* space) {
  std::string name = absl::StrCat(prefix, params_.size());
  static const char* kDir[] = {"in", "out", "inout"};
  param_text_.push_back(
      absl::StrCat(kDir[static_cast<int>(dir)], " %", name, ": ", RefType(space, e, shape)));
  params_.push_back(GenParam{name, dir, Info(e).dtype, std::move(shape)});
  return "%" + name;
}

std::string Builder::AddScratch(const char* prefix, const std::string& type) {
  std::string name = absl::StrCat("%", prefix, scratch_text_.size());
  scratch_text_.push_back(absl::StrCat(name, ": ", type));
  return name;
}

Table* Builder::TableOf(VType row) {
  for (Table& t : tables_) {
    if (t.row == row) return &t;
  }
  if (static_cast<int>(tables_.size()) >= kMaxTables) return nullptr;
  Table t;
  t.row = row;
  t.rows = row.scalar() ? 8 << rng_.Below(2) : 2 << rng_.Below(3);
  std::vector<int64_t> shape = {workers(), t.rows};
  std::vector<int64_t> local = {t.rows};
  if (!row.scalar()) {
    shape.push_back(row.n);
    local.push_back(row.n);
  }
  t.staged = rng_.Chance(15);
  t.param = AddParam("x", ParamDirection::kIn, row.e, shape,
                     !t.staged ? "hbm" : row.scalar() ? "smem" : "vmem");
  t.buf = AddScratch(row.scalar() ? "m" : "t", RefType(row.scalar() ? "smem" : "vmem", row.e, local));
  tables_.push_back(t);
  // The load goes before the body, at the top level.
  std::vector<std::string> body = std::move(lines_);
  int indent = indent_;
  lines_ = std::move(prologue_);
  indent_ = 1;
  LoadTable(t);
  prologue_ = std::move(lines_);
  lines_ = std::move(body);
  indent_ = indent;
  return &tables_.back();
}

void Builder::LoadTable(const Table& t) {
  std::string src = absl::StrCat(t.param, "[", worker, "]");
  // (A staged table is copied within the subcore's memory: no index-list gather.)
  int form = rng_.Below(t.row.scalar() || t.staged ? 4 : 6);
  switch (form) {
    case 0:
      Line("copy ", src, " -> ", t.buf);
      return;
    case 1:
      Line("dma_start ", src, " -> ", t.buf, ", ", dma_sem);
      Line("dma_wait ", src, " -> ", t.buf, ", ", dma_sem);
      return;
    case 2: {
      int h = t.rows / 2;
      std::string a = absl::StrCat(t.param, "[", worker, ", 0:", h, "]"), da = absl::StrCat(t.buf, "[0:", h, "]");
      std::string b = absl::StrCat(t.param, "[", worker, ", ", h, ":", t.rows, "]"),
                  db = absl::StrCat(t.buf, "[", h, ":", t.rows, "]");
      Line("dma_start ", a, " -> ", da, ", ", dma_sem);
      Line("dma_start ", b, " -> ", db, ", ", dma_sem);
      Line("dma_wait ", b, " -> ", db, ", ", dma_sem);
      Line("dma_wait ", a, " -> ", da, ", ", dma_sem);
      return;
    }
    case 3:
      Line("dma_start ", src, " -> ", t.buf, ", ", sem);
      Line("sem_wait ", sem, ", 1");
      return;
    case 4: {
      std::string r = Fresh("row");
      Line("for ", r, " = 0 to ", t.rows, " step 1 {");
      Line("  copy ", t.param, "[", worker, ", ", r, "] -> ", t.buf, "[", r, "]");
      Line("}");
      return;
    }
    default: {
      // A gather of this worker's rows in a shuffled order (duplicates allowed).
      std::vector<int64_t> shape = {t.rows, t.row.n};
      std::string view = Fresh("xw"), list = Fresh("rows");
      Line(view, " = view ", src, " : ", RefType("hbm", t.row.e, shape));
      std::vector<int> rows(t.rows);
      for (int& r : rows) r = rng_.Below(t.rows);
      Line(list, " = const dense<[", absl::StrJoin(rows, ", "), "]> : vector<", t.rows, "xi32>");
      Line("copy ", view, "[idx(", list, ")] -> ", t.buf);
      return;
    }
  }
}

GeneratedKernel Builder::Finish(std::vector<std::string> epilogue) {
  std::string text = absl::StrCat(partial_ ? absl::StrCat(kPartialWritesMarker, "\n") : "", "target \"",
                                  target_, "\"\n\nkernel @fuzz(", absl::StrJoin(param_text_, ", "),
                                  ")\n    mesh vector(cores = ", cores_, ", subcores = ", subcores_, ")\n");
  if (!scratch_text_.empty()) absl::StrAppend(&text, "    scratch(", absl::StrJoin(scratch_text_, ", "), ")\n");
  absl::StrAppend(&text, "{\n");
  for (const auto* part : {&prologue_, &lines_, &epilogue}) {
    for (const std::string& l : *part) absl::StrAppend(&text, l, "\n");
  }
  absl::StrAppend(&text, "}\n");
  return GeneratedKernel{std::move(text), partial_, target_, params_};
}

}  // namespace scjit::fuzz
