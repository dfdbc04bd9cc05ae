// Control flow (kernel-ir.md §4.5): for, parallel_for, if, while, scoped. A
// loop's back-edge ticks like the emitter's (CloseLoop): every
// SCJIT_TICK_PERIOD of them the runtime gets control, so that a subcore
// spinning on memory lets the others progress and a time limit can stop it.
#include "jit/interp/program.h"

namespace scjit::interp {

int32_t Exec::Tick(int site) {
  if (--ctx->tick > 0) return 0;
  return scjit_rt_tick(ctx, site);
}

namespace {

void Bind(Exec& x, const std::vector<Value*>& args, size_t first, std::vector<Val>& values) {
  for (size_t i = 0; i < values.size(); ++i) x.Set(args[first + i], values[i]);
}

// One iteration of a loop: `body` with its arguments from `first` bound to the
// carries, which become what it yields; then the back-edge's tick.
int32_t Iterate(Exec& x, const Op& loop, const Region& body, size_t first, std::vector<Val>& carries) {
  Bind(x, body.args, first, carries);
  std::vector<Val> yielded;
  if (int32_t s = x.RunRegion(body, &yielded); s != 0) return s;
  carries = std::move(yielded);
  return x.Tick(x.program.SitesOf(loop).main);
}

void SetResults(Exec& x, const Op& op, std::vector<Val>& values) {
  for (size_t i = 0; i < op.results.size(); ++i) x.Set(op.results[i], std::move(values[i]));
}

int32_t For(Exec& x, const Op& op) {
  const Region& body = *op.regions[0];
  int64_t lo = x.SInt(op.operands[0]), hi = x.SInt(op.operands[1]), step = x.SInt(op.operands[2]);
  std::vector<Val> carries;
  for (size_t i = 3; i < op.operands.size(); ++i) carries.push_back(x.Get(op.operands[i]));
  // A non-positive step would never end: no iteration runs.
  for (int64_t iv = lo; step > 0 && iv < hi; iv += step) {
    Val i = Val::Of(body.args[0]->type);
    i.set(0, static_cast<uint32_t>(iv));
    x.Set(body.args[0], std::move(i));
    if (int32_t s = Iterate(x, op, body, 1, carries); s != 0) return s;
  }
  SetResults(x, op, carries);
  return 0;
}

int32_t If(Exec& x, const Op& op) {
  int region = (x.Scalar(op.operands[0]) & 1) != 0 ? 0 : 1;
  std::vector<Val> yielded;
  if (region < static_cast<int>(op.regions.size()) && (region == 0 || op.has_else)) {
    if (int32_t s = x.RunRegion(*op.regions[region], &yielded); s != 0) return s;
  }
  SetResults(x, op, yielded);
  return 0;
}

int32_t While(Exec& x, const Op& op) {
  const Region& cond = *op.regions[0];
  const Region& body = *op.regions[1];
  std::vector<Val> carries;
  for (const Operand& o : op.operands) carries.push_back(x.Get(o));
  while (true) {
    Bind(x, cond.args, 0, carries);
    std::vector<Val> condition;
    if (int32_t s = x.RunRegion(cond, &condition); s != 0) return s;
    if (int32_t s = x.RequireOperand(op, cond.ops.back()->operands[0]); s != 0) return s;
    if ((condition[0].at(0) & 1) == 0) break;
    if (int32_t s = Iterate(x, op, body, 0, carries); s != 0) return s;
  }
  SetResults(x, op, carries);
  return 0;
}

}  // namespace

absl::Status PrepareControl(Builder& b, const Op& op) {
  if (op.kind == OpKind::kFor || op.kind == OpKind::kParallelFor || op.kind == OpKind::kWhile) {
    b.SitesOf(op).main = b.Site(op);  // the back-edge's tick
  }
  return absl::OkStatus();
}

int32_t ExecControl(Exec& x, const Op& op) {
  switch (op.kind) {
    case OpKind::kFor:
    case OpKind::kParallelFor:
      return For(x, op);
    case OpKind::kIf:
      return If(x, op);
    case OpKind::kWhile:
      return While(x, op);
    case OpKind::kScoped:
      return x.RunRegion(*op.regions[0], nullptr);
    default:  // yield and condition end their regions (RunRegion)
      return 0;
  }
}

}  // namespace scjit::interp
