#include "jit/jit_session.h"

#include "lowering/base/strings.h"
#include <map>

#include "llvm/ExecutionEngine/ObjectCache.h"
#include "llvm/ExecutionEngine/Orc/CompileUtils.h"
#include "llvm/ExecutionEngine/Orc/ExecutionUtils.h"
#include "llvm/ExecutionEngine/Orc/JITTargetMachineBuilder.h"
#include "llvm/ExecutionEngine/Orc/LLJIT.h"
#include "llvm/ExecutionEngine/Orc/ThreadSafeModule.h"
#include "llvm/IR/LegacyPassManager.h"
#include "llvm/IR/Module.h"
#include "llvm/MC/MCSubtargetInfo.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Support/TargetSelect.h"
#include "llvm/Support/raw_ostream.h"
#include "llvm/Target/TargetMachine.h"
#include "llvm/TargetParser/Host.h"
#include "llvm/Transforms/Utils/Cloning.h"
#include "runtime/abi.h"
#include "runtime/softfloat.h"

namespace scjit {
namespace {

// llvm::Error becomes absl::Status here, and only here.
absl::Status ToStatus(llvm::Error error, std::string_view what) {
  if (!error) return absl::OkStatus();
  return absl::InternalError(Cat(what, ": ", llvm::toString(std::move(error))));
}

llvm::OptimizationLevel Level(int level) {
  switch (level) {
    case 0:
      return llvm::OptimizationLevel::O0;
    case 1:
      return llvm::OptimizationLevel::O1;
    case 3:
      return llvm::OptimizationLevel::O3;
    default:
      return llvm::OptimizationLevel::O2;
  }
}

llvm::CodeGenOptLevel CodeGenLevel(int level) {
  switch (level) {
    case 0:
      return llvm::CodeGenOptLevel::None;
    case 1:
      return llvm::CodeGenOptLevel::Less;
    case 3:
      return llvm::CodeGenOptLevel::Aggressive;
    default:
      return llvm::CodeGenOptLevel::Default;
  }
}

std::once_flag native_target_once;

// Above this many IR instructions a kernel is compiled by the linear tiers:
// optimized at -O1 (-O2's GVN costs time quadratic in a function's loads and
// blocks) and compiled with the backend's fast instruction selection and
// register allocation (the greedy allocator's live-range splitting grows
// quadratically too). A long straight-line kernel with its checks compiled in
// (a hundred instructions an access) took minutes; now its compile time is
// near linear. The kernels of the examples and benchmarks stay far below it.
constexpr size_t kLargeKernelInstructions = 20000;
constexpr char kFastCodegenFlag[] = "scjit.fast_codegen";

size_t InstructionCount(const llvm::Module& m) {
  size_t n = 0;
  for (const llvm::Function& f : m) n += f.getInstructionCount();
  return n;
}

// A bound on the stack the fast register allocator's code may use: a slot
// for every value of the largest function, twice over (spills of the parts a
// value is split into, call frames).
int64_t FastCodegenFrameBound(const llvm::Module& m) {
  const llvm::DataLayout& dl = m.getDataLayout();
  uint64_t most = 0;
  for (const llvm::Function& f : m) {
    uint64_t bytes = 0;
    for (const llvm::BasicBlock& block : f) {
      for (const llvm::Instruction& i : block) {
        if (!i.getType()->isVoidTy() && i.getType()->isSized()) bytes += dl.getTypeAllocSize(i.getType()).getFixedValue();
      }
    }
    most = std::max(most, bytes);
  }
  return static_cast<int64_t>(2 * most);
}

}  // namespace

namespace jit_internal {

// The compile layer's ObjectCache: it keeps each module's object code (by module
// identifier) until Add takes it, so that the disk cache can store it. It never
// answers getObject: cached code is linked directly (AddObject), without IR.
class ObjectCapture : public llvm::ObjectCache {
 public:
  void notifyObjectCompiled(const llvm::Module* m, llvm::MemoryBufferRef object) override {
    std::lock_guard<std::mutex> lock(mu_);
    objects_[m->getModuleIdentifier()] = std::string(object.getBuffer());
  }
  std::unique_ptr<llvm::MemoryBuffer> getObject(const llvm::Module*) override { return nullptr; }

  std::string Take(const std::string& module) {
    std::lock_guard<std::mutex> lock(mu_);
    auto it = objects_.find(module);
    if (it == objects_.end()) return "";
    std::string out = std::move(it->second);
    objects_.erase(it);
    return out;
  }

 private:
  std::mutex mu_;
  std::map<std::string, std::string> objects_;
};

// The compile layer's compiler: like ORC's ConcurrentIRCompiler, a target
// machine per compilation running at once (one is not thread-safe), but kept
// for the next compilation instead of made anew: making one (its subtarget,
// its assembler info) costs as much as compiling a small kernel.
class PooledIRCompiler : public llvm::orc::IRCompileLayer::IRCompiler {
 public:
  PooledIRCompiler(llvm::orc::JITTargetMachineBuilder builder, llvm::ObjectCache* cache)
      : IRCompiler(llvm::orc::irManglingOptionsFromTargetOptions(builder.getOptions())),
        builder_(std::move(builder)),
        cache_(cache) {}

  llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> operator()(llvm::Module& m) override {
    std::unique_ptr<llvm::TargetMachine> machine;
    {
      std::lock_guard<std::mutex> lock(mu_);
      if (!free_.empty()) {
        machine = std::move(free_.back());
        free_.pop_back();
      }
    }
    if (machine == nullptr) {
      llvm::Expected<std::unique_ptr<llvm::TargetMachine>> made = builder_.createTargetMachine();
      if (!made) return made.takeError();
      machine = std::move(*made);
    }
    // (Optimize marks a large kernel for the linear tier; its frame bound
    // went into the kernel's layout.)
    llvm::CodeGenOptLevel level = machine->getOptLevel();
    if (m.getModuleFlag(kFastCodegenFlag) != nullptr) machine->setOptLevel(llvm::CodeGenOptLevel::None);
    llvm::Expected<std::unique_ptr<llvm::MemoryBuffer>> object = llvm::orc::SimpleCompiler(*machine, cache_)(m);
    machine->setOptLevel(level);
    std::lock_guard<std::mutex> lock(mu_);
    free_.push_back(std::move(machine));
    return object;
  }

 private:
  llvm::orc::JITTargetMachineBuilder builder_;
  llvm::ObjectCache* cache_;
  std::mutex mu_;
  std::vector<std::unique_ptr<llvm::TargetMachine>> free_;
};

}  // namespace jit_internal

JitSession::JitSession() : objects_(std::make_unique<jit_internal::ObjectCapture>()) {}

std::string ModuleText(const EmittedKernel& kernel) {
  std::string text;
  llvm::raw_string_ostream os(text);
  kernel.module->print(os, nullptr);
  return os.str();
}

absl::StatusOr<std::unique_ptr<JitSession>> JitSession::Create(int opt_level) {
  std::call_once(native_target_once, [] {
    llvm::InitializeNativeTarget();
    llvm::InitializeNativeTargetAsmPrinter();
    llvm::InitializeNativeTargetAsmParser();
  });
  std::unique_ptr<JitSession> s(new JitSession());
  s->opt_level_ = opt_level;

  // (1) The host: its CPU and every feature it has.
  llvm::Expected<llvm::orc::JITTargetMachineBuilder> jtmb = llvm::orc::JITTargetMachineBuilder::detectHost();
  if (!jtmb) return ToStatus(jtmb.takeError(), "detecting the host CPU");
  jtmb->setCodeGenOptLevel(CodeGenLevel(opt_level));
  s->host_ = Cat(jtmb->getCPU(), " ", jtmb->getFeatures().getString());

  // (2) A target machine for the optimization pipeline and --emit asm.
  llvm::Expected<std::unique_ptr<llvm::TargetMachine>> tm = jtmb->createTargetMachine();
  if (!tm) return ToStatus(tm.takeError(), "creating the host target machine");
  s->machine_ = std::move(*tm);

  // (3) The JIT, compiling for the same host.
  // Each compilation gets a target machine of its own (PooledIRCompiler), so
  // that threads compiling at once never share one; the object cache captures
  // the object code for the disk cache.
  jit_internal::ObjectCapture* capture = s->objects_.get();
  llvm::Expected<std::unique_ptr<llvm::orc::LLJIT>> jit =
      llvm::orc::LLJITBuilder()
          .setJITTargetMachineBuilder(std::move(*jtmb))
          .setCompileFunctionCreator([capture](llvm::orc::JITTargetMachineBuilder builder)
                                         -> llvm::Expected<std::unique_ptr<llvm::orc::IRCompileLayer::IRCompiler>> {
            return std::make_unique<jit_internal::PooledIRCompiler>(std::move(builder), capture);
          })
          .create();
  if (!jit) return ToStatus(jit.takeError(), "creating the ORC JIT");
  s->jit_ = std::move(*jit);

  // (4) The runtime ABI and the soft-float helpers, by name.
  llvm::Expected<llvm::orc::JITDylib&> runtime = s->jit_->createJITDylib("scjit.runtime");
  if (!runtime) return ToStatus(runtime.takeError(), "creating the runtime dylib");
  s->runtime_ = &*runtime;
  llvm::orc::SymbolMap symbols;
  auto flags = llvm::JITSymbolFlags::Exported | llvm::JITSymbolFlags::Callable;
#define SCJIT_ABI(Fn, fn, signature) \
  symbols[s->jit_->mangleAndIntern(#fn)] = {llvm::orc::ExecutorAddr::fromPtr(&fn), flags};
#include "runtime/abi.def"
  // The soft-float helpers LLVM may call for f16/bf16 (runtime/softfloat.h).
  for (const SoftFloatSymbol& f : SoftFloatSymbols()) {
    symbols[s->jit_->mangleAndIntern(llvm::StringRef(f.name.data(), f.name.size()))] = {
        llvm::orc::ExecutorAddr::fromPtr(f.address), flags};
  }
  if (absl::Status st = ToStatus(s->runtime_->define(llvm::orc::absoluteSymbols(std::move(symbols))),
                                 "defining the runtime ABI");
      !st.ok()) {
    return st;
  }
  return s;
}

bool JitSession::HasFeature(std::string_view name) const {
  return machine_->getMCSubtargetInfo()->checkFeatures(Cat("+", name));
}

JitSession::~JitSession() {
  if (jit_ != nullptr) {
    if (llvm::Error e = jit_->getExecutionSession().endSession()) {
      llvm::errs() << "scjit: ending the JIT session: " << llvm::toString(std::move(e)) << "\n";
    }
  }
}

absl::StatusOr<int64_t> JitSession::Optimize(EmittedKernel& kernel) {
  llvm::Module& m = *kernel.module;
  std::lock_guard<std::mutex> lock(machine_mu_);
  m.setTargetTriple(machine_->getTargetTriple().str());
  m.setDataLayout(machine_->createDataLayout());
  bool avx512 = machine_->getTargetFeatureString().contains("+avx512f");
  for (llvm::Function& f : m) {
    if (f.isDeclaration()) continue;
    f.addFnAttr("target-cpu", machine_->getTargetCPU());
    f.addFnAttr("target-features", machine_->getTargetFeatureString());
    // SparseCore values are whole registers: let the backend use all 512 bits.
    if (avx512) {
      f.addFnAttr("prefer-vector-width", "512");
      f.addFnAttr("min-legal-vector-width", "512");
    }
  }
  llvm::LoopAnalysisManager lam;
  llvm::FunctionAnalysisManager fam;
  llvm::CGSCCAnalysisManager cgam;
  llvm::ModuleAnalysisManager mam;
  llvm::PassBuilder pb(machine_.get());
  pb.registerModuleAnalyses(mam);
  pb.registerCGSCCAnalyses(cgam);
  pb.registerFunctionAnalyses(fam);
  pb.registerLoopAnalyses(lam);
  pb.crossRegisterProxies(lam, fam, cgam, mam);
  bool large = opt_level_ > 0 && InstructionCount(m) > kLargeKernelInstructions;
  int level = large ? 1 : opt_level_;
  llvm::ModulePassManager mpm = level == 0 ? pb.buildO0DefaultPipeline(llvm::OptimizationLevel::O0)
                                           : pb.buildPerModuleDefaultPipeline(Level(level));
  mpm.run(m, mam);
  if (!large) return 0;
  m.addModuleFlag(llvm::Module::Warning, kFastCodegenFlag, 1);
  return FastCodegenFrameBound(m);
}

absl::StatusOr<std::string> JitSession::Assembly(const EmittedKernel& kernel) {
  std::unique_ptr<llvm::Module> clone = llvm::CloneModule(*kernel.module);
  llvm::SmallString<0> text;
  llvm::raw_svector_ostream os(text);
  std::lock_guard<std::mutex> lock(machine_mu_);
  llvm::legacy::PassManager pm;
  if (machine_->addPassesToEmitFile(pm, os, nullptr, llvm::CodeGenFileType::AssemblyFile)) {
    return absl::InternalError("the host target cannot emit assembly");
  }
  pm.run(*clone);
  return std::string(text.str());
}

absl::StatusOr<llvm::orc::JITDylib*> JitSession::NewKernelDylib() {
  std::string name = Cat("scjit.kernel.", next_dylib_.fetch_add(1));
  llvm::Expected<llvm::orc::JITDylib&> dylib = jit_->createJITDylib(name);
  if (!dylib) return ToStatus(dylib.takeError(), "creating a kernel dylib");
  // The runtime first, so that its names win over the process' (libgcc has some
  // of the soft-float helpers too).
  llvm::orc::JITDylibSearchOrder order = {{runtime_, llvm::orc::JITDylibLookupFlags::MatchExportedSymbolsOnly}};
  for (const auto& link : jit_->defaultLinkOrder()) order.push_back(link);
  dylib->setLinkOrder(std::move(order));
  return &*dylib;
}

absl::StatusOr<std::vector<KernelFn>> JitSession::LookupAll(llvm::orc::JITDylib& dylib,
                                                             std::span<const std::string> symbols,
                                                             std::string_view what) {
  std::vector<KernelFn> out;
  for (const std::string& symbol : symbols) {
    llvm::Expected<llvm::orc::ExecutorAddr> addr = jit_->lookup(dylib, symbol);
    if (!addr) return ToStatus(addr.takeError(), Cat(what, symbol));
    out.push_back(addr->toPtr<KernelFn>());
  }
  return out;
}

absl::StatusOr<KernelFn> JitSession::Add(EmittedKernel kernel, std::string* object) {
  absl::StatusOr<std::vector<KernelFn>> all = AddParts(std::move(kernel), object);
  if (!all.ok()) return all.status();
  return all->front();
}

absl::StatusOr<std::vector<KernelFn>> JitSession::AddParts(EmittedKernel kernel, std::string* object) {
  absl::StatusOr<llvm::orc::JITDylib*> dylib = NewKernelDylib();
  if (!dylib.ok()) return dylib.status();
  // A module identifier no other compilation has: the object cache's key.
  std::string module_id = Cat((*dylib)->getName(), ".", kernel.function);
  kernel.module->setModuleIdentifier(module_id);
  std::vector<std::string> symbols{kernel.function};
  symbols.insert(symbols.end(), kernel.more_functions.begin(), kernel.more_functions.end());
  llvm::orc::ThreadSafeModule tsm(std::move(kernel.module), std::move(kernel.context));
  if (absl::Status s = ToStatus(jit_->addIRModule(**dylib, std::move(tsm)), "adding the kernel module"); !s.ok()) {
    return s;
  }
  absl::StatusOr<std::vector<KernelFn>> entries = LookupAll(**dylib, symbols, "compiling ");
  std::string compiled = objects_->Take(module_id);
  if (!entries.ok()) return entries.status();
  if (object != nullptr) *object = std::move(compiled);
  return entries;
}

absl::StatusOr<std::vector<KernelFn>> JitSession::AddObject(std::string_view object,
                                                            std::span<const std::string> symbols) {
  absl::StatusOr<llvm::orc::JITDylib*> dylib = NewKernelDylib();
  if (!dylib.ok()) return dylib.status();
  std::unique_ptr<llvm::MemoryBuffer> buffer =
      llvm::MemoryBuffer::getMemBufferCopy(llvm::StringRef(object.data(), object.size()), "scjit.cached");
  if (absl::Status s = ToStatus(jit_->addObjectFile(**dylib, std::move(buffer)), "adding cached object code");
      !s.ok()) {
    return s;
  }
  return LookupAll(**dylib, symbols, "linking cached ");
}

}  // namespace scjit
