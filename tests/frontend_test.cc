// The .scir front end: round trips of every example and of every op, and inputs
// built to break it (truncated, mutated, binary, deeply nested, enormous).
#include <chrono>
#include <random>
#include <set>
#include <string>

#include "gtest/gtest.h"
#include "lowering/ir/parser.h"
#include "lowering/ir/printer.h"
#include "lowering/base/diagnostic.h"
#include "tests/ir_loader.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

using testing::Load;
using testing::ReadFile;

std::vector<std::string> AllExampleFiles() {
  std::vector<std::string> files = testing::FilesIn("examples", ".scir");
  for (const std::string& f : testing::FilesIn("examples/errors", ".scir")) files.push_back(f);
  files.push_back(testing::SourceDir() + "/tests/ir/all_ops.scir");
  return files;
}

std::string BaseName(const std::string& path) { return path.substr(path.rfind('/') + 1); }

// --- Round trips -------------------------------------------------------------------

class RoundTripTest : public ::testing::TestWithParam<std::string> {};

// Printing a file and parsing the print gives the same IR: printing that again
// gives identical text.
TEST_P(RoundTripTest, PrintReparsesToTheSameIr) {
  testing::Loaded first = Load(ReadFile(GetParam()), GetParam());
  ASSERT_NE(first.module, nullptr) << first.diagnostics;
  std::string printed = Print(*first.module);
  testing::Loaded second = Load(printed, "printed.scir");
  ASSERT_NE(second.module, nullptr) << second.diagnostics << "\n" << printed;
  EXPECT_EQ(Print(*second.module), printed);
  EXPECT_EQ(second.module->kernels.size(), first.module->kernels.size());
}

INSTANTIATE_TEST_SUITE_P(Examples, RoundTripTest, ::testing::ValuesIn(AllExampleFiles()),
                         [](const ::testing::TestParamInfo<std::string>& info) {
                           std::string name = BaseName(info.param);
                           for (char& c : name) {
                             if (!std::isalnum(static_cast<unsigned char>(c))) c = '_';
                           }
                           return name;
                         });

// all_ops.scir uses every op of ops.def.
TEST(RoundTripTest, AllOpsCoversTheOpTable) {
  testing::Loaded loaded = Load(ReadFile(testing::SourceDir() + "/tests/ir/all_ops.scir"));
  ASSERT_NE(loaded.module, nullptr) << loaded.diagnostics;
  std::set<OpKind> seen;
  for (const auto& k : loaded.module->kernels) WalkOps(k->body, [&](const Op& op) { seen.insert(op.kind); });
  for (size_t i = 0; i < NumOpKinds(); ++i) {
    EXPECT_TRUE(seen.count(static_cast<OpKind>(i))) << Info(static_cast<OpKind>(i)).name << " is not in all_ops.scir";
  }
}

TEST(PrinterTest, CanonicalLiterals) {
  testing::Loaded loaded = Load(R"(kernel @k(in %x: hbm<4xi32>)
    mesh scalar(cores = 1)
{
  %a = const 0x1F : i32
  %b = const -2e-3 : f32
  %c = const 1e20 : f32
  %d = const -inf : f32
  %e = const nan : f32
  %f = const 3.0 : f32
  debug_print "tab\"quote\\back\nline"
}
)");
  ASSERT_NE(loaded.module, nullptr) << loaded.diagnostics;
  EXPECT_EQ(Print(*loaded.module), R"(kernel @k(in %x: hbm<4xi32>)
    mesh scalar(cores = 1)
{
  %a = const 31 : i32
  %b = const -0.002 : f32
  %c = const 1e+20 : f32
  %d = const -inf : f32
  %e = const nan : f32
  %f = const 3.0 : f32
  debug_print "tab\"quote\\back\nline"
}
)");
}

TEST(ParserTest, LiteralsTakeTheOperandType) {
  testing::Loaded loaded = Load(R"(kernel @k(in %x: hbm<4xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%s: smem<4xf32>)
{
  %i = axis_index core : i32
  %a = add %i, 3 : i32
  %f = get %s[%i] : f32
  %g = mul %f, 2 : f32
  store %s[1], 0.5
}
)");
  ASSERT_NE(loaded.module, nullptr) << loaded.diagnostics;
  const Region& body = loaded.module->kernels[0]->body;
  EXPECT_EQ(body.ops[1]->operands[1].type(), Type::Scalar(ElementType::kI32));
  EXPECT_EQ(body.ops[3]->operands[1].type(), Type::Scalar(ElementType::kF32));
  EXPECT_EQ(body.ops[4]->operands[1].type(), Type::Scalar(ElementType::kF32));
  EXPECT_EQ(body.ops[4]->operands[0].index[0].start.type(), Type::Scalar(ElementType::kI32));
}

TEST(ParserTest, SiblingRegionsMayReuseNames) {
  testing::Loaded loaded = Load(R"(kernel @k(in %x: hbm<4xi32>)
    mesh scalar(cores = 1)
{
  for %i = 0 to 2 step 1 {
    %a = add %i, 1 : i32
  }
  for %i = 0 to 2 step 1 {
    %a = add %i, 2 : i32
  }
}
)");
  EXPECT_NE(loaded.module, nullptr) << loaded.diagnostics;
}

TEST(ParserTest, SeveralErrorsAreAllReportedInSourceOrder) {
  testing::Loaded loaded = Load(R"(kernel @k(in %x: hbm<4xi32>)
    mesh scalar(cores = 1)
{
  %a = add %nope, 1 : i32
  %b = const 300 : i8
  %c = add %a, %b : i32
}
)");
  EXPECT_EQ(loaded.codes, (std::vector<std::string>{"IR-UNDEFINED", "IR-LITERAL", "IR-TYPE"}));
}

// for, while and if carry values; a ref is used inside the region instead
// (parallel_for's ref carries are the SC rules PL-1/PL-2).
TEST(VerifierTest, OnlyValuesAreCarried) {
  testing::Loaded loop = Load(R"(kernel @k(inout %x: vmem<16xi32>)
{
  %r = for %i = 0 to 4 step 1 iter(%c = %x) : vmem<16xi32> {
    yield %c
  }
}
)");
  EXPECT_EQ(loop.diagnostics,
            "test.scir:3:36: error[IR-TYPE]: 'for' carries values, not refs: %c is vmem<16xi32> (use the ref inside "
            "the region instead of carrying it)\n"
            "    3 |   %r = for %i = 0 to 4 step 1 iter(%c = %x) : vmem<16xi32> {\n"
            "      |                                    ^~\n");
  testing::Loaded cond = Load(R"(kernel @k(inout %x: vmem<16xi32>, inout %y: vmem<16xi32>)
{
  %t = const true : i1
  %r = if %t : vmem<16xi32> { yield %x } else { yield %y }
}
)");
  EXPECT_EQ(cond.codes, (std::vector<std::string>{"IR-TYPE"}));
  testing::Loaded whiles = Load(R"(kernel @k(in %s: dma_sem)
{
  %r = while iter(%c = %s) : dma_sem cond { %t = const true : i1; condition %t } body { yield %c }
}
)");
  EXPECT_EQ(whiles.codes, (std::vector<std::string>{"IR-TYPE"}));
}

// --- Hostile input -----------------------------------------------------------------

// Every prefix of every example either loads or is rejected with diagnostics;
// nothing crashes or hangs.
TEST(MalformedInputTest, EveryTruncationIsDiagnosed) {
  for (const std::string& path : AllExampleFiles()) {
    std::string text = ReadFile(path);
    size_t step = text.size() > 4000 ? 3 : 1;
    for (size_t n = 0; n < text.size(); n += step) {
      testing::Loaded loaded = Load(text.substr(0, n));
      if (loaded.module == nullptr) {
        ASSERT_FALSE(loaded.codes.empty()) << BaseName(path) << " cut at " << n;
        ASSERT_EQ(loaded.codes[0].substr(0, 3), "IR-") << BaseName(path) << " cut at " << n;
      }
    }
  }
}

TEST(MalformedInputTest, RandomMutationsAreDiagnosed) {
  std::mt19937 rng(1234);
  std::vector<std::string> texts;
  for (const std::string& path : AllExampleFiles()) texts.push_back(ReadFile(path));
  const std::string alphabet = "%@{}[]()<>:,=-?x0123456789abcdefgimnorstuvy_\"\\/;\n \t\x01\xff";
  for (int iter = 0; iter < 3000; ++iter) {
    std::string text = texts[rng() % texts.size()];
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      size_t pos = rng() % text.size();
      switch (rng() % 3) {
        case 0:
          text[pos] = alphabet[rng() % alphabet.size()];
          break;
        case 1:
          text.erase(pos, 1 + rng() % 8);
          break;
        default:
          text.insert(pos, 1, alphabet[rng() % alphabet.size()]);
      }
    }
    testing::Loaded loaded = Load(text);
    if (loaded.module == nullptr) {
      ASSERT_FALSE(loaded.codes.empty()) << text;
    }
  }
}

TEST(MalformedInputTest, BinaryGarbageIsDiagnosed) {
  std::mt19937 rng(99);
  for (int iter = 0; iter < 500; ++iter) {
    std::string text(1 + rng() % 512, '\0');
    for (char& c : text) c = static_cast<char>(rng());
    testing::Loaded loaded = Load(text);
    ASSERT_EQ(loaded.module, nullptr);
    ASSERT_FALSE(loaded.codes.empty());
  }
}

TEST(MalformedInputTest, NulBytesAreDiagnosed) {
  std::string text = "kernel @k(in %x: hbm<4xi32>)\n    mesh scalar(cores = 1)\n{\n  %a = const 1 : i32";
  text += '\0';
  text += "\n}\n";
  testing::Loaded loaded = Load(text, "nul.scir");
  EXPECT_EQ(loaded.diagnostics, R"(nul.scir:4:21: error[IR-LEX]: unexpected byte 0x00
    4 |   %a = const 1 : i32?
      |                     ^
)");
}

TEST(MalformedInputTest, DeepNestingIsALimitNotACrash) {
  std::string text = "kernel @k(in %x: hbm<4xi32>)\n    mesh scalar(cores = 1)\n{\n";
  for (int i = 0; i < 100000; ++i) text += "scoped {\n";
  testing::Loaded loaded = Load(text, "deep.scir");
  ASSERT_EQ(loaded.codes, std::vector<std::string>{"IR-LIMIT"});
  EXPECT_NE(loaded.diagnostics.find("error[IR-LIMIT]: nesting deeper than 200 levels"), std::string::npos);

  std::string dense = "kernel @k(in %x: hbm<4xi32>)\n    mesh scalar(cores = 1)\n{\n  %v = const dense<";
  dense += std::string(100000, '[');
  EXPECT_EQ(Load(dense).codes, std::vector<std::string>{"IR-LIMIT"});

  std::string attrs = "kernel @k(in %x: hbm<4xi32>)\n    mesh scalar(cores = 1)\n{\n  for %i = 0 to 1 step 1 {unroll = ";
  attrs += std::string(100000, '[');
  EXPECT_EQ(Load(attrs).codes, std::vector<std::string>{"IR-LIMIT"});
}

TEST(MalformedInputTest, EnormousValidKernelLoads) {
  std::string text = "kernel @k(in %x: hbm<4xi32>)\n    mesh scalar(cores = 1)\n{\n  %v0 = const 0 : i32\n";
  for (int i = 1; i < 100000; ++i) {
    text += "  %v" + std::to_string(i) + " = add %v" + std::to_string(i - 1) + ", 1 : i32\n";
  }
  text += "}\n";
  testing::Loaded loaded = Load(text);
  ASSERT_NE(loaded.module, nullptr) << loaded.diagnostics.substr(0, 500);
  EXPECT_EQ(loaded.module->kernels[0]->body.ops.size(), 100000u);
}

// Found while fuzzing (docs/fuzzing.md): each use of an undefined name searched
// all the kernel's values for one of its name (for the note), and each literal
// splatted to a vector searched them for a free name, so a 2 MB file of 40000
// each took 30 s, and this one of 80000 minutes. Both are one lookup now (about
// a second; ten under ASan).
TEST(MalformedInputTest, ManyUndefinedNamesAndSplatsTakeLinearTime) {
  constexpr int kOps = 80000;
  std::string text = "kernel @k(in %x: hbm<16xi32>)\n    mesh vector(cores = 1, subcores = 1)\n{\n";
  text += "  %v = iota : vector<16xi32>\n";
  for (int i = 0; i < kOps; ++i) text += "  %a" + std::to_string(i) + " = add %v, 1 : vector<16xi32>\n";
  for (int i = 0; i < kOps; ++i) text += "  %b" + std::to_string(i) + " = add %u, 2 : i32\n";
  text += "}\n";
  auto start = std::chrono::steady_clock::now();
  testing::Loaded loaded = Load(text, "many.scir");
  std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
  EXPECT_LT(took.count(), 60) << "seconds";
  // The sink keeps the first 50 diagnostics.
  ASSERT_EQ(loaded.codes, std::vector<std::string>(50, "IR-UNDEFINED"));
  EXPECT_EQ(loaded.diagnostics.substr(0, loaded.diagnostics.find("\n")),
            "many.scir:80005:13: error[IR-UNDEFINED]: use of undefined value %u");
}

TEST(MalformedInputTest, OversizedFileIsALimit) {
  std::string text(kMaxSourceBytes + 1, ' ');
  testing::Loaded loaded = Load(text, "big.scir");
  EXPECT_EQ(loaded.diagnostics,
            "big.scir: error[IR-LIMIT]: the file holds more than 67108864 bytes, the limit\n");
}

TEST(MalformedInputTest, LongLinesAreShownAsAWindow) {
  std::string name(100000, 'q');
  testing::Loaded loaded =
      Load("kernel @k(in %x: hbm<4xi32>)\n    mesh scalar(cores = 1)\n{\n  %a = " + name + " %x\n}\n", "long.scir");
  ASSERT_EQ(loaded.codes, std::vector<std::string>{"IR-UNKNOWN-OP"});
  EXPECT_LT(loaded.diagnostics.size(), 1000u);
  EXPECT_NE(loaded.diagnostics.find("\n    4 |   %a = qqqq"), std::string::npos);
}

TEST(MalformedInputTest, HugeNumbersAreLimits) {
  EXPECT_EQ(Load("kernel @k(in %x: hbm<4xi32>) mesh scalar(cores = 1) { %a = const 1e999 : f32 }").codes,
            std::vector<std::string>{"IR-LIMIT"});
  EXPECT_EQ(Load("kernel @k(in %x: hbm<4xi32>) mesh scalar(cores = 1) { %a = const 0x1FFFFFFFFFFFFFFFF : i32 }").codes,
            std::vector<std::string>{"IR-LIMIT"});
  EXPECT_EQ(Load("kernel @k(in %x: hbm<99999999999999999999xi32>) mesh scalar(cores = 1) { }").codes,
            std::vector<std::string>{"IR-LIMIT"});
}

// Found while fuzzing: a slice stride that does not fit in i32 was reported and
// then multiplied anyway (a signed overflow: undefined behaviour, an abort under
// UBSan).
TEST(MalformedInputTest, AHugeSliceStrideIsOneLiteralError) {
  testing::Loaded loaded = Load(R"(kernel @k(in %x: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%b: vmem<16xi32>)
{
  %v = get %b[ds(0, 16, stride = 9223372036854775807)] : vector<16xi32>
}
)",
                                "s.scir");
  EXPECT_EQ(loaded.diagnostics, R"(s.scir:5:34: error[IR-LITERAL]: literal 9223372036854775807 does not fit in i32
    5 |   %v = get %b[ds(0, 16, stride = 9223372036854775807)] : vector<16xi32>
      |                                  ^~~~~~~~~~~~~~~~~~~
)");
}

}  // namespace
}  // namespace scjit
