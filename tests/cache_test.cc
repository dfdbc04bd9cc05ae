// The disk cache of compiled kernels (CompileOptions::cache_dir, jit-run
// --cache-dir / SCJIT_CACHE_DIR): a later compiler loads the code instead of
// compiling it; a truncated, corrupt or foreign entry is one IO-CACHE warning
// and a recompile, never a crash or stale code; several processes may share a
// directory.
#include <filesystem>
#include <algorithm>
#include <fstream>
#include <numeric>
#include <string>
#include <thread>
#include <vector>

#include "gtest/gtest.h"
#include "scjit/scjit.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

namespace fs = std::filesystem;

// The same kernel adding two: another entry.
std::string AddTwo() {
  std::string text = testing::kAddOneKernel;
  text.replace(text.find("dense<1>"), 8, "dense<2>");
  return text;
}

class CacheTest : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::TempDir(); }
  void TearDown() override { fs::remove_all(dir_); }

  CompileOptions Options() const {
    CompileOptions o;
    o.cache_dir = dir_ + "/cache";
    return o;
  }

  // Compiles `text` with a fresh compiler (no memory cache) and checks that the
  // kernel computes x + `add`.
  Kernel CompileAndRun(const std::string& text, int add, CompileOptions options) {
    Compiler compiler;
    absl::StatusOr<Kernel> k = compiler.Compile(Source{"k.scir", text}, options);
    EXPECT_TRUE(k.ok()) << k.status();
    Buffer x = *Buffer::Allocate(DType::kI32, {64, 16});
    Buffer o = *Buffer::Allocate(DType::kI32, {64, 16});
    std::iota(x.span<int32_t>().begin(), x.span<int32_t>().end(), 0);
    absl::StatusOr<LaunchResult> r = k->Launch({x, o});
    EXPECT_TRUE(r.ok() && !r->failed()) << r.status();
    for (int i = 0; i < 64 * 16; ++i) EXPECT_EQ(o.span<int32_t>()[i], i + add) << i;
    return *k;
  }
  Kernel CompileAndRun(const std::string& text, int add) { return CompileAndRun(text, add, Options()); }

  std::vector<std::string> Entries() const {
    std::vector<std::string> out;
    if (!fs::exists(dir_ + "/cache")) return out;
    for (const auto& e : fs::directory_iterator(dir_ + "/cache")) out.push_back(e.path().string());
    std::sort(out.begin(), out.end());
    return out;
  }

  std::string dir_;
};

TEST_F(CacheTest, ALaterCompilerLoadsTheCodeFromDisk) {
  Kernel cold = CompileAndRun(testing::kAddOneKernel, 1);
  EXPECT_FALSE(cold.times().cache_hit);
  EXPECT_TRUE(cold.warnings().empty());
  ASSERT_EQ(Entries().size(), 1u);
  EXPECT_EQ(fs::path(Entries()[0]).extension(), ".scjit");

  Kernel warm = CompileAndRun(testing::kAddOneKernel, 1);
  EXPECT_TRUE(warm.times().cache_hit);
  EXPECT_TRUE(warm.times().from_disk);
  EXPECT_EQ(warm.times().optimize, 0);
  EXPECT_EQ(warm.times().codegen, 0);
  EXPECT_TRUE(warm.warnings().empty());
  EXPECT_EQ(warm.params()[0].type, "hbm<64x16xi32>");
  EXPECT_EQ(Entries().size(), 1u);
}

// Found by frontend_fuzzer: the layout of a kernel with a host<...> parameter did
// not deserialize, so every later compile warned IO-CACHE and compiled again.
TEST_F(CacheTest, KernelsWithHostParametersLoadFromDisk) {
  constexpr char kToHost[] = R"(kernel @k(in %x: hbm<16xi32>, out %o: host<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%sem: dma_sem)
{
  dma_start %x -> %o, %sem
  dma_wait %x -> %o, %sem
}
)";
  for (bool warm : {false, true}) {
    Compiler compiler;
    absl::StatusOr<Kernel> k = compiler.Compile(Source{"k.scir", kToHost}, Options());
    ASSERT_TRUE(k.ok()) << k.status();
    EXPECT_EQ(k->times().from_disk, warm);
    EXPECT_TRUE(k->warnings().empty()) << k->warnings()[0].Render();
  }
}

TEST_F(CacheTest, EverythingThatChangesCodeIsInTheKey) {
  CompileAndRun(testing::kAddOneKernel, 1);
  CompileAndRun(AddTwo(), 2);  // the source
  CompileOptions o = Options();
  o.opt_level = 1;
  CompileAndRun(testing::kAddOneKernel, 1, o);  // the opt level
  o = Options();
  o.target = "v5p";
  CompileAndRun(testing::kAddOneKernel, 1, o);  // the target
  o = Options();
  o.checks.bounds = false;
  CompileAndRun(testing::kAddOneKernel, 1, o);  // bounds checks compiled in or not
  o = Options();
  o.checks.init = o.checks.race = false;
  CompileAndRun(testing::kAddOneKernel, 1, o);  // access checks compiled in or not
  o = Options();
  o.checks.init = false;
  CompileAndRun(testing::kAddOneKernel, 1, o);  // the init check's shadows compiled in or not
  EXPECT_EQ(Entries().size(), 7u);
  // Checks that do not change code share the entry.
  o = Options();
  o.checks.sync = false;
  EXPECT_TRUE(CompileAndRun(testing::kAddOneKernel, 1, o).times().from_disk);
  o.checks.strict = true;  // strict changes what a launch reports, not the code
  EXPECT_TRUE(CompileAndRun(testing::kAddOneKernel, 1, o).times().from_disk);
  EXPECT_EQ(Entries().size(), 7u);
}

// A kernel compiled without access checks is never the code of a compilation
// that asks for them (the memory cache's key is the disk cache's): RT-INIT is
// found whatever was compiled before.
TEST_F(CacheTest, AccessChecksAreNotLostToTheMemoryCache) {
  const std::string text = R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  %v = get %buf[...] : vector<16xi32>
  %i = extract %v[0] : i32
  %w = get %buf[ds(%i, 16)] : vector<16xi32>
  store %buf[...], %w
  copy %buf -> %o
}
)";
  // Compiled first without the init check: bounds alone, and with the race
  // check (whose access checks the init check's code is not).
  for (auto [engine, race] : {std::pair{Engine::kJit, false}, std::pair{Engine::kInterp, false},
                              std::pair{Engine::kJit, true}, std::pair{Engine::kInterp, true}}) {
    Compiler compiler;
    CompileOptions bounds_only;
    bounds_only.engine = engine;
    bounds_only.checks = Checks::None();
    bounds_only.checks.bounds = true;
    bounds_only.checks.race = race;
    ASSERT_TRUE(compiler.Compile(Source{"k.scir", text}, bounds_only).ok());
    CompileOptions all;
    all.engine = engine;
    absl::StatusOr<Kernel> k = compiler.Compile(Source{"k.scir", text}, all);
    ASSERT_TRUE(k.ok()) << k.status();
    EXPECT_FALSE(k->times().cache_hit);
    Buffer x = *Buffer::Allocate(DType::kI32, {16});
    Buffer o = *Buffer::Allocate(DType::kI32, {16});
    absl::StatusOr<LaunchResult> r = k->Launch({x, o});
    ASSERT_TRUE(r.ok()) << r.status();
    const std::string init =
        "k.scir:7:20: error[RT-INIT]: the slice start of get %buf[ds(%i, 16)] is unwritten: %i was read from %buf[0] "
        "at k.scir:5:8, which nothing has written\n";
    EXPECT_EQ(r->RenderFindings().substr(0, init.size()), init) << EngineName(engine);
  }
}

TEST_F(CacheTest, FindingsOfACachedKernelNameItsFile) {
  const std::string bad = R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>, %s: dma_sem)
{
  dma_start %x -> %buf, %s
}
)";
  for (const char* name : {"first.scir", "second.scir"}) {
    Compiler compiler;
    absl::StatusOr<Kernel> k = compiler.Compile(Source{name, bad}, Options());
    ASSERT_TRUE(k.ok()) << k.status();
    Buffer x = *Buffer::Allocate(DType::kI32, {16});
    absl::StatusOr<LaunchResult> r = k->Launch({x});
    ASSERT_TRUE(r.ok());
    ASSERT_EQ(r->findings.size(), 1u);
    EXPECT_EQ(r->findings[0].code, "RT-SYNC");
    EXPECT_EQ(r->findings[0].file, name);
    EXPECT_EQ(r->findings[0].loc.line, 5);
    EXPECT_EQ(r->findings[0].source_line, "  dma_start %x -> %buf, %s");
  }
}

// Each way an entry can go bad: one warning, the kernel compiled again (and
// right), the entry replaced so the next compiler hits it.
TEST_F(CacheTest, BadEntriesAreReportedAndReplaced) {
  struct Damage {
    const char* name;
    void (*apply)(const std::string& path);
    const char* reason;
  };
  const Damage damages[] = {
      {"truncated", [](const std::string& p) { fs::resize_file(p, fs::file_size(p) / 2); },
       "is ignored: the file is truncated ("},
      {"header only", [](const std::string& p) { fs::resize_file(p, 10); }, "is ignored: the file is truncated"},
      {"empty", [](const std::string& p) { fs::resize_file(p, 0); }, "is ignored: the file is truncated"},
      {"flipped byte",
       [](const std::string& p) {
         std::fstream f(p, std::ios::in | std::ios::out | std::ios::binary);
         f.seekp(static_cast<std::streamoff>(fs::file_size(p) - 100));
         f.put('\x7f');
       },
       "is ignored: its checksum does not match (the file is corrupt)"},
      {"not ours",
       [](const std::string& p) { std::ofstream(p) << "#!/bin/sh\n# not a cache entry, but long enough to be one\n"; },
       "is ignored: it is not a scjit cache entry"},
      {"appended", [](const std::string& p) { std::ofstream(p, std::ios::app) << "more"; },
       "is ignored: the file has bytes past its end"},
  };
  for (const Damage& d : damages) {
    SCOPED_TRACE(d.name);
    fs::remove_all(dir_ + "/cache");
    CompileAndRun(testing::kAddOneKernel, 1);
    ASSERT_EQ(Entries().size(), 1u);
    std::string entry = Entries()[0];
    d.apply(entry);
    Kernel again = CompileAndRun(testing::kAddOneKernel, 1);
    EXPECT_FALSE(again.times().from_disk);
    ASSERT_EQ(again.warnings().size(), 1u);
    const Diagnostic& w = again.warnings()[0];
    EXPECT_EQ(w.code, "IO-CACHE");
    EXPECT_EQ(w.severity, Severity::kWarning);
    std::string prefix = "cache entry '" + entry + "' " + d.reason;
    EXPECT_EQ(w.message.substr(0, prefix.size()), prefix) << w.message;
    EXPECT_NE(w.message.find("; the kernel is compiled again"), std::string::npos) << w.message;
    Kernel healed = CompileAndRun(testing::kAddOneKernel, 1);
    EXPECT_TRUE(healed.times().from_disk);
    EXPECT_TRUE(healed.warnings().empty());
  }
}

// A well-formed entry of another kernel under this kernel's name (a copied file,
// a hash collision) is refused: never the other kernel's code.
TEST_F(CacheTest, AForeignEntryIsNeverRun) {
  CompileAndRun(testing::kAddOneKernel, 1);
  std::string one = Entries()[0];
  CompileAndRun(AddTwo(), 2);
  std::vector<std::string> both = Entries();
  std::string two = both[0] == one ? both[1] : both[0];
  fs::copy_file(two, one, fs::copy_options::overwrite_existing);
  Kernel k = CompileAndRun(testing::kAddOneKernel, 1);  // adds one, not two
  ASSERT_EQ(k.warnings().size(), 1u);
  EXPECT_EQ(k.warnings()[0].message,
            "cache entry '" + one + "' is ignored: it was written for another kernel or build; the kernel is "
            "compiled again");
}

TEST_F(CacheTest, AnUnwritableDirectoryIsAWarning) {
  std::ofstream(dir_ + "/cache") << "a file, not a directory";
  Kernel k = CompileAndRun(testing::kAddOneKernel, 1);
  ASSERT_EQ(k.warnings().size(), 1u);
  EXPECT_EQ(k.warnings()[0].code, "IO-CACHE");
  EXPECT_NE(k.warnings()[0].message.find("is not written: cannot create its directory"), std::string::npos)
      << k.warnings()[0].message;
}

// jit-run: --cache-dir and SCJIT_CACHE_DIR, the report's cache_hit, several
// processes writing one directory at once.
TEST_F(CacheTest, JitRunSharesTheCacheAcrossProcesses) {
  std::string kernel = testing::SourceDir() + "/examples/add_one_manual.scir";
  std::string cache = dir_ + "/cache";
  std::string run = std::string("'") + SCJIT_JIT_RUN + "' '" + kernel + "' --cache-dir '" + cache + "'";
  // Four processes compile the same kernel into an empty directory at once.
  std::string parallel;
  for (int i = 0; i < 4; ++i) parallel += run + " --report '" + dir_ + "/r" + std::to_string(i) + ".json' & ";
  testing::CommandResult all = testing::RunCommand(parallel + "wait");
  EXPECT_EQ(all.exit_code, 0) << all.err;
  EXPECT_EQ(all.err, "");
  ASSERT_EQ(Entries().size(), 1u);  // no temporary file left behind
  testing::CommandResult r = testing::RunCommand(run + " --report '" + dir_ + "/warm.json'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  std::string report = testing::ReadFile(dir_ + "/warm.json");
  EXPECT_NE(report.find("\"cache_hit\": true, \"cache\": \"disk\""), std::string::npos) << report;
  // The environment variable names the same directory.
  r = testing::RunCommand("SCJIT_CACHE_DIR='" + cache + "' '" + SCJIT_JIT_RUN + "' '" + kernel + "' --report '" +
                          dir_ + "/env.json'");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(testing::ReadFile(dir_ + "/env.json").find("\"cache\": \"disk\""), std::string::npos);
  // A corrupt entry: one warning on stderr, the right output, exit 0.
  fs::resize_file(Entries()[0], 64);
  r = testing::RunCommand(run);
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err.substr(0, 30), "warning[IO-CACHE]: cache entry");
  EXPECT_EQ(std::count(r.err.begin(), r.err.end(), '\n'), 1) << r.err;
  EXPECT_NE(r.out.find("= [1, 2, 3, 4, ..., 32765, 32766, 32767, 32768]"), std::string::npos) << r.out;
}

}  // namespace
}  // namespace scjit
