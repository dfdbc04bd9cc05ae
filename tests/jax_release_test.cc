// The JAX release a compilation answers for (lowering/base/jax_release.h): the
// SC rules' messages in each release's words, and the releases accepted.
#include <algorithm>
#include <string>
#include <utility>
#include <vector>

#include "gtest/gtest.h"
#include "tests/kernel_runner.h"
#include "tests/test_util.h"
#include "lowering/base/jax_release.h"
#include "lowering/base/strings.h"
#include "scjit/scjit.h"

namespace scjit {
namespace {

// The first line of what compiling `body` (in a one-subcore kernel) reports, with
// the JAX release `jax`; "" when it compiles.
std::string FirstError(const std::string& body, const std::string& jax) {
  std::string text = R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%s: smem<16xi32>, %w: vmem<32xi32>, %m: vmem<4x32xi32>)
{
)" + body + "}\n";
  Compiler compiler;
  CompileOptions options;
  options.jax = jax;
  absl::StatusOr<std::string> ir = compiler.Emit(Source{"k.scir", text}, Stage::kIr, options);
  if (ir.ok()) return "";
  std::string message(ir.status().message());
  return message.substr(0, message.find('\n'));
}

// FirstError of `body` under each release named, against the words expected.
void ExpectFirstErrors(const std::string& body, const std::vector<std::pair<std::string, std::string>>& by_release) {
  for (const auto& [jax, want] : by_release) EXPECT_EQ(FirstError(body, jax), want) << jax;
}

TEST(JaxReleaseTest, ReleasesParseAndTheEmptyOneIsTheCatalogs) {
  EXPECT_EQ(ParseJaxRelease("")->ToString(), "0.11.1");
  EXPECT_EQ(ParseJaxRelease("0.10.2")->ToString(), "0.10.2");
  EXPECT_EQ(ParseJaxRelease("0.12.1")->ToString(), "0.12.1");
  EXPECT_EQ(ParseJaxRelease("0.11.2")->ToString(), "0.11.2");
  EXPECT_EQ(ParseJaxRelease("0.12.1.dev20261118")->ToString(), "0.12.1");
  EXPECT_EQ(ParseJaxRelease("0.12.0rc1")->ToString(), "0.12.0");
}

TEST(JaxReleaseTest, OthersAreUsageErrors) {
  EXPECT_EQ(ParseJaxRelease("0.13.0").status().message(),
            "error[IO-USAGE]: scjit answers for JAX 0.10.2 to 0.12.1, not 0.13.0\n"
            "help: run `jit-run --help` for the options");
  EXPECT_EQ(ParseJaxRelease("0.10.1").status().message(),
            "error[IO-USAGE]: scjit answers for JAX 0.10.2 to 0.12.1, not 0.10.1\n"
            "help: run `jit-run --help` for the options");
  for (const char* bad : {"banana", "0.12", "0.12.", "1..2", "0.12.10000"}) {
    EXPECT_EQ(ParseJaxRelease(bad).status().message(),
              std::string("error[IO-USAGE]: '") + bad + "' is not a JAX release such as 0.12.1\n"
              "help: run `jit-run --help` for the options")
        << bad;
  }
  EXPECT_EQ(FirstError("", "0.9.0"), "error[IO-USAGE]: scjit answers for JAX 0.10.2 to 0.12.1, not 0.9.0");
}

TEST(JaxReleaseTest, StridesArePrintedLiterallyUntil0_12_1) {
  std::string load = "  %v = get %w[ds(0, 16, stride = 2)] : vector<16xi32>\n";
  for (const char* jax : {"", "0.10.2", "0.11.2", "0.12.0"}) {
    EXPECT_EQ(FirstError(load, jax), "k.scir:5:15: error[GET-3]: NotImplementedError: Get only supports slices "
                                     "with stride 1, got {strides}")
        << jax;
  }
  EXPECT_EQ(FirstError(load, "0.12.1"),
            "k.scir:5:15: error[GET-3]: NotImplementedError: Get only supports slices with stride 1, got (2,)");
  // Every dimension's stride, 1 where an integer indexes it.
  EXPECT_EQ(FirstError("  %v = get %m[1, ds(0, 16, stride = 2)] : vector<16xi32>\n", "0.12.1"),
            "k.scir:5:18: error[GET-3]: NotImplementedError: Get only supports slices with stride 1, got (1, 2)");
  std::string store = "  %v = get %w[ds(0, 16)] : vector<16xi32>\n  store %w[ds(0, 16, stride = 2)], %v\n";
  EXPECT_EQ(FirstError(store, ""),
            "k.scir:6:12: error[SWAP-2]: NotImplementedError: Swap only supports slices with stride 1, got {strides}");
  EXPECT_EQ(FirstError(store, "0.12.1"),
            "k.scir:6:12: error[SWAP-2]: NotImplementedError: Swap only supports slices with stride 1, got (2,)");
}

TEST(JaxReleaseTest, SmemArrayShapesArePrintedLiterallyUntil0_12_1) {
  struct Case {
    std::string body, jax, want;
  };
  const std::string load = "  %v = get %s[:] : vector<16xi32>\n";
  const std::string store = "  %v = get %w[ds(0, 16)] : vector<16xi32>\n  store %s[:], %v\n";
  const std::string get4 = "k.scir:5:12: error[GET-4]: NotImplementedError: Get only supports loading scalars from "
                           "SMEM. Trying to load an array of shape ";
  const std::string swap3 = "k.scir:6:9: error[SWAP-3]: NotImplementedError: Swap only supports scalars in SMEM. "
                            "Trying to swap an array of shape ";
  for (const Case& c : {Case{load, "0.12.0", get4 + "{out_aval.shape}."}, Case{load, "0.12.1", get4 + "(16,)."},
                        Case{store, "", swap3 + "{out_aval.shape}."}, Case{store, "0.12.1", swap3 + "(16,)."}}) {
    EXPECT_EQ(FirstError(c.body, c.jax), c.want) << c.jax;
  }
}

// JAX 0.12.0 scatter-adds from VMEM into VMEM_SHARED only (DMA-23, before
// anything else about the copy), and words DMA-12 anew.
TEST(JaxReleaseTest, AScatterAddIntoHbmIsRejectedFrom0_12_0) {
  const std::string scatter_add = "  %i = iota : vector<16xi32>\n  %b = view %w[0:16] : vmem<16xi32>\n"
                                  "  copy %b -> %o[idx(%i)] add\n";
  for (const char* jax : {"", "0.11.2"}) EXPECT_EQ(FirstError(scatter_add, jax), "") << jax;
  const std::string dma23 = "k.scir:7:3: error[DMA-23]: ValueError: Scatter from VMEM with `add=True` via "
                            "`pltpu.async_copy` is only supported when the destination is in VMEM_SHARED, got HBM";
  EXPECT_EQ(FirstError(scatter_add, "0.12.0"), dma23);
  EXPECT_EQ(FirstError(scatter_add, "0.12.1"), dma23);
  // Without an index list: DMA-13 before 0.12.0, DMA-23 from then on.
  const std::string plain_add = "  %b = view %w[0:16] : vmem<16xi32>\n  copy %b -> %o add\n";
  EXPECT_EQ(FirstError(plain_add, "0.11.2").substr(0, 30), "k.scir:6:3: error[DMA-13]: Not");
  EXPECT_EQ(FirstError(plain_add, "0.12.0").substr(0, 30), "k.scir:6:3: error[DMA-23]: Val");
  // Between two VMEM refs: DMA-12, in each release's words.
  const std::string vmem_add = "  %b = view %w[0:16] : vmem<16xi32>\n  %c = view %w[16:32] : vmem<16xi32>\n"
                               "  copy %b -> %c add\n";
  ExpectFirstErrors(vmem_add,
                    {{"0.11.2", "k.scir:7:3: error[DMA-12]: ValueError: DMAs with `add=True` are only supported "
                                "between VMEM and HBM/VMEM_SHARED.Got (src, dst)=(VMEM, VMEM)"},
                     {"0.12.0", "k.scir:7:3: error[DMA-12]: ValueError: DMAs with `add=True` are only supported "
                                "from HBM/VMEM_SHARED to VMEM or from VMEM to VMEM_SHARED. Got (src, dst)=(VMEM, "
                                "VMEM)"}});
}

// JAX 0.12.1's lax.sort takes 32-bit keys only (SORT-10).
TEST(JaxReleaseTest, SortKeysOf16BitsAreRejectedFrom0_12_1) {
  const std::string sort = "  %k = get %w[0:16] : vector<16xi32>\n  %h = convert %k : vector<16xi16>\n"
                           "  %t = sort %h : vector<16xi16>\n";
  // Before, Mosaic's verifier rejects them (GEN-3).
  EXPECT_EQ(FirstError(sort, "0.12.0").substr(0, 68),
            "k.scir:7:13: error[GEN-3]: error_handling.VerificationError: Pallas ");
  EXPECT_EQ(FirstError(sort, "0.12.1"),
            "k.scir:7:13: error[SORT-10]: NotImplementedError: Unsupported key dtype for sort: int16");
  EXPECT_EQ(FirstError("  %k = get %w[0:16] : vector<16xi32>\n  %t = sort %k : vector<16xi32>\n", "0.12.1"), "");
}

// The first line of each later rule's catalog example, at its release; before
// it the rule is not consulted (and view_subcore_slice is GEN-1 before 0.12.0).
TEST(JaxReleaseTest, LaterRulesHaveJaxsWords) {
  const struct {
    DiagId id;
    const char* release;
    const char* before;  // the first error one release earlier ("" for none)
    const char* first_line;
  } kCases[] = {
      {DiagId::kPipe33, "0.12.1", "",
       "k.scir:6:14: error[PIPE-33]: ValueError: pl.program_id() is not supported inside emit_pipeline BlockSpec "
       "index_map; use the index_map arguments instead."},
      {DiagId::kRed3, "0.12.0", "", "k.scir:7:19: error[RED-3]: NotImplementedError: Unsupported dtype: bool"},
      {DiagId::kXf13, "0.12.0", "GEN-1",
       "k.scir:5:11: error[XF-13]: ValueError: VMEM_SHARED last dimension (120) must be divisible by the total "
       "number of physical subcores, including inactive ones (16)."},
      {DiagId::kXf14, "0.12.0", "GEN-1",
       "k.scir:5:11: error[XF-14]: ValueError: Slicing VMEM_SHARED to VMEM is supported only on SC_VECTOR_SUBCORE. "
       "Got sc_scalar_subcore."},
  };
  for (const auto& c : kCases) {
    std::string bad(Info(c.id).bad);
    testing::Checked now = testing::Check(bad, "v7x", "k.scir", c.release);
    EXPECT_EQ(now.diagnostics.substr(0, now.diagnostics.find('\n')), c.first_line);
    JaxRelease release = *ParseJaxRelease(c.release);
    JaxRelease earlier = release.minor == 12 && release.patch == 1 ? JaxRelease{0, 12, 0} : JaxRelease{0, 11, 2};
    testing::Checked before = testing::Check(bad, "v7x", "k.scir", earlier.ToString());
    if (std::string(c.before).empty()) {
      EXPECT_TRUE(before.ok) << before.diagnostics;
    } else {
      ASSERT_FALSE(before.codes.empty()) << Info(c.id).code;
      EXPECT_EQ(before.codes[0], c.before) << before.diagnostics;
    }
  }
}

// JAX 0.12.0 checks a DMA's semaphore apart from its source and destination
// (DMA-27), and a wait's source semaphore, which it waits on first, is the
// "source" one (DMA-7; "destination" before, the semaphores being swapped).
TEST(JaxReleaseTest, DmaOperandChecksAreWordedPerRelease) {
  ExpectFirstErrors("  %v = get %w[0:16] : vector<16xi32>\n  copy %v -> %o\n",
                    {{"0.11.2", "k.scir:6:8: error[DMA-4]: ValueError: DMA source/destination/semaphore arguments "
                                "must be Refs."},
                     {"0.12.0", "k.scir:6:8: error[DMA-4]: ValueError: DMA source/destination arguments must be "
                                "Refs."}});
  ExpectFirstErrors("  %n = const 0 : i32\n  dma_start %x -> %w[0:16], %n\n",
                    {{"0.11.2", "k.scir:6:29: error[DMA-4]: ValueError: DMA source/destination/semaphore arguments "
                                "must be Refs."},
                     {"0.12.0", "k.scir:6:29: error[DMA-27]: ValueError: DMA destination semaphore must be a Ref."}});
  const std::string wait = R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh scalar(cores = 1)
    devices(x = 2)
    scratch(%buf: smem<16xi32>, %send: dma_sem, %recv: dma_sem)
{
  %me = axis_index x : i32
  dma_start %buf -> %o, %recv src_sem %send {x = 1}
  dma_wait %buf -> %o, %recv src_sem %me {x = 1}
}
)";
  for (const auto& [jax, name] : {std::pair{"0.11.1", "destination"}, std::pair{"0.12.1", "source"}}) {
    testing::Checked r = testing::Check(wait, "", "k.scir", jax);
    EXPECT_EQ(r.diagnostics.substr(0, r.diagnostics.find('\n')),
              Cat("k.scir:8:38: error[DMA-7]: ValueError: Expected the ", name, " semaphore to be a reference"))
        << r.diagnostics;
  }
}

// A file's `jax "..."` line picks the release; CompileOptions::jax overrides it;
// the printer keeps it.
TEST(JaxReleaseTest, AFileNamesItsRelease) {
  const std::string body = R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>)
{
  %v = get %buf[:] : vector<16xi32>
  %m = cmp lt %v, %v : vector<16xi1>
  %s = reduce_max %m : i1
}
)";
  EXPECT_TRUE(testing::Check(body).ok);  // 0.11.1: RED-3 is 0.12.0's
  testing::Checked file = testing::Check("jax \"0.12.0\"\n" + body);
  ASSERT_EQ(file.codes, std::vector<std::string>{"RED-3"}) << file.diagnostics;
  EXPECT_TRUE(testing::Check("jax \"0.12.0\"\n" + body, "", "k.scir", "0.11.2").ok);
  Compiler compiler;
  absl::StatusOr<std::string> printed =
      compiler.Emit(Source{"k.scir", "target \"v6e\"\njax \"0.10.2\"\n" + body.substr(0, body.find("  %m"))  + "}\n"},
                    Stage::kIr);
  ASSERT_TRUE(printed.ok()) << printed.status();
  EXPECT_TRUE(printed->starts_with("target \"v6e\"\njax \"0.10.2\"\n\nkernel @k")) << *printed;
}

TEST(JaxReleaseTest, ARuleJaxAddedIsNotConsultedBeforeIt) {
  for (const JaxRule& r : JaxRules()) {
    EXPECT_LT(kOldestJax, r.since) << Info(r.id).code;
    EXPECT_FALSE(kNewestJax < r.since) << Info(r.id).code;
    EXPECT_EQ(RuleSince(r.id), r.since);
    EXPECT_TRUE(RuleIn(r.id, r.since)) << Info(r.id).code;
    EXPECT_FALSE(RuleIn(r.id, kOldestJax)) << Info(r.id).code;
    // Its catalog example fails with its code from that release on only.
    testing::Checked bad = testing::Check(std::string(Info(r.id).bad), "", "k.scir", kOldestJax.ToString());
    EXPECT_TRUE(std::find(bad.codes.begin(), bad.codes.end(), Info(r.id).code) == bad.codes.end())
        << Info(r.id).code << ": " << bad.diagnostics;
  }
  EXPECT_TRUE(RuleIn(DiagId::kGet3, kOldestJax));
}

TEST(JaxReleaseTest, EachChangedMessageDiffersFromTheCatalogsAndKeepsItsCode) {
  for (const JaxMessage& m : JaxMessages()) {
    EXPECT_FALSE(m.since < kOldestJax) << Info(m.id).code;
    EXPECT_FALSE(kNewestJax < m.since) << Info(m.id).code;
    EXPECT_NE(m.message, Info(m.id).message) << Info(m.id).code;
    EXPECT_EQ(MessageFor(m.id, m.since), m.message);
    EXPECT_EQ(MessageFor(m.id, kCatalogJax), Info(m.id).message);
  }
}

// JAX 0.12.0's push streams: a local copy out of VMEM may name a source
// semaphore; before, any `src_sem` makes a remote copy (DMA-1).
TEST(JaxReleaseTest, ALocalSourceSemaphoreIsAPushStreamFrom0_12_0) {
  std::string push = R"(kernel @k(in %x: hbm<16xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%buf: vmem<16xi32>, %sem: dma_sem, %read: dma_sem)
{
  dma_start %buf -> %o, %sem src_sem %read
  dma_wait %buf -> %o, %sem src_sem %read
}
)";
  for (const char* jax : {"0.10.2", "0.11.1", "0.11.2"}) {
    testing::Checked before = testing::Check(push, "", "k.scir", jax);
    EXPECT_NE(before.diagnostics.find("k.scir:5:38: error[DMA-1]: ValueError: Either both or neither `src_sem` and "
                                      "`device_id` can be set."),
              std::string::npos)
        << jax << "\n" << before.diagnostics;
  }
  for (const char* jax : {"0.12.0", "0.12.1"}) {
    testing::Checked since = testing::Check(push, "", "k.scir", jax);
    EXPECT_TRUE(since.ok) << jax << "\n" << since.diagnostics;
  }
  // Into VMEM is no push stream: the words name 0.12.0's set, then 0.12.1's.
  std::string pull = push;
  pull.replace(pull.find("dma_start %buf -> %o"), 20, "dma_start %x -> %buf");
  EXPECT_NE(testing::Check(pull, "", "k.scir", "0.12.0")
                .diagnostics.find("k.scir:5:38: error[DMA-24]: ValueError: Source semaphore (`src_sem`) on a local "
                                  "copy is only supported for push streams (VMEM to HBM, VMEM_SHARED or SMEM, or "
                                  "VMEM_SHARED to SMEM) on SparseCore;"),
            std::string::npos);
  EXPECT_NE(testing::Check(pull, "", "k.scir", "0.12.1")
                .diagnostics.find("k.scir:5:38: error[DMA-24]: ValueError: Source semaphore (`src_sem`) on a local "
                                  "copy is only supported for push streams (VMEM to HBM, VMEM_SHARED or SMEM) on "
                                  "SparseCore;"),
            std::string::npos);
  // A remote copy without its source semaphore: 0.12.0's words.
  std::string remote = R"(kernel @k(in %x: hbm<64xi32>, out %o: hbm<64xi32>)
    mesh scalar(cores = 1)
    devices(x = 2)
    scratch(%recv: dma_sem)
{
  %me = axis_index x : i32
  %n = sub 1, %me : i32
  dma_start %x -> %o, %recv {x = %n}
}
)";
  EXPECT_NE(testing::Check(remote, "", "k.scir", "0.12.1")
                .diagnostics.find("error[DMA-1]: ValueError: Both `src_sem` and `dst_sem` (`sem`) must be set when "
                                  "`device_id` is set."),
            std::string::npos);
}

// plsc.bitcast became pltpu.bitcast(dim=-1) in JAX 0.12.0: a scalar fails its
// axis check whatever the widths, and BC-2 has pltpu.bitcast's words.
TEST(JaxReleaseTest, BitcastHasPltpuBitcastsChecksFrom0_12_0) {
  ExpectFirstErrors("  %i = const 1 : i32\n  %f = bitcast %i : f32\n",
                    {{"0.11.2", ""},
                     {"0.12.0", "k.scir:6:8: error[BC-1]: ValueError: axis -1 is out of bounds for array of "
                                "dimension 0"}});
  ExpectFirstErrors("  %v = const dense<1> : vector<3xi16>\n  %b = bitcast %v : vector<1xi32>\n",
                    {{"0.11.2", "k.scir:6:8: error[BC-2]: ValueError: Cannot bitcast from int16 (16 bits) to int32 "
                                "(32 bits), because x.shape[-1]=3 * 16 is not divisible by 32"},
                     {"0.12.1", "k.scir:6:8: error[BC-2]: ValueError: dim 0 of size 3 cannot be perfectly packed or "
                                "unpacked from int16 to int32"}});
}

// popcount_all/ffs_all before 0.11.1: `reduce` divides unchecked.
TEST(JaxReleaseTest, AMaskReduceFactorIsUncheckedBefore0_11_1) {
  std::string zero = "  %k = const dense<true> : vector<16xi1>\n  %c = popcount_all %k {reduce = 0} : i32\n";
  EXPECT_EQ(FirstError(zero, "0.11.0"),
            "k.scir:6:25: error[MR-2]: ZeroDivisionError: integer division or modulo by zero");
  EXPECT_EQ(FirstError(zero, "0.11.1"), "k.scir:6:25: error[MR-2]: ValueError: reduce must be >=1, got 0");
}

// GS-6 became an f-string in JAX 0.11.1: before, Pallas raised its template.
TEST(JaxReleaseTest, IndexSizesArePrintedLiterallyBefore0_11_1) {
  std::string text = R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%t: vmem<4x16xi32>)
{
  %a = const dense<0> : vector<16xi32>
  %b = const dense<0> : vector<8xi32>
  %g = load_gather %t[:, :] [%a, %b] : vector<16xi32>
}
)";
  testing::Checked old = testing::Check(text, "", "k.scir", "0.11.0");
  EXPECT_NE(old.diagnostics.find("error[GS-6]: ValueError: Indices must have the same size, got "
                                 "{prev_idx.size} and {idx.size}\n"),
            std::string::npos)
      << old.diagnostics;
  testing::Checked now = testing::Check(text, "", "k.scir", "0.11.1");
  EXPECT_NE(now.diagnostics.find("error[GS-6]: ValueError: Indices must have the same size, got 16 and 8\n"),
            std::string::npos)
      << now.diagnostics;
}

// A message as docs/jax.md quotes it: in `...`, or in `` ... `` when it holds a backtick.
std::string Quoted(std::string_view message) {
  return message.find('`') == std::string_view::npos ? Cat("`", message, "`") : Cat("`` ", message, " ``");
}

// docs/jax.md's tables of changed messages and added rules have a row per row
// of jax_messages.def.
TEST(JaxReleaseTest, DocsListEveryChangedMessage) {
  std::string doc = testing::ReadFile(testing::SourceDir() + "/docs/jax.md");
  for (const JaxRule& r : JaxRules()) {
    std::string row = std::string("| ") + std::string(Info(r.id).code) + " | " + r.since.ToString() + " | " +
                      std::string(Info(r.id).exception) + ": " + Quoted(Info(r.id).message);
    EXPECT_NE(doc.find(row), std::string::npos) << row;
  }
  for (const JaxMessage& m : JaxMessages()) {
    std::string row =
        std::string("| ") + std::string(Info(m.id).code) + " | " + m.since.ToString() + " | " + Quoted(m.message);
    EXPECT_NE(doc.find(row), std::string::npos) << row;
  }
}

}  // namespace
}  // namespace scjit
