// Bounded in time and memory whatever the kernel (issue #34): jit-run on
// kernels that once ran without end or exhausted the host, each under a CPU-time
// rlimit (`ulimit -t`; and, outside the sanitizer builds, an address-space one,
// `ulimit -v`) far above what the bounded run needs and far below what the
// unbounded one took: a regression is killed by the limit and fails the exact
// output, instead of being judged by a wall clock.
#include <filesystem>
#include <fstream>
#include <string>

#include "absl/strings/str_cat.h"
#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

using testing::CommandResult;
using testing::RunCommand;

#if defined(__has_feature)
#if __has_feature(address_sanitizer) || __has_feature(thread_sanitizer)
#define SCJIT_SANITIZED 1
#endif
#endif
#if defined(__SANITIZE_ADDRESS__) || defined(__SANITIZE_THREAD__) || defined(SCJIT_SANITIZED)
constexpr bool kSanitized = true;  // their shadow memory needs terabytes of address space
#else
constexpr bool kSanitized = false;
#endif

class BoundedTest : public ::testing::Test {
 protected:
  void SetUp() override {
    std::string tmpl = (std::filesystem::temp_directory_path() / "scjit-bounded-XXXXXX").string();
    dir_ = mkdtemp(tmpl.data());
  }
  void TearDown() override { std::filesystem::remove_all(dir_); }

  void Write(const std::string& name, const std::string& text) { std::ofstream(dir_ + "/" + name) << text; }
  // jit-run `args` in the temporary directory under `cpu_seconds` of CPU time
  // and (unsanitized) `gib` GiB of address space.
  CommandResult Run(const std::string& args, int cpu_seconds, int gib = 4) {
    std::string limits = absl::StrCat("ulimit -t ", cpu_seconds, "; ");
    if (!kSanitized) absl::StrAppend(&limits, "ulimit -v ", int64_t{gib} << 20, "; ");
    return RunCommand(absl::StrCat("cd '", dir_, "' && ", limits, "'" SCJIT_JIT_RUN "' ", args));
  }
  static std::string FirstLine(const std::string& s) { return s.substr(0, s.find('\n')); }
  // A loop of 100,000 copies of 16 MiB (hours of copying).
  void WriteCopies() {
    Write("copies.scir", R"(kernel @copies(in %x: hbm<4194304xi32>, out %o: hbm<4194304xi32>)
    mesh scalar(cores = 1)
{
  for %i = 0 to 100000 step 1 {
    copy %x -> %o
  }
}
)");
  }
  static std::string AddOne() { return absl::StrCat("'", testing::SourceDir(), "/examples/add_one_manual.scir'"); }

  std::string dir_;
};

// `subcores` vector subcores each start 6,000 DMAs into the same 64 bytes of
// HBM and wait for none.
std::string Pile(int subcores) {
  return absl::StrCat(
      "kernel @pile(in %x: hbm<16xi32>, out %o: hbm<16xi32>)\n"
      "    mesh vector(cores = 1, subcores = ",
      subcores,
      ")\n"
      "    scratch(%v: vmem<16xi32>, %sem: dma_sem)\n"
         "{\n"
         "  %one = const dense<1> : vector<16xi32>\n"
         "  store %v[ds(0, 16)], %one\n"
         "  for %i = 0 to 6000 step 1 {\n"
         "    dma_start %v[:] -> %o[:], %sem\n"
         "  }\n"
         "}\n");
}

constexpr char kPileFinding[] =
    "pile.scir:8:5: error[RT-SYNC]: dma_start %v[:] -> %o[:] would be DMA 1025 of this subcore in flight (started, "
    "not yet waited); scjit follows at most 1024 per subcore";

// A pile of unwaited DMAs is a finding at the 1025th, not a race check whose
// records grow until the host's memory is gone (2.2 GB on one subcore, 17 GB
// on 16 before), under every checking mode that keeps DMAs in flight.
TEST_F(BoundedTest, PiledUpDmasAreAFindingNotAnExhaustion) {
  for (int subcores : {1, 16}) {
    Write("pile.scir", Pile(subcores));
    for (const char* check : {"all", "bounds", "race"}) {
      CommandResult r = Run(std::string("pile.scir --check ") + check, 60);
      EXPECT_EQ(r.exit_code, 1) << subcores << " " << check << "\n" << r.err;
      EXPECT_EQ(FirstLine(r.err), kPileFinding) << subcores << " " << check;
    }
  }
}

// Remote copies never waited, on 8 chips: the same finding, not bad_alloc.
TEST_F(BoundedTest, UnwaitedRemoteCopiesAreAFinding) {
  Write("rpile.scir", R"(kernel @rpile(in %x: hbm<8x128xi32>, out %y: hbm<8x128xi32>)
    mesh scalar(cores = 1)
    devices(x = 8)
    scratch(%send: dma_sem, %recv: dma_sem)
{
  %me = axis_index x : i32
  %me1 = add %me, 1 : i32
  %right = rem %me1, 8 : i32
  for %i = 0 to 6000 step 1 {
    dma_start %x -> %y, %recv src_sem %send {device = %right}
  }
}
)");
  CommandResult r = Run("rpile.scir", 60);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(FirstLine(r.err),
            "rpile.scir:10:5: error[RT-SYNC]: dma_start %x -> %y would be DMA 1025 of this subcore in flight "
            "(started, not yet waited); scjit follows at most 1024 per subcore");
}

// Chips 0<->1 and 2<->3 exchange 16,000 times, every copy waited: a correct
// kernel. Its race records retire as the pairs synchronise, though chips of the
// other pair never do with them (20 s of CPU before; 0.1 s now).
TEST_F(BoundedTest, PairsOfChipsExchangingKeepFewRecords) {
  Write("pairs.scir", R"(kernel @pairs(in %x: hbm<8x128xi32>, out %y: hbm<8x128xi32>)
    mesh scalar(cores = 1)
    devices(x = 4)
    scratch(%ready: sem, %send: dma_sem, %recv: dma_sem)
{
  %me = axis_index x : i32
  %half = rem %me, 2 : i32
  %other = sub 1, %half : i32
  %base = sub %me, %half : i32
  %peer = add %base, %other : i32
  for %i = 0 to 16000 step 1 {
    sem_signal %ready, 1 {device = %peer}
    sem_wait %ready, 1
    dma_start %x -> %y, %recv src_sem %send {device = %peer}
    dma_wait %x -> %y, %recv src_sem %send {device = %peer}
  }
}
)");
  CommandResult r = Run("pairs.scir --devices 8 --threads 1", 8);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.err, "");
  // Each chip holds its partner's x: chip d's y is chip (d ^ 1)'s x (iota).
  EXPECT_EQ(r.out, "%y: int32 (8, 8, 128) = [1024, 1025, 1026, 1027, ..., 7164, 7165, 7166, 7167] "
                   "fnv1a64=0x8106ec90497ff725\n");
}

// --time-limit is looked at by the bytes copies move, not only every 4096
// loop iterations: a loop of 16 MiB copies stops after about a second (it took
// 18.6 s; 64 MiB copies over a minute).
TEST_F(BoundedTest, TimeLimitStopsLoopsOfLargeCopies) {
  WriteCopies();
  CommandResult r = Run("copies.scir --time-limit 1", 30);
  EXPECT_EQ(r.exit_code, 1) << r.err;
  EXPECT_EQ(r.err,
            "copies.scir:5:5: error[RT-TIMEOUT]: kernel @copies ran longer than 1 s and was stopped\n"
            "    5 |     copy %x -> %o\n"
            "      |     ^~~~\n"
            "note: scalar subcore (core 0) was still moving bytes here\n"
            "help: look for a loop whose condition never changes; raise the limit with --time-limit\n");
}

// A limit past the clock's range is no limit, not an overflow into the past
// (1e10 s gave RT-TIMEOUT at once).
TEST_F(BoundedTest, HugeTimeLimitsSaturate) {
  CommandResult r = Run(AddOne() + " --time-limit 1e10", 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "%o: int32 (32, 1024) = [1, 2, 3, 4, ..., 32765, 32766, 32767, 32768] fnv1a64=0x906012385cc7e8a5\n");
}

// A long straight-line kernel with its checks compiled in compiles in time
// near linear in its length (9,600 lines took 45 s; GVN and the greedy
// register allocator were quadratic), and runs to the right result.
TEST_F(BoundedTest, LongStraightLineKernelsCompileInNearLinearTime) {
  std::string text =
      "kernel @line(in %x: hbm<16xi32>, out %o: hbm<16xi32>)\n"
      "    mesh vector(cores = 1, subcores = 1)\n"
      "    scratch(%v: vmem<16xi32>)\n"
      "{\n"
      "  copy %x -> %v\n"
      "  %one = const dense<1> : vector<16xi32>\n";
  for (int i = 0; i < 1600; ++i) {
    absl::StrAppend(&text, "  %a", i, " = get %v[ds(0, 16)] : vector<16xi32>\n  %b", i, " = add %a", i,
                    ", %one : vector<16xi32>\n  store %v[ds(0, 16)], %b", i, "\n");
  }
  text += "  copy %v -> %o\n}\n";
  Write("line.scir", text);
  CommandResult r = Run("line.scir", 60);
  EXPECT_EQ(r.exit_code, 0) << r.err;
  EXPECT_EQ(r.out, "%o: int32 (16,) = [1600, 1601, 1602, 1603, ..., 1612, 1613, 1614, 1615] fnv1a64=0x22b31703304e21e5\n");
  // The compile counts toward --time-limit (judged once it ends: LLVM cannot
  // be stopped half way).
  r = Run("line.scir --time-limit 0.001", 60);
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "error[RT-TIMEOUT]: compiling kernel @line ran longer than 0.001 s and was stopped\n"
            "help: raise the limit with --time-limit\n");
}

// What is not a regular file is refused before it is read: /dev/zero read
// without end (8.9 GiB in 30 s), a FIFO nobody writes blocked for ever.
TEST_F(BoundedTest, InputsThatAreNotRegularFilesAreRefused) {
  ASSERT_EQ(RunCommand("mkfifo '" + dir_ + "/fifo'").exit_code, 0);
  std::string kernel = AddOne();
  struct Case {
    std::string args, err;
  };
  for (const Case& c : {
           Case{"/dev/zero", "error[IO-OPEN]: cannot read '/dev/zero': it is not a regular file (a character device)"},
           Case{"fifo", "error[IO-OPEN]: cannot read 'fifo': it is not a regular file (a FIFO)"},
           Case{kernel + " --in x=fifo", "error[IO-OPEN]: cannot read 'fifo': it is not a regular file (a FIFO)"},
           Case{kernel + " --expect o=fifo", "error[IO-OPEN]: cannot read 'fifo': it is not a regular file (a FIFO)"},
           Case{kernel + " --in x=/dev/zero",
                "error[IO-OPEN]: cannot read '/dev/zero': it is not a regular file (a character device)"},
       }) {
    CommandResult r = Run(c.args, 30);
    EXPECT_EQ(r.exit_code, 2) << c.args;
    EXPECT_EQ(FirstLine(r.err), c.err) << c.args;
  }
}

// A report that cannot be written is IO-WRITE with the system's reason and
// exit 2 (a full disk exited 0 with the report lost).
TEST_F(BoundedTest, ReportWriteErrorsSayWhy) {
  std::string kernel = AddOne();
  CommandResult r = Run(kernel + " --report /dev/full", 60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error[IO-WRITE]: cannot write '/dev/full': No space left on device\n");
  r = Run(kernel + " --report /no/dir/r.json", 60);
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_EQ(r.err, "error[IO-WRITE]: cannot write '/no/dir/r.json': No such file or directory\n");
}

// Ctrl-C stops a launch that spins: jit-run says so and exits 130.
TEST_F(BoundedTest, SigintStopsTheLaunch) {
  WriteCopies();
  // (Sent once the kernel runs: compiling it takes a fraction of the wait.)
  // (In a subshell, which RunCommand's redirections then cover.)
  CommandResult r = RunCommand("cd '" + dir_ + "' && (ulimit -t 60; '" SCJIT_JIT_RUN
                               "' copies.scir --time-limit 0 & p=$!; sleep 3; kill -INT $p; wait $p)");
  EXPECT_EQ(r.exit_code, 130);
  EXPECT_EQ(r.err, "jit-run: interrupted\n");
  EXPECT_EQ(r.out, "");
}

}  // namespace
}  // namespace scjit
