// The public API as an embedding program uses it (include/scjit/): compiling
// from strings and files, diagnostics as values, buffers, binding parameters by
// name and position with every mistake refused, launch options and statistics.
#include <cstring>
#include <fstream>
#include <numeric>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "scjit/scjit.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

// A kernel with a semaphore parameter (scalar meshes take them) and a debug_print.
constexpr const char kSemParam[] = R"(kernel @signal(out %o: smem<4xi32>, in %s: sem)
    mesh scalar(cores = 2)
{
  %i = axis_index core : i32
  store %o[%i], %i
  debug_print "core" %i
}
)";

std::string Message(const absl::Status& s) { return std::string(s.message()); }

Kernel MustCompile(Compiler& c, const std::string& text, CompileOptions options = {}) {
  absl::StatusOr<Kernel> k = c.Compile(Source{"k.scir", text}, options);
  EXPECT_TRUE(k.ok()) << k.status();
  return *std::move(k);
}

Buffer Ints(std::vector<int64_t> shape, int start = 0) {
  Buffer b = *Buffer::Allocate(DType::kI32, std::move(shape));
  std::span<int32_t> v = b.span<int32_t>();
  std::iota(v.begin(), v.end(), start);
  return b;
}

// --- Compiling ----------------------------------------------------------------------

TEST(ApiTest, DescribesTheCompiledKernel) {
  Compiler compiler;
  Kernel k = MustCompile(compiler, testing::kAddOneKernel);
  EXPECT_EQ(k.name(), "add_one");
  EXPECT_EQ(k.target(), "v7x");
  EXPECT_EQ(k.mesh(), MeshKind::kVector);
  EXPECT_EQ(k.cores(), 1);
  EXPECT_EQ(k.subcores(), 16);
  ASSERT_EQ(k.params().size(), 2u);
  const ParamInfo& x = k.params()[0];
  EXPECT_EQ(x.name, "x");
  EXPECT_EQ(x.direction, ParamDirection::kIn);
  EXPECT_EQ(x.dtype, DType::kI32);
  EXPECT_EQ(x.shape, (std::vector<int64_t>{64, 16}));
  EXPECT_EQ(x.space, MemorySpace::kHbm);
  EXPECT_EQ(x.type, "hbm<64x16xi32>");
  EXPECT_EQ(x.bytes(), 64 * 16 * 4);
  EXPECT_EQ(k.param("%o"), &k.params()[1]);
  EXPECT_EQ(k.param("y"), nullptr);
  EXPECT_FALSE(k.times().cache_hit);

  CompileOptions v5p;
  v5p.target = "v5p";
  Kernel k5 = MustCompile(compiler, testing::kAddOneKernel, v5p);
  EXPECT_EQ(k5.target(), "v5p");
}

TEST(ApiTest, CompilesFromAFile) {
  Compiler compiler;
  absl::StatusOr<Kernel> k = compiler.CompileFile(testing::SourceDir() + "/examples/add_one_manual.scir");
  ASSERT_TRUE(k.ok()) << k.status();
  EXPECT_EQ(k->name(), "add_one_manual");
  absl::StatusOr<Kernel> missing = compiler.CompileFile("/nonexistent/k.scir");
  EXPECT_EQ(DiagnosticCodeOf(missing.status()), "IO-OPEN");
}

TEST(ApiTest, RejectedKernelsCarryEveryDiagnostic) {
  Compiler compiler;
  const std::string bad = R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %a = add %t, 1 : i32
  %b = add %u, 1 : i32
}
)";
  absl::StatusOr<Kernel> k = compiler.Compile(Source{"bad.scir", bad});
  ASSERT_FALSE(k.ok());
  EXPECT_TRUE(absl::IsInvalidArgument(k.status()));
  std::vector<Diagnostic> ds = DiagnosticsOf(k.status());
  ASSERT_EQ(ds.size(), 2u);
  EXPECT_EQ(ds[0].code, "IR-UNDEFINED");
  EXPECT_EQ(ds[0].file, "bad.scir");
  EXPECT_EQ(ds[0].loc, (Location{4, 12, 2}));
  EXPECT_EQ(ds[0].source_line, "  %a = add %t, 1 : i32");
  EXPECT_EQ(ds[0].message, "use of undefined value %t");
  EXPECT_EQ(ds[1].loc.line, 5);
  EXPECT_EQ(DiagnosticCodeOf(k.status()), "IR-UNDEFINED");
  // The message is the rendering of them all.
  EXPECT_EQ(Message(k.status()) + "\n", ds[0].Render() + ds[1].Render());
  // An SC rule keeps Pallas' exception type.
  absl::StatusOr<Kernel> rule = compiler.CompileFile(testing::SourceDir() + "/examples/errors/SWAP-5.scir");
  std::vector<Diagnostic> rd = DiagnosticsOf(rule.status());
  ASSERT_EQ(rd.size(), 1u);
  EXPECT_EQ(rd[0].code, "SWAP-5");
  EXPECT_EQ(rd[0].exception, "NotImplementedError");
  EXPECT_EQ(rd[0].message, "Swap does not support masked scalar stores");
}

TEST(ApiTest, BadOptionsAreRefused) {
  Compiler compiler;
  CompileOptions o;
  o.target = "v9z";
  absl::StatusOr<Kernel> k = compiler.Compile(Source{"k.scir", testing::kAddOneKernel}, o);
  EXPECT_EQ(Message(k.status()),
            "error[IO-USAGE]: unknown target 'v9z'; expected one of v5p, v6e, v7x, v8i, v8t\n"
            "help: run `jit-run --help` for the options");
  o = CompileOptions();
  o.opt_level = 7;
  EXPECT_EQ(DiagnosticCodeOf(compiler.Compile(Source{"k.scir", testing::kAddOneKernel}, o).status()), "IO-USAGE");
  o = CompileOptions();
  o.kernel = "@other";
  EXPECT_EQ(DiagnosticsOf(compiler.Compile(Source{"k.scir", testing::kAddOneKernel}, o).status())[0].message,
            "'k.scir' has no kernel @other");
}

TEST(ApiTest, EmitsEachStage) {
  Compiler compiler;
  Source source{"k.scir", testing::kAddOneKernel};
  absl::StatusOr<std::string> ir = compiler.Emit(source, Stage::kIr);
  ASSERT_TRUE(ir.ok());
  EXPECT_EQ(ir->substr(0, 15), "kernel @add_one");
  absl::StatusOr<std::string> llvm = compiler.Emit(source, Stage::kLlvm);
  ASSERT_TRUE(llvm.ok());
  EXPECT_NE(llvm->find("define i32 @scjit_kernel_add_one(ptr"), std::string::npos);
  absl::StatusOr<std::string> asm_text = compiler.Emit(source, Stage::kAsm);
  ASSERT_TRUE(asm_text.ok());
  EXPECT_NE(asm_text->find("scjit_kernel_add_one:"), std::string::npos);
}

TEST(ApiTest, KernelsOutliveTheirCompiler) {
  std::optional<Kernel> k;
  {
    Compiler compiler;
    k = MustCompile(compiler, testing::kAddOneKernel);
  }
  Buffer x = Ints({64, 16}), o = *Buffer::Allocate(DType::kI32, {64, 16});
  absl::StatusOr<LaunchResult> r = k->Launch({x, o});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_FALSE(r->failed()) << r->RenderFindings();
  EXPECT_EQ(o.span<int32_t>()[64 * 16 - 1], 64 * 16);
}

TEST(ApiTest, TheMemoryCacheAnswersTheSameCompileTwice) {
  Compiler compiler;
  MustCompile(compiler, testing::kAddOneKernel);
  Kernel again = MustCompile(compiler, testing::kAddOneKernel);
  EXPECT_TRUE(again.times().cache_hit);
  EXPECT_FALSE(again.times().from_disk);
  Compiler::CacheStats stats = compiler.cache_stats();
  EXPECT_EQ(stats.memory_hits, 1);
  EXPECT_EQ(stats.compiled, 1);
  // Another option that changes code compiles again.
  CompileOptions o;
  o.opt_level = 0;
  EXPECT_FALSE(MustCompile(compiler, testing::kAddOneKernel, o).times().cache_hit);
}

// --- Buffers ------------------------------------------------------------------------

TEST(ApiTest, Buffers) {
  absl::StatusOr<Buffer> a = Buffer::Allocate(DType::kBF16, {3, 5});
  ASSERT_TRUE(a.ok());
  EXPECT_EQ(a->bytes(), 30u);
  EXPECT_EQ(a->num_elements(), 15);
  EXPECT_TRUE(a->owned());
  EXPECT_EQ(reinterpret_cast<uintptr_t>(a->data()) % 64, 0u);
  EXPECT_EQ(a->Describe(), "bfloat16 (3, 5)");
  for (size_t i = 0; i < a->bytes(); ++i) ASSERT_EQ(a->data()[i], 0);
  EXPECT_TRUE(a->span<int32_t>().empty());  // the wrong element size
  EXPECT_EQ(a->span<uint16_t>().size(), 15u);

  std::vector<float> mine(8, 1.5f);
  absl::StatusOr<Buffer> w = Buffer::Wrap(DType::kF32, {2, 4}, mine.data(), mine.size() * 4);
  ASSERT_TRUE(w.ok());
  EXPECT_FALSE(w->owned());
  EXPECT_EQ(w->data(), reinterpret_cast<uint8_t*>(mine.data()));  // no copy
  EXPECT_EQ(Message(Buffer::Wrap(DType::kF32, {2, 4}, mine.data(), 31).status()),
            "error[IO-PARAM]: a float32 (2, 4) buffer holds 32 bytes, got 31\n"
            "help: bind one buffer to each parameter that has data, by name or by position");
  EXPECT_EQ(DiagnosticsOf(Buffer::Allocate(DType::kI32, {-1}).status())[0].message,
            "a buffer's dimensions must be >= 0, got (-1,)");
  EXPECT_EQ(DiagnosticsOf(Buffer::Allocate(DType::kI32, {int64_t{1} << 40, int64_t{1} << 40}).status())[0].message,
            "a buffer of int32 (1099511627776, 1099511627776) exceeds 2^62 bytes");
  absl::StatusOr<Buffer> adopted = Buffer::Adopt(DType::kU8, {3}, {1, 2, 3});
  ASSERT_TRUE(adopted.ok());
  EXPECT_EQ(adopted->data()[2], 3);
  EXPECT_TRUE(Buffer().empty());
  EXPECT_FALSE(Buffer::Allocate(DType::kI32, {0})->empty());  // an array of no elements is still one
}

// Arrays larger than the host are refused with IO-MEMORY (ResourceExhausted),
// before any memory is taken: by Allocate, and by Generate before it generates.
TEST(ApiTest, ArraysLargerThanTheHostAreRefused) {
  const int64_t host = Buffer::HostMemoryBytes();
  ASSERT_GT(host, int64_t{1} << 20);
  const std::string reason = "the host has " + std::to_string(host) + " bytes of memory";
  std::vector<int64_t> shape = {host / 4 + 1};  // one int32 more than the host holds
  const std::string bytes = std::to_string(shape[0] * 4);
  absl::Status s = Buffer::Allocate(DType::kI32, shape).status();
  EXPECT_EQ(s.code(), absl::StatusCode::kResourceExhausted);
  EXPECT_EQ(Message(s), "error[IO-MEMORY]: cannot allocate " + bytes + " bytes for a buffer of int32 (" +
                            std::to_string(shape[0]) + ",): " + reason +
                            "\nhelp: make the arrays smaller (a parameter's shape, or fewer --repeat copies), or run "
                            "on a host with more memory");
  absl::Status g = Generate("iota", DType::kI32, shape).status();
  EXPECT_EQ(DiagnosticCodeOf(g), "IO-MEMORY");
  EXPECT_EQ(g, s);
  // A spec that does not fit the dtype is refused first, whatever the size.
  EXPECT_EQ(DiagnosticCodeOf(Generate("randint:0:300", DType::kI8, shape).status()), "IO-USAGE");
}

// --- Binding and launching ----------------------------------------------------------

TEST(ApiTest, LaunchesByNameAndByPosition) {
  Compiler compiler;
  Kernel k = MustCompile(compiler, testing::kAddOneKernel);
  Buffer x = Ints({64, 16}, 100);
  Buffer o = *Buffer::Allocate(DType::kI32, {64, 16});
  absl::StatusOr<LaunchResult> r = k.Launch({{"x", x}, {"%o", o}});
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(o.span<int32_t>()[0], 101);
  EXPECT_EQ(o.span<int32_t>()[1023], 1124);

  Buffer o2 = *Buffer::Allocate(DType::kI32, {64, 16});
  Args args;
  args.Set(1, o2).Set(0, x);
  ASSERT_TRUE(k.Launch(args).ok());
  EXPECT_EQ(std::memcmp(o.data(), o2.data(), o.bytes()), 0);

  absl::StatusOr<std::vector<Buffer>> all = k.AllocateParams();
  ASSERT_TRUE(all.ok());
  ASSERT_TRUE(k.Launch(*all).ok());
  EXPECT_EQ((*all)[1].span<int32_t>()[5], 1);  // zeros + 1
}

// An `out` buffer that is also another parameter's is filled with the
// pattern before the kernel runs, as the kernel reads it through that one (the
// fill of an output the kernel only writes otherwise waits for its end).
TEST(ApiTest, AnOutputSharingAnInputsBytesIsPoisonedFirst) {
  Compiler compiler;
  Kernel k = MustCompile(compiler, R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  copy %x -> %buf
  copy %buf -> %o
}
)");
  Buffer both = Ints({16}, 7);
  ASSERT_TRUE(k.Launch({both, both}).ok());
  EXPECT_EQ(both.span<uint32_t>()[0], 0xBEBEBEBEu);
  EXPECT_EQ(both.span<uint32_t>()[15], 0xBEBEBEBEu);
  Buffer x = Ints({16}, 7), o = Ints({16}, 100);
  ASSERT_TRUE(k.Launch({x, o}).ok());
  EXPECT_EQ(o.span<int32_t>()[15], 22);
}

TEST(ApiTest, BindingMistakesAreRefusedBeforeAnythingRuns) {
  Compiler compiler;
  Kernel k = MustCompile(compiler, testing::kAddOneKernel);
  Buffer x = Ints({64, 16});
  Buffer o = Ints({64, 16}, 7);
  auto error = [](const absl::StatusOr<LaunchResult>& r) {
    EXPECT_TRUE(absl::IsInvalidArgument(r.status()));
    std::vector<Diagnostic> d = DiagnosticsOf(r.status());
    return d.empty() ? std::string("(no diagnostic)") : d[0].code + ": " + d[0].message;
  };
  EXPECT_EQ(error(k.Launch({{"x", x}})),
            "IO-PARAM: parameter %o (out hbm<64x16xi32>) of kernel @add_one is not bound to a buffer");
  EXPECT_EQ(error(k.Launch({{"x", x}, {"o", o}, {"y", o}})),
            "IO-PARAM: kernel @add_one has no parameter %y (its parameters: %x, %o)");
  EXPECT_EQ(error(k.Launch({{"x", x}, {"x", x}, {"o", o}})), "IO-PARAM: parameter %x is bound twice");
  EXPECT_EQ(error(k.Launch(Args().Set(0, x).Set(1, o).Set(2, o))),
            "IO-PARAM: kernel @add_one has 2 parameters (%x, %o); position 2 is out of range");
  EXPECT_EQ(error(k.Launch({x})),
            "IO-PARAM: kernel @add_one takes 2 buffers (one per parameter: %x, %o), got 1");
  EXPECT_EQ(error(k.Launch({{"x", x}, {"o", Buffer()}})),
            "IO-PARAM: parameter %o (out hbm<64x16xi32>) of kernel @add_one is not bound to a buffer");
  Buffer floats = *Buffer::Allocate(DType::kF32, {64, 16});
  EXPECT_EQ(error(k.Launch({{"x", floats}, {"o", o}})),
            "IO-DTYPE: dtype mismatch for %x (hbm<64x16xi32>): the kernel expects int32, the buffer bound to it "
            "has float32");
  Buffer wide = *Buffer::Allocate(DType::kI32, {16, 64});
  EXPECT_EQ(error(k.Launch({{"x", x}, {"o", wide}})),
            "IO-SHAPE: shape mismatch for %o (hbm<64x16xi32>): the kernel expects (64, 16), the buffer bound to "
            "it has (16, 64)");
  // Nothing ran: %o still holds what it held.
  EXPECT_EQ(o.span<int32_t>()[0], 7);

  // A semaphore parameter takes its counts: an int32 buffer of its shape.
  Kernel s = MustCompile(compiler, kSemParam);
  Buffer out = *Buffer::Allocate(DType::kI32, {4});
  Buffer count = *Buffer::Allocate(DType::kI32, {});
  EXPECT_TRUE(s.Launch({{"o", out}, {"s", count}}).ok());
  EXPECT_TRUE(s.Launch({out, count}).ok());
  EXPECT_EQ(error(s.Launch({{"o", out}})),
            "IO-PARAM: parameter %s (in sem) of kernel @signal is not bound to a buffer");
  EXPECT_EQ(error(s.Launch({{"o", out}, {"s", out}})),
            "IO-SHAPE: shape mismatch for %s (sem): the kernel expects (), the buffer bound to it has (4,)");
}

TEST(ApiTest, LaunchOptionsAndStatistics) {
  Compiler compiler;
  Kernel k = MustCompile(compiler, kSemParam);
  Buffer out = *Buffer::Allocate(DType::kI32, {4});
  std::string log;
  LaunchOptions options;
  options.threads = 2;
  options.log = [&log](std::string_view text) { log += text; };
  Buffer count = *Buffer::Allocate(DType::kI32, {});
  absl::StatusOr<LaunchResult> r = k.Launch({{"o", out}, {"s", count}}, options);
  ASSERT_TRUE(r.ok()) << r.status();
  EXPECT_EQ(log,
            "[core 0, subcore 0] core, data: s32[1]: 0\n"
            "[core 1, subcore 0] core, data: s32[1]: 1\n");
  EXPECT_EQ(r->stats.subcores, 2);
  ASSERT_EQ(r->stats.per_subcore.size(), 2u);
  EXPECT_EQ(r->stats.per_subcore[1].core, 1);
  EXPECT_EQ(r->stats.per_subcore[1].subcore, 0);
  EXPECT_EQ(r->stats.per_subcore[1].ops, 1);
  EXPECT_EQ(r->stats.ops.at("debug_print"), 2);
  EXPECT_EQ(r->stats.ops_by_class.at("print"), 2);
  // The last copy back of a staged out parameter wins (core 1's).
  EXPECT_EQ(out.span<int32_t>()[1], 1);

  Kernel add = MustCompile(compiler, testing::kAddOneKernel);
  Buffer x = Ints({64, 16}), o = *Buffer::Allocate(DType::kI32, {64, 16});
  absl::StatusOr<LaunchResult> a = add.Launch({x, o});
  ASSERT_TRUE(a.ok());
  int64_t per = 0;
  for (const SubcoreStats& s : a->stats.per_subcore) per += s.dma_bytes;
  EXPECT_EQ(per, a->stats.dma_bytes);
  EXPECT_EQ(a->stats.dma_bytes, 2 * 64 * 16 * 4);
  EXPECT_EQ(a->stats.ops_by_class.at("dma"), 128);

  options = LaunchOptions();
  options.threads = -1;
  EXPECT_EQ(DiagnosticCodeOf(add.Launch({x, o}, options).status()), "IO-USAGE");
  options = LaunchOptions();
  options.checks = Checks::Parse("init,race").value();
  EXPECT_TRUE(add.Launch({x, o}, options).ok());
}

TEST(ApiTest, ChecksParseAndPrint) {
  EXPECT_EQ(*Checks::Parse("all"), Checks::All());
  EXPECT_EQ(*Checks::Parse("none"), Checks::None());
  EXPECT_TRUE(Checks::Parse("warn")->warn);
  Checks bounds = *Checks::Parse("bounds");
  EXPECT_TRUE(bounds.bounds);
  EXPECT_FALSE(bounds.sync);
  EXPECT_EQ(bounds.ToString(), "bounds");
  EXPECT_EQ(Checks::Parse("sync,bounds")->ToString(), "bounds,sync");
  EXPECT_EQ(Checks::Parse("race,sync,init,bounds")->ToString(), "all");
  Checks init = *Checks::Parse("init");
  EXPECT_TRUE(init.init);
  EXPECT_FALSE(init.race || init.bounds || init.sync);
  EXPECT_EQ(Checks::None().ToString(), "none");
  EXPECT_EQ(DiagnosticCodeOf(Checks::Parse("bounds,speed").status()), "IO-USAGE");
}

// --- The catalog ----------------------------------------------------------------------

TEST(ApiTest, TheCatalogAndExplain) {
  const CatalogEntry* e = FindCatalogEntry("swap-5");
  ASSERT_NE(e, nullptr);
  EXPECT_EQ(e->code, "SWAP-5");
  EXPECT_EQ(e->exception, "NotImplementedError");
  EXPECT_FALSE(e->bad.empty());
  absl::StatusOr<std::string> text = Explain("get-1");
  ASSERT_TRUE(text.ok());
  EXPECT_EQ(text->substr(0, 7), "GET-1: ");
  EXPECT_TRUE(absl::IsNotFound(Explain("NOPE-1").status()));
  bool io_param = false;
  for (const CatalogEntry& c : Catalog()) io_param = io_param || c.code == "IO-PARAM";
  EXPECT_TRUE(io_param);

  Diagnostic d = CatalogDiagnostic("IO-USAGE", {{"detail", "no such flag"}});
  EXPECT_EQ(d.Render(), "error[IO-USAGE]: no such flag\nhelp: run `jit-run --help` for the options\n");
  absl::Status s = DiagnosticStatus(d);
  EXPECT_EQ(DiagnosticsOf(s)[0].message, "no such flag");
  EXPECT_TRUE(DiagnosticsOf(absl::OkStatus()).empty());
  EXPECT_TRUE(DiagnosticsOf(absl::InternalError("x")).empty());
}

TEST(ApiTest, Targets) {
  ASSERT_EQ(Targets().size(), 5u);
  const TargetInfo* v6e = FindTarget("v6e");
  ASSERT_NE(v6e, nullptr);
  EXPECT_EQ(v6e->lanes, 8);
  EXPECT_EQ(v6e->cores, 2);
  EXPECT_EQ(FindTarget("v9"), nullptr);
  EXPECT_EQ(DTypeName(DType::kBF16), "bfloat16");
  EXPECT_EQ(DTypeFromName("f32"), DType::kF32);
  EXPECT_EQ(DTypeFromName("int16"), DType::kI16);
  EXPECT_EQ(MemorySpaceName(MemorySpace::kVmemShared), "vmem_shared");
}

}  // namespace
}  // namespace scjit

namespace scjit {
namespace {

// A DMA started in one launch and waited in the next (JAX's async kernels): the
// semaphore parameter carries the count, and the copy lands by the end of the
// launch that started it.
constexpr const char kStartCopy[] = R"(kernel @start(in %x: hbm<8x16xi32>, inout %y: hbm<8x16xi32>, out %s: dma_sem)
    mesh scalar(cores = 1)
{
  dma_start %x -> %y, %s
}
)";
constexpr const char kWaitCopy[] = R"(kernel @wait(in %x: hbm<8x16xi32>, inout %y: hbm<8x16xi32>, inout %s: dma_sem)
    mesh scalar(cores = 1)
{
  dma_wait %x -> %y, %s
}
)";

TEST(ApiTest, ASemaphoreParameterCarriesADmaToTheNextLaunch) {
  Compiler compiler;
  Kernel start = MustCompile(compiler, kStartCopy), wait = MustCompile(compiler, kWaitCopy);
  for (DmaMode mode : {DmaMode::kEager, DmaMode::kOnWait}) {
    Buffer x = Ints({8, 16}), y = *Buffer::Allocate(DType::kI32, {8, 16});
    Buffer sem = *Buffer::Allocate(DType::kI32, {});
    LaunchOptions options;
    options.dma = mode;
    absl::StatusOr<LaunchResult> r = start.Launch({{"x", x}, {"y", y}, {"s", sem}}, options);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->findings.empty()) << r->RenderFindings();  // not RT-SYNC: a later launch may wait
    EXPECT_EQ(sem.span<int32_t>()[0], 8 * 16 * 4);            // the DMA's bytes
    EXPECT_EQ(y.span<int32_t>()[37], x.span<int32_t>()[37]);
    r = wait.Launch({{"x", x}, {"y", y}, {"s", sem}}, options);
    ASSERT_TRUE(r.ok()) << r.status();
    EXPECT_TRUE(r->findings.empty()) << r->RenderFindings();
    EXPECT_EQ(sem.span<int32_t>()[0], 0);
  }
  // A wait with nothing credited is a deadlock, as ever.
  Buffer x = Ints({8, 16}), y = *Buffer::Allocate(DType::kI32, {8, 16});
  Buffer sem = *Buffer::Allocate(DType::kI32, {});
  absl::StatusOr<LaunchResult> r = wait.Launch({{"x", x}, {"y", y}, {"s", sem}});
  ASSERT_TRUE(r.ok());
  ASSERT_EQ(r->findings.size(), 1u);
  EXPECT_EQ(r->findings[0].code, "RT-DEADLOCK");
}

}  // namespace
}  // namespace scjit
