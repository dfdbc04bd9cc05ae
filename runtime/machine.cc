#include "runtime/machine.h"

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <numeric>

#include "absl/strings/str_format.h"
#include "lowering/base/strings.h"
#include "runtime/dma_engine.h"
#include "runtime/dma_walk.h"
#include "runtime/element_text.h"
#include "runtime/half.h"
#include "runtime/host_memory.h"
#include "runtime/poison.h"
#include "runtime/shared_moves.h"

namespace scjit {

namespace {
constexpr char kAtomicWordsNote[] =
    "a fetch_and_add is atomic only with respect to the other fetch_and_adds of its word; a barrier, or a semaphore "
    "signal and wait, between it and the subcore's own loads and stores of the word would order them";
}  // namespace
namespace {

constexpr int64_t kAlign = 64;
// A subcore's stack: at least 1 MiB, and 256 KiB more than the kernel's frame.
constexpr size_t kMinStackBytes = size_t{1} << 20;
constexpr size_t kStackHeadroom = size_t{256} << 10;

int64_t AlignUp(int64_t v) { return (v + kAlign - 1) / kAlign * kAlign; }

// `seconds` after `start`, saturated: a limit past the clock's range (1e10 s,
// infinity) is no deadline rather than an overflow into the past.
std::chrono::steady_clock::time_point DeadlineAfter(std::chrono::steady_clock::time_point start, double seconds) {
  using Clock = std::chrono::steady_clock;
  double room = std::chrono::duration<double>(Clock::time_point::max() - start).count();
  if (!(seconds < room / 2)) return Clock::time_point::max();
  return start + std::chrono::duration_cast<Clock::duration>(std::chrono::duration<double>(seconds));
}

// HLO-style dtype names, as the SparseCore log recorder prints them.
std::string_view HloName(ElementType e) {
  switch (e) {
    case ElementType::kI1: return "pred";
    case ElementType::kI8: return "s8";
    case ElementType::kI16: return "s16";
    case ElementType::kI32: return "s32";
    case ElementType::kI64: return "s64";
    case ElementType::kU8: return "u8";
    case ElementType::kU16: return "u16";
    case ElementType::kU32: return "u32";
    case ElementType::kU64: return "u64";
    case ElementType::kBF16: return "bf16";
    case ElementType::kF16: return "f16";
    case ElementType::kF32: return "f32";
    case ElementType::kF64: return "f64";
    case ElementType::kF8E5M2: return "f8e5m2";
    case ElementType::kF8E4M3FN: return "f8e4m3fn";
    case ElementType::kF8E4M3B11FNUZ: return "f8e4m3b11fnuz";
    case ElementType::kI4: return "s4";
    case ElementType::kU4: return "u4";
  }
  return "?";
}

}  // namespace

bool LaunchResult::failed() const {
  for (const Diagnostic& d : findings) {
    if (d.severity == Severity::kError) return true;
  }
  return false;
}

std::string LaunchResult::RenderFindings() const {
  std::string out;
  for (const Diagnostic& d : findings) out += d.Render();
  return out;
}

// ------------------------------------------------------------------------------------
// Subcore: the ABI entry points.

Subcore::Subcore(Machine* machine, const MachinePart* part, int index, int core, int subcore)
    : machine_(machine), part_(part), index_(index), core_(core), subcore_(subcore) {
  sems_.resize(static_cast<size_t>(part->layout->semaphores));
  ops_.assign(std::size(kRuntimeOps), 0);
}

Diagnostic Subcore::Finding(DiagId id, int site, std::initializer_list<DiagArg> args) const {
  Diagnostic d = layout().SiteDiagnostic(id, site, args);
  if (machine_->options().checks.warn) d.severity = Severity::kWarning;
  return d;
}

SubcoreFinding Subcore::Made(Diagnostic d, bool name_subcore) const {
  return SubcoreFinding{std::move(d), core_, subcore_, name_subcore, layout().mesh,
                        machine_->devices() > 1 ? part_->device : -1};
}

int32_t Subcore::Fail(Diagnostic d) {
  bool error = d.severity == Severity::kError;
  findings_.push_back(Made(std::move(d)));
  return error ? kStatusFailed : 0;
}

int32_t Subcore::Park(Wait wait, int site) {
  wait_ = wait;
  wait_site_ = site;
  machine_->scheduler().Park(index_);
  wait_ = Wait::kNone;
  return cancelled_ ? kStatusCancelled : 0;
}

int32_t Subcore::Tick(int site) {
  ctx.tick = SCJIT_TICK_PERIOD;
  if (int32_t status = OutOfTime(site, "was still in this loop"); status != 0) return status;
  return Park(Wait::kTick, -1);
}

int32_t Subcore::Spend(int64_t bytes, int site) {
  work_ += bytes + kWorkPerCall;
  if (work_ < kWorkBetweenClocks) return 0;
  work_ = 0;
  return OutOfTime(site, "was still moving bytes here");
}

int32_t Subcore::OutOfTime(int site, std::string_view doing) {
  if (machine_->Interrupted()) return kStatusCancelled;
  if (!machine_->PastDeadline()) return 0;
  Diagnostic d = layout().SiteDiagnostic(DiagId::kRtTimeout, site,
                                         {{"what", Cat("kernel @", machine_->layout().kernel)},
                                          {"seconds", absl::StrFormat("%g", machine_->options().time_limit_seconds)}});
  d.notes.push_back(Cat(machine_->SubcoreName(index_), " ", doing));
  findings_.push_back(Made(std::move(d), /*name_subcore=*/false));
  return kStatusFailed;
}

int32_t Subcore::Refuse(DiagId id, int site, std::string detail) {
  const Checks& checks = machine_->options().checks;
  if (!(id == DiagId::kRtSync ? checks.sync : checks.bounds)) return 0;
  return Fail(Finding(id, site, {{"detail", std::move(detail)}}));
}

bool Subcore::ValidSemaphore(int sem, int site, int32_t* status) { return ValidSemaphore(sem, *part_, site, status); }

bool Subcore::ValidSemaphore(int sem, const MachinePart& part, int site, int32_t* status) {
  int count = part.layout->semaphores;
  if (sem >= 0 && sem < count) return true;
  *status = Refuse(DiagId::kRtBounds, site,
                   Cat("semaphore index ", sem, " is outside the ", count, " semaphores of ",
                       &part == part_ ? "this subcore" : "the subcores of that part"));
  return false;
}

bool Subcore::ValidDma(const scjit_dma& dma, int site, int32_t* status) {
  // The op as written, for a finding (made only then: this runs for every DMA).
  auto what = [&] {
    const Site& s = layout().sites[site];
    return Cat(s.op, " ", s.text);
  };
  // Generated code bounds-checks every view; this guard keeps even a wrong
  // descriptor from touching host memory outside the kernel's buffers. (The
  // indexed side of a gather/scatter is its whole first dimension.)
  for (const scjit_ref* r : {&dma.src, &dma.dst}) {
    if (!machine_->Contains(*r, dma.elem_bytes, index_)) {
      *status = Refuse(DiagId::kRtBounds, site,
                       Cat(what(), ": the ", r == &dma.src ? "source" : "destination",
                           " lies outside every buffer of the kernel"));
      return false;
    }
  }
  if (dma.add_pieces < 0 || int64_t{dma.add_pieces} * dma.elem_bytes > 8) {
    *status = Refuse(DiagId::kRtBounds, site, Cat(what(), ": its elements are ", dma.add_pieces, " units of ",
                                                  dma.elem_bytes, " bytes, wider than any element"));
    return false;
  }
  bool indirect = dma.indexed != SCJIT_DMA_PLAIN;
  if (indirect) {
    scjit_ref list{};
    list.base = reinterpret_cast<uint8_t*>(const_cast<int32_t*>(dma.indices));
    list.rank = 1;
    list.sizes[0] = dma.index_count;
    list.strides[0] = dma.index_stride;
    if (IndexedSide(dma).rank < 1 || dma.index_count < 0 ||
        (dma.list_in_vmem && !machine_->Contains(list, 4, index_))) {
      *status = Refuse(DiagId::kRtBounds, site, Cat(what(), ": the index list lies outside every buffer of the kernel"));
      return false;
    }
  }
  if (!indirect ? SameSqueezedShape(dma.src, dma.dst) : SameSqueezedShape(PlainSide(dma), MovedShape(dma))) {
    return true;
  }
  scjit_ref moved = MovedShape(dma);
  const scjit_ref& src = dma.indexed == SCJIT_DMA_GATHER ? moved : dma.src;
  const scjit_ref& dst = dma.indexed == SCJIT_DMA_SCATTER ? moved : dma.dst;
  *status = Refuse(DiagId::kRtBounds, site,
                   Cat(what(), " copies a source of shape ", SqueezedShape(src), " into a destination of shape ",
                       SqueezedShape(dst)));
  return false;
}

int32_t Subcore::ReadIndices(const scjit_dma& dma, int site, std::vector<int32_t>* out) {
  out->clear();
  if (dma.indexed == SCJIT_DMA_PLAIN) return 0;
  // The entries decide which rows move: first, that they hold values.
  if (local_ != nullptr && dma.list_in_vmem) {
    if (std::optional<AccessProblem> problem = local_->UnwrittenList(dma)) return Fail(AccessFinding(*problem, site));
  }
  out->resize(static_cast<size_t>(dma.index_count));
  if (dma.index_stride == 1) {
    if (dma.index_count > 0) std::memcpy(out->data(), dma.indices, static_cast<size_t>(dma.index_count) * 4);
  } else {
    for (int64_t i = 0; i < dma.index_count; ++i) (*out)[i] = dma.indices[i * dma.index_stride];
  }
  if (!machine_->options().checks.bounds) return 0;  // bad entries move nothing (Transfer)
  int64_t rows = IndexedSide(dma).sizes[0];
  for (int64_t i = 0; i < dma.index_count; ++i) {
    int32_t v = (*out)[i];
    if ((dma.has_ignore && v == dma.ignore) || (v >= 0 && v < rows)) continue;
    const Site& s = layout().sites[site];
    return Fail(Finding(DiagId::kRtBounds, site,
                        {{"detail", Cat(s.op, " ", s.text, ": entry ", i, " of the index list is ", v,
                                        ", outside dimension 0 of the ",
                                        dma.indexed == SCJIT_DMA_GATHER ? "source" : "destination", " (size ", rows,
                                        ")")}}));
  }
  return 0;
}

namespace {

bool Shared(int32_t space) {
  auto s = static_cast<MemorySpace>(space);
  return OffCore(s) || s == MemorySpace::kVmemShared;
}

}  // namespace

bool Subcore::Execute(const scjit_dma& dma, int site, int64_t credit, std::vector<int32_t>* indices, int sem,
                      bool settling, const std::shared_ptr<SharedDma>& shared_record) {
  // Adds into HBM, HOST or VMEM_SHARED are atomic with respect to other
  // subcores' (runtime.md §5): the machine applies them between epochs in subcore
  // order, so float sums do not depend on which thread ran first.
  bool shared = Shared(dma.dst.space);
  if (dma.add && shared && !settling) {
    Effect e;
    e.kind = Effect::Kind::kSharedAdd;
    e.target = index_;
    e.sem = sem;
    e.amount = credit;
    e.dma = std::make_shared<StartedDma>(dma, site, credit, std::move(*indices));
    e.send_sem = dma.device < 0 ? dma.send_sem : -1;
    outbox_.push_back(std::move(e));
    for (int s : {sem, e.send_sem}) {
      if (s < 0) continue;
      sems_[s].deferred += credit;
      sems_[s].last_site = site;
    }
    return true;
  }
  {
    // Other threads may write the same shared bytes (SharedWrites), in an
    // epoch that runs on several.
    SharedWrites* writes =
        shared && !settling && machine_->scheduler().parallel() ? machine_->shared_writes() : nullptr;
    SharedWrites::Guard guard = writes != nullptr
                                    ? writes->Lock(dma.dst.base, dma.dst.base + ExtentBytes(dma.dst, dma.elem_bytes))
                                    : SharedWrites::Guard();
    if (shared) {
      // Race check: which shared destination bytes a plain DMA changes. A
      // local destination is no other subcore's to race on.
      // (Deferred poison is the out parameters', which lie off the core.)
      MoveShared(dma, *indices, dma.add ? nullptr : shared_record.get(), machine_->shared_init(),
                 OffCore(static_cast<MemorySpace>(dma.dst.space)) ? machine_->deferred_poison() : nullptr);
      if (shared_record != nullptr) shared_record->moved_at = machine_->NextSharedMove();
    } else {
      Transfer(dma, indices->data());
    }
    machine_->CarryInitStates(dma, indices->data(), site, index_);
  }
  // A local copy's source semaphore (a push stream's `src_sem`): its source
  // has been read.
  for (int s : {sem, dma.device < 0 ? dma.send_sem : -1}) {
    if (s < 0) continue;
    sems_[s].value += credit;
    sems_[s].last_site = site;
  }
  return false;
}

void Subcore::Complete(int sem, int64_t bytes, bool settling) {
  Semaphore& s = sems_[sem];
  // DMAs complete in start order as waits need their credit; one that moves no
  // bytes (a length of 0 at run time) credits nothing, and completes with the
  // first wait after it rather than never.
  while (!s.pending.empty() && (s.value + s.deferred < bytes || s.pending.front().credit == 0)) {
    StartedDma& p = s.pending.front();  // Execute starts no DMA: p stays put
    Execute(p.dma, p.site, p.credit, &p.indices, sem, settling, p.shared);
    s.pending.pop_front();
    --pending_dmas_;
  }
}

int32_t Subcore::DmaStart(const scjit_dma& dma, int site) {
  if (machine_->stopping()) return kStatusCancelled;
  Count(RuntimeOp::kDmaStart);
  int32_t status = 0;
  if (!ValidSemaphore(dma.sem, site, &status) || !ValidDma(dma, site, &status)) return status;
  int64_t bytes = MovedBytes(dma);
  if ((status = Spend(bytes, site)) != 0) return status;
  if (dma.device >= 0) return RemoteDmaStart(dma, site);
  int64_t credit = Credit(dma, bytes);
  dma_bytes_ += bytes;
  std::shared_ptr<SharedDma> shared;
  if (dma.send_sem >= 0) return PushStreamStart(dma, site, credit);
  if (machine_->options().dma == DmaMode::kEager) {
    if ((status = ReadIndices(dma, site, &indices_)) != 0) return status;
    if ((status = StartAccesses(dma, indices_, site, dma.sem, credit, &shared)) != 0) return status;
    Execute(dma, site, credit, &indices_, dma.sem, false, shared);
    return 0;
  }
  // Each waits in memory until its wait moves it: as many as the checks follow.
  if (pending_dmas_ >= LocalAccesses::kMaxInFlight) {
    return Fail(AccessFinding(AccessProblem{.kind = AccessProblem::Kind::kTooMany}, site));
  }
  // The list is read now: the DMA moves the rows the indices named at its start.
  PendingDmas& pending = sems_[dma.sem].pending;
  StartedDma& p = pending.emplace_back(dma, site, credit);
  if ((status = ReadIndices(dma, site, &p.indices)) != 0 ||
      (status = StartAccesses(dma, p.indices, site, dma.sem, credit, &p.shared)) != 0) {
    pending.pop_back();
    return status;
  }
  ++pending_dmas_;
  return 0;
}

// A local copy with a source semaphore (JAX 0.12's push streams, VMEM to
// HBM, VMEM_SHARED or SMEM): it moves its bytes at its start in either DMA
// mode, crediting the source semaphore (wait_read) and the destination one
// (wait_write). The access checks see its source read until the wait on the
// source semaphore and its destination written until the wait on the other,
// so a source reused after wait_read is no finding.
int32_t Subcore::PushStreamStart(const scjit_dma& dma, int site, int64_t credit) {
  int32_t status = 0;
  if (!ValidSemaphore(dma.send_sem, site, &status)) return status;
  if ((status = ReadIndices(dma, site, &indices_)) != 0) return status;
  std::shared_ptr<SharedDma> shared;
  if (local_ != nullptr) {
    std::optional<AccessProblem> problem =
        local_->StartDma(dma, indices_.data(), site, dma.send_sem, credit, nullptr, LocalAccesses::Sides::kSource);
    if (problem) return Fail(AccessFinding(*problem, site));
    NewRecord(site, &shared);
    problem = local_->StartDma(dma, indices_.data(), site, dma.sem, credit, shared, LocalAccesses::Sides::kDestination);
    if (problem) return Fail(AccessFinding(*problem, site));
    if (shared != nullptr && !shared->Accesses()) shared = nullptr;
    if (shared != nullptr) shared_started_.push_back(shared);
  }
  Execute(dma, site, credit, &indices_, dma.sem, false, shared);
  return 0;
}

bool Subcore::ValidDevice(int device, int site, int32_t* status) {
  if (device < machine_->devices()) return true;
  const Site& s = layout().sites[site];
  *status = Refuse(DiagId::kRtBounds, site,
                   Cat(s.op, " ", s.text, ": it targets device ", device, ", but the launch has ", machine_->devices(),
                       " device", machine_->devices() == 1 ? "" : "s"));
  return false;
}

int32_t Subcore::RemoteDmaStart(const scjit_dma& dma, int site) {
  int32_t status = 0;
  if (!ValidSemaphore(dma.send_sem, site, &status) || !ValidDevice(dma.device, site, &status)) return status;
  auto refuse = [&](std::string_view why) {
    const Site& s = layout().sites[site];
    return Refuse(DiagId::kRtBounds, site, Cat(s.op, " ", s.text, ": ", why));
  };
  if (dma.indexed != SCJIT_DMA_PLAIN || dma.add) return refuse("a remote copy moves a plain rectangle (DMA-15)");
  int global = machine_->Counterpart(index_, dma.device);
  int target = machine_->Local(global);
  std::optional<BufferAddress> where = machine_->Locate(dma.dst, dma.elem_bytes, index_);
  if (!where) return refuse("the destination lies outside every buffer of the kernel");
  scjit_dma moved = dma;
  if (target >= 0) moved.dst.base = machine_->Resolve(*where, target);  // else another process's (ChipLink)
  int64_t bytes = MovedBytes(dma);
  int64_t credit = Credit(dma, bytes);
  std::shared_ptr<SharedDma> record;
  if ((status = StartRemoteAccesses(moved, site, credit, global, &record)) != 0) return status;
  dma_bytes_ += bytes;
  Effect e;
  e.kind = Effect::Kind::kRemoteDma;
  e.target = target;
  e.remote = target < 0 ? global : -1;
  e.where = *where;
  e.sem = dma.sem;
  e.send_sem = dma.send_sem;
  e.amount = credit;
  e.site = site;
  e.dma = std::make_shared<StartedDma>(moved, site, credit);
  if (machine_->clocks() != nullptr) {  // what this subcore knows arrives with the bytes
    e.dma->shared = std::move(record);
    e.clock = std::make_shared<const Clock>(clock());
    TickClock();
  }
  outbox_.push_back(std::move(e));
  return 0;
}

// The race check's record of a remote copy: it reads its source and writes its
// destination until its sender's wait on %send, or its receiver's on %recv,
// retires it (the copy is done then, for whoever is ordered after either).
// Its source bytes in the sender's own memories are marked read in flight
// until the sender's wait, as a local DMA's are; the receiver's side is added
// when the bytes land (Machine::LandRemoteDma).
int32_t Subcore::StartRemoteAccesses(const scjit_dma& dma, int site, int64_t credit, int receiver,
                                     std::shared_ptr<SharedDma>* record) {
  if (local_ == nullptr || machine_->clocks() == nullptr) return 0;
  NewRecord(site, record, /*pooled=*/false);
  SharedDma& r = **record;
  r.remote = true;
  r.recv_subcore = receiver;  // (its recv_end stays 0 until that subcore's wait)
  if (Shared(dma.dst.space)) {
    ForEachRun(dma, nullptr, [&](uint8_t* to, int64_t to_stride, const uint8_t*, int64_t, int64_t n) {
      ForEachSpan(to, to_stride, n, dma.elem_bytes, [&](const uint8_t* at, int64_t bytes) {
        auto lo = reinterpret_cast<uintptr_t>(at);
        r.runs.push_back({lo, lo + static_cast<uintptr_t>(bytes), SharedDma::kWrite});
      });
    });
  }
  // (The walk over the source adds its shared runs to the record.)
  std::optional<AccessProblem> problem =
      local_->StartDma(dma, nullptr, site, dma.send_sem, credit, *record, LocalAccesses::Sides::kSource);
  if (problem) return Fail(AccessFinding(*problem, site));
  if (r.Accesses()) shared_started_.push_back(*record);
  return 0;
}

int32_t Subcore::WaitFor(int sem, int64_t amount, Wait wait, int site) {
  Complete(sem, amount);
  Semaphore& s = sems_[sem];
  if (s.value >= amount) {
    s.value -= amount;
    Consumed(sem, amount, site);
    return 0;
  }
  wait_sem_ = sem;
  wait_amount_ = amount;
  return Park(wait, site);
}

int32_t Subcore::DmaWait(const scjit_dma& dma, int site) {
  if (machine_->stopping()) return kStatusCancelled;
  Count(RuntimeOp::kDmaWait);
  int32_t status = 0;
  if (!ValidSemaphore(dma.sem, site, &status)) return status;
  int64_t bytes = Credit(dma);
  // `.wait()` of a copy with a source semaphore (a remote copy, or a local
  // push stream): what it read or sent, then what its destination received.
  if (dma.send_sem >= 0) {
    if (!ValidSemaphore(dma.send_sem, site, &status)) return status;
    if ((status = WaitFor(dma.send_sem, bytes, Wait::kDmaWait, site)) != 0) return status;
  }
  return WaitFor(dma.sem, bytes, Wait::kDmaWait, site);
}

int32_t Subcore::Copy(const scjit_dma& dma, int site) {
  if (machine_->stopping()) return kStatusCancelled;
  Count(RuntimeOp::kCopy);
  int32_t status = 0;
  if (!ValidDma(dma, site, &status)) return status;
  int64_t bytes = MovedBytes(dma);
  if ((status = Spend(bytes, site)) != 0) return status;
  if ((status = ReadIndices(dma, site, &indices_)) != 0) return status;
  std::shared_ptr<SharedDma> shared;
  if ((status = StartAccesses(dma, indices_, site, -1, 0, &shared)) != 0) return status;
  dma_bytes_ += bytes;
  bool deferred = Execute(dma, site, 0, &indices_, -1, false, shared);
  if (shared != nullptr) {  // a copy retires at once
    TickClock();
    shared->end = clock()[static_cast<size_t>(index_)];
    shared->end_site = site;
  }
  if (deferred) return Park(Wait::kSharedAdd, site);
  return 0;
}

int32_t Subcore::SemSignal(int sem, int32_t n, int core, int subcore, int device, int part, int site) {
  if (machine_->stopping()) return kStatusCancelled;
  Count(RuntimeOp::kSemSignal);
  int32_t status = 0;
  // Another part's semaphore (`%s: sem @scalar`): its subcores, on this chip
  // or `device`.
  const MachinePart& to = part < 0 ? *part_ : machine_->PartOn(part_->device, part);
  if (!ValidSemaphore(sem, to, site, &status)) return status;
  const LaunchLayout& info = *to.layout;
  int target_core = core < 0 ? core_ : core;
  int target_subcore = subcore >= 0 ? subcore : info.mesh == MeshKind::kScalar ? 0 : subcore_;
  if (target_core >= info.cores || target_subcore >= info.subcores) {
    return Refuse(DiagId::kRtBounds, site,
                  Cat("sem_signal targets (core ", target_core, ", subcore ", target_subcore, "), but the mesh has ",
                      info.cores, " core", info.cores == 1 ? "" : "s", " of ", info.subcores, " subcore",
                      info.subcores == 1 ? "" : "s"));
  }
  if (!ValidDevice(device, site, &status)) return status;
  if (n < 0) {
    return Refuse(DiagId::kRtSync, site, Cat("sem_signal adds ", n, "; semaphores only count up by signals"));
  }
  // Signals address the subcores of one part (this subcore's, or the one of
  // the semaphore), on this chip or another.
  int target = to.first + target_core * info.subcores + target_subcore;
  int remote = -1;  // the target's global index when another process runs it
  if (device >= 0) {
    int global = machine_->Counterpart(target, device);
    target = machine_->Local(global);
    if (target < 0) remote = global;
  }
  if (target == index_) {
    sems_[sem].value += n;
    sems_[sem].last_site = site;
  } else {
    // Another subcore's semaphore changes between epochs, in a fixed order.
    Effect e{Effect::Kind::kSignal, target, sem, n, 0, nullptr, nullptr, site, nullptr, -1, -1, {}};
    e.remote = remote;
    if (machine_->clocks() != nullptr) {  // what this subcore knows travels with the signal
      e.clock = std::make_shared<const Clock>(clock());
      TickClock();
    }
    outbox_.push_back(std::move(e));
  }
  return 0;
}

int32_t Subcore::SemWait(int sem, int32_t n, int site) {
  if (machine_->stopping()) return kStatusCancelled;
  Count(RuntimeOp::kSemWait);
  int32_t status = 0;
  if (!ValidSemaphore(sem, site, &status)) return status;
  if (n < 0) {
    return Refuse(DiagId::kRtSync, site, Cat("sem_wait for ", n, "; waits are for counts >= 0"));
  }
  return WaitFor(sem, n, Wait::kSemWait, site);
}

int32_t Subcore::SemRead(int sem, int site, int32_t* value) {
  if (machine_->stopping()) return kStatusCancelled;
  Count(RuntimeOp::kSemRead);
  int32_t status = 0;
  if (!ValidSemaphore(sem, site, &status)) return status;
  Complete(sem, INT64_MAX);
  // A read observes what other subcores did up to the end of this epoch, so a
  // subcore polling a semaphore lets them progress.
  if ((status = Park(Wait::kSemRead, site)) != 0) return status;
  *value = static_cast<int32_t>(std::min<int64_t>(sems_[sem].value, INT32_MAX));
  if (machine_->clocks() != nullptr) Join(clock(), machine_->sem_clock(index_, sem));
  return 0;
}

int32_t Subcore::Barrier(int site) {
  if (machine_->stopping()) return kStatusCancelled;
  Count(RuntimeOp::kBarrier);
  return Park(Wait::kBarrier, site);
}

int32_t Subcore::FetchAndAdd(int64_t offset, int32_t value, int target, int site, int32_t* old) {
  if (machine_->stopping()) return kStatusCancelled;
  Count(RuntimeOp::kFetchAndAdd);
  const LaunchLayout& info = layout();
  if (target < 0 || target >= info.subcores) {
    *old = 0;
    return Refuse(DiagId::kRtBounds, site,
                  Cat("fetch_and_add targets subcore ", target, ", but each core has ", info.subcores, " subcore",
                      info.subcores == 1 ? "" : "s"));
  }
  if (offset < 0 || offset + 4 > info.smem_bytes) {
    *old = 0;
    return Refuse(DiagId::kRtBounds, site,
                  Cat("fetch_and_add addresses byte ", offset, " of an SMEM of ", info.smem_bytes, " bytes"));
  }
  outbox_.push_back(Effect{Effect::Kind::kFetchAndAdd, part_->first + core_ * info.subcores + target, 0, value, offset,
                           old, nullptr, site, nullptr, -1, -1, {}});
  return Park(Wait::kFetchAndAdd, site);
}

int32_t Subcore::DebugPrint(int site, int kind, int dtype, const void* data, int64_t count, const scjit_ref* ref) {
  if (machine_->stopping()) return kStatusCancelled;
  Count(RuntimeOp::kDebugPrint);
  const Site& s = layout().sites[site];
  // In a launch of several parts a scalar subcore says so ("[core 1, scalar
  // subcore]"); alone it prints as it always has. On several chips the line
  // starts with the chip ("[device 2, core 0, subcore 3]").
  std::string chip = machine_->devices() > 1 ? Cat("device ", part_->device, ", ") : "";
  std::string line = machine_->several_parts() && layout().mesh == MeshKind::kScalar
                         ? Cat("[", chip, "core ", core_, ", scalar subcore] ", s.text)
                         : Cat("[", chip, "core ", core_, ", subcore ", subcore_, "] ", s.text);
  auto e = static_cast<ElementType>(dtype);
  if (kind == SCJIT_PRINT_VALUE) {
    Append(&line, ", data: ", HloName(e), "[", count, "]: ");
    // i1 values arrive as bytes.
    int w = e == ElementType::kI1 ? 1 : ByteWidth(e);
    for (int64_t i = 0; i < count; ++i) {
      Append(&line, i ? ", " : "", ElementText(static_cast<const uint8_t*>(data) + i * w, e, 6));
    }
  } else if (kind == SCJIT_PRINT_REF || kind == SCJIT_PRINT_SEMS) {
    // Semaphores print their counts as s32.
    if (kind == SCJIT_PRINT_SEMS) e = ElementType::kI32;
    Append(&line, ", data: ", HloName(e), "[");
    for (int d = 0; d < ref->rank; ++d) Append(&line, d ? "," : "", ref->sizes[d]);
    line += "]:";
    // Row-wise: one `{ ... }` per row of the minor dimension.
    int64_t inner = ref->rank > 0 ? ref->sizes[ref->rank - 1] : 1;
    int64_t total = ElementCount(*ref);
    for (int64_t first = 0; first < total; first += std::max<int64_t>(inner, 1)) {
      line += " {";
      for (int64_t j = 0; j < inner; ++j) {
        int64_t rem = first + j, off = 0;
        for (int d = ref->rank - 1; d >= 0; --d) {
          off += (rem % ref->sizes[d]) * ref->strides[d];
          rem /= ref->sizes[d];
        }
        std::string text;
        if (kind == SCJIT_PRINT_SEMS) {
          text = Cat(sems_[static_cast<size_t>(count + off)].value);
        } else {
          text = ElementText(ref->base + off * ByteWidth(e), e, 6);
        }
        Append(&line, j ? ", " : " ", text);
      }
      line += " }";
    }
  }
  prints_ += line;
  prints_ += '\n';
  return 0;
}

int32_t Subcore::Alloc(void* data, int64_t count, int dtype, int first_sem) {
  if (machine_->stopping()) return kStatusCancelled;
  if (data == nullptr) {
    for (int64_t i = 0; i < count; ++i) sems_[first_sem + i] = Semaphore{};
  } else {
    FillPoison(static_cast<uint8_t*>(data), count, static_cast<ElementType>(dtype));
    if (local_ != nullptr && first_sem == SCJIT_POISON_UNWRITTEN) {
      local_->MarkUnwritten(static_cast<uint8_t*>(data), count * ByteWidth(static_cast<ElementType>(dtype)));
    }
  }
  return 0;
}

int32_t Subcore::StartAccesses(const scjit_dma& dma, const std::vector<int32_t>& indices, int site, int sem,
                               int64_t credit, std::shared_ptr<SharedDma>* shared) {
  if (local_ == nullptr) return 0;
  // A DMA from a parameter nothing writes into this subcore's own memories:
  // its reads cannot race, so only its local side has anything to check (the
  // common pipeline's copy in).
  if (!dma.add && machine_->ReadOnly(dma.src, dma.elem_bytes) &&
      local_->Local(dma.dst.base, ExtentBytes(dma.dst, dma.elem_bytes))) {
    std::optional<AccessProblem> problem = local_->StartDma(dma, indices.data(), site, sem, credit, nullptr);
    return problem ? Fail(AccessFinding(*problem, site)) : 0;
  }
  std::shared_ptr<SharedDma> record;
  NewRecord(site, &record);
  // (The walk that checks the DMA's local bytes gives the record its runs.)
  std::optional<AccessProblem> problem = local_->StartDma(dma, indices.data(), site, sem, credit, record);
  if (problem) return Fail(AccessFinding(*problem, site));
  if (record != nullptr && !record->Accesses()) record = nullptr;
  if (record != nullptr) shared_started_.push_back(record);
  *shared = std::move(record);
  return 0;
}

Clock& Subcore::clock() { return (*machine_->clocks())[static_cast<size_t>(index_)]; }

void Subcore::NewRecord(int site, std::shared_ptr<SharedDma>* record, bool pooled) {
  if (machine_->clocks() == nullptr) return;
  *record = pooled ? std::allocate_shared<SharedDma>(RecordAllocator<SharedDma>(records_))
                   : std::make_shared<SharedDma>();
  SharedDma& r = **record;
  r.subcore = index_;
  r.site = site;
  // (resize and memcpy: InlinedVector's assign from iterators copies entry by entry.)
  const Clock& now = clock();
  r.start.resize(now.size());
  std::memcpy(r.start.data(), now.data(), now.size() * sizeof(now[0]));
}

void Subcore::Consumed(int sem, int64_t amount, int site) {
  if (local_ == nullptr) return;
  local_->Consume(sem, amount, [&](SharedDma& retired) {
    TickClock();
    uint32_t now = clock()[static_cast<size_t>(index_)];
    if (retired.subcore != index_) {  // a remote copy this subcore received (its recv_subcore)
      retired.recv_end = now;
    } else if (retired.end == 0) {  // (a copy to its own chip retires at its first wait)
      retired.end = now;
      retired.end_site = site;
    }
  });
  if (machine_->clocks() != nullptr) Join(clock(), machine_->sem_clock(index_, sem));
}

int32_t Subcore::AccessFault(int site, bool write, const uint8_t* addr, int64_t bytes) {
  return AccessCheck(site, write, addr, bytes);
}

int32_t Subcore::AccessCheck(int site, bool write, const uint8_t* addr, int64_t bytes) {
  if (machine_->stopping()) return kStatusCancelled;
  if (local_ == nullptr || bytes <= 0 || !local_->Local(addr, bytes)) return 0;
  std::optional<AccessProblem> problem = local_->Access(addr, bytes, write);
  if (problem) return Fail(AccessFinding(*problem, site));
  return atomic_words_ != nullptr ? CheckAtomicWords(site, write, addr, bytes) : 0;
}

// ------------------------------------------------------------------------------------
// The init check's values (runtime.md, "Init check").

int32_t Subcore::UnwrittenRead(int site, const uint8_t* addr, const uint8_t* lane0, int64_t lane_bytes,
                               int32_t* origin) {
  *origin = 0;
  if (machine_->stopping()) return kStatusCancelled;
  InitStates* states = machine_->init_states();
  if (states == nullptr) return 0;
  uint8_t state = 0;
  states->Read(addr, 1, &state);
  if (state != SCJIT_SHADOW_WRITTEN) *origin = ReadOrigin(site, addr, state, lane0, lane_bytes);
  return 0;
}

int32_t Subcore::LaneOrigin(int32_t origin, int64_t lane, int32_t* out) {
  *out = origin;
  if (machine_->stopping()) return kStatusCancelled;
  if (machine_->init_origins() == nullptr || (origin & SCJIT_ORIGIN_COMPUTED) != 0) return 0;
  std::optional<InitOrigins::Record> r = machine_->init_origins()->Find(origin);
  if (!r || r->lane_bytes == 0 || lane < 0) return 0;
  const uint8_t* p = r->lane0 + lane * r->lane_bytes;
  if (local_ == nullptr || !local_->Local(p, 1)) return 0;
  auto id = static_cast<int32_t>(machine_->init_origins()->Read(r->part, r->site, p, DescribeByte(p), r->lane0,
                                                                r->lane_bytes));
  if (id != 0) *out = id;
  return 0;
}

int32_t Subcore::ReadOrigin(int site, const uint8_t* p, uint8_t state, const uint8_t* lane0, int64_t lane_bytes) {
  InitOrigins& origins = *machine_->init_origins();
  bool computed = state == SCJIT_SHADOW_COMPUTED;
  if (computed) {
    if (int32_t o = origins.At(p); o != 0) return o | SCJIT_ORIGIN_COMPUTED;
  }
  auto id = static_cast<int32_t>(origins.Read(part_->index, site, p, DescribeByte(p), lane0, lane_bytes));
  return id == 0 ? 0 : computed ? id | SCJIT_ORIGIN_COMPUTED : id;
}

std::string Subcore::UnwrittenBytes(const uint8_t* p) {
  uint8_t state = 0;
  machine_->init_states()->Read(p, 1, &state);
  int32_t origin = machine_->init_origins()->At(p);
  if (state == SCJIT_SHADOW_COMPUTED && origin != 0) {
    return Cat("holds a value that ", machine_->DescribeOrigin(origin | SCJIT_ORIGIN_COMPUTED));
  }
  return "holds bytes nothing has written";
}

int32_t Subcore::StoredOrigin(int32_t origin, const uint8_t* addr, int64_t bytes) {
  if (machine_->stopping()) return kStatusCancelled;
  if (machine_->init_origins() == nullptr || origin == 0 || bytes <= 0) return 0;
  const uint8_t* state = addr + ctx.shadow_delta;
  machine_->init_origins()->Set(addr, bytes, origin | SCJIT_ORIGIN_COMPUTED, [&](const uint8_t* p) {
    return (state[p - addr] & SCJIT_SHADOW_INIT_BITS) == SCJIT_SHADOW_COMPUTED;
  });
  return 0;
}

int32_t Subcore::UnwrittenUse(int site, int32_t origin) {
  if (machine_->stopping()) return kStatusCancelled;
  if (!machine_->options().checks.init) return 0;
  const Site& s = layout().sites[static_cast<size_t>(site)];
  return Fail(Finding(DiagId::kRtInit, site, {{"detail", Cat(s.text, " ", machine_->DescribeOrigin(origin))}}));
}

std::string Machine::DescribeOrigin(int32_t origin) const {
  std::optional<InitOrigins::Record> r = init_origins_ != nullptr ? init_origins_->Find(origin) : std::nullopt;
  if (!r) return "(where its unwritten bytes were read is not known)";
  std::vector<const LaunchLayout*> layouts = layout_.Parts();
  const LaunchLayout& l = *layouts[static_cast<size_t>(r->part)];
  std::string at = l.Where(r->site);
  if ((origin & SCJIT_ORIGIN_COMPUTED) != 0) {
    return Cat("was computed from ", r->element, ", read at ", at, ", which nothing had written");
  }
  return Cat("was read from ", r->element, " at ", at, ", which nothing has written");
}

void Machine::CarryInitStates(const scjit_dma& dma, const int32_t* indices, int site, int by) {
  if (init_states_ == nullptr) return;
  init_states_->Carry(dma, indices, [&](const uint8_t* p) {
    Subcore& s = *subcores_[static_cast<size_t>(by)];
    std::string element = s.local_ != nullptr && s.local_->Local(p, 1) ? s.DescribeByte(p)
                                                                        : DescribeShared(reinterpret_cast<uintptr_t>(p));
    return static_cast<int32_t>(init_origins_->Read(s.part_->index, site, p, std::move(element)));
  });
}

int32_t Subcore::CheckAtomicWords(int site, bool write, const uint8_t* addr, int64_t bytes) {
  if (addr < ctx.smem || addr + bytes > ctx.smem + layout().smem_bytes) return 0;
  const uint8_t* state = addr + ctx.shadow_delta;
  for (int64_t k = 0; k < bytes; ++k) {
    if ((state[k] & SCJIT_SHADOW_WATCHED) == 0) continue;
    int64_t word = (addr + k - ctx.smem) / 4 * 4;
    std::optional<AtomicWords::Access> add = atomic_words_->OwnerAccess(word, site, write, clock());
    k = word + 3 - (addr - ctx.smem);  // the next word
    if (!add) continue;
    const Site& s = layout().sites[static_cast<size_t>(site)];
    std::string op = s.text.empty() ? s.op : Cat(s.op, " ", s.text);
    Diagnostic d = Finding(DiagId::kRtRace, site,
                           {{"detail", Cat(op, write ? " writes " : " reads ", DescribeByte(ctx.smem + word),
                                           " while the fetch_and_add of ", layout().Describe(add->site), " on ",
                                           machine_->SubcoreName(add->subcore), " may be adding into it")}});
    d.notes.push_back(kAtomicWordsNote);
    return Fail(std::move(d));
  }
  return 0;
}

std::string Subcore::DescribeByte(const uint8_t* p) const {
  const LaunchLayout& l = layout();
  if (ctx.vmem != nullptr && p >= ctx.vmem && p < ctx.vmem + l.vmem_bytes) {
    return l.DescribeByte(MemorySpace::kVmem, p - ctx.vmem);
  }
  return l.DescribeByte(MemorySpace::kSmem, p - ctx.smem);
}

Diagnostic Subcore::AccessFinding(const AccessProblem& problem, int site) {
  const LaunchLayout& l = layout();
  const Site& s = l.sites[site];
  std::string op = s.text.empty() ? s.op : Cat(s.op, " ", s.text);
  if (problem.kind == AccessProblem::Kind::kTooMany) {  // a capacity: the launch stops, whatever --check says
    Diagnostic d = Finding(DiagId::kRtSync, site,
                           {{"detail", Cat(op, " would be DMA ", LocalAccesses::kMaxInFlight + 1,
                                           " of this subcore in flight (started, not yet waited); scjit follows at "
                                           "most ", LocalAccesses::kMaxInFlight, " per subcore")}});
    d.severity = Severity::kError;
    d.help = "wait for DMAs before starting more (the waits on a semaphore retire its DMAs in start order), or "
             "run with --unchecked, which moves each DMA at its start and follows none";
    return d;
  }
  std::string what = DescribeByte(problem.byte);
  if (problem.kind == AccessProblem::Kind::kUnwritten) {  // an index list's entry: it decides what moves
    return Finding(DiagId::kRtInit, site,
                   {{"detail", Cat("the index list of ", op, " is unwritten: its entry ", what, " ",
                                   UnwrittenBytes(problem.byte))}});
  }
  bool dma_writes = problem.kind == AccessProblem::Kind::kDmaWrites;
  std::string other = problem.dma_site >= 0 ? l.Describe(problem.dma_site) : std::string("a DMA");
  std::string access = problem.write ? " writes " : " reads ";
  Diagnostic d = Finding(DiagId::kRtRace, site,
                         {{"detail", Cat(op, access, what, " while the DMA of ", other, " may still be ",
                                         dma_writes ? "writing" : "reading", " it")}});
  if (problem.dma_site >= 0) {
    const Site& o = l.sites[problem.dma_site];
    d.notes.push_back(Cat("the DMA (", o.op, " ", o.text, ") ", dma_writes ? "writes" : "reads", " ", what,
                          " from its start until a wait on its semaphore retires it; wait before this op"));
  }
  return d;
}

// A failed debug_check stops its subcore under every --check mode: the kernel
// asked for the check (Pallas emits it only with debug checks enabled), and a TPU
// halts on it. The launch then stops like after any error, so subcores waiting
// for this one are cancelled rather than reported as a deadlock.
int32_t Subcore::CheckFailed(int site) {
  Diagnostic d = Finding(DiagId::kRtCheck, site, {{"message", layout().sites[site].text}});
  d.severity = Severity::kError;
  return Fail(std::move(d));
}

int32_t Subcore::BoundsError(int site, int what, int dim, int64_t index, int64_t limit) {
  // Code compiled with bounds checks clamps the index after this call, so a
  // launch without them runs as code compiled without them does.
  if (!machine_->options().checks.bounds) return 0;
  const Site& s = layout().sites[site];
  std::string detail;
  switch (what & 0xFF) {
    case SCJIT_BOUNDS_LANE:
      detail = Cat("index ", index, " in lane ", what >> 8, " is out of bounds for dimension ", dim, " of ", s.text,
                   " (size ", limit, ")");
      break;
    case SCJIT_BOUNDS_ALIGN:
      detail = Cat("a slice bound of ", index, " in dimension ", dim, " of ", s.text, " is not a multiple of ", limit,
                   ": the view packs that dimension in groups of ", limit);
      break;
    case SCJIT_BOUNDS_SLICE_START:
      detail = Cat("a slice starting at ", index, " does not fit dimension ", dim, " of ", s.text,
                   limit > 1    ? Cat(" (valid starts are 0 to ", limit - 1, ")")
                   : limit == 1 ? std::string(" (the only valid start is 0)")
                                : std::string(" (no start fits)"));
      break;
    case SCJIT_BOUNDS_DEVICE: {
      const LaunchLayout& l = layout();
      std::string mesh;
      for (size_t a = 0; a < l.device_axes.size(); ++a) {
        Append(&mesh, a ? ", " : "", l.device_axes[a], " = ", l.device_shape[a]);
      }
      if (dim >= 0 && dim < static_cast<int>(l.device_axes.size())) {
        detail = Cat(s.op, " ", s.text, ": coordinate ", index, " on device axis '", l.device_axes[dim],
                     "' is outside its ", limit, " device", limit == 1 ? "" : "s", " (devices(", mesh, "))");
      } else {
        detail = Cat(s.op, " ", s.text, ": device id ", index, " is outside the ", limit, " device",
                     limit == 1 ? "" : "s", " of the mesh", mesh.empty() ? "" : Cat(" (devices(", mesh, "))"));
      }
      break;
    }
    case SCJIT_BOUNDS_SLICE_SIZE:
      detail = Cat("slice size ", index, " exceeds dimension ", dim, " of ", s.text, " (size ", limit - 1, ")");
      break;
    default:
      detail = Cat("index ", index, " is out of bounds for dimension ", dim, " of ", s.text, " (size ", limit, ")");
      break;
  }
  Diagnostic d = Finding(DiagId::kRtBounds, site, {{"detail", detail}});
  // The text JAX's tests expect of the TPU's bounds checker
  // (xla_sc_assert_level="all-loads-stores"), for code that matches on it.
  if ((what & 0xFF) == SCJIT_BOUNDS_LANE && s.op == "load_gather") {
    d.notes.push_back("on a TPU the bounds checker reports: Trying to perform an indexed vector load from out of "
                      "bounds address.");
  }
  if ((what & 0xFF) == SCJIT_BOUNDS_SLICE_START &&
      (s.op == "load_expanded" || s.op == "store_compressed" || s.op == "addupdate_compressed")) {
    d.notes.push_back(Cat(s.op, " touches the first popcount(mask) elements of its window, and only those must "
                          "lie inside the ref: here they do not"));
  }
  return Fail(std::move(d));
}

// A warning is made once per site and launch: the first in (epoch, subcore)
// order is kept (see Machine::Settle), so the report does not depend on threads.
int32_t Subcore::Warning(int site, int what) {
  if (what != SCJIT_WARN_SORT_SIGN || machine_->Warned(part_->index, site)) return 0;
  for (const auto& [s, d] : warnings_) {
    if (s == site) return 0;
  }
  Diagnostic d = Finding(DiagId::kRtSortSign, site, {{"dtype", layout().sites[site].text}});
  d.severity = Severity::kWarning;
  warnings_.emplace_back(site, Made(std::move(d)));
  return 0;
}

// ------------------------------------------------------------------------------------
// Machine.

Machine::Machine(const LaunchLayout& layout, std::span<const PartCode> parts, const RunOptions& options)
    : layout_(layout), options_(options), rng_(options.seed.value_or(0)) {
  // The init check follows the values the code computes: code compiled
  // without it has nothing to follow.
  for (const LaunchLayout* l : layout.Parts()) options_.checks.init = options_.checks.init && l->init_shadows;
  std::vector<const LaunchLayout*> layouts = layout.Parts();
  devices_ = layout.devices();
  parts_per_device_ = layouts.size();
  for (const LaunchLayout* l : layouts) per_device_ += l->subcores_total();
  owned_devices_ = devices_;
  link_ = options.link;
  if (link_ != nullptr && link_->ranks() <= devices_) {  // (more ranks than chips: Run refuses)
    int64_t r = link_->rank(), ranks = link_->ranks();
    first_device_ = static_cast<int>(r * devices_ / ranks);
    owned_devices_ = static_cast<int>((r + 1) * devices_ / ranks) - first_device_;
    first_subcore_ = first_device_ * per_device_;
  }
  int first = 0;
  for (int d = first_device_; d < first_device_ + owned_devices_; ++d) {
    for (size_t i = 0; i < layouts.size(); ++i) {
      MachinePart part;
      part.layout = layouts[i];
      if (i < parts.size()) {
        part.kernel = parts[i].fn;
        part.program = parts[i].program;
      }
      part.index = static_cast<int>(i);
      part.device = d;
      part.first = first;
      first += part.count();
      parts_.push_back(std::move(part));
    }
  }
}

int Machine::Counterpart(int subcore, int device) const {
  const Subcore& s = *subcores_[static_cast<size_t>(subcore)];
  return first_subcore_ + subcore + (device - s.part_->device) * per_device_;
}

std::optional<BufferAddress> Machine::Locate(const scjit_ref& r, int elem_bytes, int from) const {
  int64_t extent = ExtentBytes(r, elem_bytes);
  if (extent < 0) return std::nullopt;
  auto inside = [&](const uint8_t* b, int64_t bytes) {
    return b != nullptr && r.base >= b && extent <= bytes && r.base - b <= bytes - extent;
  };
  const Subcore& a = *subcores_[static_cast<size_t>(from)];
  const LaunchLayout& l = a.layout();
  using Kind = BufferAddress::Kind;
  const std::pair<Kind, const uint8_t*> arenas[] = {
      {Kind::kVmem, a.ctx.vmem}, {Kind::kSmem, a.ctx.smem}, {Kind::kVmemShared, a.ctx.vmem_shared}};
  const int64_t sizes[] = {l.vmem_bytes, l.smem_bytes, l.vmem_shared_bytes};
  for (size_t k = 0; k < std::size(arenas); ++k) {
    if (inside(arenas[k].second, sizes[k])) return BufferAddress{arenas[k].first, 0, r.base - arenas[k].second};
  }
  for (size_t p = 0; p < layout_.params.size(); ++p) {
    const uint8_t* mine = a.ctx.hbm[p];
    if (inside(mine, layout_.params[p].bytes())) return BufferAddress{Kind::kParam, static_cast<int32_t>(p), r.base - mine};
  }
  return std::nullopt;
}

uint8_t* Machine::Resolve(const BufferAddress& where, int to) const {
  const scjit_ctx& c = subcores_[static_cast<size_t>(to)]->ctx;
  switch (where.kind) {
    case BufferAddress::Kind::kVmem: return c.vmem + where.offset;
    case BufferAddress::Kind::kSmem: return c.smem + where.offset;
    case BufferAddress::Kind::kVmemShared: return c.vmem_shared + where.offset;
    case BufferAddress::Kind::kParam: return c.hbm[where.param] + where.offset;
  }
  return nullptr;
}

bool Machine::PastDeadline() {
  if (options_.time_limit_seconds <= 0 || std::chrono::steady_clock::now() < deadline_) return false;
  return !timed_out_.exchange(true);  // one finding per launch
}

bool Machine::Interrupted() {
  if (options_.interrupt == nullptr || !options_.interrupt->load(std::memory_order_relaxed)) return false;
  interrupted_ = true;
  stopping_ = true;
  return true;
}

bool Machine::Contains(const scjit_ref& r, int elem_bytes, int subcore) const {
  int64_t extent = ExtentBytes(r, elem_bytes);
  if (extent == 0) return true;
  if (extent < 0) return false;
  const uint8_t* lo = r.base;
  auto inside = [&](const uint8_t* base, int64_t bytes) {
    return base != nullptr && lo >= base && extent <= bytes && lo - base <= bytes - extent;
  };
  // The subcore's own memories first: every DMA has a side there (SC rules).
  const Subcore& s = *subcores_[subcore];
  const LaunchLayout& l = s.layout();
  if (inside(s.ctx.vmem, l.vmem_bytes) || inside(s.ctx.smem, l.smem_bytes) ||
      inside(s.ctx.vmem_shared, l.vmem_shared_bytes)) {
    return true;
  }
  size_t n = layout_.params.size();
  for (size_t p = static_cast<size_t>(s.part_->device) * n, end = p + n; p < end; ++p) {
    if (inside(hbm_[p], hbm_bytes_[p])) return true;
  }
  return false;
}

std::string Machine::SubcoreName(int i) const {
  const Subcore& s = *subcores_[i];
  return scjit::SubcoreName(s.layout().mesh, s.core_, s.subcore_, devices_ > 1 ? s.part_->device : -1);
}

void Machine::Stage(std::span<const ParamBuffer> params, bool in) {
  for (const MachinePart& part : parts_) StagePart(part, params, in);
}

void Machine::StagePart(const MachinePart& part, std::span<const ParamBuffer> params, bool in) {
  const LaunchLayout& l = *part.layout;
  int n = part.count();
  for (size_t p = 0; p < l.params.size(); ++p) {
    const ParamLayout& param = l.params[p];
    if (!param.staged()) continue;
    bool copy_in = param.direction != ParamDirection::kOut;
    bool copy_out = param.direction != ParamDirection::kIn;
    if ((in && !copy_in) || (!in && !copy_out)) continue;
    bool shared = param.space == MemorySpace::kVmemShared;
    int copies = shared ? l.cores : n;
    // Copies back go in (part, core, subcore) order, so the last one wins.
    for (int i = 0; i < copies; ++i) {
      uint8_t* arena = shared                              ? part.shared + i * part.shared_stride
                       : param.space == MemorySpace::kSmem ? part.smem + i * part.smem_stride
                                                           : part.vmem + i * part.vmem_stride;
      uint8_t* where = arena + param.offset;
      uint8_t* host = params[p].data + part.device * param.bytes();  // this chip's
      if (in) {
        std::memcpy(where, host, static_cast<size_t>(param.bytes()));
      } else {
        std::memcpy(host, where, static_cast<size_t>(param.bytes()));
      }
    }
  }
}

// Semaphore parameters hold one int32 count per semaphore: every subcore's copy
// starts from it (an `out` one from zero) and the last subcore's ends in it.
void Machine::StageSemaphores(std::span<const ParamBuffer> params, bool in) {
  for (size_t p = 0; p < layout_.params.size(); ++p) {
    if (!layout_.params[p].semaphore) continue;
    if (!in && layout_.params[p].direction == ParamDirection::kIn) continue;
    for (const auto& s : subcores_) {
      const ParamLayout& param = s->layout().params[p];  // its part's semaphore numbering
      auto* counts = reinterpret_cast<int32_t*>(params[p].data) + s->part_->device * param.num_elements();
      for (int64_t k = 0; k < param.num_elements(); ++k) {
        Semaphore& sem = s->sems_[static_cast<size_t>(param.offset + k)];
        if (in) {
          sem.value = param.direction == ParamDirection::kOut ? 0 : std::max<int32_t>(counts[k], 0);
        } else {
          counts[k] = static_cast<int32_t>(std::min<int64_t>(sem.value, INT32_MAX));
        }
      }
    }
  }
}

namespace {

// Sets [0, bytes) of `p` to `outside` between the `ranges` ([lo, hi), which
// may overlap) and, unless `inside` is negative, to `inside` in them; each
// byte once.
void FillAround(uint8_t* p, int64_t bytes, std::vector<std::pair<int64_t, int64_t>> ranges, uint8_t outside,
                int inside) {
  std::sort(ranges.begin(), ranges.end());
  int64_t at = 0;
  for (auto [lo, hi] : ranges) {
    lo = std::max(lo, at);
    if (lo >= hi) continue;
    std::memset(p + at, outside, static_cast<size_t>(lo - at));
    if (inside >= 0) std::memset(p + lo, inside, static_cast<size_t>(hi - lo));
    at = hi;
  }
  std::memset(p + at, outside, static_cast<size_t>(bytes - at));
}

}  // namespace

absl::Status Machine::AllocateArenas() {
  int64_t total = kAlign;
  for (MachinePart& part : parts_) {
    const LaunchLayout& l = *part.layout;
    part.vmem_stride = AlignUp(l.vmem_bytes);
    part.smem_stride = AlignUp(l.smem_bytes);
    part.shared_stride = AlignUp(l.vmem_shared_bytes);
    total += part.bytes();
    part.param_semaphore.assign(static_cast<size_t>(l.semaphores), false);
    for (const ParamLayout& param : l.params) {
      for (int64_t k = 0; param.semaphore && k < param.num_elements(); ++k) {
        part.param_semaphore[static_cast<size_t>(param.offset + k)] = true;
      }
    }
  }
  std::string what = Cat("the arenas of kernel @", layout_.kernel);
  if (absl::Status s = CheckHostMemory(total, what); !s.ok()) return s;
  memory_ = MemoryPool::Acquire(options_.memory, total);
  if (memory_ == nullptr) return HostMemoryError(total, what, "the host is out of memory");
  memory_bytes_ = total;
  bool instrumented = false;
  for (const MachinePart& part : parts_) instrumented = instrumented || part.layout->access_checks;
  if (instrumented || options_.checks.init || options_.checks.race) {
    shadow_ = MemoryPool::Acquire(options_.memory, total);
    if (shadow_ == nullptr) return absl::ResourceExhaustedError(Cat("cannot allocate ", total, " bytes of kernel memory"));
  }
  std::vector<std::pair<int64_t, int64_t>> poisoned;  // [lo, hi) of memory_
  uint8_t* next = memory_.get() + (kAlign - reinterpret_cast<uintptr_t>(memory_.get()) % kAlign) % kAlign;
  for (MachinePart& part : parts_) {
    int n = part.count();
    part.vmem = next;
    part.smem = part.vmem + part.vmem_stride * n;
    part.shared = part.smem + part.smem_stride * n;
    next += part.bytes();
    for (const PoisonRange& r : part.layout->poison) {
      bool shared = r.space == MemorySpace::kVmemShared;
      int copies = shared ? part.layout->cores : n;
      for (int i = 0; i < copies; ++i) {
        uint8_t* arena = shared                          ? part.shared + i * part.shared_stride
                         : r.space == MemorySpace::kSmem ? part.smem + i * part.smem_stride
                                                         : part.vmem + i * part.vmem_stride;
        FillPoison(arena + r.offset, r.count, r.element);
        int64_t lo = arena + r.offset - memory_.get();
        poisoned.emplace_back(lo, lo + r.count * ByteWidth(r.element));
      }
    }
  }
  // Every other byte starts as zero (the pool's memory holds the last launch's
  // bytes); poisoned ones are not written twice.
  FillAround(memory_.get(), total, poisoned, 0, /*inside=*/-1);
  // Poison is what nothing has written (init check); every other byte holds a value.
  if (shadow_ != nullptr) {
    if (!options_.checks.init) poisoned.clear();
    FillAround(shadow_.get(), total, std::move(poisoned), SCJIT_SHADOW_WRITTEN, /*inside=*/0);
  }
  return absl::OkStatus();
}

bool Machine::PoisonInChunks(uint8_t* data, int64_t count, ElementType e) {
  const int64_t chunk = (int64_t{1} << 24) / ByteWidth(e);
  for (int64_t first = 0; first < count; first += chunk) {
    if (PastDeadline()) return false;
    FillPoison(data + first * ByteWidth(e), std::min(chunk, count - first), e);
  }
  return true;
}

bool Machine::Alone(std::span<const ParamBuffer> params, size_t p) {
  for (size_t q = 0; q < params.size(); ++q) {
    bool apart = q == p || params[q].data + params[q].bytes <= params[p].data ||
                 params[p].data + params[p].bytes <= params[q].data;
    if (!apart) return false;
  }
  return true;
}

bool Machine::ReadOnly(const scjit_ref& r, int elem_bytes) const {
  if (read_only_.empty()) return false;
  const uint8_t* p = r.base;
  int64_t bytes = ExtentBytes(r, elem_bytes);
  if (bytes <= 0) return false;
  for (const auto& [lo, hi] : read_only_) {
    if (p >= lo && bytes <= hi - lo && p - lo <= (hi - lo) - bytes) return true;
  }
  return false;
}

int Machine::PoisonOutParams(std::span<const ParamBuffer> params) {
  deferred_poison_ = std::make_unique<DeferredPoison>();
  deferred_params_.clear();
  for (size_t p = 0; p < params.size(); ++p) {
    const ParamLayout& param = layout_.params[p];
    if (param.direction != ParamDirection::kOut || param.staged() || param.semaphore) continue;
    // (A buffer another parameter overlaps can be read through that one.)
    bool alone = Alone(params, p);
    for (const MachinePart& part : parts_) alone = alone && part.layout->params[p].write_only;
    int64_t count = param.num_elements() * owned_devices_;  // every chip's of this process
    uint8_t* data = params[p].data + first_device_ * param.bytes();
    if (alone && deferred_poison_->Add(data, count, param.dtype)) {
      deferred_params_.push_back(p);
      continue;
    }
    if (!PoisonInChunks(data, count, param.dtype)) return static_cast<int>(p);
  }
  if (deferred_poison_->empty()) deferred_poison_ = nullptr;
  return -1;
}

void Machine::FinishDeferredPoison() {
  if (deferred_poison_ == nullptr) return;
  auto in_time = [this] {
    return options_.time_limit_seconds <= 0 || std::chrono::steady_clock::now() < deadline_;
  };
  int late = deferred_poison_->Fill(in_time);
  if (late >= 0 && !timed_out_.exchange(true)) {
    Diagnostic d = layout_.SiteDiagnostic(DiagId::kRtTimeout, -1,
                                          {{"what", Cat("kernel @", layout_.kernel)},
                                           {"seconds", absl::StrFormat("%g", options_.time_limit_seconds)}});
    d.notes.push_back(Cat("the time ran out while filling the bytes of %", layout_.params[deferred_params_[late]].name,
                          " the kernel did not write with the poison pattern"));
    d.help = "raise the limit with --time-limit, or give the kernel smaller buffers";
    findings_.push_back(SubcoreFinding{std::move(d), 0, 0, /*name_subcore=*/false});
  }
  deferred_poison_ = nullptr;
}

LaunchResult Machine::TimedOut(std::string_view during, std::chrono::steady_clock::time_point start) {
  Diagnostic d = layout_.SiteDiagnostic(DiagId::kRtTimeout, -1,
                                        {{"what", Cat("kernel @", layout_.kernel)},
                                         {"seconds", absl::StrFormat("%g", options_.time_limit_seconds)}});
  d.notes.push_back(Cat("the time ran out while ", during, ", before any subcore ran"));
  d.help = "raise the limit with --time-limit, or give the kernel smaller buffers";
  LaunchResult result;
  result.findings.push_back(std::move(d));
  result.stats.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

absl::Status Machine::CheckStacks() const {
  int64_t n = 0;
  for (const MachinePart& part : parts_) n += part.count();
  auto bytes = static_cast<int64_t>(StackBytesFor(layout_));
  return CheckHostMemory(bytes * n, Cat("the stacks of ", n, " subcores (", bytes, " bytes each)"));
}

void Machine::AddSubcores(const MachinePart& part) {
  const LaunchLayout& l = *part.layout;
  for (int k = 0; k < part.count(); ++k) {
    int core = k / l.subcores, subcore = k % l.subcores;
    auto s = std::make_unique<Subcore>(this, &part, part.first + k, core, subcore);
    auto index = static_cast<size_t>(part.first + k);
    while (record_pools_.size() <= index) record_pools_.push_back(std::make_unique<RecordPool>());
    s->records_ = record_pools_[index].get();
    scjit_ctx& c = s->ctx;
    c.vmem = part.vmem + k * part.vmem_stride;
    c.smem = part.smem + k * part.smem_stride;
    c.vmem_shared = part.shared + core * part.shared_stride;
    c.hbm = hbm_.data() + static_cast<size_t>(part.device) * layout_.params.size();
    c.core = core;
    c.subcore = subcore;
    c.num_cores = l.cores;
    c.num_subcores = l.subcores;
    c.device = part.device;
    c.num_devices = devices_;
    c.tick = SCJIT_TICK_PERIOD;
    c.checks = (options_.checks.bounds ? SCJIT_CHECK_BOUNDS : 0) | (options_.checks.any() ? SCJIT_CHECK_SORT_SIGN : 0);
    c.runtime = s.get();
    c.program = part.program;
    if (shadow_ != nullptr) {
      c.shadow_delta = shadow_.get() - memory_.get();
      if (options_.checks.init || options_.checks.race) {
        s->local_ = std::make_unique<LocalAccesses>(
            std::vector<std::pair<uint8_t*, uint8_t*>>{{c.vmem, c.vmem + l.vmem_bytes}, {c.smem, c.smem + l.smem_bytes}},
            c.shadow_delta, l.semaphores, options_.checks.init, options_.checks.race);
      }
      // The SMEM words fetch_and_add targets: their accesses come to the runtime.
      for (const ArenaBuffer& b : l.buffers) {
        if (!b.fetch_and_add || b.space != MemorySpace::kSmem || !options_.checks.race) continue;
        if (s->atomic_words_ == nullptr) s->atomic_words_ = std::make_unique<AtomicWords>(part.first + k);
        int64_t n = b.copies * ByteWidth(b.element);
        for (int64_t d : b.shape) n *= d;
        uint8_t* state = c.smem + b.offset + c.shadow_delta;
        for (int64_t j = 0; j < n; ++j) state[j] |= SCJIT_SHADOW_WATCHED;
      }
    }
    subcores_.push_back(std::move(s));
  }
}

absl::StatusOr<std::optional<LaunchResult>> Machine::Prepare(std::span<const ParamBuffer> params,
                                                             std::chrono::steady_clock::time_point start) {
  deadline_ = DeadlineAfter(options_.time_limit_start.value_or(start), options_.time_limit_seconds);
  auto param_error = [](std::string detail) {
    return DiagnosticStatus(MakeDiagnostic(DiagId::kIoParam, nullptr, Location{}, {{"detail", std::move(detail)}}));
  };
  if (params.size() != layout_.params.size()) {
    return param_error(Cat("kernel @", layout_.kernel, " takes ", layout_.params.size(), " parameters, got ",
                           params.size()));
  }
  for (size_t p = 0; p < params.size(); ++p) {
    int64_t per_device = layout_.params[p].bytes();
    if (params[p].bytes != per_device * devices_) {
      return param_error(Cat("parameter %", layout_.params[p].name, " needs ", per_device * devices_, " bytes",
                             devices_ > 1 ? Cat(" (", per_device, " on each of ", devices_, " devices)") : "", ", got ",
                             params[p].bytes));
    }
  }
  if (link_ != nullptr) {
    if (link_->ranks() > devices_) {
      return DiagnosticStatus(MakeDiagnostic(
          DiagId::kIoUsage, nullptr, Location{},
          {{"detail", Cat("kernel @", layout_.kernel, " runs on ", devices_, " device", devices_ == 1 ? "" : "s",
                          ", fewer than the ", link_->ranks(),
                          " processes it was launched on (each runs one or more whole chips; give --devices)")}}));
    }
    if (options_.checks.race) {
      return DiagnosticStatus(MakeDiagnostic(
          DiagId::kIoUsage, nullptr, Location{},
          {{"detail", "the race check runs only when one process holds every chip (--check without race, or no mpirun)"}}));
    }
  }
  if (absl::Status s = CheckStacks(); !s.ok()) return s;
  if (absl::Status s = AllocateArenas(); !s.ok()) return s;
  size_t n_params = layout_.params.size();
  hbm_.assign(n_params * static_cast<size_t>(devices_), nullptr);
  hbm_bytes_.assign(hbm_.size(), 0);
  for (int d = first_device_; d < first_device_ + owned_devices_; ++d) {
    for (size_t p = 0; p < n_params; ++p) {
      const ParamLayout& param = layout_.params[p];
      if (param.staged() || param.semaphore) continue;
      hbm_[static_cast<size_t>(d) * n_params + p] = params[p].data + d * param.bytes();
      hbm_bytes_[static_cast<size_t>(d) * n_params + p] = param.bytes();
    }
  }
  read_only_.clear();
  for (size_t p = 0; p < params.size(); ++p) {
    bool read_only = !layout_.params[p].staged() && !layout_.params[p].semaphore;
    for (const MachinePart& part : parts_) read_only = read_only && part.layout->params[p].read_only;
    if (read_only && Alone(params, p)) read_only_.emplace_back(params[p].data, params[p].data + params[p].bytes);
  }
  if (int late = PoisonOutParams(params); late >= 0) {
    return std::optional<LaunchResult>(TimedOut(Cat("filling %", layout_.params[late].name, " with the poison pattern"), start));
  }
  Stage(params, /*in=*/true);
  if (PastDeadline()) return std::optional<LaunchResult>(TimedOut("allocating the arenas and staging the parameters", start));
  if (options_.threads > 1) {
    shared_writes_ = std::make_unique<SharedWrites>();
    for (const SharedBuffer& b : SharedBuffers()) shared_writes_->AddRegion(b.base, b.bytes);
  }
  subcores_.clear();
  for (const MachinePart& part : parts_) AddSubcores(part);
  auto n = static_cast<int>(subcores_.size());
  if (options_.checks.race) {
    races_ = std::make_unique<SharedAccesses>();
    for (const SharedBuffer& b : SharedBuffers()) {
      auto lo = reinterpret_cast<uintptr_t>(b.base);
      races_->AddRegion(lo, lo + static_cast<uintptr_t>(b.bytes), b.first, b.count);
    }
    clocks_.assign(static_cast<size_t>(n), Clock(static_cast<size_t>(n), 0));
    sem_clocks_.resize(static_cast<size_t>(n));
    for (int i = 0; i < n; ++i) {
      clocks_[static_cast<size_t>(i)][static_cast<size_t>(i)] = 1;
      sem_clocks_[static_cast<size_t>(i)].resize(static_cast<size_t>(subcores_[static_cast<size_t>(i)]->layout().semaphores));
    }
  }
  if (absl::Status s = TrackSharedInit(); !s.ok()) return s;
  StageSemaphores(params, /*in=*/true);
  return std::nullopt;
}

absl::StatusOr<LaunchResult> Machine::Run(std::span<const ParamBuffer> params) {
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<std::optional<LaunchResult>> early = Prepare(params, start);
  if (link_ != nullptr) {
    // Every process starts the kernel, or none: a process that returned here
    // would leave the others waiting for it between epochs. Each learns why
    // the first that could not start did not.
    std::string mine = early.ok() ? (early->has_value() ? "its time ran out" : "") : std::string(early.status().message());
    absl::StatusOr<ChipLink::Messages> all = link_->AllGather(mine);
    if (!all.ok()) return all.status();
    for (int r = 0; r < link_->ranks() && mine.empty(); ++r) {
      if (all->from(r).empty()) continue;
      return DiagnosticStatus(MakeDiagnostic(
          DiagId::kIoParam, nullptr, Location{},
          {{"detail", Cat("the process of rank ", r, " could not start kernel @", layout_.kernel, ": ", all->from(r))}}));
    }
  }
  if (!early.ok()) return early.status();
  if (early->has_value()) return **std::move(early);
  auto n = static_cast<int>(subcores_.size());
  // Stacks hold the kernel's frame (large values live there) and the runtime
  // calls it makes; a shared pool whose stacks are too small is not used.
  size_t stack_bytes = StackBytesFor(layout_);  // every part's
  bool use_pool = options_.stacks != nullptr && options_.stacks->stack_bytes() >= stack_bytes;
  StackPool own_stacks(stack_bytes);
  WorkerPool own_workers;
  scheduler_ = std::make_unique<SubcoreScheduler>(n, options_.threads, use_pool ? *options_.stacks : own_stacks,
                                                  options_.workers != nullptr ? *options_.workers : own_workers);
  absl::Status status = scheduler_->Run(
      [this](int i) {
        Subcore& s = *subcores_[i];
        s.exit_status_ = s.part_->kernel(&s.ctx);
        s.finished_ = true;
      },
      [this] { return Settle(); }, [this] { return others_running_; });
  int threads = scheduler_->threads();
  int64_t epochs = scheduler_->epochs();
  scheduler_ = nullptr;  // fibers go back to the pool before `own_stacks` ends, threads before `own_workers`
  if (status.ok()) WarnComputedOutputs();
  FinishDeferredPoison();
  if (!status.ok()) return status;
  if (interrupted_) return absl::CancelledError(Cat("kernel @", layout_.kernel, " was interrupted"));
  Stage(params, /*in=*/false);
  StageSemaphores(params, /*in=*/false);

  std::vector<SubcoreStats> per_subcore;
  std::vector<std::vector<int64_t>> per_subcore_ops;
  for (const auto& s : subcores_) {
    per_subcore.push_back(SubcoreStats{s->core_, s->subcore_, s->dma_bytes_, 0, s->layout().mesh, s->part_->device});
    per_subcore_ops.push_back(s->ops_);
  }
  if (link_ != nullptr) {
    if (absl::Status s = GatherResults(params, &per_subcore, &per_subcore_ops); !s.ok()) return s;
  }
  LaunchResult result;
  result.findings = MergeFindings(std::move(findings_), layout_.kernel, layout_.mesh);
  LaunchStats& stats = result.stats;
  stats.subcores = static_cast<int>(per_subcore.size());
  stats.threads = threads;
  stats.epochs = epochs;
  std::vector<int64_t> ops(std::size(kRuntimeOps), 0);
  for (size_t i = 0; i < per_subcore.size(); ++i) {
    SubcoreStats& per = per_subcore[i];
    for (size_t k = 0; k < ops.size() && k < per_subcore_ops[i].size(); ++k) {
      ops[k] += per_subcore_ops[i][k];
      per.ops += per_subcore_ops[i][k];
    }
    stats.dma_bytes += per.dma_bytes;
    stats.per_subcore.push_back(per);
  }
  for (size_t k = 0; k < ops.size(); ++k) {
    if (ops[k] == 0) continue;
    stats.ops[std::string(kRuntimeOps[k].name)] = ops[k];
    stats.ops_by_class[std::string(kRuntimeOps[k].group)] += ops[k];
  }
  stats.wall_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  return result;
}

absl::Status Machine::GatherResults(std::span<const ParamBuffer> params, std::vector<SubcoreStats>* stats,
                                    std::vector<std::vector<int64_t>>* ops) {
  // Each parameter the kernel may write: every rank's rows, in place (rank r's
  // chips' rows are one block of the buffer).
  for (size_t p = 0; p < params.size(); ++p) {
    if (layout_.params[p].direction == ParamDirection::kIn) continue;
    int64_t row = params[p].bytes / devices_;
    std::vector<int64_t> at;
    for (int64_t r = 0; r <= link_->ranks(); ++r) at.push_back(r * devices_ / link_->ranks() * row);
    if (absl::Status s = link_->AllGatherBlocks({params[p].data, static_cast<size_t>(params[p].bytes)}, at); !s.ok()) {
      return s;
    }
  }
  // Findings and statistics, in rank (so subcore) order.
  absl::StatusOr<ChipLink::Messages> all = link_->AllGather(JoinSections({EncodeFindings(findings_), EncodeStats(*stats, *ops)}));
  if (!all.ok()) return all.status();
  findings_.clear();
  stats->clear();
  ops->clear();
  for (int r = 0; r < link_->ranks(); ++r) {
    absl::StatusOr<std::vector<std::string_view>> sections = SplitSections(all->from(r), 2);
    if (!sections.ok()) return sections.status();
    if (absl::Status s = DecodeFindings((*sections)[0], &findings_); !s.ok()) return s;
    if (absl::Status s = DecodeStats((*sections)[1], stats, ops); !s.ok()) return s;
  }
  return absl::OkStatus();
}

void Machine::FinishSubcore(Subcore& s, int32_t status) {
  if (status != 0) return;
  // A parameter's semaphore outlives the launch: DMAs still in flight on it
  // land now, crediting it for whoever waits later (a next launch).
  const std::vector<bool>& param_semaphore = s.part_->param_semaphore;
  for (size_t k = 0; k < s.sems_.size(); ++k) {
    if (param_semaphore[k]) s.Complete(static_cast<int>(k), INT64_MAX, /*settling=*/true);
  }
  if (!options_.checks.sync) return;
  // RT-SYNC: every DMA waited, every semaphore of the kernel's own back to zero.
  for (size_t k = 0; k < s.sems_.size(); ++k) {
    if (param_semaphore[k]) continue;
    const Semaphore& sem = s.sems_[k];
    const std::vector<std::string>& names = s.layout().semaphore_names;
    std::string name = k < names.size() ? names[k] : Cat("semaphore ", k);
    if (!sem.pending.empty() || sem.deferred > 0) {
      s.Fail(s.Finding(DiagId::kRtSync, sem.pending.empty() ? sem.last_site : sem.pending.front().site,
                       {{"detail", Cat("this DMA on ", name, " was started but never waited")}}));
    } else if (sem.value != 0) {
      s.Fail(s.Finding(DiagId::kRtSync, sem.last_site,
                       {{"detail", Cat(name, " still holds ", sem.value, " at the end of the kernel; this op credited it last")}}));
    }
  }
}

absl::Status Machine::Settle() {
  if (races_ != nullptr) CheckSharedAccesses();
  RemoteInbox inbox;
  if (link_ != nullptr) {
    if (absl::Status s = TradeEffects(&inbox); !s.ok()) return s;
  }
  // Effects between subcores, in subcore order (or a seeded permutation, the
  // same in every process), before the end checks: a signal of this epoch to a
  // subcore that finished in it counts in RT-SYNC's check.
  std::vector<int> order(static_cast<size_t>(devices_) * static_cast<size_t>(per_device_));
  std::iota(order.begin(), order.end(), 0);
  if (options_.seed) std::shuffle(order.begin(), order.end(), rng_);
  for (int g : order) {
    int i = Local(g);
    if (i < 0) {
      if (auto from = inbox.by_source.find(g); from != inbox.by_source.end()) {
        for (const RemoteEffect& e : from->second) ApplyFromAfar(e);
      }
      continue;
    }
    for (const Effect& e : subcores_[i]->outbox_) {
      if (e.target < 0) continue;  // another process's (TradeEffects)
      Subcore& t = *subcores_[e.target];
      if (e.kind == Effect::Kind::kSignal) {
        t.sems_[e.sem].value += e.amount;
        t.sems_[e.sem].last_site = e.site;
        if (e.clock != nullptr) Join(sem_clock(e.target, e.sem), *e.clock);
      } else if (e.kind == Effect::Kind::kRemoteDma) {
        LandRemoteDma(t, e.dma->dma, e.dma->shared, e.sem, e.amount, e.site, e.clock.get());
        Semaphore& sent = subcores_[i]->sems_[static_cast<size_t>(e.send_sem)];
        sent.value += e.amount;
        sent.last_site = e.site;
      } else if (e.kind == Effect::Kind::kSharedAdd) {
        Transfer(e.dma->dma, e.dma->indices.data());
        for (int sem : {e.sem, e.send_sem}) {
          if (sem < 0) continue;
          t.sems_[sem].value += e.amount;
          t.sems_[sem].deferred -= e.amount;
        }
      } else {
        ApplyFetchAndAdd(i, e);
      }
    }
    subcores_[i]->outbox_.clear();
  }

  // Output and findings of the epoch, in subcore order.
  std::string prints;
  for (auto& s : subcores_) {
    if (s->finished_ && !s->end_checked_) {
      FinishSubcore(*s, s->exit_status_);
      s->end_checked_ = true;
    }
    prints += s->prints_;
    s->prints_.clear();
    for (SubcoreFinding& f : s->findings_) {
      if (f.diagnostic.severity == Severity::kError) stopping_ = true;
      findings_.push_back(std::move(f));
    }
    s->findings_.clear();
    for (auto& [site, f] : s->warnings_) {
      if (warned_sites_.insert({s->part_->index, site}).second) findings_.push_back(std::move(f));
    }
    s->warnings_.clear();
  }

  auto wake = [this](Subcore& s, bool cancel) {
    s.cancelled_ = s.cancelled_ || cancel;
    scheduler_->MakeRunnable(s.index_);
  };
  bool progress = !stopping() && WakeReady();
  bool unfinished = false;
  for (auto& s : subcores_) unfinished = unfinished || !s->finished_;
  if (link_ != nullptr) {
    if (absl::Status s = AgreeOnEpoch(&prints, &progress, &unfinished); !s.ok()) return s;
    others_running_ = unfinished;
  }
  if (!prints.empty() && options_.log) options_.log(prints);
  if (!stopping() && !progress && unfinished) {
    if (absl::Status s = ReportDeadlock(); !s.ok()) return s;
    stopping_ = true;
  }
  if (stopping()) {
    for (auto& s : subcores_) {
      if (!s->finished_) wake(*s, true);
    }
  }
  return absl::OkStatus();
}

bool Machine::WakeReady() {
  bool progress = false;
  for (auto& sp : subcores_) {
    Subcore& s = *sp;
    if (s.finished_) continue;
    switch (s.wait_) {
      case Subcore::Wait::kNone:
      case Subcore::Wait::kTick:
      case Subcore::Wait::kSemRead:
      case Subcore::Wait::kFetchAndAdd:
      case Subcore::Wait::kSharedAdd:
        scheduler_->MakeRunnable(s.index_);
        progress = true;
        break;
      case Subcore::Wait::kSemWait:
      case Subcore::Wait::kDmaWait: {
        s.Complete(s.wait_sem_, s.wait_amount_, /*settling=*/true);
        Semaphore& sem = s.sems_[s.wait_sem_];
        if (sem.value >= s.wait_amount_) {
          sem.value -= s.wait_amount_;
          s.Consumed(s.wait_sem_, s.wait_amount_, s.wait_site_);
          scheduler_->MakeRunnable(s.index_);
          progress = true;
        }
        break;
      }
      case Subcore::Wait::kBarrier:
        break;
    }
  }
  return OpenBarriers() || progress;
}

void Machine::ApplyFetchAndAdd(int i, const Effect& e) {
  Subcore& t = *subcores_[static_cast<size_t>(e.target)];
  uint8_t* word = smem_of(e.target) + e.offset;
  int32_t old;
  std::memcpy(&old, word, 4);
  int32_t sum = static_cast<int32_t>(static_cast<uint32_t>(old) + static_cast<uint32_t>(e.amount));
  std::memcpy(word, &sum, 4);
  *e.result = old;
  if (t.local_ != nullptr) t.local_->MarkWritten(word, 4);
  if (t.atomic_words_ != nullptr) {
    if (std::optional<AtomicWords::Access> own = t.atomic_words_->FetchAndAdd(e.offset, e.site, i, clocks_[static_cast<size_t>(i)])) {
      Subcore& s = *subcores_[static_cast<size_t>(i)];
      s.findings_.push_back(s.Made(FetchAndAddRace(s, e, *own)));
    }
  }
  if (races_ != nullptr) {  // an atomic: ordered with every other on the word
    Clock& w = word_clocks_[{e.target, e.offset}];
    Join(w, clocks_[static_cast<size_t>(i)]);
    Join(clocks_[static_cast<size_t>(i)], w);
    ++clocks_[static_cast<size_t>(i)][static_cast<size_t>(i)];
  }
}

void Machine::LandRemoteDma(Subcore& to, const scjit_dma& d, const std::shared_ptr<SharedDma>& shared, int sem,
                            int64_t amount, int site, const Clock* clock) {
  auto space = static_cast<MemorySpace>(d.dst.space);
  if (OffCore(space) || space == MemorySpace::kVmemShared) {
    // The init check learns the bytes hold values; deferred poison, that they
    // are written.
    MoveShared(d, {}, shared.get(), shared_init_.get(), OffCore(space) ? deferred_poison_.get() : nullptr);
    if (shared != nullptr) shared->moved_at = NextSharedMove();
  } else {
    Transfer(d);
  }
  CarryInitStates(d, nullptr, site, to.index_);
  // The receiver's side: the bytes are written (in its own memories, being
  // written until it waits on %recv, with the race check), and its wait
  // retires the copy's record.
  if (to.local_ != nullptr) to.local_->Land(d, sem, amount, shared);
  Semaphore& recv = to.sems_[static_cast<size_t>(sem)];
  recv.value += amount;
  recv.last_site = site;
  if (clock != nullptr) Join(sem_clock(to.index_, sem), *clock);
}

absl::Status Machine::TradeEffects(RemoteInbox* inbox) {
  std::vector<std::string> out(static_cast<size_t>(link_->ranks()));
  auto rank_of = [&](int global) {
    int64_t device = global / per_device_;
    // The first rank whose chips reach past `device`.
    int lo = 0, hi = link_->ranks() - 1;
    while (lo < hi) {
      int mid = (lo + hi) / 2;
      if ((static_cast<int64_t>(mid) + 1) * devices_ / link_->ranks() > device) {
        hi = mid;
      } else {
        lo = mid + 1;
      }
    }
    return static_cast<size_t>(lo);
  };
  // (Each message's size first: a copy's bytes are large.)
  std::vector<size_t> sizes(out.size(), 0);
  for (auto& s : subcores_) {
    for (const Effect& e : s->outbox_) {
      if (e.target >= 0) continue;
      sizes[rank_of(e.remote)] += e.kind == Effect::Kind::kSignal ? EncodedSignalBytes() : EncodedCopyBytes(e.dma->dma);
    }
  }
  for (size_t r = 0; r < out.size(); ++r) out[r].reserve(sizes[r]);
  for (auto& s : subcores_) {
    int source = first_subcore_ + s->index_;
    for (const Effect& e : s->outbox_) {
      if (e.target >= 0) continue;
      std::string* to = &out[rank_of(e.remote)];
      if (e.kind == Effect::Kind::kSignal) {
        EncodeSignal(source, e.remote, e.sem, e.amount, e.site, to);
        continue;
      }
      // A copy's bytes leave now, and its sender learns they did.
      EncodeCopy(source, e.remote, e.amount, e.site, e.dma->dma, e.where, to);
      Semaphore& sent = s->sems_[static_cast<size_t>(e.send_sem)];
      sent.value += e.amount;
      sent.last_site = e.site;
    }
  }
  absl::StatusOr<ChipLink::Messages> in = link_->Exchange(std::move(out));
  if (!in.ok()) return in.status();
  inbox->received = *std::move(in);
  for (int r = 0; r < link_->ranks(); ++r) {
    if (absl::Status s = DecodeEffects(inbox->received.from(r), inbox); !s.ok()) return s;
  }
  return absl::OkStatus();
}

void Machine::ApplyFromAfar(const RemoteEffect& e) {
  int i = Local(e.target);
  if (i < 0) return;  // (never: the sender chose this process for it)
  Subcore& t = *subcores_[static_cast<size_t>(i)];
  if (e.sem < 0 || e.sem >= static_cast<int>(t.sems_.size())) return;
  if (e.kind == RemoteEffect::Kind::kSignal) {
    t.sems_[static_cast<size_t>(e.sem)].value += e.amount;
    t.sems_[static_cast<size_t>(e.sem)].last_site = e.site;
    return;
  }
  LandRemoteDma(t, ArrivedCopy(e, Resolve(e.where, i)), nullptr, e.sem, e.amount, e.site, nullptr);
}

absl::Status Machine::AgreeOnEpoch(std::string* prints, bool* progress, bool* unfinished) {
  std::string mine;
  mine.push_back(stopping() ? 's' : '-');
  mine.push_back(*progress ? 'p' : '-');
  mine.push_back(*unfinished ? 'u' : '-');
  mine += *prints;
  absl::StatusOr<ChipLink::Messages> all = link_->AllGather(mine);
  if (!all.ok()) return all.status();
  prints->clear();
  *progress = *unfinished = false;
  for (int r = 0; r < link_->ranks(); ++r) {
    std::string_view verdict = all->from(r);
    if (verdict.size() < 3) return absl::DataLossError("a process's verdict on an epoch is cut short");
    if (verdict[0] == 's') stopping_ = true;
    *progress = *progress || verdict[1] == 'p';
    *unfinished = *unfinished || verdict[2] == 'u';
    prints->append(verdict.substr(3));
  }
  if (link_->rank() != 0) prints->clear();  // rank 0 prints every chip's
  return absl::OkStatus();
}

std::vector<Machine::SharedBuffer> Machine::SharedBuffers() const {
  std::vector<SharedBuffer> out;
  auto all = static_cast<int>(subcores_.size());
  for (size_t p = 0; p < hbm_.size(); ++p) {
    if (hbm_[p] != nullptr) out.push_back(SharedBuffer{hbm_[p], hbm_bytes_[p], 0, all});
  }
  for (const MachinePart& part : parts_) {
    const LaunchLayout& l = *part.layout;
    for (int c = 0; c < l.cores; ++c) {
      // A core's subcores reach it; with several chips, remote copies from anywhere.
      bool anyone = devices_ > 1;
      out.push_back(SharedBuffer{part.shared + c * part.shared_stride, l.vmem_shared_bytes,
                                 anyone ? 0 : part.first + c * l.subcores, anyone ? all : l.subcores});
    }
  }
  return out;
}

absl::Status Machine::TrackSharedInit() {
  if (!options_.checks.init || shadow_ == nullptr) return absl::OkStatus();
  shared_init_ = std::make_unique<SharedInit>();
  // VMEM_SHARED scratch: its poison is already unwritten in the shadow.
  for (const MachinePart& part : parts_) {
    for (int c = 0; c < part.layout->cores; ++c) {
      uint8_t* arena = part.shared + c * part.shared_stride;
      if (!shared_init_->AddRegion(arena, part.layout->vmem_shared_bytes, false,
                                   shadow_.get() + (arena - memory_.get()))) {
        return HostMemoryError(part.layout->vmem_shared_bytes / 8, "the init check's state of VMEM_SHARED",
                               "the host is out of memory");
      }
    }
  }
  // The HBM parameters the kernel may write. An `out` one holds nothing
  // written, unless the caller passed the same array as another parameter
  // (then it holds that one's values) or its poison is deferred (no DMA reads
  // it); `inout` ones hold values. (Those that start written take bits only
  // once something unwritten lands in them.)
  size_t n = layout_.params.size();
  for (size_t p = 0; p < hbm_.size(); ++p) {
    const ParamLayout& param = layout_.params[p % n];
    if (hbm_[p] == nullptr || param.direction == ParamDirection::kIn) continue;
    bool written = param.direction != ParamDirection::kOut ||
                   std::find(deferred_params_.begin(), deferred_params_.end(), p % n) != deferred_params_.end();
    for (size_t q = 0; q < hbm_.size() && !written; ++q) {
      written = q != p && hbm_[q] != nullptr && hbm_[q] < hbm_[p] + hbm_bytes_[p] && hbm_[p] < hbm_[q] + hbm_bytes_[q];
    }
    std::string what = Cat("the init check's state of %", param.name);
    if (!written) {
      if (absl::Status s = CheckHostMemory(hbm_bytes_[p] / 8, what); !s.ok()) return s;
    }
    if (!shared_init_->AddRegion(hbm_[p], hbm_bytes_[p], written)) {
      return HostMemoryError(hbm_bytes_[p] / 8, what, "the host is out of memory");
    }
  }
  init_origins_ = std::make_unique<InitOrigins>();
  init_states_ = std::make_unique<InitStates>(memory_.get(), memory_bytes_, shadow_.get() - memory_.get(),
                                              shared_init_.get(), init_origins_.get());
  return absl::OkStatus();
}

void Machine::WarnComputedOutputs() {
  if (init_states_ == nullptr) return;
  size_t n = layout_.params.size();
  for (size_t p = 0; p < n; ++p) {
    const ParamLayout& param = layout_.params[p];
    if (param.direction == ParamDirection::kIn || param.semaphore) continue;
    int64_t w = std::max(1, ByteWidth(param.dtype));
    int64_t count = 0;
    std::string first;
    int32_t origin = 0;
    // Each byte of a copy: its state (count the elements with a computed byte).
    auto look = [&](const uint8_t* data, const std::function<std::string(int64_t)>& describe) {
      std::vector<uint8_t> states(static_cast<size_t>(param.bytes()));
      init_states_->Read(data, param.bytes(), states.data());
      for (int64_t e = 0; e < param.num_elements(); ++e) {
        for (int64_t k = 0; k < w; ++k) {
          if (states[static_cast<size_t>(e * w + k)] != SCJIT_SHADOW_COMPUTED) continue;
          if (count++ == 0) {
            first = describe(e);
            origin = init_origins_->At(data + e * w + k) | SCJIT_ORIGIN_COMPUTED;
          }
          break;
        }
      }
    };
    if (param.staged()) {
      // What each subcore leaves in its copy (the last one's goes out).
      for (const auto& s : subcores_) {
        const LaunchLayout& l = s->layout();
        const ParamLayout& mine = l.params[p];
        if (!mine.staged() || mine.space == MemorySpace::kVmemShared) continue;
        uint8_t* arena = mine.space == MemorySpace::kSmem ? s->ctx.smem : s->ctx.vmem;
        look(arena + mine.offset, [&](int64_t e) { return s->DescribeByte(arena + mine.offset + e * w); });
        if (count > 0) break;
      }
    } else {
      // Every chip's, from its bits (an output may be large; most have none).
      for (int d = first_device_; d < first_device_ + owned_devices_; ++d) {
        const uint8_t* data = hbm_[static_cast<size_t>(d) * n + p];
        const uint8_t* byte = nullptr;
        if (data == nullptr) continue;
        int64_t here = shared_init_->Computed(data, param.bytes(), w, &byte);
        if (here > 0 && count == 0) {
          first = DescribeShared(reinterpret_cast<uintptr_t>(byte));
          origin = init_origins_->At(byte) | SCJIT_ORIGIN_COMPUTED;
        }
        count += here;
      }
    }
    if (count > 0) ComputedOutput(p, count, first, origin);
  }
}

void Machine::ComputedOutput(size_t p, int64_t count, const std::string& first, int32_t origin) {
  std::optional<InitOrigins::Record> r = init_origins_->Find(origin);
  std::vector<const LaunchLayout*> layouts = layout_.Parts();
  int part = r ? r->part : 0;
  int site = r ? r->site : -1;
  const LaunchLayout& l = *layouts[static_cast<size_t>(part)];
  std::string from = r ? Cat(r->element, ", read here, which nothing had written") : "bytes nothing had written";
  Diagnostic d = l.SiteDiagnostic(
      DiagId::kRtInit, site,
      {{"detail", Cat("%", layout_.params[p].name, " holds ", count, count == 1 ? " element" : " elements",
                      " computed from ", from, " (the first is ", first, ")")}});
  d.help = "write what the kernel computes with before it computes (an accumulator starts at zero), or "
           "compute only with the lanes that hold values";
  d.severity = options_.checks.strict && !options_.checks.warn ? Severity::kError : Severity::kWarning;
  findings_.push_back(SubcoreFinding{std::move(d), 0, 0, /*name_subcore=*/false});
}

void Machine::CheckSharedAccesses() {
  // First forget what nobody can race with any more, after a barrier opened
  // (which orders much) or now and then. What this epoch's DMAs started with
  // bounds it too: they are checked next.
  if (barrier_opened_ || ++settles_ % 16 == 0) {
    barrier_opened_ = false;
    forget_bounds_.assign(subcores_.size(), {});
    for (auto& s : subcores_) {
      auto i = static_cast<size_t>(s->index_);
      if (!s->shared_started_.empty()) {  // the first started has the least clock
        forget_bounds_[i] = s->shared_started_.front()->start;
      } else if (!s->finished_) {
        forget_bounds_[i] = clocks_[i];
      }
    }
    races_->Forget(forget_bounds_);
  }
  std::vector<SharedRace> races;
  for (auto& s : subcores_) {
    for (const std::shared_ptr<SharedDma>& dma : s->shared_started_) races_->Add(dma, &races);
    s->shared_started_.clear();
  }
  races_->Resolve(&races);
  for (const SharedRace& race : races) {
    Subcore& s = *subcores_[static_cast<size_t>(race.later->subcore)];
    s.findings_.push_back(s.Made(RaceFinding(race)));
  }
}

Diagnostic Machine::FetchAndAddRace(const Subcore& s, const Effect& add, const AtomicWords::Access& own) const {
  const Subcore& owner = *subcores_[static_cast<size_t>(add.target)];
  const Site& site = s.layout().sites[static_cast<size_t>(add.site)];
  Diagnostic d = s.Finding(
      DiagId::kRtRace, add.site,
      {{"detail", Cat(site.op, " ", site.text, " adds into ", owner.DescribeByte(owner.ctx.smem + add.offset), " of ",
                      SubcoreName(add.target), " while that subcore's ", owner.layout().Describe(own.site),
                      " may be ", own.write ? "writing" : "reading", " it")}});
  d.notes.push_back(kAtomicWordsNote);
  return d;
}

Diagnostic Machine::RaceFinding(const SharedRace& race) {
  const Subcore& later = *subcores_[static_cast<size_t>(race.later->subcore)];
  const Subcore& earlier = *subcores_[static_cast<size_t>(race.earlier->subcore)];
  auto verb = [](SharedDma::Kind k, bool ing) {
    switch (k) {
      case SharedDma::kRead: return ing ? "reading" : "reads";
      case SharedDma::kAdd: return ing ? "adding into" : "adds into";
      default: return ing ? "writing" : "writes";
    }
  };
  const Site& site = later.layout().sites[static_cast<size_t>(race.later->site)];
  std::string what = DescribeShared(race.byte);
  Diagnostic d = later.Finding(
      DiagId::kRtRace, race.later->site,
      {{"detail", Cat(site.op, " ", site.text, " ", verb(race.later_kind, false), " ", what, " while the DMA of ",
                      earlier.layout().Describe(race.earlier->site), " on ", SubcoreName(race.earlier->subcore),
                      " may still be ", verb(race.earlier_kind, true), " it")}});
  const Site& other = earlier.layout().sites[static_cast<size_t>(race.earlier->site)];
  std::string retired = race.earlier->end_site >= 0 ? Cat("retired by ", earlier.layout().Describe(race.earlier->end_site))
                        : race.earlier->remote       ? std::string("a remote copy, done at its sender's wait on the "
                                                                  "send semaphore or its receiver's on the receive one")
                                                      : std::string("not waited yet");
  // A barrier orders the subcores of one core (of one part, of one chip) only.
  bool one_subcore = race.earlier->subcore == race.later->subcore;
  bool one_core = earlier.part_ == later.part_ && earlier.core_ == later.core_;
  bool one_chip = earlier.part_->device == later.part_->device;
  d.notes.push_back(Cat("the other DMA (", other.op, " ", other.text, ", ", retired, ") and this one are not ordered: ",
                        one_subcore ? "its wait, before this op, would order them"
                        : one_core  ? "a barrier, or a semaphore signal and wait, between them would order them"
                        : one_chip ? "they run on different cores, which a barrier does not order; a semaphore signal "
                                     "and wait between them would"
                                   : "they run on different chips, which a barrier does not order; a semaphore signal "
                                     "and wait between them would"));
  return d;
}

std::string Machine::DescribeShared(uintptr_t byte) const {
  size_t n = layout_.params.size();
  for (size_t p = 0; p < hbm_.size(); ++p) {
    auto base = reinterpret_cast<uintptr_t>(hbm_[p]);
    if (hbm_[p] == nullptr || byte < base || byte >= base + static_cast<uintptr_t>(hbm_bytes_[p])) continue;
    const ParamLayout& param = layout_.params[p % n];
    std::string chip = devices_ > 1 ? Cat(" of device ", p / n) : "";
    int64_t element = static_cast<int64_t>(byte - base) / std::max(1, ByteWidth(param.dtype));
    std::string index;
    for (int d = static_cast<int>(param.shape.size()) - 1; d >= 0; --d) {
      int64_t size = std::max<int64_t>(param.shape[static_cast<size_t>(d)], 1);
      index = Cat(element % size, index.empty() ? "" : ", ", index);
      element /= size;
    }
    return param.shape.empty() ? Cat("%", param.name, chip) : Cat("%", param.name, "[", index, "]", chip);
  }
  for (const MachinePart& part : parts_) {
    for (int c = 0; c < part.layout->cores; ++c) {
      auto base = reinterpret_cast<uintptr_t>(part.shared + c * part.shared_stride);
      if (byte < base || byte >= base + static_cast<uintptr_t>(part.layout->vmem_shared_bytes)) continue;
      return Cat(part.layout->DescribeByte(MemorySpace::kVmemShared, static_cast<int64_t>(byte - base)), " of core ", c,
                 devices_ > 1 ? Cat(" of device ", part.device) : "");
    }
  }
  return "shared memory";
}

// A barrier opens when every subcore of its part and core waits at one.
bool Machine::OpenBarriers() {
  bool opened = false;
  for (const MachinePart& part : parts_) {
    const LaunchLayout& l = *part.layout;
    for (int c = 0; c < l.cores; ++c) {
      int first = part.first + c * l.subcores;
      bool all = true;
      for (int k = 0; k < l.subcores && all; ++k) all = subcores_[first + k]->wait_ == Subcore::Wait::kBarrier;
      if (!all) continue;
      for (int k = 0; k < l.subcores; ++k) scheduler_->MakeRunnable(first + k);
      opened = true;
      if (races_ == nullptr) continue;
      barrier_opened_ = true;
      // Everything before the barrier on these subcores is before everything after it.
      Clock met;
      for (int k = 0; k < l.subcores; ++k) Join(met, clocks_[static_cast<size_t>(first + k)]);
      for (int k = 0; k < l.subcores; ++k) {
        clocks_[static_cast<size_t>(first + k)] = met;
        ++clocks_[static_cast<size_t>(first + k)][static_cast<size_t>(first + k)];
      }
    }
  }
  return opened;
}

absl::Status Machine::ReportDeadlock() {
  std::vector<std::string> notes;
  int first_site = -1, first_part = 0;
  std::vector<std::string> finished;
  for (auto& sp : subcores_) {
    const Subcore& s = *sp;
    if (s.finished_) {
      std::string chip = devices_ > 1 ? Cat("device ", s.part_->device, ", ") : "";
      finished.push_back(s.layout().mesh == MeshKind::kScalar ? Cat("(", chip, "core ", s.core_, ")")
                                                         : Cat("(", chip, s.core_, ", ", s.subcore_, ")"));
      continue;
    }
    const LaunchLayout& l = s.layout();
    if (first_site < 0) {
      first_site = s.wait_site_;
      first_part = s.part_->index;
    }
    std::string what = Cat(SubcoreName(s.index_), " waits in ", l.Describe(s.wait_site_));
    if (s.wait_ == Subcore::Wait::kSemWait || s.wait_ == Subcore::Wait::kDmaWait) {
      std::string name = s.wait_sem_ < static_cast<int>(l.semaphore_names.size())
                             ? l.semaphore_names[s.wait_sem_]
                             : Cat("semaphore ", s.wait_sem_);
      Append(&what, ": ", name, " holds ", s.sems_[s.wait_sem_].value, ", needs ", s.wait_amount_);
    } else if (s.wait_ == Subcore::Wait::kBarrier) {
      int core_finished = 0;
      int core_first = s.part_->first + s.core_ * l.subcores;
      for (int k = 0; k < l.subcores; ++k) core_finished += subcores_[core_first + k]->finished_;
      if (core_finished > 0) Append(&what, " (", core_finished, " subcore", core_finished == 1 ? " of its core has" : "s of its core have", " finished without reaching it)");
    }
    notes.push_back(std::move(what));
  }
  if (link_ != nullptr) {
    // Every process's subcores, in rank (so subcore) order; the first blocked
    // subcore of all gives the location.
    std::string mine = EncodeDeadlockNotes(first_part, first_site, notes, finished);
    absl::StatusOr<ChipLink::Messages> all = link_->AllGather(mine);
    if (!all.ok()) return all.status();
    notes.clear();
    finished.clear();
    first_site = -1;
    for (int r = 0; r < link_->ranks(); ++r) {
      std::string_view theirs = all->from(r);
      int part = 0, site = -1;
      if (absl::Status s = DecodeDeadlockNotes(theirs, &part, &site, &notes, &finished); !s.ok()) return s;
      if (first_site < 0 && site >= 0) {
        first_site = site;
        first_part = part;
      }
    }
    if (link_->rank() != 0) return absl::OkStatus();  // rank 0's findings carry it (GatherResults)
  }
  const LaunchLayout* first_layout = parts_[static_cast<size_t>(first_part)].layout;
  Diagnostic d = first_layout->SiteDiagnostic(DiagId::kRtDeadlock, first_site,
                                {{"kernel", Cat("@", layout_.kernel)},
                                 {"blocked", notes.size() == 1 ? std::string("1 subcore is blocked")
                                                               : Cat(notes.size(), " subcores are blocked")}});
  d.notes = std::move(notes);
  if (!finished.empty()) {
    std::string list;
    for (const std::string& f : finished) Append(&list, list.empty() ? "" : ", ", f);
    d.notes.push_back(Cat(finished.size(), " finished: ", list));
  }
  findings_.push_back(SubcoreFinding{std::move(d), 0, 0, /*name_subcore=*/false});
  return absl::OkStatus();
}

size_t StackBytesFor(const LaunchLayout& layout) {
  int64_t frame = 0;
  for (const LaunchLayout* part : layout.Parts()) frame = std::max(frame, part->frame_bytes);
  return std::max<size_t>(kMinStackBytes, static_cast<size_t>(frame) + kStackHeadroom);
}

absl::StatusOr<LaunchResult> RunKernel(const LaunchLayout& layout, std::span<const PartCode> parts,
                                       std::span<const ParamBuffer> params, const RunOptions& options) {
  if (parts.size() != layout.Parts().size()) {
    return absl::InvalidArgumentError(Cat("kernel @", layout.kernel, " has ", layout.Parts().size(),
                                          " parts, but ", parts.size(), " entry points were given"));
  }
  Machine machine(layout, parts, options);
  return machine.Run(params);
}

absl::StatusOr<LaunchResult> RunKernel(const LaunchLayout& layout, KernelFn kernel,
                                       std::span<const ParamBuffer> params, const RunOptions& options) {
  PartCode parts[] = {{kernel, nullptr}};
  return RunKernel(layout, parts, params, options);
}

}  // namespace scjit
