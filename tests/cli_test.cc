// jit-run as a user runs it: exit codes, stdout and the exact stderr text.
#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <regex>
#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "lowering/base/diagnostic.h"
#include "lowering/ir/printer.h"
#include "scjit/io.h"
#include "scjit/types.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

using testing::CommandResult;
using testing::RunCommand;

constexpr const char kUsageHelp[] = "help: run `jit-run --help` for the options\n";

// The example kernels: examples/*.scir and the guide's, examples/guide/*.scir (not
// examples/errors/, whose kernels are rejected on purpose).
std::vector<std::string> ExampleFiles() {
  std::vector<std::string> files = testing::FilesIn("examples", ".scir");
  std::vector<std::string> guide = testing::FilesIn("examples/guide", ".scir");
  files.insert(files.end(), guide.begin(), guide.end());
  return files;
}

// The target a kernel file names (`target "v6e"`), else the default, v7x.
std::string OwnTarget(const std::string& path) {
  std::smatch m;
  std::string text = testing::ReadFile(path);
  if (std::regex_search(text, m, std::regex(R"re((^|\n)target "(\w+)")re"))) return m[2];
  return "v7x";
}

class CliTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "scjit-cli-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  // Runs jit-run from inside the temporary directory (so paths in messages are
  // short and stable).
  CommandResult Run(const std::string& args) {
    return RunCommand("cd '" + dir_ + "' && '" SCJIT_JIT_RUN "' " + args);
  }
  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ + "/" + name) << text; }
  // Writes `text` as `name` and runs jit-run on it with `args`: the exit code and
  // the first line of stderr.
  std::pair<int, std::string> FirstLine(const std::string& name, const std::string& text, const std::string& args = "") {
    Write(name, text);
    CommandResult r = Run(name + " " + args);
    return {r.exit_code, r.err.substr(0, r.err.find('\n'))};
  }
  std::string Example(const std::string& name) { return "'" + testing::SourceDir() + "/examples/" + name + "'"; }

  std::string dir_;
};

TEST_F(CliTest, HelpListsTheOptions) {
  CommandResult r = Run("--help");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.out.substr(0, r.out.find('\n')), "usage: jit-run KERNEL.scir [options]");
  for (const char* option : {"--kernel", "--target", "--in", "--out", "--expect", "--engine", "-O", "--threads",
                             "--deterministic", "--seed", "--dma", "--check", "--unchecked", "--emit", "--time",
                             "--repeat", "--report", "--cache-dir", "--explain", "--save-inputs", "--devices", "--jax",
                             "--target-info [CHIP]"}) {
    EXPECT_NE(r.out.find(std::string("\n  ") + option), std::string::npos) << option;
  }
  EXPECT_EQ(r.err, "");
}

TEST_F(CliTest, UsageErrorsExitTwo) {
  struct Case {
    std::string args, err;
  };
  const Case cases[] = {
      {"", "error[IO-USAGE]: no kernel file given: jit-run KERNEL.scir [options]\n"},
      {"k.scir --frobnicate", "error[IO-USAGE]: unknown option '--frobnicate'\n"},
      {"k.scir -O7", "error[IO-USAGE]: unknown option '-O7'; optimization levels are -O0, -O1, -O2 and -O3\n"},
      {"k.scir --target v9", "error[IO-USAGE]: unknown target 'v9'; expected one of v5p, v6e, v7x, v8i, v8t\n"},
      {"k.scir --target v7x --target v5p", "error[IO-USAGE]: option '--target' is given twice\n"},
      {"k.scir --in", "error[IO-USAGE]: option '--in' needs a value: --in NAME=SOURCE\n"},
      {"k.scir --in x", "error[IO-USAGE]: option '--in' takes NAME=SOURCE, got 'x'\n"},
      {"k.scir --in x=zeros --in %x=ones", "error[IO-USAGE]: option '--in' binds %x twice\n"},
      {"k.scir --threads 0", "error[IO-USAGE]: option '--threads' takes 1 to 1024 threads, got 0\n"},
      {"k.scir --threads two", "error[IO-USAGE]: option '--threads' needs a number, got 'two'\n"},
      {"k.scir --emit=bitcode", "error[IO-USAGE]: option '--emit' takes ir, llvm, llvm-opt or asm, got 'bitcode'\n"},
      {"k.scir --check=races",
       "error[IO-USAGE]: option '--check' takes all, none, warn, strict or a list of bounds,init,race,sync,strict; got "
       "'races'\n"},
      {"k.scir --deterministic --seed 3", "error[IO-USAGE]: --deterministic and --seed exclude each other\n"},
      {"--jax k.scir", "error[IO-USAGE]: option '--jax' takes a JAX release from 0.10.2 to 0.12.1, not 'k.scir'\n"},
      {"k.scir --jax 0.13.0", "error[IO-USAGE]: option '--jax' takes a JAX release from 0.10.2 to 0.12.1, not '0.13.0'\n"},
      {"a.scir b.scir", "error[IO-USAGE]: one kernel file is run at a time, got 'a.scir' and 'b.scir'\n"},
      {"--explain NOPE-1", "error[IO-USAGE]: unknown diagnostic code 'NOPE-1'\n"},
      {"k.scir --devices", "error[IO-USAGE]: option '--devices' needs a value: --devices N|AXIS=N,...\n"},
  };
  for (const Case& c : cases) {
    CommandResult r = Run(c.args);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_EQ(r.err, c.err + kUsageHelp) << c.args;
    EXPECT_EQ(r.out, "") << c.args;
  }
}

TEST_F(CliTest, ExplainPrintsTheCatalogEntry) {
  for (const DiagInfo& info : AllDiagnostics()) {
    CommandResult r = Run("--explain " + std::string(info.code));
    EXPECT_EQ(r.exit_code, 0) << info.code;
    EXPECT_EQ(r.out, Explain(info.id)) << info.code;
  }
}

TEST_F(CliTest, UnreadableFilesExitTwo) {
  CommandResult r = Run("missing.scir");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error[IO-OPEN]: cannot read 'missing.scir': No such file or directory\n");
  std::filesystem::create_directory(dir_ + "/d.scir");
  r = Run("d.scir");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error[IO-OPEN]: cannot read 'd.scir': it is a directory\n");
}

TEST_F(CliTest, RejectedKernelsExitThreeWithEveryDiagnostic) {
  Write("bad.scir", R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %a = add %b, 1 : i32
  %c = const 300 : i8
}
)");
  CommandResult r = Run("bad.scir --emit ir");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, R"(bad.scir:4:12: error[IR-UNDEFINED]: use of undefined value %b
    4 |   %a = add %b, 1 : i32
      |            ^~
bad.scir:5:14: error[IR-LITERAL]: literal 300 does not fit in i8
    5 |   %c = const 300 : i8
      |              ^~~
)");
}

TEST_F(CliTest, EmitIrPrintsTheVerifiedModule) {
  Write("k.scir", testing::kAddOneKernel);
  CommandResult r = Run("k.scir --emit ir");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  EXPECT_EQ(r.out, testing::kAddOneKernel);

  // Every example re-parses to identical output.
  for (const std::string& path : ExampleFiles()) {
    CommandResult first = Run("'" + path + "' --emit ir");
    ASSERT_EQ(first.exit_code, 0) << path << first.err;
    Write("printed.scir", first.out);
    CommandResult second = Run("printed.scir --emit ir");
    EXPECT_EQ(second.exit_code, 0) << path;
    EXPECT_EQ(second.out, first.out) << path;
  }
}

TEST_F(CliTest, KernelSelection) {
  Write("two.scir", std::string(testing::kAddOneKernel) + "\n" +
                        "kernel @other(in %x: hbm<16xi32>)\n    mesh vector(cores = 1, subcores = 1)\n{\n}\n");
  CommandResult r = Run("two.scir");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, std::string("error[IO-USAGE]: 'two.scir' defines 2 kernels (@add_one, @other); choose one with "
                               "--kernel\n") +
                       kUsageHelp);
  r = Run("two.scir --kernel @nope --emit ir");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, std::string("error[IO-USAGE]: 'two.scir' has no kernel @nope\n") + kUsageHelp);
  r = Run("two.scir --emit ir");
  EXPECT_EQ(r.exit_code, 0);
}

TEST_F(CliTest, InputsAreCheckedAgainstTheirParameters) {
  Write("k.scir", testing::kAddOneKernel);
  ASSERT_TRUE(WriteNpy(dir_ + "/shape.npy", *Buffer::Allocate(DType::kI32, {64, 8})).ok());
  ASSERT_TRUE(WriteNpy(dir_ + "/dtype.npy", *Buffer::Allocate(DType::kF32, {64, 16})).ok());
  Write("garbage.npy", "not an array");

  CommandResult r = Run("k.scir --in x=shape.npy");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "error[IO-SHAPE]: shape mismatch for %x (hbm<64x16xi32>): the kernel expects (64, 16), 'shape.npy' has "
            "(64, 8)");
  r = Run("k.scir --in x=dtype.npy");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "error[IO-DTYPE]: dtype mismatch for %x (hbm<64x16xi32>): the kernel expects int32, 'dtype.npy' has "
            "float32");
  r = Run("k.scir --in x=garbage.npy");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find(']')), "error[IO-NPY-FORMAT");
  r = Run("k.scir --in x=absent.npy");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error[IO-OPEN]: cannot read 'absent.npy': No such file or directory\n");
  r = Run("k.scir --in y=zeros");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, std::string("error[IO-USAGE]: kernel @add_one has no parameter %y (its parameters: %x, %o)\n") +
                       kUsageHelp);
  r = Run("k.scir --in o=zeros");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, std::string("error[IO-USAGE]: %o is an out parameter; --in binds in and inout parameters\n") +
                       kUsageHelp);
  r = Run("k.scir --in x=randint:5:5");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find(']')), "error[IO-USAGE");
}

TEST_F(CliTest, RunsAKernelAndSummarizesItsOutputs) {
  Write("k.scir", testing::kAddOneKernel);
  CommandResult r = Run("k.scir");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // iota + 1: 1 ... 1024, and the FNV-1a hash of those bytes.
  EXPECT_EQ(r.out.substr(0, r.out.find(" fnv1a64=")), "%o: int32 (64, 16) = [1, 2, 3, 4, ..., 1021, 1022, 1023, 1024]");
  // The worked example of kernel-ir.md §5 on 16- and 8-lane targets.
  for (const char* target : {"v7x", "v5p"}) {
    r = Run(Example("add_one_manual.scir") + " --target " + target);
    EXPECT_EQ(r.exit_code, 0) << target << r.err;
    EXPECT_EQ(r.out.substr(0, r.out.find(" fnv1a64=")),
              "%o: int32 (32, 1024) = [1, 2, 3, 4, ..., 32765, 32766, 32767, 32768]")
        << target;
  }
}

// A kernel on a device mesh: one array per chip in and out, and --devices.
TEST_F(CliTest, DevicesGiveEveryArrayALeadingChipAxis) {
  CommandResult r = Run(Example("collective_permute.scir"));
  EXPECT_EQ(r.exit_code, 0) << r.err;
  // y[d] = x[(d + 3) % 4] of iota over (4, 8, 128).
  EXPECT_EQ(r.out.substr(0, r.out.find(" fnv1a64=")),
            "%y: int32 (4, 8, 128) = [3072, 3073, 3074, 3075, ..., 3068, 3069, 3070, 3071]");
  r = Run(Example("collective_permute.scir") + " --devices 2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find(" fnv1a64=")),
            "%y: int32 (2, 8, 128) = [1024, 1025, 1026, 1027, ..., 1020, 1021, 1022, 1023]");
  r = Run(Example("collective_permute_2d.scir") + " --devices 8");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, std::string("error[IO-USAGE]: --devices 8 resizes the device axis of kernel @collective_permute_2d, which has "
                   "2 device axes; name the axes and their sizes: --devices y=2,x=4\n") +
                       kUsageHelp);
  r = Run(Example("collective_permute_2d.scir") + " --devices y=3,x=2");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out.substr(0, r.out.find(" = [")), "%o: int32 (6, 8, 128)");
  r = Run(Example("collective_permute.scir") + " --devices x=0");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, std::string("error[IO-USAGE]: --devices 'x=0': 'x=0' is not AXIS=SIZE with a size of 1 to 4096; give a count "
                   "(4) or every axis and its size (y=2,x=4)\n") +
                       kUsageHelp);
  r = Run(Example("collective_permute.scir") + " --in x=zeros --out y=y.npy");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  r = Run(Example("collective_permute.scir") + " --devices 2 --in x=y.npy");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "error[IO-SHAPE]: shape mismatch for %x (hbm<8x128xi32> on each of 2 devices): the kernel expects (2, 8, "
            "128), 'y.npy' has (4, 8, 128)");
}

TEST_F(CliTest, OutputsAndExpectations) {
  Write("k.scir", testing::kAddOneKernel);
  CommandResult r = Run("k.scir --in x=fill:41 --out o=o.npy");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "");  // --out replaces the summary
  absl::StatusOr<Buffer> o = ReadNpy(dir_ + "/o.npy");
  ASSERT_TRUE(o.ok());
  EXPECT_EQ(o->shape(), (std::vector<int64_t>{64, 16}));
  std::vector<int32_t> values(64 * 16);
  std::memcpy(values.data(), o->data(), o->bytes());
  EXPECT_EQ(values, std::vector<int32_t>(64 * 16, 42));

  r = Run("k.scir --in x=fill:41 --expect o=o.npy");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  r = Run("k.scir --in x=fill:40 --expect o=o.npy");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err, R"(error[IO-EXPECT]: %o: 1024 of 1024 elements differ from the expectation
note: at [0, 0]: got 41, expected 42
note: at [0, 1]: got 41, expected 42
note: at [0, 2]: got 41, expected 42
note: at [0, 3]: got 41, expected 42
note: at [0, 4]: got 41, expected 42
help: write the output with --out NAME=FILE.npy to compare it yourself; floats compare bitwise unless --rtol or --atol is given
)");
  r = Run("k.scir --expect x=o.npy");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, std::string("error[IO-USAGE]: %x is an in parameter; --expect binds out and inout parameters\n") +
                       kUsageHelp);
}

TEST_F(CliTest, TimeAndReport) {
  Write("k.scir", testing::kAddOneKernel);
  CommandResult r = Run("k.scir --time --repeat 3 --report r.json --threads 2");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("\ncompile: parse "), std::string::npos) << r.out;
  EXPECT_NE(r.out.find(" over 3 launches; "), std::string::npos) << r.out;
  std::string json = testing::ReadFile(dir_ + "/r.json");
  for (const char* key : {"\"compile_ms\": {\"parse\": ", "\"verify\": ", "\"lower\": ", "\"optimize\": ",
                          "\"codegen\": ", "\"total\": ", "\"cache_hit\": false", "\"run_ms\": {\"median\": ",
                          "\"min\": ", "\"max\": ", "\"repeat\": 3", "\"dma_bytes\": 8192",
                          "\"ops\": {\"copy\": 128}", "\"subcores\": 16", "\"threads\": 2"}) {
    EXPECT_NE(json.find(key), std::string::npos) << key << " in " << json;
  }
}

TEST_F(CliTest, RejectedAndFailingKernels) {
  // A seed error: exit 3 with Pallas' text.
  CommandResult r = Run(Example("errors/SWAP-5.scir"));
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_NE(r.err.find("error[SWAP-5]: NotImplementedError: Swap does not support masked scalar stores\n"),
            std::string::npos);
  // A pipeline's indirect block whose list is in HBM: the DMA rule's code and
  // text, as for a `copy` with the same list (DMA-21), exit 3.
  Write("pipe.scir", R"(kernel @k(in %t: hbm<64x16xf32>, inout %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(4)
      in(%t, block [indirect(16), 16], map (%j) -> (idx(%o), 0))
      body(%tv: vmem<16x16xf32>) {
  }
}
)");
  r = Run("pipe.scir");
  EXPECT_EQ(r.exit_code, 3);
  EXPECT_EQ(r.err, R"(pipe.scir:5:53: error[DMA-21]: NotImplementedError: Indices for scatter/gather via `pltpu.async_copy` must be in VMEM, got HBM
    5 |       in(%t, block [indirect(16), 16], map (%j) -> (idx(%o), 0))
      |                                                     ^~~~~~~
note: the index list %o : hbm<16xi32> is in HBM
help: `copy` the indices into a vmem scratch ref first
)");
  // A run-time finding: exit 1.
  Write("dead.scir", std::string(Info(*DiagIdFromCode("RT-DEADLOCK")).bad));
  r = Run("dead.scir --threads 1");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err.substr(0, r.err.find('\n')),
            "dead.scir:8:5: error[RT-DEADLOCK]: kernel @k cannot progress: 1 subcore is blocked");
  // Unchecked: no bounds check, no finding, no crash.
  Write("oob.scir", std::string(Info(*DiagIdFromCode("RT-BOUNDS")).bad));
  r = Run("oob.scir");
  EXPECT_EQ(r.exit_code, 1);
  r = Run("oob.scir --unchecked");
  EXPECT_EQ(r.exit_code, 0) << r.err;
}

// Parameters the host cannot hold are an input error (IO-MEMORY, exit 2) before
// anything is allocated or generated, not an abort; one beyond the target's
// memories is rejected (exit 3).
TEST_F(CliTest, SizesBeyondTheHostOrTheTargetFailCleanly) {
  Write("big.scir", R"(kernel @k(in %a: hbm<1048576x1048576xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
{
}
)");
  CommandResult r = Run("big.scir");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, "error[IO-MEMORY]: cannot allocate 4398046511168 bytes for the buffers of kernel @k: the host has " +
                       std::to_string(Buffer::HostMemoryBytes()) +
                       " bytes of memory\nhelp: make the arrays smaller (a parameter's shape, or fewer --repeat "
                       "copies), or run on a host with more memory\n");
  // The target's capacity rule bounds what a subcore has (MESH-SEMAPHORES),
  // however far beyond it a count goes.
  EXPECT_EQ(FirstLine("sems.scir", R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%s: sem<2147483648>)
{
}
)"),
            std::pair(3, std::string("sems.scir:3:13: error[MESH-SEMAPHORES]: the kernel needs 2147483648 semaphores "
                                     "per subcore; v7x has 1024")));
  EXPECT_EQ(FirstLine("sems.scir", R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%s: sem<4096>)
{
}
)"),
            std::pair(3, std::string("sems.scir:3:13: error[MESH-SEMAPHORES]: the kernel needs 4096 semaphores "
                                     "per subcore; v7x has 1024")));
}

// --time-limit bounds the whole run from the inputs' generation on (the
// compile before has the limit too): a large input stops with RT-TIMEOUT
// (exit 1) while it is generated, and a staged parameter beyond the target's
// SMEM is rejected at once instead of being filled. (An empty kernel compiles
// in a few tens of ms; 2^28 elements take seconds to generate.)
TEST_F(CliTest, TimeLimitBoundsInputGenerationToo) {
  Write("gen.scir", R"(kernel @k(inout %a: hbm<268435456xi32>)
    mesh vector(cores = 1, subcores = 1)
{
}
)");
  CommandResult r = Run("gen.scir --time-limit 0.3");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err,
            "error[RT-TIMEOUT]: generating iota for int32 (268435456,) ran longer than 0.3 s and was stopped\n"
            "help: raise the limit with --time-limit, or generate a smaller input\n");
  EXPECT_EQ(FirstLine("smem.scir", R"(kernel @k(inout %a: smem<2147483647xi32>)
    mesh vector(cores = 1, subcores = 1)
{
}
)",
                      "--time-limit 1"),
            std::pair(3, std::string("smem.scir:1:17: error[MESH-SMEM]: the kernel needs 8589934592 bytes of SMEM per "
                                     "subcore; v7x has 65536")));
}

// `--check` runs exactly the checks it names: a kernel with a negative signal
// and an out-of-range slice fails each check alone with that check's code only.
TEST_F(CliTest, EachCheckRunsAlone) {
  Write("k.scir", R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%sem: sem)
{
  %i = const 20 : i32
  sem_signal %sem, -1
  copy %x[ds(%i, 4)] -> %o[0:4]
}
)");
  struct Case {
    std::string check, first_line, absent;
    int exit_code;
  };
  const Case cases[] = {
      {"bounds",
       "k.scir:7:3: error[RT-BOUNDS]: a slice starting at 20 does not fit dimension 0 of %x[ds(%i, 4)] -> %o[0:4] "
       "(valid starts are 0 to 12)",
       "RT-SYNC", 1},
      {"sync", "k.scir:6:14: error[RT-SYNC]: sem_signal adds -1; semaphores only count up by signals", "RT-BOUNDS",
       1},
      {"warn",
       "k.scir:6:14: warning[RT-SYNC]: sem_signal adds -1; semaphores only count up by signals", "error[", 0},
      {"none", "", "RT-", 0},
  };
  for (const Case& c : cases) {
    CommandResult r = Run("k.scir --check " + c.check);
    EXPECT_EQ(r.exit_code, c.exit_code) << c.check << ": " << r.err;
    EXPECT_EQ(r.err.substr(0, r.err.find('\n')), c.first_line) << c.check;
    EXPECT_EQ(r.err.find(c.absent), std::string::npos) << c.check << ": " << r.err;
  }
}

TEST_F(CliTest, EmitsEachStage) {
  Write("k.scir", testing::kAddOneKernel);
  CommandResult r = Run("k.scir --emit llvm");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("define i32 @scjit_kernel_add_one(ptr %ctx)"), std::string::npos);
  EXPECT_NE(r.out.find("call i32 @scjit_rt_copy("), std::string::npos);
  r = Run("k.scir --emit llvm-opt -O3");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("target triple = \"x86_64"), std::string::npos);
  r = Run("k.scir --emit asm");
  ASSERT_EQ(r.exit_code, 0) << r.err;
  EXPECT_NE(r.out.find("scjit_kernel_add_one:"), std::string::npos);
}

constexpr char kV7xInfo[] = R"(v7x (the default target)
  SparseCores (cores) per chip  2
  vector subcores per core      16
  lanes (32-bit)                16
  VMEM per subcore              524288 bytes (512 KiB)
  SMEM per subcore              65536 bytes (64 KiB, default)
  VMEM_SHARED per core          8388608 bytes (8 MiB, default)
  semaphores per subcore        1024 (scjit's limit)
  DMA granule                   32 bytes
  32-bit vector register        vector<16xT>, T = i32 u32 f32
  16-bit vector register        vector<32xT> or vector<2x16xT>, T = i16 u16 bf16 f16
  8-bit vector register         vector<64xT> or vector<4x16xT>, T = i8 u8 f8e5m2 f8e4m3fn f8e4m3b11fnuz i4 u4
  plsc.get_sparse_core_info()   SparseCoreInfo(num_cores=2, num_subcores=16, num_lanes=16, vmem_capacity_bytes=524288, dma_granule_size_bytes=32)
)";

constexpr char kV6eInfo[] = R"(v6e
  SparseCores (cores) per chip  2
  vector subcores per core      16
  lanes (32-bit)                8
  VMEM per subcore              262144 bytes (256 KiB)
  SMEM per subcore              65536 bytes (64 KiB, default)
  VMEM_SHARED per core          8388608 bytes (8 MiB, default)
  semaphores per subcore        1024 (scjit's limit)
  DMA granule                   32 bytes
  32-bit vector register        vector<8xT>, T = i32 u32 f32
  16-bit vector register        vector<16xT> or vector<2x8xT>, T = i16 u16 bf16 f16
  8-bit vector register         vector<32xT> or vector<4x8xT>, T = i8 u8 f8e5m2 f8e4m3fn f8e4m3b11fnuz i4 u4
  plsc.get_sparse_core_info()   SparseCoreInfo(num_cores=2, num_subcores=16, num_lanes=8, vmem_capacity_bytes=262144, dma_granule_size_bytes=32)
)";

TEST_F(CliTest, TargetInfoPrintsOneChipOrEveryChip) {
  for (const auto& [args, want] : {std::pair{"--target-info v7x", kV7xInfo}, std::pair{"--target-info=v6e", kV6eInfo}}) {
    CommandResult r = Run(args);
    EXPECT_EQ(r.exit_code, 0) << args;
    EXPECT_EQ(r.out, want) << args;
    EXPECT_EQ(r.err, "") << args;
  }
  // Every chip in target.def's order, separated by blank lines; each block is
  // what --target-info prints for the chip alone.
  CommandResult r = Run("--target-info");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  std::string all;
  for (const char* chip : {"v5p", "v6e", "v7x", "v8i", "v8t"}) {
    all += (all.empty() ? "" : "\n") + Run(std::string("--target-info ") + chip).out;
  }
  EXPECT_EQ(r.out, all);
  EXPECT_NE(r.out.find(std::string("\n\n") + kV6eInfo + "\n" + kV7xInfo + "\n"), std::string::npos);
  // Each chip's figures (runtime.md §1) in the order SparseCoreInfo has them;
  // a chip JAX does not know says so.
  std::string blocks = "\n" + r.out;
  size_t at = 0;
  for (const char* info : {"\nv5p\n", "SparseCoreInfo(num_cores=4, num_subcores=16, num_lanes=8, vmem_capacity_bytes=524288, "
                                   "dma_granule_size_bytes=32)\n\nv6e",
                           "SparseCoreInfo(num_cores=2, num_subcores=16, num_lanes=8, vmem_capacity_bytes=262144, "
                           "dma_granule_size_bytes=32)\n\nv7x",
                           "SparseCoreInfo(num_cores=2, num_subcores=16, num_lanes=16, vmem_capacity_bytes=524288, "
                           "dma_granule_size_bytes=32)\n\nv8i\n",
                           "SparseCoreInfo(num_cores=1, num_subcores=4, num_lanes=16, vmem_capacity_bytes=524288, "
                           "dma_granule_size_bytes=64)\n\nv8t\n",
                           "SparseCoreInfo(num_cores=2, num_subcores=16, num_lanes=16, vmem_capacity_bytes=262144, "
                           "dma_granule_size_bytes=64); not in JAX 0.10.2\n"}) {
    size_t found = blocks.find(info, at);
    EXPECT_NE(found, std::string::npos) << info;
    at = found == std::string::npos ? at : found + 1;
  }
  EXPECT_TRUE(blocks.ends_with("dma_granule_size_bytes=64); not in JAX 0.10.2\n"));
  // A kernel file given as well is not run.
  Write("k.scir", testing::kAddOneKernel);
  EXPECT_EQ(Run("k.scir --target-info v7x").out, kV7xInfo);

  r = Run("--target-info v9");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.out, "");
  EXPECT_EQ(r.err, std::string("error[IO-USAGE]: unknown target 'v9'; expected one of v5p, v6e, v7x, v8i, v8t\n") +
                       kUsageHelp);
}

// Parameters of every input dtype kind; only %a reaches the output.
constexpr char kManyInputs[] = R"(kernel @k(in %a: hbm<8x16xi32>, in %b: hbm<40xbf16>, inout %c: hbm<16xf16>,
          in %d: vmem<16xi8>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  copy %a[3] -> %buf
  copy %buf -> %o
}
)";

TEST_F(CliTest, SaveInputsWritesEveryInputTheRunUsed) {
  Write("k.scir", kManyInputs);
  CommandResult first = Run("k.scir --in a=random:5 --in b=random:9 --in d=randint:-3:3:2 --save-inputs saved/in");
  ASSERT_EQ(first.exit_code, 0) << first.err;
  EXPECT_EQ(first.err, "");
  struct Saved {
    const char* name;
    const char* spec;  // what made it
    DType dtype;
    std::vector<int64_t> shape;
  };
  const Saved saved[] = {{"a", "random:5", DType::kI32, {8, 16}},
                         {"b", "random:9", DType::kBF16, {40}},
                         {"c", "iota", DType::kF16, {16}},
                         {"d", "randint:-3:3:2", DType::kI8, {16}}};
  for (const Saved& s : saved) {
    std::string path = dir_ + "/saved/in/" + s.name + ".npy";
    absl::StatusOr<Buffer> got = ReadNpy(path);
    ASSERT_TRUE(got.ok()) << got.status();
    absl::StatusOr<Buffer> want = Generate(s.spec, s.dtype, s.shape);
    ASSERT_TRUE(want.ok());
    EXPECT_EQ(got->dtype(), s.dtype) << s.name;
    EXPECT_EQ(got->shape(), s.shape) << s.name;
    EXPECT_EQ(std::string(reinterpret_cast<const char*>(got->data()), got->bytes()),
              std::string(reinterpret_cast<const char*>(want->data()), want->bytes()))
        << s.name;
  }
  EXPECT_NE(testing::ReadFile(dir_ + "/saved/in/b.npy").find("'descr': '<V2'"), std::string::npos);
  EXPECT_FALSE(std::filesystem::exists(dir_ + "/saved/in/o.npy"));  // outputs are not inputs

  // The saved files reproduce the run; saving inputs read from files copies them.
  CommandResult again = Run(
      "k.scir --in a=saved/in/a.npy --in b=saved/in/b.npy --in c=saved/in/c.npy --in d=saved/in/d.npy "
      "--save-inputs copy");
  ASSERT_EQ(again.exit_code, 0) << again.err;
  EXPECT_EQ(again.out, first.out);
  for (const char* name : {"a", "b", "c", "d"}) {
    EXPECT_EQ(testing::ReadFile(dir_ + "/copy/" + name + ".npy"),
              testing::ReadFile(dir_ + "/saved/in/" + name + ".npy"))
        << name;
  }

  // A directory that cannot be made: a located IO-WRITE error, and nothing runs.
  Write("file", "not a directory");
  for (const char* dir : {"file", "file/sub"}) {
    CommandResult r = Run(std::string("k.scir --save-inputs ") + dir);
    EXPECT_EQ(r.exit_code, 2) << dir;
    EXPECT_EQ(r.err, std::string("error[IO-WRITE]: cannot write '") + dir + "': Not a directory\n") << dir;
    EXPECT_EQ(r.out, "") << dir;
  }
}

// The Pallas guide's gather at a small size: 256 ids into a table of 128 rows.
constexpr char kSmallGather[] = R"(kernel @gather(in %x: hbm<128x16xi32>, in %ids: hbm<1x256xi32>,
               out %o: hbm<256x16xi32>)
    mesh vector(cores = 1, subcores = 2)
{
  pipeline grid(2) partition(subcore) parallel
      in(%ids, block [1, 128], map (%i) -> (0, %i))
      out(%o, block [128, 16], map (%i) -> (%i, 0))
      body(%i_vmem: vmem<1x128xi32>, %o_vmem: vmem<128x16xi32>) {
    %row_ids = view %i_vmem[0] : vmem<128xi32>
    copy %x[idx(%row_ids)] -> %o_vmem
  }
}
)";

TEST_F(CliTest, DefaultIotaThatIndexesOutOfRangeIsAWarning) {
  Write("g.scir", kSmallGather);
  const std::string warning =
      "warning[IO-INDEX]: %ids defaults to iota (0 .. 255), but its values index a dimension of size 128 (%x); "
      "out-of-range entries will be RT-BOUNDS findings\n"
      "help: pass --in ids=randint:0:128 (or a .npy file)\n";
  CommandResult r = Run("g.scir");
  EXPECT_EQ(r.exit_code, 1);  // the findings decide the exit code, as without the warning
  EXPECT_EQ(r.err.substr(0, warning.size()), warning) << r.err;
  EXPECT_NE(r.err.find("error[RT-BOUNDS]", warning.size()), std::string::npos) << r.err;
  r = Run("g.scir --unchecked");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, warning);

  // No warning for a parameter given with --in, in range or not.
  r = Run("g.scir --in ids=randint:0:128");
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  r = Run("g.scir --in ids=iota --unchecked");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");
  // Nor when iota stays in range: the guide's gather example, 4096 ids into 4096 rows.
  r = Run(Example("gather_indirect.scir"));
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err, "");

  // The guide's own sizes: 131072 ids into 4096 rows.
  r = Run("'" + testing::SourceDir() + "/bench/kernels/gather_pipeline.scir' --unchecked");
  EXPECT_EQ(r.exit_code, 0);
  EXPECT_EQ(r.err,
            "warning[IO-INDEX]: %ids defaults to iota (0 .. 131071), but its values index a dimension of size 4096 "
            "(%x); out-of-range entries will be RT-BOUNDS findings\n"
            "help: pass --in ids=randint:0:4096 (or a .npy file)\n");
}

// --engine interp runs the kernel with the interpreter: the same output as the JIT's.
TEST_F(CliTest, InterpreterEngineGivesTheJitsOutput) {
  Write("k.scir", testing::kAddOneKernel);
  CommandResult jit = Run("k.scir");
  CommandResult interp = Run("k.scir --engine interp");
  EXPECT_EQ(jit.exit_code, 0) << jit.err;
  EXPECT_EQ(interp.exit_code, 0) << interp.err;
  EXPECT_FALSE(jit.out.empty());
  EXPECT_EQ(interp.out, jit.out);
  EXPECT_EQ(interp.err, jit.err);
}

// An unknown engine is a usage error that names the engines there are.
TEST_F(CliTest, UnknownEngineIsRefused) {
  Write("k.scir", testing::kAddOneKernel);
  CommandResult r = Run("k.scir --engine llvm");
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err,
            "error[IO-USAGE]: option '--engine' takes one of jit, interp, got 'llvm'\n"
            "help: run `jit-run --help` for the options\n");
}

// Every example on every target: the same output bytes (stdout shows each
// output's hash) wherever the target's chip is large enough, and a rejection
// by the same rule Pallas applies where it is not (MESH-1/2: the mesh is bigger
// than the chip; SHAPE-1: 16-lane vectors on an 8-lane chip with
// layout_passes = false). The target a file is written for (its `target`, else
// v7x) runs it also in eager mode, with a seeded interleaving and on 3 threads.
TEST_F(CliTest, EveryExampleOnEveryTarget) {
  std::vector<std::string> files = ExampleFiles();
  ASSERT_GE(files.size(), 20u);
  for (const std::string& f : files) {
    SCOPED_TRACE(f);
    std::string file = "'" + f + "'";
    std::string own = OwnTarget(f);
    CommandResult first = Run(file + " --target " + own);
    ASSERT_EQ(first.exit_code, 0) << first.err;
    ASSERT_NE(first.out.find("fnv1a64="), std::string::npos) << first.out;
    for (const char* more : {"--dma eager --threads 3", "--seed 11 --threads 2"}) {
      CommandResult r = Run(file + " --target " + own + " " + more);
      EXPECT_EQ(r.exit_code, 0) << more << "\n" << r.err;
      EXPECT_EQ(r.out, first.out) << more;
    }
    for (const char* target : {"v5p", "v6e", "v7x", "v8i", "v8t"}) {
      if (target == own) continue;
      CommandResult r = Run(file + " --target " + target);
      if (r.exit_code == 0) {
        EXPECT_EQ(r.out, first.out) << target;
        continue;
      }
      EXPECT_EQ(r.exit_code, 3) << target << "\n" << r.err;
      bool expected = r.err.find("error[MESH-1]") != std::string::npos ||
                      r.err.find("error[MESH-2]") != std::string::npos ||
                      r.err.find("error[SHAPE-1]") != std::string::npos;
      EXPECT_TRUE(expected) << target << "\n" << r.err;
    }
  }
}

}  // namespace
}  // namespace scjit
