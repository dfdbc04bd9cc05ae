#include "jit/interp/interp.h"

#include "jit/interp/program.h"
#include "lowering/ir/printer.h"

namespace scjit::interp {

// ------------------------------------------------------------------------------------
// Values.

Val Val::Of(const Type& t) {
  Val v;
  v.type = t;
  v.bytes.assign(static_cast<size_t>(v.count() * v.width()), 0);
  return v;
}

Val Exec::Get(const Operand& o) {
  if (o.is_literal()) {
    Val v = Val::Of(Type::Scalar(o.literal_type.element()));
    v.set(0, Literal(o, o.literal_type.element()));
    return v;
  }
  return env.at(o.value).val;
}

Bits Exec::Scalar(const Operand& o) {
  if (o.is_literal()) return Literal(o, o.literal_type.element());
  return env.at(o.value).val.at(0);
}

int64_t Exec::SInt(const Operand& o) {
  ElementType e = o.type().element();
  return SignExtend(Scalar(o), ComputeBits(e));
}

// ------------------------------------------------------------------------------------
// Building programs.

void Builder::AccessSite(const Op& op) {
  if (program.options.access_checks) SitesOf(op).access = Site(op);
}

absl::Status Builder::Unsupported(const Op& op, std::string_view what) const {
  return absl::UnimplementedError(Cat("not implemented yet: ", what, " (", op.name(),
                                      " at line ", op.loc.line, ", kernel @", kernel.name, ")"));
}

namespace {

bool TouchesLarge(const Op& op) {
  for (const Operand& o : op.operands) {
    if (o.is_value() && o.value != nullptr && Large(o.value->type)) return true;
  }
  for (const Value* r : op.results) {
    if (Large(r->type)) return true;
  }
  return false;
}

// Indexers the interpreter takes on views that view_bitcast or view_reshape made
// (interp_views.cc): no strided slices (XF-1, GET-3, SWAP-2 reject them in
// checked kernels) and no idx(...) lists.
absl::Status CheckReinterpretedIndexers(Builder& b, const Op& op) {
  for (const Operand& o : op.operands) {
    if (!o.indexed || o.value == nullptr || !Reinterpreted(o.value)) continue;
    for (const IndexEntry& e : o.index) {
      if (e.kind == IndexEntry::Kind::kIndirect && op.info().family != OpFamily::kDma) {
        return b.Unsupported(op, "an idx(...) list on a view made by view_bitcast or view_reshape");
      }
      if (e.stride && e.stride->int_value != 1) {
        return b.Unsupported(op, "strided slices of a view made by view_bitcast or view_reshape");
      }
    }
  }
  return absl::OkStatus();
}

absl::Status Prepare(Builder& b, const Op& op) {
  if (op.info().has(kTerminator)) return absl::OkStatus();  // part of its region's op
  if (absl::Status s = CheckReinterpretedIndexers(b, op); !s.ok()) return s;
  if (TouchesLarge(op) && !op.info().has(kLarge)) {
    return b.Unsupported(op, Cat(op.name(), " of values larger than ", kRegisterBytes, " bytes"));
  }
  b.UseSites(op);
  switch (op.info().family) {
    case OpFamily::kElementwise:
      return PrepareElementwise(b, op);
    case OpFamily::kValue:
      return PrepareValue(b, op);
    case OpFamily::kReduction:
    case OpFamily::kScan:
    case OpFamily::kMaskReduction:
      return PrepareLanes(b, op);
    case OpFamily::kPermute:
      return PreparePermute(b, op);
    case OpFamily::kGrid:
      return PrepareGrid(b, op);
    case OpFamily::kView:
      return PrepareView(b, op);
    case OpFamily::kRefChoice:
      return PrepareRefChoice(b, op);
    case OpFamily::kMemory:
      return PrepareMemory(b, op);
    case OpFamily::kGatherScatter:
      return PrepareGatherScatter(b, op);
    case OpFamily::kDma:
      return PrepareDma(b, op);
    case OpFamily::kSemaphore:
    case OpFamily::kSync:
      return PrepareSync(b, op);
    case OpFamily::kControl:
      return op.kind == OpKind::kPipeline ? PreparePipeline(b, op) : PrepareControl(b, op);
  }
  return b.Unsupported(op, op.name());
}

std::string EntryName(const KernelDef& part) {
  return part.part == 0 ? Cat("interp:", part.name) : Cat("interp:", part.name, "__part", part.part);
}

}  // namespace

Programs::Programs() = default;
Programs::~Programs() = default;

std::vector<PartCode> Programs::Parts() const {
  std::vector<PartCode> out;
  for (const auto& p : parts_) out.push_back(PartCode{&Run, p.get()});
  return out;
}

absl::StatusOr<std::shared_ptr<const Programs>> Build(std::shared_ptr<const Module> module,
                                                      std::span<const KernelDef* const> parts,
                                                      std::span<KernelInfo* const> infos, const Options& options) {
  auto out = std::make_shared<Programs>();
  out->module_ = std::move(module);
  for (size_t i = 0; i < parts.size(); ++i) {
    const KernelDef& part = *parts[i];
    KernelInfo& info = *infos[i];
    auto program = std::make_unique<Program>();
    program->kernel = &part;
    program->options = options;
    program->cores = info.layout.cores;
    program->subcores = info.layout.subcores;
    program->slots = info.slots;
    info.layout.entry = EntryName(part);
    info.layout.access_checks = options.access_checks;
    info.layout.init_shadows = options.init_shadows;
    Builder b{part, info, *program};
    absl::Status status;
    WalkOps(part.body, [&](const Op& op) {
      if (status.ok()) status = Prepare(b, op);
    });
    if (!status.ok()) return status;
    out->parts_.push_back(std::move(program));
  }
  return std::shared_ptr<const Programs>(std::move(out));
}

// ------------------------------------------------------------------------------------
// Running.

int32_t Run(scjit_ctx* ctx) {
  const auto& program = *static_cast<const Program*>(ctx->program);
  Exec x(ctx, program);
  return x.RunRegion(program.kernel->body, nullptr);
}

int32_t Exec::RunRegion(const Region& r, std::vector<Val>* yielded) {
  for (const auto& op : r.ops) {
    if (op->info().has(kTerminator)) {
      if (yielded != nullptr) {
        for (const Operand& o : op->operands) yielded->push_back(Get(o));
      }
      continue;
    }
    if (int32_t s = RunOp(*op); s != 0) return s;
  }
  return 0;
}

int32_t Exec::RunOp(const Op& op) {
  if (int32_t s = RequireUses(op); s != 0) return s;
  switch (op.info().family) {
    case OpFamily::kElementwise:
      return ExecElementwise(*this, op);
    case OpFamily::kValue:
      return ExecValue(*this, op);
    case OpFamily::kReduction:
    case OpFamily::kScan:
    case OpFamily::kMaskReduction:
      return ExecLanes(*this, op);
    case OpFamily::kPermute:
      return ExecPermute(*this, op);
    case OpFamily::kGrid:
      return ExecGrid(*this, op);
    case OpFamily::kView:
      return ExecView(*this, op);
    case OpFamily::kRefChoice:
      return ExecRefChoice(*this, op);
    case OpFamily::kMemory:
      return ExecMemory(*this, op);
    case OpFamily::kGatherScatter:
      return ExecGatherScatter(*this, op);
    case OpFamily::kDma:
      return ExecDma(*this, op);
    case OpFamily::kSemaphore:
    case OpFamily::kSync:
      return ExecSync(*this, op);
    case OpFamily::kControl:
      return op.kind == OpKind::kPipeline ? ExecPipeline(*this, op) : ExecControl(*this, op);
  }
  return 0;
}

}  // namespace scjit::interp
