// Generated kernels point at the user's source (lowering/base/origins.h): an op's
// `loc("file.py":L:C)` moves its diagnostics and run-time findings to that line,
// the printer keeps it, and the disk cache keeps it in the launch layout.
#include <sys/stat.h>

#include <chrono>
#include <filesystem>
#include <fstream>
#include <string>

#include "gtest/gtest.h"
#include "lowering/base/origins.h"
#include "scjit/scjit.h"
#include "tests/kernel_runner.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

// A diagnostic moved to an origin: its code, its place and the line it shows.
void ExpectAt(const Diagnostic& d, const std::string& code, const std::string& file, Location loc,
              const std::string& line) {
  EXPECT_EQ(d.code, code);
  EXPECT_EQ(d.file, file);
  EXPECT_EQ(d.loc, loc);
  EXPECT_EQ(d.source_line, line);
}

class OriginsTest : public ::testing::Test {
 protected:
  void SetUp() override {
    dir_ = testing::TempDir();
    py_ = dir_ + "/kernel.py";
    std::ofstream(py_) << "def kernel(x_ref, o_ref, buf):\n"
                          "  idx = jax.lax.axis_index('core')\n"
                          "  pltpu.sync_copy(x_ref.at[idx], buf)\n"
                          "  o_ref[...] = buf[...] + 1\n";
  }
  // A kernel whose ops come from kernel.py, with `body` last.
  std::string KernelText(const std::string& body) const {
    std::string at = "loc(\"" + py_ + "\":";
    return "kernel @k(in %x: hbm<2x16xi32>, out %o: hbm<2x16xi32>)\n"
           "    mesh vector(cores = 1, subcores = 1)\n"
           "    scratch(%buf: vmem<16xi32>)\n"
           "{\n"
           "  %idx = axis_index core : i32 " + at + "2:9)\n" +
           body + "}\n";
  }
  std::string dir_, py_;
};

TEST_F(OriginsTest, DiagnosticsPointAtTheUsersLine) {
  Compiler compiler;
  std::string at = "loc(\"" + py_ + "\":4:3)";
  absl::StatusOr<Kernel> k = compiler.Compile(Source{"gen.scir", KernelText("  %v = get %buf : vector<16xi32> " + at + "\n"
                                                                         "  store %o[0], %v " + at + "\n")});
  ASSERT_FALSE(k.ok());
  EXPECT_EQ(std::string(k.status().message()),
            py_ + ":4:3: error[SWAP-1]: NotImplementedError: Swap does not support storing to HBM. Copy the data to "
                  "a core-local memory space, e.g. VMEM, via `pltpu.async_copy`.\n"
                  "    4 |   o_ref[...] = buf[...] + 1\n"
                  "      |   ^\n"
                  "note: in the kernel file at gen.scir:7:9: store %o[0], %v\n"
                  "note: %o is hbm<2x16xi32>\n"
                  "help: stage the value in a vmem scratch ref and `copy` it out, or use `dma_start`");
}

TEST_F(OriginsTest, AMissingSourceFileLeavesTheLineOut) {
  Compiler compiler;
  absl::StatusOr<Kernel> k = compiler.Compile(Source{"gen.scir", KernelText("  %y = get %buf[7] : i32 loc(\"gone.py\":9:7)\n")});
  ASSERT_FALSE(k.ok());
  std::vector<Diagnostic> d = DiagnosticsOf(k.status());
  ASSERT_EQ(d.size(), 1u);
  ExpectAt(d[0], "GET-5", "gone.py", Location{9, 7, 1}, "");
  EXPECT_EQ(d[0].notes[0], "in the kernel file at gen.scir:6:12: %y = get %buf[7] : i32");
}

TEST_F(OriginsTest, FindingsPointAtTheUsersLineAlsoFromTheDiskCache) {
  std::string source = KernelText("  copy %x[%idx] -> %buf loc(\"" + py_ + "\":3:3)\n"
                              "  %j = const 5 : i32\n"
                              "  copy %buf -> %o[%j] loc(\"" + py_ + "\":3:3)\n");
  CompileOptions options;
  options.cache_dir = dir_ + "/cache";
  for (bool from_disk : {false, true}) {
    Compiler compiler;  // a new one: the second compilation comes from the disk
    absl::StatusOr<Kernel> k = compiler.Compile(Source{"gen.scir", source}, options);
    ASSERT_TRUE(k.ok()) << k.status().message();
    EXPECT_EQ(k->times().from_disk, from_disk);
    absl::StatusOr<std::vector<Buffer>> args = k->AllocateParams();
    ASSERT_TRUE(args.ok());
    absl::StatusOr<LaunchResult> run = k->Launch(*args);
    ASSERT_TRUE(run.ok());
    ASSERT_EQ(run->findings.size(), 1u);
    const Diagnostic& f = run->findings[0];
    EXPECT_EQ(f.code, "RT-BOUNDS");
    EXPECT_EQ(f.file, py_);
    EXPECT_EQ(f.loc, (Location{3, 3, 1}));
    EXPECT_EQ(f.source_line, "  pltpu.sync_copy(x_ref.at[idx], buf)");
    EXPECT_EQ(f.message, "index 5 is out of bounds for dimension 0 of %buf -> %o[%j] (size 2)");
  }
}

TEST_F(OriginsTest, ThePrinterKeepsOrigins) {
  std::string path = dir_ + "/gen.scir";
  std::ofstream(path) << KernelText("  %v = get %buf : vector<16xi32> loc(\"k.py\":4:16)\n");
  testing::CommandResult r = testing::RunCommand("'" SCJIT_JIT_RUN "' '" + path + "' --emit ir");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("  %idx = axis_index core : i32 loc(\"" + py_ + "\":2:9)\n"), std::string::npos) << r.out;
  EXPECT_NE(r.out.find("  %v = get %buf : vector<16xi32> loc(\"k.py\":4:16)\n"), std::string::npos) << r.out;
}

TEST_F(OriginsTest, AMalformedOriginIsASyntaxError) {
  testing::Checked c = testing::Check(KernelText("  %v = get %buf : vector<16xi32> loc(\"k.py\":0:1)\n"), "", "gen.scir");
  EXPECT_EQ(c.diagnostics, "gen.scir:6:45: error[IR-SYNTAX]: expected a line number (1 or more), found 0\n"
                           "    6 |   %v = get %buf : vector<16xi32> loc(\"k.py\":0:1)\n"
                           "      |                                             ^\n");
  c = testing::Check(KernelText("  %v = get %buf : vector<16xi32> loc(k.py)\n"), "", "gen.scir");
  EXPECT_EQ(c.codes, std::vector<std::string>{"IR-SYNTAX"});
}

// Found while fuzzing: an origin naming a device or a pipe made the compiler read
// it for every diagnostic and every site of the op, without end (/dev/zero took
// 14 GB and a minute, a FIFO blocked forever). Only regular files are read, each
// once, kMaxOriginBytes of them at most in all.
TEST_F(OriginsTest, OnlyRegularFilesAreReadEachOnceWithinALimit) {
  std::string fifo = dir_ + "/fifo";
  ASSERT_EQ(mkfifo(fifo.c_str(), 0600), 0);
  OriginMap origins;
  EXPECT_EQ(origins.SourceLine(py_, 3), "  pltpu.sync_copy(x_ref.at[idx], buf)");
  EXPECT_EQ(origins.SourceLine("/dev/zero", 2), "");
  EXPECT_EQ(origins.SourceLine(fifo, 1), "");
  EXPECT_EQ(origins.SourceLine(dir_, 1), "");  // a directory
  std::filesystem::remove(py_);
  EXPECT_EQ(origins.SourceLine(py_, 3), "  pltpu.sync_copy(x_ref.at[idx], buf)");  // read once

  std::string big = dir_ + "/big.py";
  std::ofstream(big) << "x = 1\n";
  std::filesystem::resize_file(big, kMaxOriginBytes);  // the rest is a hole of zeros
  EXPECT_EQ(origins.SourceLine(big, 1), "");  // with kernel.py it would exceed the limit
  EXPECT_EQ(OriginMap().SourceLine(big, 1), "x = 1");  // alone it fits

  Compiler compiler;
  auto start = std::chrono::steady_clock::now();
  absl::StatusOr<Kernel> k = compiler.Compile(
      Source{"gen.scir", KernelText("  %y = get %buf[7] : i32 loc(\"/dev/zero\":2:7)\n"
                                    "  %z = get %buf[8] : i32 loc(\"" + fifo + "\":1:3)\n")});
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took.count(), 60) << "seconds";
  ASSERT_FALSE(k.ok());
  std::vector<Diagnostic> d = DiagnosticsOf(k.status());
  ASSERT_EQ(d.size(), 2u);
  ExpectAt(d[0], "GET-5", "/dev/zero", Location{2, 7, 1}, "");
  ExpectAt(d[1], "GET-5", fifo, Location{1, 3, 1}, "");
}

}  // namespace
}  // namespace scjit
