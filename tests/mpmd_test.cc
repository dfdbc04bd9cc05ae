// Kernels of several meshes (MPMD, language.md §5 "Kernels of several meshes"):
// the parts parse and print, each is verified and rule-checked on its own mesh,
// and all run in one launch sharing the parameters.
#include <cstdint>
#include <filesystem>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lowering/base/launch_layout.h"
#include "lowering/ir/printer.h"
#include "tests/ir_loader.h"
#include "tests/kernel_runner.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

using testing::Bytes;
using testing::Check;
using testing::Checked;
using testing::RunFile;
using testing::RunText;

// Pallas' DebugPrintTest.test_mpmd_print: a vector-subcore body and a
// scalar-subcore body, in one launch.
constexpr const char kPrints[] = R"(kernel @prints(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 2, subcores = 16)
{
  debug_print "From TEC"
}
    mesh scalar(cores = 2)
{
  debug_print "From SCS"
}
)";

// (examples/mpmd_rows.scir round-trips with every example: frontend_test.)
TEST(MpmdTest, PartsPrintAndReparse) {
  testing::Loaded first = testing::Load(kPrints);
  ASSERT_NE(first.module, nullptr) << first.diagnostics;
  ASSERT_EQ(first.module->kernels.size(), 1u);
  const KernelDef& k = *first.module->kernels[0];
  ASSERT_EQ(k.Parts().size(), 2u);
  EXPECT_EQ(k.Parts()[1]->mesh.kind, MeshKind::kScalar);
  EXPECT_EQ(k.Parts()[1]->params.size(), 2u);
  EXPECT_EQ(k.Parts()[1]->Parts().size(), 2u);
  EXPECT_EQ(Print(*first.module), kPrints);
}

// examples/mpmd_rows.scir: the vector subcores add 1 to rows 17c + s, the scalar
// subcore of core c adds 100 to row 17c + 16.
TEST(MpmdTest, ScalarAndVectorPartsWriteTheirRows) {
  std::vector<int32_t> x(34 * 16);
  for (size_t i = 0; i < x.size(); ++i) x[i] = static_cast<int32_t>(i * 7 - 100);
  std::vector<int32_t> want(x.size());
  for (int r = 0; r < 34; ++r) {
    for (int j = 0; j < 16; ++j) want[r * 16 + j] = x[r * 16 + j] + (r % 17 == 16 ? 100 : 1);
  }
  for (int threads : {1, 3}) {
    LaunchOptions o;
    o.threads = threads;
    testing::Run run = RunFile("examples/mpmd_rows.scir", {{"x", Bytes(x)}}, {}, o);
    ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
    EXPECT_EQ(run.As<int32_t>("o"), want) << threads << " threads";
    EXPECT_EQ(run.stats.subcores, 34);
    ASSERT_EQ(run.stats.per_subcore.size(), 34u);
    EXPECT_EQ(run.stats.per_subcore[31].mesh, MeshKind::kVector);
    EXPECT_EQ(run.stats.per_subcore[33].mesh, MeshKind::kScalar);
    EXPECT_EQ(run.stats.per_subcore[33].core, 1);
    EXPECT_EQ(run.log.substr(run.log.rfind("[core 0, scalar")),
              "[core 0, scalar subcore] From SCS\n[core 1, scalar subcore] From SCS\n");
  }
}

TEST(MpmdTest, BothPartsPrintAndSayWhichSubcore) {
  testing::Run run = RunText(kPrints);
  ASSERT_TRUE(run.status.ok()) << run.status << run.diagnostics;
  std::string want;
  for (int c = 0; c < 2; ++c) {
    for (int s = 0; s < 16; ++s) want += "[core " + std::to_string(c) + ", subcore " + std::to_string(s) + "] From TEC\n";
  }
  want += "[core 0, scalar subcore] From SCS\n[core 1, scalar subcore] From SCS\n";
  EXPECT_EQ(run.log, want);
}

// A barrier waits for the subcores of its own part and core: the scalar part
// never reaches one, and the vector part's barrier opens without it.
TEST(MpmdTest, BarriersAreAmongTheSubcoresOfOnePart) {
  testing::Run run = RunText(R"(kernel @b(out %o: hbm<2x16xi32>)
    mesh vector(cores = 2, subcores = 16)
{
  barrier
  debug_print "after"
}
    mesh scalar(cores = 2)
{
  debug_print "scalar"
}
)");
  ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
  EXPECT_NE(run.log.find("[core 1, subcore 15] after"), std::string::npos) << run.log;
}

// sem_signal's (core, subcore) addresses a subcore of the signalling subcore's
// own part: the scalar subcore's signal to core 0 is its own semaphore, not
// vector subcore 0's (which would then hold 2 and fail RT-SYNC). (A scalar part
// naming `subcore` is DEV-3, as on a scalar mesh alone.)
TEST(MpmdTest, SignalsStayInTheirPart) {
  testing::Run run = RunText(R"(kernel @sig(out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%s: sem)
{
  %i = axis_index subcore : i32
  %first = cmp eq %i, 0 : i1
  if %first {
    sem_wait %s, 1
    debug_print "vector subcore 0 was signalled"
  } else {
    sem_signal %s, 1 {core = 0, subcore = 0}
  }
}
    mesh scalar(cores = 1)
    scratch(%s: sem)
{
  sem_signal %s, 1 {core = 0}
  sem_wait %s, 1
  debug_print "scalar subcore signalled itself"
}
)");
  ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
  EXPECT_EQ(run.log, "[core 0, scalar subcore] scalar subcore signalled itself\n"
                     "[core 0, subcore 0] vector subcore 0 was signalled\n");
}

// Pallas' `SemaphoreType.REGULAR(()) @ mesh`: a part names another part's
// semaphore (`%s: sem @vector`) and signals it. The scalar subcore of each core
// hands its row to vector subcore 0 of its core and waits for it back.
constexpr const char kHandoff[] = R"(kernel @handoff(in %x: hbm<2x16xi32>, out %o: hbm<2x16xi32>)
    mesh scalar(cores = 2)
    scratch(%back: sem, %go: sem @vector)
{
  sem_signal %go, 1 {subcore = 0}
  sem_wait %back, 1
  debug_print "scalar subcore has it back"
}
    mesh vector(cores = 2, subcores = 2)
    scratch(%go: sem, %back: sem @scalar, %buf: vmem<16xi32>)
{
  %c = axis_index core : i32
  %s = axis_index subcore : i32
  %first = cmp eq %s, 0 : i1
  if %first {
    sem_wait %go, 1
    copy %x[%c] -> %buf
    %v = get %buf : vector<16xi32>
    %one = const dense<1> : vector<16xi32>
    %w = add %v, %one : vector<16xi32>
    store %buf, %w
    copy %buf -> %o[%c]
    sem_signal %back, 1
  }
}
)";

TEST(MpmdTest, PartsSignalEachOthersSemaphores) {
  testing::Loaded loaded = testing::Load(kHandoff);
  ASSERT_NE(loaded.module, nullptr) << loaded.diagnostics;
  EXPECT_EQ(Print(*loaded.module), kHandoff);
  std::vector<int32_t> x(32);
  for (int i = 0; i < 32; ++i) x[i] = i * 3;
  std::vector<int32_t> expected(32);
  for (int i = 0; i < 32; ++i) expected[i] = i * 3 + 1;
  for (Engine engine : {Engine::kJit, Engine::kInterp}) {
    CompileOptions compile;
    compile.engine = engine;
    testing::Run run = RunText(kHandoff, {{"x", Bytes(x)}}, compile);
    ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
    EXPECT_EQ(run.As<int32_t>("o"), expected);
    EXPECT_EQ(run.log, "[core 0, scalar subcore] scalar subcore has it back\n"
                       "[core 1, scalar subcore] scalar subcore has it back\n");
  }
}

// The same across chips: every subcore of both parts signals the scalar
// subcores' semaphore on every chip (the barrier of JAX's
// test_mpmd_reduce_scatter), and each scalar subcore waits for all of them.
TEST(MpmdTest, AnotherPartsSemaphoreOnAnotherChip) {
  testing::Run run = RunText(R"(kernel @barrier(out %o: hbm<2xi32>)
    mesh scalar(cores = 2)
    devices(x = 2)
    scratch(%arrived: sem)
{
  for %d = 0 to 2 step 1 {
    for %c = 0 to 2 step 1 {
      sem_signal %arrived, 1 {x = %d, core = %c}
    }
  }
  sem_wait %arrived, 12
  debug_print "all arrived"
}
    mesh vector(cores = 2, subcores = 2)
    scratch(%arrived: sem @scalar)
{
  for %d = 0 to 2 step 1 {
    for %c = 0 to 2 step 1 {
      sem_signal %arrived, 1 {x = %d, core = %c}
    }
  }
}
)");
  ASSERT_TRUE(run.ok()) << run.status << run.diagnostics << run.Findings();
  EXPECT_EQ(run.log, "[device 0, core 0, scalar subcore] all arrived\n"
                     "[device 0, core 1, scalar subcore] all arrived\n"
                     "[device 1, core 0, scalar subcore] all arrived\n"
                     "[device 1, core 1, scalar subcore] all arrived\n");
}

// What `@scalar` / `@vector` may name, and what a part may do with it.
TEST(MpmdTest, AnotherPartsSemaphoreIsOnlySignalled) {
  auto check = [](std::string from, std::string to) {
    std::string text = kHandoff;
    size_t at = text.find(from);
    EXPECT_NE(at, std::string::npos) << from;
    return Check(text.replace(at, from.size(), to));
  };
  Checked c = check("  sem_wait %back, 1\n", "  sem_wait %go, 1\n");
  EXPECT_EQ(c.codes, std::vector<std::string>{"IR-OPERAND"});
  EXPECT_NE(c.diagnostics.find("error[IR-OPERAND]: 'sem_wait' %go is a semaphore of the vector part (`@vector`): this "
                               "part can only signal it with sem_signal"),
            std::string::npos)
      << c.diagnostics;
  c = check("%go: sem @vector", "%go: sem @scalar");
  EXPECT_NE(c.diagnostics.find("error[IR-KERNEL]: scratch %go names this part's own mesh (`@scalar`); declare the "
                               "semaphore without it"),
            std::string::npos)
      << c.diagnostics;
  c = check("%go: sem @vector", "%go: vmem<16xi32> @vector");
  EXPECT_NE(c.diagnostics.find("error[IR-KERNEL]: scratch %go is a vmem<16xi32>; only a semaphore can be another "
                               "part's (`@vector`)"),
            std::string::npos)
      << c.diagnostics;
  c = check("%go: sem @vector", "%go: dma_sem @vector");
  EXPECT_NE(c.diagnostics.find("error[IR-KERNEL]: scratch %go is declared dma_sem here and sem in the vector part"),
            std::string::npos)
      << c.diagnostics;
  c = check("scratch(%back: sem, %go: sem @vector)", "scratch(%back: sem, %went: sem @vector)");
  EXPECT_EQ(c.codes.at(0), "IR-UNDEFINED");
  EXPECT_NE(c.diagnostics.find("note: the vector part declares no scratch semaphore %went"), std::string::npos)
      << c.diagnostics;
  c = check("%go: sem @vector", "%go: sem @tensor");
  EXPECT_NE(c.diagnostics.find("error[IR-SYNTAX]: expected '@scalar' or '@vector', found @tensor"), std::string::npos)
      << c.diagnostics;
  // A scalar mesh has no subcore axis, whichever part signals it (Pallas' DEV-3).
  c = check("    sem_signal %back, 1\n", "    sem_signal %back, 1 {subcore = 0}\n");
  EXPECT_EQ(c.codes, std::vector<std::string>{"DEV-3"});
  EXPECT_NE(c.diagnostics.find("note: %back is a semaphore of the scalar part, whose only axis is the core"),
            std::string::npos)
      << c.diagnostics;
  // One part alone has no other part to name.
  c = Check(R"(kernel @k(out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%s: sem @scalar)
{
}
)");
  EXPECT_NE(c.diagnostics.find("error[IR-KERNEL]: scratch %s is a semaphore of the scalar part (`@scalar`), but kernel "
                               "@k has no part on a scalar mesh"),
            std::string::npos)
      << c.diagnostics;
}

// axis_index answers within the part's own mesh, and a finding names the
// subcore with its kind.
TEST(MpmdTest, FindingsNameTheScalarSubcore) {
  testing::Run run = RunText(R"(kernel @f(out %o: hbm<2xi32>)
    mesh vector(cores = 2, subcores = 2)
{
}
    mesh scalar(cores = 2)
    scratch(%row: smem<2xi32>)
{
  %c = axis_index core : i32
  %i = add %c, 1 : i32
  store %row[%i], 5
}
)");
  EXPECT_EQ(run.Findings(), R"(test.scir:10:9: error[RT-BOUNDS]: index 2 is out of bounds for dimension 0 of %row[%i] (size 2)
   10 |   store %row[%i], 5
      |         ^~~~~~~~
note: in kernel @f, scalar subcore (core 1)
)");
}

// A kernel of several parts comes back from the disk cache with every part's
// entry point, and runs the same.
TEST(MpmdTest, ThePartsComeBackFromTheDiskCache) {
  std::string dir = testing::TempDir();
  CompileOptions options;
  options.cache_dir = dir + "/cache";
  std::string text = testing::ReadFile(testing::SourceDir() + "/examples/mpmd_rows.scir");
  std::vector<uint8_t> first;
  for (bool warm : {false, true}) {
    Compiler compiler;  // no memory cache between the two
    absl::StatusOr<Kernel> k = compiler.Compile(Source{"rows.scir", text}, options);
    ASSERT_TRUE(k.ok()) << k.status();
    EXPECT_EQ(k->times().from_disk, warm);
    Buffer x = *Buffer::Allocate(DType::kI32, {34, 16});
    Buffer o = *Buffer::Allocate(DType::kI32, {34, 16});
    for (int i = 0; i < 34 * 16; ++i) x.span<int32_t>()[i] = i;
    absl::StatusOr<LaunchResult> r = k->Launch({x, o});
    ASSERT_TRUE(r.ok() && !r->failed()) << r.status();
    EXPECT_EQ(o.span<int32_t>()[16 * 16], 16 * 16 + 100);
    EXPECT_EQ(o.span<int32_t>()[17 * 16], 17 * 16 + 1);
    EXPECT_EQ(r->stats.subcores, 34);
  }
  std::filesystem::remove_all(dir);
}

TEST(MpmdTest, LayoutOfPartsSurvivesSerialization) {
  LaunchLayout l;
  l.kernel = "k";
  l.entry = "scjit_kernel_k";
  l.cores = 2;
  l.subcores = 16;
  ParamLayout p;
  p.name = "x";
  p.shape = {16};
  l.params.push_back(p);
  LaunchLayout part = l;
  part.mesh = MeshKind::kScalar;
  part.subcores = 1;
  part.entry = "scjit_kernel_k__part1";
  part.smem_bytes = 64;
  l.more_parts.push_back(part);
  absl::StatusOr<LaunchLayout> back = Deserialize(Serialize(l));
  ASSERT_TRUE(back.ok()) << back.status();
  ASSERT_EQ(back->more_parts.size(), 1u);
  EXPECT_EQ(back->more_parts[0].entry, "scjit_kernel_k__part1");
  EXPECT_EQ(back->more_parts[0].mesh, MeshKind::kScalar);
  EXPECT_EQ(back->more_parts[0].smem_bytes, 64);
  // A part whose parameters differ from the kernel's is not a layout scjit wrote.
  l.more_parts[0].params[0].shape = {8};
  EXPECT_FALSE(Deserialize(Serialize(l)).ok());
}

// --- Errors -------------------------------------------------------------------------

TEST(MpmdTest, EveryPartNamesItsMesh) {
  Checked c = Check(R"(kernel @k(in %x: hbm<16xi32>)
{
}
    mesh scalar(cores = 2)
{
}
)");
  EXPECT_EQ(c.diagnostics, R"(k.scir:2:1: error[IR-KERNEL]: kernel @k has 2 parts; each part names its mesh, but this one has no 'mesh' clause
    2 | {
      | ^
)");
}

TEST(MpmdTest, OnePartPerMeshKind) {
  Checked c = Check(R"(kernel @k(in %x: hbm<16xi32>)
    mesh scalar(cores = 2)
{
}
    mesh scalar(cores = 2)
{
}
)");
  EXPECT_EQ(c.diagnostics, R"(k.scir:5:5: error[IR-KERNEL]: kernel @k has a second part on a scalar mesh; a kernel has at most one part per mesh kind
    5 |     mesh scalar(cores = 2)
      |     ^~~~
note: the first scalar part is at k.scir:2:5
)");
}

TEST(MpmdTest, PartsRunOnTheSameCores) {
  Checked c = Check(R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 2, subcores = 16)
{
}
    mesh scalar(cores = 1)
{
}
)");
  EXPECT_EQ(c.diagnostics, R"(k.scir:5:25: error[IR-KERNEL]: the parts of kernel @k run on the same cores, but this mesh has 1 cores and the one at line 2 has 2
    5 |     mesh scalar(cores = 1)
      |                         ^
help: write `cores = 2` on every part's mesh (or on none)
)");
}

// A part sees the parameters and its own scratch, not another part's.
TEST(MpmdTest, ScratchBelongsToItsPart) {
  Checked c = Check(R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 2, subcores = 16)
    scratch(%buf: vmem<16xi32>)
{
}
    mesh scalar(cores = 2)
{
  copy %x -> %buf
}
)");
  EXPECT_EQ(c.codes, std::vector<std::string>{"IR-UNDEFINED"}) << c.diagnostics;
}

TEST(MpmdTest, FurtherPartsTakeNoAttributes) {
  Checked c = Check(R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 2, subcores = 16)
{
}
    mesh scalar(cores = 2)
    attributes { layout_passes = false }
{
}
)");
  EXPECT_EQ(c.codes, std::vector<std::string>{"IR-SYNTAX"}) << c.diagnostics;
  EXPECT_NE(c.diagnostics.find("expected 'scratch' or '{'"), std::string::npos) << c.diagnostics;
}

// Each part is checked by the rules of its own mesh: VMEM is fine in the vector
// part and MESH-15 in the scalar one.
TEST(MpmdTest, RulesApplyPerPart) {
  Checked c = Check(R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 2, subcores = 16)
    scratch(%v: vmem<16xi32>)
{
}
    mesh scalar(cores = 2)
    scratch(%v: vmem<16xi32>)
{
}
)");
  EXPECT_EQ(c.codes, std::vector<std::string>{"MESH-15"}) << c.diagnostics;
  EXPECT_NE(c.diagnostics.find("k.scir:7:13:"), std::string::npos) << c.diagnostics;
}

}  // namespace
}  // namespace scjit
