#include "lowering/ir/verifier.h"

#include <cmath>

#include "absl/container/flat_hash_set.h"
#include "lowering/ir/printer.h"
#include "lowering/base/strings.h"

namespace scjit {
namespace {

std::string Plural(int64_t n, std::string_view word) {
  if (n == 1) return Cat(n, " ", word);
  if (word == "index") return Cat(n, " indices");
  if (word.back() == 'y') return Cat(n, " ", word.substr(0, word.size() - 1), "ies");
  return Cat(n, " ", word, "s");
}

// The value type a ref view of `t` loads as: a scalar for rank 0, else a vector.
Type LoadedType(const Type& view) {
  if (view.rank() == 0) return Type::Scalar(view.element());
  return Type::Vector(view.element(), view.shape());
}

// How the written operand reads in messages: `%x` or a literal.
std::string Name(const Operand& o) { return PrintLiteral(o); }

// Why `what` cannot be in host memory.
std::string HostNotAllocated(std::string_view what) {
  return Cat(what, " is in host memory, which is the caller's: host refs are kernel parameters, never "
             "scratch or allocations");
}

// What an operand is, for "got ..." in messages.
std::string KindOf(const Type& t) {
  if (t.is_ref()) return Cat("a ref (", t.ToString(), ")");
  if (t.is_semaphore()) return Cat("a semaphore (", t.ToString(), ")");
  if (t.is_vector()) return Cat("a vector (", t.ToString(), ")");
  return Cat("a scalar (", t.ToString(), ")");
}

// Which indexer entries an operand position allows.
enum ViewRule : unsigned {
  kPlainIndex = 0,
  kAllowIndirect = 1,     // idx(...) (DMA operands and views)
  kAllowDynamicSize = 2,  // ds(%s, %n) (DMA operands and views)
};

class Verifier {
 public:
  Verifier(Module& module, DiagnosticSink& sink) : module_(module), sink_(sink) {}

  void Run() {
    if (module_.kernels.empty()) {
      Diagnostic d = MakeDiagnostic(DiagId::kIrKernel, module_.source.get(), Location{},
                                    {{"detail", "the file defines no kernel"}});
      sink_.Report(std::move(d));
    }
    for (auto& k : module_.kernels) {
      for (KernelDef* part : k->Parts()) VerifyKernel(*part);
      if (!k->more_parts.empty()) VerifyParts(*k);
      VerifyOtherPartSemaphores(*k);
    }
  }

 private:
  // --- Reporting -----------------------------------------------------------------
  Diagnostic& Report(DiagId id, Location loc, std::initializer_list<DiagArg> args) {
    return sink_.Report(MakeDiagnostic(id, module_.source.get(), loc, args));
  }
  // `'op' detail` codes: IR-ARITY, IR-OPERAND, IR-TYPE.
  bool OpError(DiagId id, const Op& op, Location loc, std::string detail) {
    Report(id, loc.valid() ? loc : op.loc, {{"op", std::string(op.name())}, {"detail", std::move(detail)}});
    return false;
  }
  bool TypeError(const Op& op, Location loc, std::string detail) {
    return OpError(DiagId::kIrType, op, loc, std::move(detail));
  }
  bool OperandError(const Op& op, Location loc, std::string detail) {
    return OpError(DiagId::kIrOperand, op, loc, std::move(detail));
  }
  bool Detail(DiagId id, Location loc, std::string detail) {
    Report(id, loc, {{"detail", std::move(detail)}});
    return false;
  }

  // --- Kernels and regions -------------------------------------------------------
  void VerifyKernel(KernelDef& k);
  void VerifyParts(const KernelDef& k);
  // Scratch written `%s: sem @scalar`: the semaphore of that name of the part
  // on that mesh, which this part may only signal.
  void VerifyOtherPartSemaphores(KernelDef& k);
  void VerifyDevices(const KernelDef& k);
  void VerifyRegion(Region& r);
  void VerifyOp(Op& op);
  bool VerifyArity(Op& op);
  bool VerifyAttrs(Op& op);
  bool VerifyAttrList(std::vector<Attribute>& attrs, const Op* op);
  bool VerifyTerminatorPlacement(Op& op);
  // The region must end with a yield of `types` (or need none when `required` is
  // false and `types` is empty).
  void VerifyYields(const Op& op, Region& r, const std::vector<Type>& types, std::string_view what);

  // --- Operands ------------------------------------------------------------------
  // True when the operand's type is known (literals always; values unless an
  // error was already reported for them).
  static bool Known(const Operand& o) {
    return o.is_literal() || (o.value != nullptr && !o.value->type.is_none());
  }
  bool AllKnown(const Op& op) const;
  // Gives literal `o` the scalar type `t` after checking it fits.
  bool TypeLiteral(const Op& op, Operand& o, const Type& t);
  // `o` must be a scalar or vector value (a literal is typed `literal_type`).
  bool ExpectValue(const Op& op, Operand& o, std::string_view role);
  bool ExpectScalarInt(const Op& op, Operand& o, std::string_view role, bool i32_only);
  bool ExpectI1Scalar(const Op& op, Operand& o, std::string_view role);
  bool ExpectRefLike(const Op& op, const Operand& o, std::string_view role, bool allow_semaphore);
  bool NoIndexer(const Op& op, const Operand& o);
  bool CheckResult(const Op& op, size_t i, const Type& computed);

  // The type of ref operand `o` after its indexer; nullopt if reported.
  std::optional<Type> ViewOf(const Op& op, Operand& o, unsigned rules);
  // The type of vector operand `o` after a value indexer (extract/insert/slice).
  std::optional<Type> ValueIndex(const Op& op, Operand& o, bool ranges);

  // --- Ops -----------------------------------------------------------------------
  void VerifySame(Op& op);    // the kSame, kBitwise, kShift and kFloat rules
  void VerifyCustom(Op& op);  // the kCustom rule: dispatches on the op's family
  // The op's `axis` attribute (default 0), which must name a dimension of `t`;
  // nullopt if reported.
  std::optional<int64_t> AxisOf(const Op& op, const Type& t);

  // The kElementwise ops with a kCustom rule (their operand types differ).
  void VerifyElementwise(Op& op);
  void VerifyCmp(Op& op);      // operands of one shape, an i1 result
  void VerifySelect(Op& op);   // an i1 condition choosing between operands of one type
  void VerifyConvert(Op& op);  // convert, bitcast: a value turned into another of its kind

  // The kValue family: making vector values and taking them apart.
  void VerifyValueOp(Op& op);
  void VerifyConst(Op& op);        // the literal's form and elements against the type
  void VerifyBroadcast(Op& op);    // a scalar to a vector of its element type
  void VerifyExtract(Op& op);      // extract, slice: a part of a vector at its indexer
  void VerifyInsert(Op& op);       // a scalar of the vector's element type, at its indexer
  void VerifyConcat(Op& op);       // vectors of one shape but along the axis
  void VerifyReshape(Op& op);      // the same element type and count
  void VerifyRoundingMethod(Op& op);  // round's rounding_method
  void VerifyPack(Op& op);         // pack, unpack: vector operands and results
  void VerifyPackShape(Op& op);    // pack's result shape, where the SC rules let it be known
  void VerifyUnpackShape(Op& op);  // unpack's format and result types

  // The kReduction, kScan and kMaskReduction families.
  void VerifyReduction(Op& op);         // a vector to a scalar of its element type
  void VerifyScan(Op& op);              // a vector (and mask) to its running values
  bool CumsumAttrsValid(const Op& op);  // cumsum's axis and reverse, if any
  void VerifyMaskReduction(Op& op);     // a mask to i32 counts or positions

  // The kPermute family.
  void VerifyPermute(Op& op);
  void VerifyRevTranspose(Op& op);  // a vector reordered along its axes
  // The shape of `in` under transpose's `permutation` (default: reversed axes);
  // nullopt if reported.
  std::optional<Shape> TransposedShape(const Op& op, const Type& in);
  void VerifyValueGather(Op& op);     // gather: a vector at a vector of integer indices
  void VerifySort(Op& op);            // vector operands, results of their types
  bool SortAttrsValid(const Op& op);  // lax.sort's dimension and num_keys, if any

  // The kGrid family: an i32, and program_id's axis a literal.
  void VerifyGridQuery(Op& op);

  // Ops on refs. The ref operand `ref` is not a literal (`what`: "ref" or
  // "semaphore"); ExpectMemory: it is a ref or semaphores, not a value.
  bool NotLiteral(const Op& op, const Operand& ref, std::string_view what);
  bool ExpectMemory(const Op& op, const Operand& ref);
  void VerifyView(Op& op);                            // the kView family: a view of one ref
  void VerifyRefCast(Op& op);                         // view_bitcast, view_reshape: the view's type
  void VerifySubcoreSlice(Op& op);                    // view_subcore_slice: a VMEM view of VMEM_SHARED
  void VerifySelectRef(Op& op);                       // an integer choosing between refs of one type
  void VerifyMemory(Op& op);                          // the kMemory family: an access to a ref view
  void VerifyLoad(Op& op, const Type& view);          // get, load_expanded
  void VerifyStore(Op& op, const Type& view);         // swap, store: a value of the view's type
  void VerifyUpdate(Op& op, const Type& view);        // the other stores: a value and its mask
  void VerifyFetchAndAdd(Op& op, const Type& view);   // a scalar increment, the old value
  void VerifyGatherScatter(Op& op);                   // lanes of a ref view at index vectors
  void VerifyGatherResult(Op& op, const Type& view);  // load_gather's result type
  void VerifySemaphore(Op& op);                       // a semaphore and its count
  void VerifyDma(Op& op);                             // views of the source, destination, semaphores
  void VerifySync(Op& op);                            // barrier, debug_print, debug_check, alloc

  // The kControl family.
  void VerifyControl(Op& op);
  // No value of `carried` is a ref (IR-TYPE).
  bool CarriesValuesOnly(const Op& op, const std::vector<Value*>& carried);
  void VerifyFor(Op& op);           // for, parallel_for: bounds, step, carried inits, yields
  void VerifyIf(Op& op);            // the condition and both branches' yields
  void VerifyWhile(Op& op);         // carried inits, the cond region's condition, the body's yields
  void VerifyPipeline(Op& op);      // the grid, the body's block refs, each operand
  bool VerifyPipelineGrid(Op& op);  // the grid's sizes and the partition's axes
  // Pipeline operand k: its block, map and block ref; false when a block size
  // below 1 ends the checks of the pipeline's operands.
  bool VerifyPipelineOperand(Op& op, size_t k);
  void VerifyWindowFits(const PipelineOperand& po, const Value& block);
  // The map of `po`: its grid variables and a yield of one index per block
  // dimension; false if reported.
  bool VerifyBlockMap(const Op& op, PipelineOperand& po);
  // The yielded indices: idx(...) exactly for indirect block dimensions.
  void VerifyMapEntries(Op& yield, const PipelineOperand& po);

  Module& module_;
  DiagnosticSink& sink_;
  KernelDef* kernel_ = nullptr;
};

// ------------------------------------------------------------------------------------
// Kernels.

void Verifier::VerifyKernel(KernelDef& k) {
  kernel_ = &k;
  auto check_memory = [&](Value* v, std::string_view what) {
    if (v->type.is_none()) return;
    if (!v->type.is_memory()) {
      Detail(DiagId::kIrKernel, v->loc,
             Cat(what, " %", v->name, " must be a ref such as hbm<16xi32> or a semaphore, got ",
                 v->type.ToString()));
    } else if (v->type.has_dynamic_dim()) {
      Detail(DiagId::kIrKernel, v->loc,
             Cat(what, " %", v->name, " has a dynamic dimension; ", what, "s have static shapes"));
    }
  };
  // The parameters are the kernel's: checked with its first part.
  if (k.first == nullptr) {
    for (Param& p : k.params) check_memory(p.value, "parameter");
  }
  for (Value* v : k.scratch) {
    check_memory(v, "scratch");
    if (v->type.is_ref() && v->type.space() == MemorySpace::kHost) {
      Detail(DiagId::kIrKernel, v->loc, HostNotAllocated(Cat("scratch %", v->name)));
    }
  }
  VerifyDevices(k);
  if (k.mesh.cores && *k.mesh.cores < 1) {
    Detail(DiagId::kIrKernel, k.mesh.cores_loc, Cat("a mesh needs at least one core, got ", *k.mesh.cores));
  }
  if (k.mesh.subcores && *k.mesh.subcores < 1) {
    Detail(DiagId::kIrKernel, k.mesh.subcores_loc,
           Cat("a mesh needs at least one subcore, got ", *k.mesh.subcores));
  }
  VerifyAttrList(k.attributes, nullptr);
  VerifyRegion(k.body);
}

// The device mesh: named axes other than the mesh's own, of at least one
// device each, kMaxDevices in all.
void Verifier::VerifyDevices(const KernelDef& k) {
  if (k.devices_loc.valid() && k.devices.empty()) {
    Detail(DiagId::kIrKernel, k.devices_loc, "a 'devices' clause names at least one axis, such as devices(x = 2)");
  }
  int64_t count = 1;
  for (size_t i = 0; i < k.devices.size(); ++i) {
    const DeviceAxis& a = k.devices[i];
    if (a.name == "core" || a.name == "subcore") {
      Detail(DiagId::kIrKernel, a.loc,
             Cat("a device axis cannot be named '", a.name, "': that is an axis of the subcore mesh"));
    }
    for (size_t j = 0; j < i; ++j) {
      if (k.devices[j].name == a.name) Detail(DiagId::kIrKernel, a.loc, Cat("device axis '", a.name, "' is given twice"));
    }
    if (a.size < 1) {
      Detail(DiagId::kIrKernel, a.loc, Cat("device axis '", a.name, "' needs at least one device, got ", a.size));
      return;
    }
    if (a.size > kMaxDevices || count * a.size > kMaxDevices) {
      Detail(DiagId::kIrLimit, a.loc, Cat("a device mesh has at most ", kMaxDevices, " devices"));
      return;
    }
    count *= a.size;
  }
}

// A kernel of several parts (MPMD): each part names its mesh, at most one part
// per mesh kind (Pallas: "You can't use two different ScalarSubcoreMeshes"),
// and the parts run on the same cores (Pallas: the scalar mesh "should have the
// same core axis name and number of cores as the VectorSubcoreMesh").
void Verifier::VerifyParts(const KernelDef& k) {
  std::vector<const KernelDef*> parts = k.Parts();
  const KernelDef* by_kind[2] = {nullptr, nullptr};
  const KernelDef* cores_from = nullptr;  // the first part that writes `cores`
  for (const KernelDef* p : parts) {
    if (!p->mesh.written) {
      Detail(DiagId::kIrKernel, p->body.loc,
             Cat("kernel @", k.name, " has ", parts.size(),
                 " parts; each part names its mesh, but this one has no 'mesh' clause"));
      continue;
    }
    const KernelDef*& same = by_kind[static_cast<int>(p->mesh.kind)];
    std::string_view kind = MeshKindName(p->mesh.kind);
    if (same != nullptr) {
      Diagnostic& d = Report(DiagId::kIrKernel, p->mesh.loc,
                             {{"detail", Cat("kernel @", k.name, " has a second part on a ", kind,
                                             " mesh; a kernel has at most one part per mesh kind")}});
      std::string file = module_.source != nullptr ? std::string(module_.source->name()) : "";
      d.notes.push_back(Cat("the first ", kind, " part is at ", file, ":", same->mesh.loc.line, ":", same->mesh.loc.col));
      continue;
    }
    same = p;
    if (cores_from == nullptr && p->mesh.cores) cores_from = p;
  }
  if (cores_from == nullptr) return;  // every part has the target's cores
  for (const KernelDef* p : parts) {
    if (!p->mesh.written || p->mesh.cores == cores_from->mesh.cores) continue;
    Location at = p->mesh.cores ? p->mesh.cores_loc : p->mesh.loc;
    Diagnostic& d = Report(
        DiagId::kIrKernel, at,
        {{"detail", Cat("the parts of kernel @", k.name, " run on the same cores, but this mesh has ",
                        p->mesh.cores ? Cat(*p->mesh.cores) : std::string("the target's number of"),
                        " cores and the one at line ", cores_from->mesh.loc.line, " has ", *cores_from->mesh.cores)}});
    d.help = Cat("write `cores = ", *cores_from->mesh.cores, "` on every part's mesh (or on none)");
  }
}

void Verifier::VerifyOtherPartSemaphores(KernelDef& k) {
  std::vector<KernelDef*> parts = k.Parts();
  for (KernelDef* part : parts) {
    for (Value* v : part->scratch) {
      if (!v->other_mesh) continue;
      std::string_view kind = MeshKindName(*v->other_mesh);
      if (!v->type.is_semaphore()) {
        Detail(DiagId::kIrKernel, v->other_loc,
               Cat("scratch %", v->name, " is a ", v->type.ToString(), "; only a semaphore can be another part's (`@",
                   kind, "`)"));
        continue;
      }
      if (part->mesh.kind == *v->other_mesh) {
        Detail(DiagId::kIrKernel, v->other_loc,
               Cat("scratch %", v->name, " names this part's own mesh (`@", kind,
                   "`); declare the semaphore without it"));
        continue;
      }
      const KernelDef* owner = nullptr;
      for (const KernelDef* p : parts) {
        if (p->mesh.written && p->mesh.kind == *v->other_mesh) owner = p;
      }
      if (owner == nullptr) {
        Detail(DiagId::kIrKernel, v->other_loc,
               Cat("scratch %", v->name, " is a semaphore of the ", kind, " part (`@", kind, "`), but kernel @", k.name,
                   " has no part on a ", kind, " mesh"));
        continue;
      }
      const Value* theirs = nullptr;
      for (const Value* w : owner->scratch) {
        if (w->name == v->name && !w->other_mesh) theirs = w;
      }
      if (theirs == nullptr) {
        Report(DiagId::kIrUndefined, v->loc, {{"name", Cat("%", v->name)}})
            .notes.push_back(Cat("the ", kind, " part declares no scratch semaphore %", v->name));
        continue;
      }
      if (theirs->type != v->type) {
        Detail(DiagId::kIrKernel, v->loc,
               Cat("scratch %", v->name, " is declared ", v->type.ToString(), " here and ", theirs->type.ToString(),
                   " in the ", kind, " part"));
        continue;
      }
      v->other_part = owner->part;
      v->other = theirs;
    }
    // This part may only signal another part's semaphore: waits and reads are
    // of its owner's subcores, and DMAs credit the starting subcore's own.
    WalkOps(part->body, [&](const Op& op) {
      for (size_t i = 0; i < op.operands.size(); ++i) {
        const Operand& o = op.operands[i];
        if (!o.is_value() || o.value == nullptr || !o.value->other_mesh) continue;
        if (op.kind == OpKind::kSemSignal && i == 0) continue;
        std::string_view kind = MeshKindName(*o.value->other_mesh);
        OperandError(op, o.loc,
                     Cat("%", o.value->name, " is a semaphore of the ", kind, " part (`@", kind,
                         "`): this part can only signal it with sem_signal"));
      }
    });
  }
}

void Verifier::VerifyRegion(Region& r) {
  for (auto& op : r.ops) VerifyOp(*op);
}

bool Verifier::AllKnown(const Op& op) const {
  auto known_entries = [](const Operand& o) {
    for (const IndexEntry& e : o.index) {
      if (!Known(e.start) && (e.kind != IndexEntry::Kind::kRange && e.kind != IndexEntry::Kind::kAll)) return false;
      if (e.kind == IndexEntry::Kind::kSlice && !Known(e.size)) return false;
      if (e.stride && !Known(*e.stride)) return false;
      if (e.ignore && !Known(*e.ignore)) return false;
    }
    return true;
  };
  for (const Operand& o : op.operands) {
    if (!Known(o) || !known_entries(o)) return false;
  }
  for (const Operand& o : op.index_vectors) {
    if (!Known(o)) return false;
  }
  if (op.mask && !Known(*op.mask)) return false;
  for (const Value* v : op.results) {
    if (v->type.is_none()) return false;
  }
  for (const IndexEntry& e : op.map_entries) {
    if (!Known(e.start)) return false;
  }
  return true;
}

void Verifier::VerifyOp(Op& op) {
  bool ok = VerifyArity(op);
  ok = VerifyAttrs(op) && ok;
  ok = VerifyTerminatorPlacement(op) && ok;
  if (op.mask && !op.info().has(kHasMask)) {
    ok = OperandError(op, op.mask->loc, "takes no mask");
  }
  if (!op.index_vectors.empty() && !op.info().has(kIndexVectors)) {
    ok = OperandError(op, op.index_vectors[0].loc, "takes no index vectors");
  }
  if (ok && AllKnown(op)) {
    switch (op.info().rule) {
      case TypeRule::kSame:
      case TypeRule::kBitwise:
      case TypeRule::kShift:
      case TypeRule::kFloat:
        VerifySame(op);
        break;
      case TypeRule::kCustom:
        VerifyCustom(op);
        break;
    }
  }
  // Regions are verified even when the op itself is broken: their ops are
  // independent statements.
  if (op.pipeline != nullptr) {
    for (PipelineOperand& p : op.pipeline->operands) VerifyRegion(*p.map);
  }
  for (auto& r : op.regions) VerifyRegion(*r);
}

bool Verifier::VerifyArity(Op& op) {
  const OpInfo& info = op.info();
  int n = static_cast<int>(op.operands.size());
  Syntax syntax = info.syntax;
  bool counted = syntax != Syntax::kFor && syntax != Syntax::kIf && syntax != Syntax::kWhile &&
                 syntax != Syntax::kPipeline && syntax != Syntax::kConst && syntax != Syntax::kAlloc;
  if (counted && (n < info.min_operands || (info.max_operands >= 0 && n > info.max_operands))) {
    std::string want;
    if (info.min_operands == info.max_operands) {
      want = Plural(info.min_operands, "operand");
    } else if (info.max_operands < 0) {
      want = Cat("at least ", Plural(info.min_operands, "operand"));
    } else {
      want = Cat(info.min_operands, " to ", Plural(info.max_operands, "operand"));
    }
    return OpError(DiagId::kIrArity, op, op.loc, Cat("expects ", want, ", got ", n));
  }
  int r = static_cast<int>(op.results.size());
  if (info.min_results >= 0 && (r < info.min_results || (info.max_results >= 0 && r > info.max_results))) {
    std::string want = info.min_results == info.max_results
                           ? Plural(info.min_results, "result")
                           : Cat(info.min_results, " or ", Plural(info.max_results, "result"));
    return OpError(DiagId::kIrArity, op, op.loc, Cat("defines ", want, ", got ", r));
  }
  if (op.kind == OpKind::kSortKeyVal && r >= 2) {
    int want = op.mask ? 3 : 2;
    if (r != want) {
      return OpError(DiagId::kIrArity, op, op.loc,
                     op.mask ? Cat("with a mask defines 3 results (keys, values, mask), got ", r)
                             : Cat("without a mask defines 2 results (keys, values), got ", r));
    }
  }
  if (op.kind == OpKind::kSort && r != n) {
    return OpError(DiagId::kIrArity, op, op.loc,
                   Cat("defines one result per operand (", n, "), got ", r));
  }
  if (syntax == Syntax::kDma && op.dma_add && op.kind == OpKind::kDmaWait) {
    return OperandError(op, op.loc, "takes no 'add'; the add belongs to the dma_start");
  }
  return true;
}

bool Verifier::VerifyAttrs(Op& op) { return VerifyAttrList(op.attrs, &op); }

bool Verifier::VerifyAttrList(std::vector<Attribute>& attrs, const Op* op) {
  bool ok = true;
  std::string owner = op != nullptr ? Cat("'", op->name(), "'") : std::string("the kernel");
  absl::flat_hash_set<std::string> seen;
  for (Attribute& a : attrs) {
    if (!seen.insert(a.name).second) {
      ok = Detail(DiagId::kIrAttr, a.loc, Cat(owner, " has attribute '", a.name, "' twice"));
      continue;
    }
    const AttrInfo* info = FindAttrInfo(a.name);
    // A device axis of the kernel names a coordinate of the target device
    // (Pallas' device_id dict: {"x": i}) where `device` is accepted.
    static constexpr AttrInfo kDeviceAxisAttr{"", AttrKind::kI32, AttrWhere::kOp, ""};
    if (op != nullptr && op->info().AcceptsAttr("device") && kernel_ != nullptr &&
        kernel_->FindDeviceAxis(a.name) >= 0) {
      info = &kDeviceAxisAttr;
    }
    bool accepted = info != nullptr && (op != nullptr ? info == &kDeviceAxisAttr || op->info().AcceptsAttr(a.name)
                                                      : info->where == AttrWhere::kKernel);
    if (!accepted) {
      std::string_view list = op != nullptr ? op->info().attrs : std::string_view("layout_passes");
      Diagnostic& d = Report(DiagId::kIrAttr, a.loc, {{"detail", Cat(owner, " has no attribute '", a.name, "'")}});
      d.help = list.empty() ? Cat(owner, " takes no attributes") : Cat(owner, " takes: ", list);
      ok = false;
      continue;
    }
    AttrValue& v = a.value;
    bool is_literal_int = v.kind == AttrValue::Kind::kOperand && v.operand.kind == Operand::Kind::kInt;
    bool kind_ok = false;
    std::string_view want;
    switch (info->kind) {
      case AttrKind::kInt:
        kind_ok = is_literal_int;
        want = "an integer";
        break;
      case AttrKind::kBool:
        kind_ok = v.kind == AttrValue::Kind::kOperand && v.operand.kind == Operand::Kind::kBool;
        want = "true or false";
        break;
      case AttrKind::kString:
        kind_ok = v.kind == AttrValue::Kind::kString;
        want = "a string";
        break;
      case AttrKind::kI32:
        if (v.kind == AttrValue::Kind::kOperand) {
          if (is_literal_int) {
            v.operand.literal_type = Type::Scalar(ElementType::kI32);
            kind_ok = true;
          } else if (v.operand.is_value()) {
            // The value's dtype is checked by the SC rules (FAA-8, SEM-5).
            kind_ok = !Known(v.operand) || v.operand.value->type.is_scalar();
          }
        }
        want = "an i32 scalar";
        break;
      case AttrKind::kDeviceId: {
        // The values' dtype is checked by the SC rules (SEM-5).
        auto scalar = [&](AttrValue& e) {
          if (e.kind != AttrValue::Kind::kOperand) return false;
          if (e.operand.kind == Operand::Kind::kInt) {
            e.operand.literal_type = Type::Scalar(ElementType::kI32);
            return true;
          }
          return e.operand.is_value() && (!Known(e.operand) || e.operand.value->type.is_scalar());
        };
        kind_ok = v.kind == AttrValue::Kind::kList ? !v.list.empty() : scalar(v);
        for (AttrValue& e : v.list) kind_ok = kind_ok && scalar(e);
        want = "an i32 scalar (a logical device id) or a list of them (mesh coordinates)";
        break;
      }
      case AttrKind::kIntList:
        kind_ok = v.kind == AttrValue::Kind::kList;
        for (const AttrValue& e : v.list) {
          kind_ok = kind_ok && e.kind == AttrValue::Kind::kOperand && e.operand.kind == Operand::Kind::kInt;
        }
        want = "a list of integers";
        break;
    }
    if (!kind_ok) {
      ok = Detail(DiagId::kIrAttr, v.loc, Cat("attribute '", a.name, "' of ", owner, " must be ", want));
    }
  }
  if (op != nullptr) {
    auto require = [&](std::string_view name) {
      if (op->FindAttr(name) == nullptr) {
        ok = Detail(DiagId::kIrAttr, op->loc, Cat(owner, " needs attribute '", name, "'"));
      }
    };
    if (op->kind == OpKind::kPack || op->kind == OpKind::kUnpack) require("format");
    if (op->kind == OpKind::kFetchAndAdd) require("subcore");
    // One form of device id: `device = ...` or the device axes by name.
    const Attribute* device = op->FindAttr("device");
    for (const Attribute& a : attrs) {
      if (device == nullptr || kernel_ == nullptr || kernel_->FindDeviceAxis(a.name) < 0) continue;
      ok = Detail(DiagId::kIrAttr, a.loc,
                  Cat(owner, " names its device twice: by 'device' and by the device axis '", a.name,
                      "'; give either a device id or the axes' coordinates"));
      break;
    }
  }
  return ok;
}

bool Verifier::VerifyTerminatorPlacement(Op& op) {
  if (!op.info().has(kTerminator)) return true;
  Region* r = op.parent;
  bool last = r != nullptr && !r->ops.empty() && r->ops.back().get() == &op;
  const Op* parent = r != nullptr ? r->parent : nullptr;
  if (op.kind == OpKind::kCondition) {
    bool in_cond = parent != nullptr && parent->kind == OpKind::kWhile && parent->regions[0].get() == r;
    if (!in_cond || !last) {
      return Detail(DiagId::kIrRegion, op.loc, "'condition' must be the last operation of a while loop's cond region");
    }
    return true;
  }
  bool yields = parent != nullptr &&
                (r->is_pipeline_map || parent->kind == OpKind::kFor || parent->kind == OpKind::kParallelFor ||
                 parent->kind == OpKind::kIf ||
                 (parent->kind == OpKind::kWhile && parent->regions.size() > 1 && parent->regions[1].get() == r));
  if (!yields) {
    return Detail(DiagId::kIrRegion, op.loc,
                  "'yield' ends a loop body, an if branch, a while body or a pipeline map, nothing else");
  }
  if (!last) return Detail(DiagId::kIrRegion, op.loc, "'yield' must be the last operation of its region");
  return true;
}

void Verifier::VerifyYields(const Op& op, Region& r, const std::vector<Type>& types, std::string_view what) {
  const Op* last = r.ops.empty() ? nullptr : r.ops.back().get();
  bool has_yield = last != nullptr && last->kind == OpKind::kYield;
  auto type_list = [&]() {
    std::string s;
    for (size_t i = 0; i < types.size(); ++i) Append(&s, i ? ", " : "", types[i].ToString());
    return s;
  };
  if (!has_yield) {
    if (types.empty()) return;
    Location loc = r.end_loc.valid() ? r.end_loc : r.loc;
    Detail(DiagId::kIrRegion, loc,
           Cat(what, " of '", op.name(), "' must end with 'yield' of ", Plural(static_cast<int64_t>(types.size()), "value"),
               " (", type_list(), ")"));
    return;
  }
  Op& y = const_cast<Op&>(*last);
  if (y.operands.size() != types.size()) {
    Detail(DiagId::kIrRegion, y.loc,
           Cat("'yield' passes ", Plural(static_cast<int64_t>(y.operands.size()), "value"), " but ", what, " of '",
               op.name(), "' carries ", types.size(), types.empty() ? "" : Cat(" (", type_list(), ")")));
    return;
  }
  for (size_t i = 0; i < types.size(); ++i) {
    Operand& o = y.operands[i];
    if (!Known(o) || types[i].is_none()) continue;
    if (o.is_literal()) {
      if (!types[i].is_scalar()) {
        OperandError(y, o.loc, Cat("cannot take the literal ", Name(o), " for a ", types[i].ToString(), " value"));
      } else {
        TypeLiteral(y, o, types[i]);
      }
      continue;
    }
    if (NoIndexer(y, o) && o.value->type != types[i]) {
      TypeError(y, o.loc, Cat("value ", i, " (", Name(o), ") has type ", o.value->type.ToString(), ", but ", what,
                              " of '", op.name(), "' carries ", types[i].ToString()));
    }
  }
}

// ------------------------------------------------------------------------------------
// Operands.

bool Verifier::TypeLiteral(const Op& op, Operand& o, const Type& t) {
  if (!t.is_scalar()) {
    return OperandError(op, o.loc, Cat("cannot take the literal ", Name(o), " for a ", t.ToString(), " operand"));
  }
  ElementType e = t.element();
  std::string what = PrintLiteral(o);
  auto fail = [&](std::string detail) {
    Report(DiagId::kIrLiteral, o.loc, {{"detail", std::move(detail)}});
    return false;
  };
  switch (o.kind) {
    case Operand::Kind::kValue:
      return true;
    case Operand::Kind::kBool:
      if (!IsBool(e)) return fail(Cat("boolean literal ", what, " where ", IrName(e), " is expected"));
      break;
    case Operand::Kind::kFloat:
      if (!IsFloat(e)) return fail(Cat("float literal ", what, " where ", IrName(e), " is expected"));
      break;
    case Operand::Kind::kInt: {
      if (IsFloat(e)) break;
      int64_t v = o.int_value;
      if (IsBool(e)) {
        if (v != 0 && v != 1) return fail(Cat("literal ", what, " does not fit in i1 (use 0, 1, true or false)"));
        break;
      }
      int bits = ValueBits(e);
      if (bits < 64) {
        // Either the signed or the unsigned range of the width: a literal may
        // spell the bit pattern (0xFFFFFFFF for an i32, 0xF for an i4).
        int64_t lo = -(int64_t{1} << (bits - 1));
        int64_t hi = (int64_t{1} << bits) - 1;
        if (v < lo || v > hi) return fail(Cat("literal ", what, " does not fit in ", IrName(e)));
      }
      break;
    }
  }
  o.literal_type = t;
  return true;
}

bool Verifier::ExpectValue(const Op& op, Operand& o, std::string_view role) {
  if (o.is_literal()) return true;
  if (!o.value->type.is_value()) {
    Diagnostic& d = Report(DiagId::kIrOperand, o.loc,
                           {{"op", std::string(op.name())},
                            {"detail", Cat(role, " ", Name(o), " must be a scalar or vector value, got ", KindOf(o.value->type))}});
    if (o.value->type.is_ref()) d.help = Cat("load it first: %v = get ", Name(o), "[...] : ...");
    return false;
  }
  return NoIndexer(op, o);
}

bool Verifier::NoIndexer(const Op& op, const Operand& o) {
  if (!o.indexed) return true;
  return OperandError(op, o.loc, Cat("operand ", Name(o), " cannot be indexed here"));
}

bool Verifier::ExpectScalarInt(const Op& op, Operand& o, std::string_view role, bool i32_only) {
  if (o.is_literal()) return TypeLiteral(op, o, Type::Scalar(ElementType::kI32));
  if (!ExpectValue(op, o, role)) return false;
  const Type& t = o.value->type;
  if (!t.is_scalar() || !IsInteger(t.element()) || (i32_only && t.element() != ElementType::kI32)) {
    return TypeError(op, o.loc,
                     Cat(role, " ", Name(o), " must be ", i32_only ? "an i32" : "an integer", " scalar, got ", t.ToString()));
  }
  return true;
}

bool Verifier::ExpectI1Scalar(const Op& op, Operand& o, std::string_view role) {
  if (o.is_literal()) return TypeLiteral(op, o, Type::Scalar(ElementType::kI1));
  if (!ExpectValue(op, o, role)) return false;
  if (o.value->type != Type::Scalar(ElementType::kI1)) {
    return TypeError(op, o.loc, Cat(role, " ", Name(o), " must be an i1 scalar, got ", o.value->type.ToString()));
  }
  return true;
}

bool Verifier::ExpectRefLike(const Op& op, const Operand& o, std::string_view role, bool allow_semaphore) {
  if (o.is_literal()) {
    return OperandError(op, o.loc, Cat(role, " must be a ref, got the literal ", Name(o)));
  }
  const Type& t = o.value->type;
  if (t.is_ref() || (allow_semaphore && t.is_semaphore())) return true;
  return OperandError(op, o.loc, Cat(role, " ", Name(o), " must be a ref, got ", KindOf(t)));
}

bool Verifier::CheckResult(const Op& op, size_t i, const Type& computed) {
  if (i >= op.results.size()) return true;
  const Type& written = op.results[i]->type;
  if (written == computed) return true;
  std::string which = op.results.size() == 1 ? "result" : Cat("result ", i);
  return TypeError(op, op.results[i]->loc,
                   Cat(which, " has type ", written.ToString(), ", but the op produces ", computed.ToString()));
}

std::optional<Type> Verifier::ViewOf(const Op& op, Operand& o, unsigned rules) {
  const Type& base = o.value->type;
  if (!o.indexed) {
    o.view = base;
    return base;
  }
  if (static_cast<int>(o.index.size()) > base.rank()) {
    Detail(DiagId::kIrIndex, o.loc,
           Cat("the indexer of ", Name(o), " has ", Plural(static_cast<int64_t>(o.index.size()), "entry"),
               " but ", base.ToString(), " has rank ", base.rank()));
    return std::nullopt;
  }
  Shape shape;
  bool ok = true;
  for (int d = 0; d < base.rank(); ++d) {
    int64_t dim = base.shape()[d];
    if (d >= static_cast<int>(o.index.size())) {
      shape.push_back(dim);
      continue;
    }
    IndexEntry& e = o.index[d];
    auto out_of_bounds = [&](std::string what) {
      ok = Detail(DiagId::kIrIndex, e.loc,
                  Cat(what, " is out of bounds for dimension ", d, " of ", Name(o), " (size ", dim, ")"));
    };
    switch (e.kind) {
      case IndexEntry::Kind::kIndex:
        if (!ExpectScalarInt(op, e.start, "index", false)) {
          ok = false;
        } else if (e.start.is_literal() && dim != kDynamic && (e.start.int_value < 0 || e.start.int_value >= dim)) {
          out_of_bounds(Cat("index ", e.start.int_value));
        }
        break;
      case IndexEntry::Kind::kSlice: {
        bool start_ok = ExpectScalarInt(op, e.start, "slice start", false);
        int64_t size = kDynamic;
        if (e.size.is_literal()) {
          if (!TypeLiteral(op, e.size, Type::Scalar(ElementType::kI32))) {
            ok = false;
            break;
          }
          size = e.size.int_value;
          if (size < 1) {
            ok = Detail(DiagId::kIrIndex, e.size.loc, Cat("slice size ", size, " must be positive"));
            break;
          }
        } else {
          if (!ExpectScalarInt(op, e.size, "slice size", false)) {
            ok = false;
            break;
          }
          if (!(rules & kAllowDynamicSize)) {
            ok = Detail(DiagId::kIrIndex, e.loc,
                        Cat("the dynamically sized slice ds(", Name(e.start), ", ", Name(e.size),
                            ") is only allowed in views and DMA operands; values have static shapes"));
            break;
          }
        }
        int64_t stride = 1;
        if (e.stride) {
          if (!e.stride->is_literal() || e.stride->kind != Operand::Kind::kInt) {
            ok = Detail(DiagId::kIrIndex, e.stride->loc, "a slice stride must be an integer literal");
            break;
          }
          if (!TypeLiteral(op, *e.stride, Type::Scalar(ElementType::kI32))) {
            ok = false;
            break;
          }
          stride = e.stride->int_value;
          if (stride < 1) {
            ok = Detail(DiagId::kIrIndex, e.stride->loc, Cat("slice stride ", stride, " must be positive"));
            break;
          }
        }
        if (start_ok && e.start.is_literal() && size != kDynamic && dim != kDynamic) {
          int64_t first = e.start.int_value;
          int64_t last = first + (size - 1) * stride;
          if (first < 0 || last >= dim) {
            out_of_bounds(Cat("slice ds(", first, ", ", size, stride != 1 ? Cat(", stride = ", stride) : "", ")"));
          }
        }
        ok = ok && start_ok;
        shape.push_back(size);
        break;
      }
      case IndexEntry::Kind::kRange: {
        int64_t lo = e.lo.value_or(0);
        int64_t hi = e.hi.has_value() ? *e.hi : dim;
        if (hi == kDynamic) {
          shape.push_back(kDynamic);
          break;
        }
        if (lo < 0 || lo >= hi || (dim != kDynamic && hi > dim)) {
          out_of_bounds(Cat("slice ", lo, ":", hi));
          break;
        }
        shape.push_back(hi - lo);
        break;
      }
      case IndexEntry::Kind::kAll:
        shape.push_back(dim);
        break;
      case IndexEntry::Kind::kIndirect: {
        if (!(rules & kAllowIndirect)) {
          ok = Detail(DiagId::kIrIndex, e.loc, "idx(...) is only allowed in DMA operands and views");
          break;
        }
        // The list's kind, rank and dtype are SC rules (DMA-18...22).
        if (e.ignore && !ExpectScalarInt(op, *e.ignore, "ignore value", false)) ok = false;
        const Type t = e.start.type();
        shape.push_back(t.rank() >= 1 ? t.shape()[0] : kDynamic);
        if (e.start.is_literal()) {
          ok = OperandError(op, e.start.loc, "idx(...) takes a vector value or a ref of indices, not a literal");
        }
        break;
      }
    }
  }
  if (!ok) return std::nullopt;
  o.view = base.WithShape(std::move(shape));
  return o.view;
}

std::optional<Type> Verifier::ValueIndex(const Op& op, Operand& o, bool ranges) {
  const Type& base = o.value->type;
  if (!base.is_vector()) {
    OperandError(op, o.loc, Cat("operand ", Name(o), " must be a vector value, got ", KindOf(base)));
    return std::nullopt;
  }
  if (!o.indexed) {
    Detail(DiagId::kIrIndex, o.loc, Cat("'", op.name(), "' needs an indexer on ", Name(o), ", e.g. ", Name(o),
                                        ranges ? "[0:8]" : "[3]"));
    return std::nullopt;
  }
  if (static_cast<int>(o.index.size()) > base.rank() ||
      (!ranges && static_cast<int>(o.index.size()) != base.rank())) {
    Detail(DiagId::kIrIndex, o.loc,
           Cat("'", op.name(), "' on ", base.ToString(), " takes ", ranges ? "at most " : "", Plural(base.rank(), "index"),
               ", got ", o.index.size()));
    return std::nullopt;
  }
  for (IndexEntry& e : o.index) {
    bool allowed = ranges ? (e.kind == IndexEntry::Kind::kRange || e.kind == IndexEntry::Kind::kAll)
                          : e.kind == IndexEntry::Kind::kIndex;
    if (!allowed) {
      Detail(DiagId::kIrIndex, e.loc,
             ranges ? std::string("'slice' takes static ranges (a:b or :)")
                    : Cat("'", op.name(), "' takes one integer index per dimension"));
      return std::nullopt;
    }
  }
  return ViewOf(op, o, kPlainIndex);
}

// ------------------------------------------------------------------------------------
// Elementwise ops: one type for every operand and the result.

void Verifier::VerifySame(Op& op) {
  const Type* common = nullptr;
  for (Operand& o : op.operands) {
    if (o.is_value()) {
      if (!ExpectValue(op, o, "operand")) return;
      if (common == nullptr) common = &o.value->type;
    }
  }
  if (common == nullptr && !op.results.empty()) common = &op.results[0]->type;
  if (common == nullptr) return;
  // A literal facing vectors was broadcast by the parser (Parser::SplatLiterals).
  for (Operand& o : op.operands) {
    if (o.is_literal()) {
      if (!TypeLiteral(op, o, *common)) return;
    } else if (o.value->type != *common) {
      TypeError(op, o.loc,
                Cat("operands must have the same type, got ", common->ToString(), " and ", o.value->type.ToString()));
      return;
    }
  }
  TypeRule rule = op.info().rule;
  ElementType e = common->element();
  if (rule == TypeRule::kBitwise && !IsInteger(e) && !IsBool(e)) {
    TypeError(op, op.loc, Cat("needs integer or i1 operands, got ", common->ToString()));
    return;
  }
  if (rule == TypeRule::kShift && !IsInteger(e)) {
    TypeError(op, op.loc, Cat("needs integer operands, got ", common->ToString()));
    return;
  }
  if (rule == TypeRule::kFloat && !IsFloat(e)) {
    TypeError(op, op.loc, Cat("needs float operands, got ", common->ToString(), "; `convert` them first"));
    return;
  }
  if (op.kind == OpKind::kRound) VerifyRoundingMethod(op);
  CheckResult(op, 0, *common);
}

// lax.RoundingMethod's two members, by their names.
void Verifier::VerifyRoundingMethod(Op& op) {
  const Attribute* a = op.FindAttr("rounding_method");
  if (a == nullptr || a->value.str == "away_from_zero" || a->value.str == "to_nearest_even") return;
  Detail(DiagId::kIrAttr, a->loc,
         Cat("'round' has rounding_method \"", a->value.str,
             "\"; the methods are \"away_from_zero\" and \"to_nearest_even\""));
}

// ------------------------------------------------------------------------------------
// The other ops, by family (ops.def).

void Verifier::VerifyCustom(Op& op) {
  switch (op.info().family) {
    case OpFamily::kElementwise:
      VerifyElementwise(op);
      break;
    case OpFamily::kValue:
      VerifyValueOp(op);
      break;
    case OpFamily::kReduction:
      VerifyReduction(op);
      break;
    case OpFamily::kScan:
      VerifyScan(op);
      break;
    case OpFamily::kMaskReduction:
      VerifyMaskReduction(op);
      break;
    case OpFamily::kPermute:
      VerifyPermute(op);
      break;
    case OpFamily::kGrid:
      VerifyGridQuery(op);
      break;
    case OpFamily::kView:
      VerifyView(op);
      break;
    case OpFamily::kRefChoice:
      VerifySelectRef(op);
      break;
    case OpFamily::kMemory:
      VerifyMemory(op);
      break;
    case OpFamily::kGatherScatter:
      VerifyGatherScatter(op);
      break;
    case OpFamily::kDma:
      VerifyDma(op);
      break;
    case OpFamily::kSemaphore:
      VerifySemaphore(op);
      break;
    case OpFamily::kSync:
      VerifySync(op);
      break;
    case OpFamily::kControl:
      VerifyControl(op);
      break;
  }
}

std::optional<int64_t> Verifier::AxisOf(const Op& op, const Type& t) {
  const Attribute* a = op.FindAttr("axis");
  int64_t axis = a != nullptr ? a->value.operand.int_value : 0;
  if (axis < 0 || axis >= t.rank()) {
    Detail(DiagId::kIrAttr, a != nullptr ? a->loc : op.loc, Cat("axis ", axis, " is out of range for ", t.ToString()));
    return std::nullopt;
  }
  return axis;
}

// --- Elementwise ops of mixed types -------------------------------------------------

void Verifier::VerifyElementwise(Op& op) {
  switch (op.kind) {
    case OpKind::kCmp:
      VerifyCmp(op);
      break;
    case OpKind::kSelect:
      VerifySelect(op);
      break;
    case OpKind::kConvert:
    case OpKind::kBitcast:
      VerifyConvert(op);
      break;
    default:
      break;
  }
}

void Verifier::VerifyCmp(Op& op) {
  auto& ops = op.operands;
  const Type* common = nullptr;
  for (Operand& o : ops) {
    if (!ExpectValue(op, o, "operand")) return;
    if (o.is_value() && common == nullptr) common = &o.value->type;
  }
  Type literal_type = common != nullptr ? Type::Scalar(common->element()) : Type::Scalar(ElementType::kI32);
  if (common == nullptr && ops[0].kind == Operand::Kind::kFloat) literal_type = Type::Scalar(ElementType::kF32);
  for (Operand& o : ops) {
    if (o.is_literal()) {  // facing a vector, it was broadcast by the parser
      if (!TypeLiteral(op, o, literal_type)) return;
    } else if (o.value->type.shape() != common->shape() || o.value->type.kind() != common->kind()) {
      // Mixed element types are an SC rule (EL-7); mixed shapes are not.
      TypeError(op, o.loc, Cat("compares operands of one shape, got ", common->ToString(), " and ",
                               o.value->type.ToString()));
      return;
    }
  }
  Type shape_of = common != nullptr ? *common : literal_type;
  CheckResult(op, 0, shape_of.is_vector() ? Type::Vector(ElementType::kI1, shape_of.shape())
                                          : Type::Scalar(ElementType::kI1));
}

void Verifier::VerifySelect(Op& op) {
  Operand& c = op.operands[0];
  Operand& a = op.operands[1];
  Operand& b = op.operands[2];
  for (Operand* o : {&c, &a, &b}) {
    if (!ExpectValue(op, *o, "operand")) return;
  }
  const Type* t = a.is_value() ? &a.value->type : b.is_value() ? &b.value->type : &op.results[0]->type;
  for (Operand* o : {&a, &b}) {
    if (o->is_literal()) {
      if (!TypeLiteral(op, *o, *t)) return;
    } else if (o->value->type != *t) {
      TypeError(op, o->loc, Cat("chooses between operands of one type, got ", t->ToString(), " and ",
                                o->value->type.ToString()));
      return;
    }
  }
  if (c.is_literal()) {
    if (!TypeLiteral(op, c, Type::Scalar(ElementType::kI1))) return;
  } else {
    const Type& ct = c.value->type;
    bool ok = ct.element() == ElementType::kI1 &&
              (ct.is_scalar() || (ct.is_vector() && t->is_vector() && ct.shape() == t->shape()));
    if (!ok) {
      std::string want = t->is_vector() ? Cat("i1 or ", Type::Vector(ElementType::kI1, t->shape()).ToString())
                                        : std::string("i1");
      TypeError(op, c.loc, Cat("condition must be ", want, ", got ", ct.ToString()));
      return;
    }
  }
  CheckResult(op, 0, *t);
}

void Verifier::VerifyConvert(Op& op) {
  Operand& o = op.operands[0];
  if (o.is_literal()) {
    OperandError(op, o.loc, Cat("'", op.name(), "' takes a value, not a literal; write a const of the target type"));
    return;
  }
  if (!ExpectValue(op, o, "operand")) return;
  const Type& in = o.value->type;
  const Type& out = op.results[0]->type;
  if (in.kind() != out.kind()) {
    TypeError(op, op.loc, Cat("cannot turn ", in.ToString(), " into ", out.ToString()));
    return;
  }
  int64_t dim = -1;
  if (const Attribute* a = op.kind == OpKind::kBitcast ? op.FindAttr("dim") : nullptr; a != nullptr) {
    dim = a->value.operand.int_value;
    if (dim != -1 && dim != -2) {
      Detail(DiagId::kIrAttr, a->loc,
             Cat("'bitcast' takes {dim = -1} (the minor dimension, plsc.bitcast; the default) or {dim = -2} (the "
                 "second-minor one, pltpu.bitcast's default), not ", dim));
      return;
    }
  }
  if (dim == -2 && in.rank() < 2) return;  // BC-5, an SC rule
  if (op.kind == OpKind::kConvert || in.is_scalar()) {
    // Scalar bitcasts of different widths are BC-1, an SC rule.
    if (in.shape() != out.shape()) {
      TypeError(op, op.loc, Cat("keeps the shape: ", in.ToString(), " cannot become ", out.ToString()));
    }
    return;
  }
  // Value bitcasts rescale the minor dimension (numpy's x.view(dtype)), or
  // with {dim = -2} the second-minor one.
  Shape shape = in.shape();
  int64_t& scaled = shape[shape.size() - (dim == -2 ? 2 : 1)];
  int64_t bits = scaled * BitWidth(in.element());
  if (bits % BitWidth(out.element()) != 0) return;  // BC-2, an SC rule
  scaled = bits / BitWidth(out.element());
  CheckResult(op, 0, Type::Vector(out.element(), shape));
}

// --- Making vector values and taking them apart -------------------------------------

void Verifier::VerifyValueOp(Op& op) {
  switch (op.kind) {
    case OpKind::kConst:
      VerifyConst(op);
      break;
    case OpKind::kIota:
      if (!op.results.empty() && !op.results[0]->type.is_vector()) {
        TypeError(op, op.loc, Cat("produces a vector, not ", op.results[0]->type.ToString()));
      }
      break;
    case OpKind::kBroadcast:
      VerifyBroadcast(op);
      break;
    case OpKind::kExtract:
    case OpKind::kSlice:
      VerifyExtract(op);
      break;
    case OpKind::kInsert:
      VerifyInsert(op);
      break;
    case OpKind::kConcat:
      VerifyConcat(op);
      break;
    case OpKind::kReshape:
      VerifyReshape(op);
      break;
    case OpKind::kPack:
    case OpKind::kUnpack:
      VerifyPack(op);
      break;
    default:
      break;
  }
}

void Verifier::VerifyConst(Op& op) {
  if (op.results.empty()) return;
  const Type& t = op.results[0]->type;
  ConstValue& c = op.constant;
  if (t.is_memory()) {
    TypeError(op, op.results[0]->loc, Cat("defines a scalar or vector, not ", t.ToString()));
    return;
  }
  if (t.is_vector() && !c.dense) {
    TypeError(op, op.loc, Cat("a vector constant is written dense<...>: const dense<", PrintLiteral(c.elements[0]),
                              "> : ", t.ToString()));
    return;
  }
  if (t.is_scalar() && c.dense) {
    TypeError(op, op.loc, Cat("dense<...> defines a vector, but the type is ", t.ToString()));
    return;
  }
  if (c.dense_list && static_cast<int64_t>(c.elements.size()) != t.NumElements()) {
    Report(DiagId::kIrLiteral, op.loc,
           {{"detail", Cat("dense<[...]> has ", Plural(static_cast<int64_t>(c.elements.size()), "element"), ", but ",
                           t.ToString(), " has ", t.NumElements())}});
    return;
  }
  for (Operand& e : c.elements) {
    if (!TypeLiteral(op, e, Type::Scalar(t.element()))) return;
  }
}

void Verifier::VerifyBroadcast(Op& op) {
  const Type& r = op.results[0]->type;
  if (!r.is_vector()) {
    TypeError(op, op.loc, Cat("produces a vector, not ", r.ToString()));
    return;
  }
  Operand& s = op.operands[0];
  if (s.is_literal()) {
    TypeLiteral(op, s, Type::Scalar(r.element()));
    return;
  }
  if (!ExpectValue(op, s, "operand")) return;
  if (!s.value->type.is_scalar()) {
    TypeError(op, s.loc, Cat("broadcasts a scalar, got ", s.value->type.ToString()));
  } else if (s.value->type.element() != r.element()) {
    TypeError(op, op.loc, Cat("result element type ", IrName(r.element()), " differs from the operand's ",
                              IrName(s.value->type.element())));
  }
}

void Verifier::VerifyExtract(Op& op) {
  Operand& vec = op.operands[0];
  bool slice = op.kind == OpKind::kSlice;
  if (vec.is_literal()) {
    OperandError(op, vec.loc,
                 slice ? "slices a vector value, not a literal" : "extracts from a vector value, not a literal");
    return;
  }
  std::optional<Type> t = ValueIndex(op, vec, slice);
  if (!t) return;
  CheckResult(op, 0, slice ? Type::Vector(t->element(), t->shape()) : Type::Scalar(t->element()));
}

void Verifier::VerifyInsert(Op& op) {
  Operand& s = op.operands[0];
  Operand& vec_operand = op.operands[1];
  if (vec_operand.is_literal()) {
    OperandError(op, vec_operand.loc, "inserts into a vector value, not a literal");
    return;
  }
  if (!ValueIndex(op, vec_operand, false)) return;
  const Type& vec = vec_operand.value->type;
  if (s.is_literal()) {
    if (!TypeLiteral(op, s, Type::Scalar(vec.element()))) return;
  } else if (ExpectValue(op, s, "operand")) {
    if (s.value->type != Type::Scalar(vec.element())) {
      TypeError(op, s.loc, Cat("inserts a ", IrName(vec.element()), " scalar into ", vec.ToString(), ", got ",
                               s.value->type.ToString()));
      return;
    }
  } else {
    return;
  }
  CheckResult(op, 0, vec);
}

void Verifier::VerifyConcat(Op& op) {
  auto& ops = op.operands;
  for (Operand& o : ops) {
    if (!ExpectValue(op, o, "operand")) return;
    if (o.is_literal() || !o.value->type.is_vector()) {
      OperandError(op, o.loc, Cat("concatenates vectors, got ", o.is_literal() ? "a literal" : KindOf(o.value->type)));
      return;
    }
  }
  const Type& first = ops[0].value->type;
  std::optional<int64_t> axis = AxisOf(op, first);
  if (!axis) return;
  Shape shape = first.shape();
  for (size_t i = 1; i < ops.size(); ++i) {
    const Type& t = ops[i].value->type;
    bool same = t.element() == first.element() && t.rank() == first.rank();
    for (int d = 0; same && d < t.rank(); ++d) same = d == *axis || t.shape()[d] == first.shape()[d];
    if (!same) {
      TypeError(op, ops[i].loc, Cat("cannot concatenate ", t.ToString(), " to ", first.ToString(), " along axis ", *axis));
      return;
    }
    shape[*axis] += t.shape()[*axis];
  }
  CheckResult(op, 0, Type::Vector(first.element(), shape));
}

void Verifier::VerifyReshape(Op& op) {
  Operand& x = op.operands[0];
  if (!ExpectValue(op, x, "operand")) return;
  if (x.is_literal() || !x.value->type.is_vector()) {
    OperandError(op, x.loc, "reshapes a vector value");
    return;
  }
  const Type& in = x.value->type;
  const Type& out = op.results[0]->type;
  if (!out.is_vector() || out.element() != in.element() || out.NumElements() != in.NumElements()) {
    TypeError(op, op.loc, Cat("cannot reshape ", in.ToString(), " to ", out.ToString(),
                              " (same element type and element count needed)"));
  }
}

void Verifier::VerifyPack(Op& op) {
  for (Operand& o : op.operands) {
    if (!ExpectValue(op, o, "operand")) return;
    // 0-d operands are PK-2 / UP-1 / UP-2, SC rules.
    if (o.is_literal()) {
      OperandError(op, o.loc, Cat("'", op.name(), "' takes vector values"));
      return;
    }
  }
  for (const Value* r : op.results) {
    if (!r->type.is_vector()) {
      TypeError(op, r->loc, Cat("produces vectors, not ", r->type.ToString()));
      return;
    }
  }
  if (op.kind == OpKind::kPack) {
    VerifyPackShape(op);
  } else {
    VerifyUnpackShape(op);
  }
}

void Verifier::VerifyPackShape(Op& op) {
  // PK-1...6 judge shapes, dtypes and the format; the shape is known after.
  const Attribute* f = op.FindAttr("format");
  std::string format = f != nullptr ? f->value.str : "";
  const Type& in = op.operands[0].value->type;
  ElementType e = op.results[0]->type.element();
  if (in.rank() != 1 || op.operands[1].value->type.shape() != in.shape()) return;
  if (format == "interleaved") CheckResult(op, 0, Type::Vector(e, {2 * in.shape()[0]}));
  if (format == "compressed") CheckResult(op, 0, Type::Vector(e, {in.shape()[0], 2}));
}

void Verifier::VerifyUnpackShape(Op& op) {
  const Attribute* f = op.FindAttr("format");
  std::string format = f != nullptr ? f->value.str : "";
  const Type& in = op.operands[0].value->type;
  const Type& r0 = op.results[0]->type;
  const Type& r1 = op.results[1]->type;
  // An unknown pack format is PK-6; unpack has no such check in Pallas (its
  // lowering fails on the format's `.value`), so here it is meaningless.
  if (format != "interleaved" && format != "compressed") {
    Detail(DiagId::kIrAttr, f->loc,
           Cat("'unpack' has format \"", format, "\"; the formats are \"interleaved\" and \"compressed\""));
    return;
  }
  if (r1 != r0) {
    TypeError(op, op.results[1]->loc,
              Cat("produces two vectors of one type, got ", r0.ToString(), " and ", r1.ToString()));
    return;
  }
  bool shaped = (format == "interleaved" && in.rank() == 1 && in.shape()[0] % 2 == 0) ||
                (format == "compressed" && in.rank() == 2 && in.shape()[1] == 2);
  if (shaped) {
    int64_t n = format == "interleaved" ? in.shape()[0] / 2 : in.shape()[0];
    CheckResult(op, 0, Type::Vector(r0.element(), {n}));
  }
}

// --- Reductions, scans, mask all-reduces ---------------------------------------------

void Verifier::VerifyReduction(Op& op) {
  Operand& x = op.operands[0];
  if (!ExpectValue(op, x, "operand")) return;
  // A 0-d operand reduces over axes () and is RED-1, an SC rule.
  if (x.is_literal()) {
    OperandError(op, x.loc, "reduces a vector value");
    return;
  }
  CheckResult(op, 0, Type::Scalar(x.value->type.element()));
}

void Verifier::VerifyScan(Op& op) {
  Operand& x = op.operands[0];
  if (!ExpectValue(op, x, "operand")) return;
  // The rank of a cumulative op's operand is CUM-1...3/CUM-5, an SC rule.
  if (x.is_literal() || (op.kind == OpKind::kScanCount && !x.value->type.is_vector())) {
    OperandError(op, x.loc, "scans a vector value");
    return;
  }
  if (op.mask && !ExpectValue(op, *op.mask, "mask")) return;
  if (op.kind == OpKind::kCumsum && !CumsumAttrsValid(op)) return;
  const Type& in = x.value->type;
  if (op.kind == OpKind::kScanCount) {
    CheckResult(op, 0, Type::Vector(ElementType::kI32, in.shape()));
    CheckResult(op, 1, Type::Vector(ElementType::kI1, in.shape()));
  } else {
    CheckResult(op, 0, in);
  }
}

bool Verifier::CumsumAttrsValid(const Op& op) {
  // plsc.cumsum (with a mask) has no axis or reverse; jnp.cumsum's axis must
  // name a dimension (CUM-4 judges which).
  const Type& t = op.operands[0].value->type;
  const Attribute* axis = op.FindAttr("axis");
  const Attribute* reverse = op.FindAttr("reverse");
  if (op.mask && (axis != nullptr || reverse != nullptr)) {
    return Detail(DiagId::kIrAttr, axis != nullptr ? axis->loc : reverse->loc,
                  "a masked cumsum (plsc.cumsum) takes no 'axis' or 'reverse'; those belong to the unmasked cumsum "
                  "(jnp.cumsum)");
  }
  int64_t a = axis != nullptr ? axis->value.operand.int_value : 0;
  if (axis != nullptr && (a < -t.rank() || a >= (t.rank() > 0 ? t.rank() : 1))) {
    return Detail(DiagId::kIrAttr, axis->loc, Cat("axis ", a, " is out of range for ", t.ToString()));
  }
  return true;
}

void Verifier::VerifyMaskReduction(Op& op) {
  Operand& mask = op.operands[0];
  if (!ExpectValue(op, mask, "operand")) return;
  // A 0-d mask is MR-4, an SC rule.
  if (mask.is_literal()) {
    OperandError(op, mask.loc, "reduces a mask vector");
    return;
  }
  const Type& in = mask.value->type;
  const Attribute* a = op.FindAttr("reduce");
  int64_t reduce = a != nullptr ? a->value.operand.int_value : 1;
  // MR-1...4 judge the dtype, rank and `reduce`; the shape is only known when
  // they hold.
  if (in.rank() == 1 && reduce >= 1 && in.shape()[0] % reduce == 0) {
    CheckResult(op, 0, Type::Vector(ElementType::kI32, {in.shape()[0] / reduce}));
  }
}

// --- Permutations ---------------------------------------------------------------------

void Verifier::VerifyPermute(Op& op) {
  switch (op.kind) {
    case OpKind::kRev:
    case OpKind::kTranspose:
      VerifyRevTranspose(op);
      break;
    case OpKind::kGather:
      VerifyValueGather(op);
      break;
    case OpKind::kSort:
    case OpKind::kSortKeyVal:
      VerifySort(op);
      break;
    default:
      break;
  }
}

void Verifier::VerifyRevTranspose(Op& op) {
  Operand& x = op.operands[0];
  if (!ExpectValue(op, x, "operand")) return;
  if (x.is_literal() || !x.value->type.is_vector()) {
    OperandError(op, x.loc, Cat("'", op.name(), "' takes a vector value"));
    return;
  }
  const Type& in = x.value->type;
  if (op.kind == OpKind::kRev) {
    if (AxisOf(op, in).has_value()) CheckResult(op, 0, in);
    return;
  }
  if (std::optional<Shape> shape = TransposedShape(op, in)) CheckResult(op, 0, in.WithShape(*shape));
}

std::optional<Shape> Verifier::TransposedShape(const Op& op, const Type& in) {
  std::vector<int64_t> perm;
  if (const Attribute* a = op.FindAttr("permutation")) {
    for (const AttrValue& v : a->value.list) perm.push_back(v.operand.int_value);
    std::vector<bool> seen(in.rank(), false);
    bool valid = static_cast<int>(perm.size()) == in.rank();
    for (int64_t p : perm) {
      valid = valid && p >= 0 && p < in.rank() && !seen[p];
      if (valid) seen[p] = true;
    }
    if (!valid) {
      Detail(DiagId::kIrAttr, a->loc, Cat("permutation is not a permutation of the ", in.rank(), " axes of ", in.ToString()));
      return std::nullopt;
    }
  } else {
    for (int d = in.rank() - 1; d >= 0; --d) perm.push_back(d);
  }
  Shape shape;
  for (int64_t p : perm) shape.push_back(in.shape()[p]);
  return shape;
}

void Verifier::VerifyValueGather(Op& op) {
  Operand& x = op.operands[0];
  Operand& indices = op.operands[1];
  if (!ExpectValue(op, x, "operand") || !ExpectValue(op, indices, "index operand")) return;
  if (x.is_literal() || !x.value->type.is_vector() || indices.is_literal() || !indices.value->type.is_vector()) {
    OperandError(op, op.loc, "gathers from a vector value with a vector of indices");
    return;
  }
  const Type& src = x.value->type;
  const Type& idx = indices.value->type;
  if (!IsInteger(idx.element())) {
    TypeError(op, indices.loc, Cat("indices must be integers, got ", idx.ToString()));
    return;
  }
  if (AxisOf(op, src).has_value()) CheckResult(op, 0, Type::Vector(src.element(), idx.shape()));
}

void Verifier::VerifySort(Op& op) {
  auto& ops = op.operands;
  for (Operand& o : ops) {
    if (!ExpectValue(op, o, "operand")) return;
    // 0-d keys, values or masks of sort_key_val are SORT-5/7/9, SC rules.
    if (o.is_literal() || (op.kind == OpKind::kSort && !o.value->type.is_vector())) {
      OperandError(op, o.loc, "sorts vector values");
      return;
    }
  }
  if (op.mask && !ExpectValue(op, *op.mask, "mask")) return;
  if (op.kind == OpKind::kSort && !SortAttrsValid(op)) return;
  for (size_t i = 0; i < ops.size(); ++i) CheckResult(op, i, ops[i].value->type);
  if (op.mask && op.kind == OpKind::kSortKeyVal && op.mask->is_value()) CheckResult(op, 2, op.mask->value->type);
}

bool Verifier::SortAttrsValid(const Op& op) {
  // lax.sort's dimension must name one (SORT-1 judges which) and its keys
  // must be among the operands (SORT-2 judges how many).
  const Type& t = op.operands[0].value->type;
  if (const Attribute* d = op.FindAttr("dimension")) {
    int64_t dim = d->value.operand.int_value;
    if (dim < -t.rank() || dim >= t.rank()) {
      return Detail(DiagId::kIrAttr, d->loc, Cat("dimension ", dim, " is out of range for ", t.ToString()));
    }
  }
  if (const Attribute* k = op.FindAttr("num_keys")) {
    int64_t n = k->value.operand.int_value;
    if (n < 1 || n > static_cast<int64_t>(op.operands.size())) {
      return Detail(DiagId::kIrAttr, k->loc,
                    Cat("num_keys = ", n, " must be between 1 and the number of operands (", op.operands.size(), ")"));
    }
  }
  return true;
}

// --- Mesh and grid queries ----------------------------------------------------------

void Verifier::VerifyGridQuery(Op& op) {
  if (op.kind == OpKind::kProgramId || op.kind == OpKind::kNumPrograms) {
    // An axis outside the grid, negative ones included, is CF-6/CF-7, an SC rule.
    Operand& axis = op.operands[0];
    if (axis.kind != Operand::Kind::kInt) {
      OperandError(op, axis.loc, "takes a grid dimension as an integer literal");
      return;
    }
    TypeLiteral(op, axis, Type::Scalar(ElementType::kI32));
  }
  if (op.info().syntax == Syntax::kAxis && op.axis == MeshAxis::kDevice && kernel_->FindDeviceAxis(op.device_axis) < 0) {
    std::string axes = "core, subcore";
    for (const DeviceAxis& a : kernel_->device_axes()) Append(&axes, ", ", a.name);
    Diagnostic& d = Report(DiagId::kIrOperand, op.axis_loc,
                           {{"op", std::string(op.name())},
                            {"detail", Cat("names axis '", op.device_axis,
                                           "', which is neither a mesh axis nor a device axis of kernel @",
                                           kernel_->name)}});
    d.help = Cat("the kernel's axes are: ", axes, " (device axes come from its 'devices' clause)");
  }
  CheckResult(op, 0, Type::Scalar(ElementType::kI32));
}

// --- Refs: views, loads and stores, gathers and scatters, semaphores ----------------

bool Verifier::NotLiteral(const Op& op, const Operand& ref, std::string_view what) {
  if (!ref.is_literal()) return true;
  return OperandError(op, ref.loc, Cat("needs a ", what, ", got the literal ", Name(ref)));
}

bool Verifier::ExpectMemory(const Op& op, const Operand& ref) {
  if (ref.value->type.is_memory()) return true;
  Diagnostic& d = Report(DiagId::kIrOperand, ref.loc,
                         {{"op", std::string(op.name())},
                          {"detail", Cat("needs a ref, got ", Name(ref), ", ", KindOf(ref.value->type))}});
  if (op.kind == OpKind::kGet) d.help = "a value is already loaded; use it directly";
  return false;
}

void Verifier::VerifyView(Op& op) {
  Operand& ref = op.operands[0];
  if (!NotLiteral(op, ref, "ref") || !ExpectMemory(op, ref)) return;
  if (op.kind == OpKind::kViewSubcoreSlice) {
    VerifySubcoreSlice(op);
    return;
  }
  if (op.kind != OpKind::kView) {
    VerifyRefCast(op);
    return;
  }
  if (std::optional<Type> view = ViewOf(op, ref, kAllowIndirect | kAllowDynamicSize)) CheckResult(op, 0, *view);
}

void Verifier::VerifyRefCast(Op& op) {
  Operand& ref = op.operands[0];
  if (!NoIndexer(op, ref)) return;
  bool reshape = op.kind == OpKind::kViewReshape;
  const Type& in = ref.value->type;
  const Type& out = op.results[0]->type;
  if (!out.is_ref() || out.space() != in.space() || (reshape && out.element() != in.element())) {
    TypeError(op, op.loc, Cat("views ", in.ToString(), " as a ref of the same memory space",
                              reshape ? " and element type" : "", ", not ", out.ToString()));
    return;
  }
  if (reshape) return;
  int in_bits = BitWidth(in.element()), out_bits = BitWidth(out.element());
  if (in_bits == out_bits) {
    CheckResult(op, 0, in.WithElement(out.element()));
  } else if (in.rank() >= 2 && (in.shape()[in.rank() - 2] * in_bits) % out_bits == 0) {
    // Ref bitcasts rescale the 2nd-minor dimension (XF-2/4 cover the rest).
    Shape shape = in.shape();
    shape[shape.size() - 2] = shape[shape.size() - 2] * in_bits / out_bits;
    CheckResult(op, 0, Type::Ref(in.space(), out.element(), shape));
  }
}

// The result's minor dimension is the ref's divided by the target's subcores,
// which the SC rules know (XF-13); here it only has to divide it.
void Verifier::VerifySubcoreSlice(Op& op) {
  Operand& ref = op.operands[0];
  if (!NoIndexer(op, ref)) return;
  const Type& in = ref.value->type;
  const Type& out = op.results[0]->type;
  if (!in.is_ref() || in.space() != MemorySpace::kVmemShared || in.rank() == 0) {
    TypeError(op, ref.loc, Cat("slices a VMEM_SHARED ref of rank 1 or more, got ", in.ToString()));
    return;
  }
  bool fits = out.is_ref() && out.space() == MemorySpace::kVmem && out.element() == in.element() &&
              out.rank() == in.rank();
  for (int d = 0; fits && d + 1 < in.rank(); ++d) fits = out.shape()[d] == in.shape()[d];
  int64_t minor = in.shape().back(), got = fits ? out.shape().back() : 0;
  if (!fits || minor == kDynamic || got == kDynamic || got <= 0 || minor % got != 0) {
    TypeError(op, op.results[0]->loc,
              Cat("views ", in.ToString(), " as a VMEM ref of its element type and shape but the minor dimension, "
                  "divided by the chip's subcores, not ", out.ToString()));
  }
}

void Verifier::VerifySelectRef(Op& op) {
  auto& ops = op.operands;
  if (!ExpectScalarInt(op, ops[0], "selector", false)) return;
  for (size_t i = 1; i < ops.size(); ++i) {
    if (!ExpectRefLike(op, ops[i], "choice", true) || !NoIndexer(op, ops[i])) return;
    if (ops[i].value->type != ops[1].value->type) {
      TypeError(op, ops[i].loc, Cat("chooses between refs of one type, got ", ops[1].value->type.ToString(), " and ",
                                    ops[i].value->type.ToString()));
      return;
    }
  }
  CheckResult(op, 0, ops[1].value->type);
}

void Verifier::VerifyMemory(Op& op) {
  Operand& ref = op.operands[0];
  if (!NotLiteral(op, ref, "ref") || !ExpectMemory(op, ref)) return;
  // A semaphore where data is expected is left to the SC rules, which name its
  // memory space (GET-6, SWAP-4, GS-8, FAA-5...); semaphores load as i32.
  std::optional<Type> view = ViewOf(op, ref, kPlainIndex);
  if (!view) return;
  // Host memory is reached by DMA only. (Pallas' lowering raises nothing for a
  // vector access, Mosaic rejects it; a scalar one is GET-6/SWAP-4 with Pallas'
  // text, and fetch_and_add FAA's.)
  if (view->is_ref() && view->space() == MemorySpace::kHost && view->rank() > 0 && op.kind != OpKind::kFetchAndAdd) {
    Diagnostic& d = Report(DiagId::kIrOperand, ref.loc,
                           {{"op", std::string(op.name())},
                            {"detail", Cat("cannot reach host memory (", Print(ref), " : ", view->ToString(),
                                           "): host refs are read and written by DMA only")}});
    d.help = "copy it to VMEM first (`copy %host -> %vmem_buf`), as pltpu.sync_copy does";
    return;
  }
  switch (op.kind) {
    case OpKind::kGet:
    case OpKind::kLoadExpanded:
      VerifyLoad(op, *view);
      break;
    case OpKind::kSwap:
    case OpKind::kStore:
      VerifyStore(op, *view);
      break;
    case OpKind::kStoreCompressed:
    case OpKind::kAddupdate:
    case OpKind::kAddupdateCompressed:
      VerifyUpdate(op, *view);
      break;
    case OpKind::kFetchAndAdd:
      VerifyFetchAndAdd(op, *view);
      break;
    default:
      break;
  }
}

void Verifier::VerifyLoad(Op& op, const Type& view) {
  if (op.kind == OpKind::kLoadExpanded && !op.mask) {
    OperandError(op, op.loc, "needs 'mask %m' (an unmasked load is 'get')");
    return;
  }
  if (op.mask && !ExpectValue(op, *op.mask, "mask")) return;
  CheckResult(op, 0, LoadedType(view));
}

void Verifier::VerifyStore(Op& op, const Type& view) {
  Operand& v = op.operands[1];
  Type want = LoadedType(view);
  if (v.is_literal()) {
    if (!TypeLiteral(op, v, want)) return;
  } else {
    if (!ExpectValue(op, v, "stored value")) return;
    if (v.value->type != want) {
      TypeError(op, v.loc, Cat("stores ", want.ToString(), " into ", Print(op.operands[0]), ", got ", Name(v), " : ",
                               v.value->type.ToString()));
      return;
    }
  }
  if (op.kind == OpKind::kSwap) CheckResult(op, 0, want);
}

void Verifier::VerifyUpdate(Op& op, const Type& view) {
  // Value dtype and shape are SWAP-7/8, SC rules.
  if (op.kind != OpKind::kAddupdate && !op.mask) {
    OperandError(op, op.loc, "needs 'mask %m'");
    return;
  }
  Operand& v = op.operands[1];
  if (v.is_literal()) {
    TypeLiteral(op, v, Type::Scalar(view.element()));
  } else {
    ExpectValue(op, v, "stored value");
  }
  if (op.mask) ExpectValue(op, *op.mask, "mask");
}

void Verifier::VerifyFetchAndAdd(Op& op, const Type& view) {
  Operand& v = op.operands[1];
  if (v.is_literal()) {
    TypeLiteral(op, v, Type::Scalar(view.element()));
  } else if (!ExpectValue(op, v, "increment")) {
    return;
  }
  CheckResult(op, 0, Type::Scalar(view.element()));
}

void Verifier::VerifyGatherScatter(Op& op) {
  Operand& ref = op.operands[0];
  if (!NotLiteral(op, ref, "ref")) return;
  // A value where a gather or scatter takes its ref is GS-1, an SC rule (which
  // reports it before anything else of the op is looked at).
  if (ref.value->type.is_value()) {
    ViewOf(op, ref, kPlainIndex);
    return;
  }
  if (!ExpectMemory(op, ref)) return;
  std::optional<Type> view = ViewOf(op, ref, kPlainIndex);
  if (!view) return;
  for (Operand& iv : op.index_vectors) {
    if (iv.is_literal()) {
      OperandError(op, iv.loc, "index vectors are vector values, not literals");
      return;
    }
    if (!ExpectValue(op, iv, "index vector")) return;
  }
  if (op.mask && !ExpectValue(op, *op.mask, "mask")) return;
  if (op.kind != OpKind::kLoadGather) {
    Operand& v = op.operands[1];
    if (v.is_literal()) {
      OperandError(op, v.loc, "scatters a vector value, not a literal");
      return;
    }
    ExpectValue(op, v, "stored value");
    return;
  }
  VerifyGatherResult(op, *view);
}

void Verifier::VerifyGatherResult(Op& op, const Type& view) {
  // A gather from a 0-d view without index vectors gathers nothing (Pallas
  // fails an assertion); with a rank of 1 or more it is GS-4.
  if (op.index_vectors.empty() && view.rank() == 0) {
    const Operand& ref = op.operands[0];
    OperandError(op, ref.loc, Cat("gathers from the 0-d view ", Print(ref), " without index vectors; give one index "
                                  "vector per dimension of a ref view, e.g. `load_gather %buf[:] [%i]`"));
    return;
  }
  // GS-1...7 and SHAPE-1 judge counts, ranks and sizes; the result's element
  // type is the ref's and its length the first index vector's.
  const Type& r = op.results[0]->type;
  if (!r.is_vector() || r.element() != view.element()) {
    TypeError(op, op.results[0]->loc,
              Cat("result has type ", r.ToString(), ", but gathers ", IrName(view.element()), " elements"));
    return;
  }
  if (!op.index_vectors.empty()) {
    const Type& i0 = op.index_vectors[0].value->type;
    if (i0.rank() == 1 && r.shape() != i0.shape()) {
      CheckResult(op, 0, Type::Vector(view.element(), i0.shape()));
    }
  }
}

void Verifier::VerifySemaphore(Op& op) {
  // Semaphore ops on data refs or values are SEM-1, an SC rule; only literals
  // are meaningless.
  Operand& sem = op.operands[0];
  if (!NotLiteral(op, sem, "semaphore")) return;
  bool is_ref = sem.value->type.is_memory();
  if (is_ref && !ViewOf(op, sem, kPlainIndex)) return;
  if (op.kind == OpKind::kSemRead) {
    CheckResult(op, 0, Type::Scalar(ElementType::kI32));
    return;
  }
  if (!is_ref) return;
  Operand& n = op.operands[1];
  if (n.is_literal()) {
    TypeLiteral(op, n, Type::Scalar(ElementType::kI32));
  } else {
    ExpectValue(op, n, "count");  // its dtype is SEM-4/6, an SC rule
  }
}

// --- DMAs, barriers, prints, allocations --------------------------------------------

void Verifier::VerifyDma(Op& op) {
  // Operand kinds (DMA-4), semaphore kinds (DMA-5/8), directions (DMA-9...13) and
  // shapes (GEN-3) are SC rules; the verifier computes the views so that their
  // indexers are well formed.
  for (size_t i = 0; i < op.operands.size(); ++i) {
    Operand& o = op.operands[i];
    bool is_sem = i >= 2;
    if (o.is_literal()) {
      OperandError(op, o.loc, Cat(is_sem ? "semaphore" : i == 0 ? "source" : "destination", " must be a ref, got the literal ",
                                  Name(o)));
      return;
    }
    if (!o.value->type.is_memory()) {
      if (o.indexed) {
        OperandError(op, o.loc, Cat("only refs can be indexed, got ", Name(o), ", ", KindOf(o.value->type)));
        return;
      }
      // A value where a ref belongs is DMA-4 (dma_start, copy) or DMA-7 (dma_wait's
      // semaphore), SC rules; Pallas' dma_wait does not check its source and
      // destination, so there it is an operand error.
      if (op.kind == OpKind::kDmaWait && !is_sem) {
        OperandError(op, o.loc, Cat(i == 0 ? "source " : "destination ", Name(o), " must be a ref, got ",
                                    KindOf(o.value->type)));
        return;
      }
      continue;
    }
    // A semaphore copies no data. (A data ref where a semaphore belongs is left to
    // the SC rules: DMA-1, DMA-5, DMA-8, GEN-3.)
    if (!is_sem && o.value->type.is_semaphore()) {
      OperandError(op, o.loc, Cat(i == 0 ? "source " : "destination ", Name(o), " is a semaphore (",
                                  o.value->type.ToString(), "); DMAs copy between data refs"));
      return;
    }
    if (!ViewOf(op, o, is_sem ? kPlainIndex : (kAllowIndirect | kAllowDynamicSize))) return;
  }
}

void Verifier::VerifySync(Op& op) {
  switch (op.kind) {
    case OpKind::kDebugPrint:
      // What may be printed is DBG-1...3, SC rules.
      for (Operand& o : op.operands) {
        if (o.is_literal()) {
          OperandError(op, o.loc, "prints a value or ref, not a literal; put it in the format string");
          return;
        }
      }
      break;
    case OpKind::kDebugCheck:
      // checkify takes a scalar pred only (TypeError at trace time); a vector of
      // conditions is reduced first, as in Pallas.
      if (!op.operands[0].is_literal() && op.operands[0].value->type.is_vector() &&
          op.operands[0].value->type.element() == ElementType::kI1) {
        Diagnostic& d = Report(DiagId::kIrType, op.operands[0].loc,
                               {{"op", std::string(op.name())},
                                {"detail", Cat("condition ", Name(op.operands[0]), " must be an i1 scalar, got ",
                                               op.operands[0].value->type.ToString())}});
        d.help = Cat("pl.debug_check takes a scalar condition: reduce the mask first, `%all = reduce_and ",
                     Name(op.operands[0]), " : i1`");
        break;
      }
      ExpectI1Scalar(op, op.operands[0], "condition");
      break;
    case OpKind::kAlloc: {
      const Type& t = op.alloc_type;
      if (!t.is_memory()) {
        TypeError(op, op.loc, Cat("allocates a ref or semaphores, not ", t.ToString()));
      } else if (t.is_ref() && t.space() == MemorySpace::kHost) {
        TypeError(op, op.loc, HostNotAllocated(t.ToString()));
      } else if (t.has_dynamic_dim()) {
        TypeError(op, op.loc, Cat("allocates a static shape, not ", t.ToString()));
      }
      break;
    }
    default:  // barrier
      break;
  }
}

// --- Control flow ---------------------------------------------------------------------

void Verifier::VerifyControl(Op& op) {
  switch (op.kind) {
    case OpKind::kFor:
    case OpKind::kParallelFor:
      VerifyFor(op);
      break;
    case OpKind::kIf:
      VerifyIf(op);
      break;
    case OpKind::kWhile:
      VerifyWhile(op);
      break;
    case OpKind::kCondition:
      ExpectI1Scalar(op, op.operands[0], "condition");
      break;
    case OpKind::kPipeline:
      VerifyPipeline(op);
      break;
    default:
      // scoped; yields are checked against their parent (VerifyYields, VerifyPipeline).
      break;
  }
}

bool Verifier::CarriesValuesOnly(const Op& op, const std::vector<Value*>& carried) {
  // `for`, `while` and `if` carry values (JAX's loops and conds carry arrays; a
  // kernel closes over its refs). parallel_for's ref carries are PL-1/PL-2, SC rules.
  for (const Value* v : carried) {
    if (v->type.is_memory()) {
      return TypeError(op, v->loc, Cat("carries values, not refs: %", v->name, " is ", v->type.ToString(),
                                       " (use the ref inside the region instead of carrying it)"));
    }
  }
  return true;
}

void Verifier::VerifyFor(Op& op) {
  auto& ops = op.operands;
  static constexpr std::string_view kRoles[] = {"lower bound", "upper bound", "step"};
  for (int i = 0; i < 3; ++i) {
    if (!ExpectScalarInt(op, ops[i], kRoles[i], true)) return;
  }
  if (ops[2].is_literal() && ops[2].int_value <= 0) {
    Report(DiagId::kIrLiteral, ops[2].loc, {{"detail", Cat("loop step ", ops[2].int_value, " must be positive")}});
    return;
  }
  Region& body = *op.regions[0];
  if (op.kind == OpKind::kFor && !CarriesValuesOnly(op, {body.args.begin() + 1, body.args.end()})) return;
  std::vector<Type> carried;
  for (size_t i = 1; i < body.args.size(); ++i) carried.push_back(body.args[i]->type);
  for (size_t i = 0; i < carried.size() && 3 + i < ops.size(); ++i) {
    Operand& init = ops[3 + i];
    if (init.is_literal()) {
      if (!TypeLiteral(op, init, carried[i])) return;
    } else if (!NoIndexer(op, init)) {
      return;
    } else if (init.value->type != carried[i]) {
      TypeError(op, init.loc, Cat("initial value ", Name(init), " has type ", init.value->type.ToString(),
                                  ", but the carried value is declared ", carried[i].ToString()));
      return;
    }
  }
  VerifyYields(op, body, carried, "the body");
}

void Verifier::VerifyIf(Op& op) {
  if (!ExpectI1Scalar(op, op.operands[0], "condition")) return;
  if (!CarriesValuesOnly(op, op.results)) return;
  std::vector<Type> types;
  for (Value* v : op.results) types.push_back(v->type);
  if (!types.empty() && !op.has_else) {
    Detail(DiagId::kIrRegion, op.loc, "an 'if' with results needs an 'else' region");
    return;
  }
  VerifyYields(op, *op.regions[0], types, "the then region");
  if (op.has_else) VerifyYields(op, *op.regions[1], types, "the else region");
}

void Verifier::VerifyWhile(Op& op) {
  auto& ops = op.operands;
  Region& cond = *op.regions[0];
  if (!CarriesValuesOnly(op, cond.args)) return;
  std::vector<Type> carried;
  for (Value* v : cond.args) carried.push_back(v->type);
  for (size_t i = 0; i < carried.size() && i < ops.size(); ++i) {
    Operand& init = ops[i];
    if (init.is_literal()) {
      if (!TypeLiteral(op, init, carried[i])) return;
    } else if (NoIndexer(op, init) && init.value->type != carried[i]) {
      TypeError(op, init.loc, Cat("initial value ", Name(init), " has type ", init.value->type.ToString(),
                                  ", but the carried value is declared ", carried[i].ToString()));
      return;
    }
  }
  if (cond.ops.empty() || cond.ops.back()->kind != OpKind::kCondition) {
    Detail(DiagId::kIrRegion, cond.ops.empty() ? cond.loc : cond.ops.back()->loc,
           "the cond region of 'while' must end with 'condition %c'");
  }
  VerifyYields(op, *op.regions[1], carried, "the body");
}

// --- Pipelines ------------------------------------------------------------------------

void Verifier::VerifyPipeline(Op& op) {
  PipelineInfo& p = *op.pipeline;
  if (!VerifyPipelineGrid(op)) return;
  Region& body = *op.regions[0];
  if (body.args.size() != p.operands.size()) {
    Detail(DiagId::kIrRegion, body.loc,
           Cat("the pipeline body takes one block ref per in/out operand (", p.operands.size(), "), got ",
               body.args.size()));
    return;
  }
  for (size_t k = 0; k < p.operands.size(); ++k) {
    if (!VerifyPipelineOperand(op, k)) return;
  }
}

bool Verifier::VerifyPipelineGrid(Op& op) {
  PipelineInfo& p = *op.pipeline;
  if (p.grid.empty()) return Detail(DiagId::kIrRegion, op.loc, "a pipeline needs a grid of at least one dimension");
  for (Operand& g : p.grid) {
    if (!Known(g) || !ExpectScalarInt(op, g, "grid size", true)) return false;
  }
  for (size_t i = 0; i < p.partition.size(); ++i) {
    for (size_t j = 0; j < i; ++j) {
      if (p.partition[i] == p.partition[j]) {
        return Detail(DiagId::kIrRegion, p.partition_loc,
                      Cat("partition names axis '", AxisName(p.partition[i]), "' twice"));
      }
    }
  }
  return true;
}

bool Verifier::VerifyPipelineOperand(Op& op, size_t k) {
  PipelineOperand& po = op.pipeline->operands[k];
  if (!Known(po.ref)) return true;
  if (!ExpectRefLike(op, po.ref, "pipeline operand", false)) return true;
  const Type& ref = po.ref.value->type;
  if (static_cast<int>(po.block.size()) != ref.rank()) {
    Detail(DiagId::kIrRegion, po.loc,
           Cat("the block of ", Name(po.ref), " has ", Plural(static_cast<int64_t>(po.block.size()), "dimension"),
               ", but ", ref.ToString(), " has rank ", ref.rank()));
    return true;
  }
  Shape block_shape;
  for (const BlockDim& d : po.block) {
    if (d.kind != BlockDim::Kind::kSqueezed && d.size < 1) {
      return Detail(DiagId::kIrRegion, d.loc, Cat("block size ", d.size, " must be positive"));
    }
    if (d.kind != BlockDim::Kind::kSqueezed) block_shape.push_back(d.size);
  }
  if (!VerifyBlockMap(op, po)) return true;
  const Value* param = op.regions[0]->args[k];
  Type want = Type::Ref(param->type.is_ref() ? param->type.space() : MemorySpace::kVmem, ref.element(), block_shape);
  if (!param->type.is_ref() || param->type.element() != ref.element() || param->type.shape() != block_shape) {
    TypeError(op, param->loc,
              Cat("block ref %", param->name, " has type ", param->type.ToString(), ", but the block of ",
                  Name(po.ref), " is ", want.ToString()));
    return true;
  }
  VerifyWindowFits(po, *param);
  return true;
}

// A block ref in hbm or in its operand's own space is a window of the operand
// (no buffer): each of its sized dimensions must fit the operand's.
void Verifier::VerifyWindowFits(const PipelineOperand& po, const Value& block) {
  const Type& ref = po.ref.value->type;
  if (!ref.is_ref() || (block.type.space() != MemorySpace::kHbm && block.type.space() != ref.space())) return;
  for (size_t d = 0; d < po.block.size(); ++d) {
    const BlockDim& b = po.block[d];
    int64_t dim = ref.shape()[d];
    if (b.kind != BlockDim::Kind::kSize || dim == kDynamic || b.size <= dim) continue;
    Detail(DiagId::kIrIndex, b.loc,
           Cat("the block's ", b.size, " elements do not fit dimension ", d, " of ", Name(po.ref), " : ",
               ref.ToString(), " (size ", dim, "); the block ref %", block.name, " is ", block.type.ToString(),
               ", a window of the operand, not a buffer"));
    return;
  }
}

bool Verifier::VerifyBlockMap(const Op& op, PipelineOperand& po) {
  Region& map = *po.map;
  size_t grid_rank = op.pipeline->grid.size();
  // `map () -> (...)` ignores the grid (a block that never moves).
  if (!map.args.empty() && map.args.size() != grid_rank) {
    return Detail(DiagId::kIrRegion, po.loc,
                  Cat("the map of ", Name(po.ref), " takes ",
                      Plural(static_cast<int64_t>(map.args.size()), "grid variable"), ", but the grid has ",
                      Plural(static_cast<int64_t>(grid_rank), "dimension")));
  }
  Op* yield = map.ops.empty() ? nullptr : map.ops.back().get();
  if (yield == nullptr || yield->kind != OpKind::kYield) {
    return Detail(DiagId::kIrRegion, map.loc,
                  Cat("the map of ", Name(po.ref), " must end with 'yield' of its block indices"));
  }
  if (yield->map_entries.size() != po.block.size()) {
    return Detail(DiagId::kIrRegion, yield->loc,
                  Cat("the map of ", Name(po.ref), " yields ",
                      Plural(static_cast<int64_t>(yield->map_entries.size()), "index"),
                      ", one per block dimension (", po.block.size(), ") is needed"));
  }
  VerifyMapEntries(*yield, po);
  return true;
}

void Verifier::VerifyMapEntries(Op& yield, const PipelineOperand& po) {
  for (size_t d = 0; d < po.block.size(); ++d) {
    IndexEntry& e = yield.map_entries[d];
    bool indirect = po.block[d].kind == BlockDim::Kind::kIndirect;
    if (indirect != (e.kind == IndexEntry::Kind::kIndirect)) {
      Detail(DiagId::kIrRegion, e.loc,
             indirect ? Cat("map entry ", d, " must be idx(...) for the indirect(", po.block[d].size, ") block dimension")
                      : Cat("map entry ", d, " is idx(...), but block dimension ", d, " is not indirect"));
      return;
    }
    if (!Known(e.start)) continue;
    if (indirect) {
      if (e.start.is_literal()) OperandError(yield, e.start.loc, "idx(...) takes a vector value or a ref of indices");
      if (e.ignore) ExpectScalarInt(yield, *e.ignore, "ignore value", false);
    } else {
      ExpectScalarInt(yield, e.start, "block index", false);
    }
  }
}

}  // namespace

void Verify(Module& module, DiagnosticSink& sink) {
  Verifier v(module, sink);
  v.Run();
}

}  // namespace scjit
