// Findings of several subcores at one op are reported once (runtime/findings.h):
// the subcore lists, the merge rules, and what jit-run prints for a bad input.
#include "runtime/findings.h"

#include <string>
#include <vector>

#include "gtest/gtest.h"
#include "tests/test_util.h"

namespace scjit {
namespace {

using Members = std::vector<std::pair<int, int>>;

TEST(SubcoreRangesTest, RunsPerCore) {
  Members m;
  for (int s = 0; s < 16; ++s) m.push_back({0, s});
  for (int s = 0; s < 14; ++s) m.push_back({1, s});
  EXPECT_EQ(SubcoreRanges(MeshKind::kVector, m), "core 0 subcores 0–15, core 1 subcores 0–13");
  EXPECT_EQ(SubcoreRanges(MeshKind::kVector, {{1, 3}}), "core 1 subcore 3");
  EXPECT_EQ(SubcoreRanges(MeshKind::kVector, {{0, 7}, {0, 1}, {0, 2}, {0, 4}}), "core 0 subcores 1–2, 4, 7");
  EXPECT_EQ(SubcoreRanges(MeshKind::kScalar, {{1, 0}, {0, 0}}), "cores 0–1");
  EXPECT_EQ(SubcoreRanges(MeshKind::kScalar, {{2, 0}}), "core 2");
}

Diagnostic At(int line, std::string message, std::string code = "RT-BOUNDS") {
  Diagnostic d;
  d.code = std::move(code);
  d.file = "k.scir";
  d.loc = Location{line, 3, 4};
  d.message = std::move(message);
  return d;
}

TEST(MergeFindingsTest, IdenticalFindingsBecomeOne) {
  std::vector<SubcoreFinding> f;
  for (int s = 0; s < 3; ++s) f.push_back({At(4, "index 9 is out of bounds"), 0, s});
  f.push_back({At(4, "index 9 is out of bounds"), 1, 0});
  std::vector<Diagnostic> out = MergeFindings(f, "k", MeshKind::kVector);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message, "index 9 is out of bounds");
  EXPECT_EQ(out[0].notes, std::vector<std::string>{"in kernel @k, 4 subcores: core 0 subcores 0–2, core 1 subcore 0"});
}

TEST(MergeFindingsTest, OneSubcoreIsNamedAsBefore) {
  std::vector<Diagnostic> out = MergeFindings({{At(4, "x"), 1, 5}}, "k", MeshKind::kVector);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].notes, std::vector<std::string>{"in kernel @k, subcore (core 1, subcore 5)"});
  out = MergeFindings({{At(4, "x"), 1, 0}}, "k", MeshKind::kScalar);
  EXPECT_EQ(out[0].notes, std::vector<std::string>{"in kernel @k, scalar subcore (core 1)"});
}

TEST(MergeFindingsTest, OtherValuesAtOneOpAreCountedUnderTheFirst) {
  std::vector<SubcoreFinding> f = {{At(4, "entry 0 is 5000"), 0, 0},
                                   {At(4, "entry 3 is 4100"), 0, 1},
                                   {At(4, "entry 0 is 5000"), 0, 2},
                                   {At(4, "entry 7 is 4097"), 1, 0}};
  std::vector<Diagnostic> out = MergeFindings(f, "k", MeshKind::kVector);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].message, "entry 0 is 5000");
  EXPECT_EQ(out[0].notes,
            (std::vector<std::string>{"in kernel @k, 2 subcores: core 0 subcores 0, 2",
                                      "this op failed the same check on 2 more subcores with other values (core 0 "
                                      "subcore 1, core 1 subcore 0); the next: subcore (core 0, subcore 1): entry 3 "
                                      "is 4100"}));
}

// An op in a loop fails on a subcore once per iteration: each subcore is
// listed, and counted, once.
TEST(MergeFindingsTest, ASubcoreFailingInALoopIsNamedOnce) {
  std::vector<SubcoreFinding> f;
  for (int iteration = 0; iteration < 3; ++iteration) {
    for (int s = 1; s < 4; ++s) f.push_back({At(4, "entry 0 is 5000"), 0, s});
  }
  f.push_back({At(4, "entry 1 is 4100"), 0, 1});
  f.push_back({At(4, "entry 2 is 4200"), 0, 1});
  f.push_back({At(4, "entry 1 is 4100"), 1, 0});
  std::vector<Diagnostic> out = MergeFindings(f, "k", MeshKind::kVector);
  ASSERT_EQ(out.size(), 1u);
  EXPECT_EQ(out[0].notes,
            (std::vector<std::string>{"in kernel @k, 3 subcores: core 0 subcores 1–3",
                                      "this op failed the same check on 2 more subcores with other values (core 0 "
                                      "subcore 1, core 1 subcore 0); the next: subcore (core 0, subcore 1): entry 1 "
                                      "is 4100"}));
  EXPECT_EQ(SubcoreRanges(MeshKind::kVector, {{0, 2}, {0, 1}, {0, 2}, {0, 3}, {0, 3}}), "core 0 subcores 1–3");
  EXPECT_EQ(SubcoreRanges(MeshKind::kScalar, {{1, 0}, {1, 0}}), "core 1");
}

// Consecutive chips with the same subcores are one entry.
TEST(SubcoreRangesTest, ChipsWithTheSameSubcoresGoTogether) {
  std::vector<FindingSource> m;
  for (int d = 0; d < 64; ++d) m.push_back({d, 0, 0});
  EXPECT_EQ(SubcoreRangesOnChips(MeshKind::kScalar, m), "devices 0–63 core 0");
  m = {{0, 0, 1}, {1, 0, 1}, {2, 0, 1}, {2, 0, 2}, {3, 0, 1}, {5, 0, 1}};
  EXPECT_EQ(SubcoreRangesOnChips(MeshKind::kVector, m),
            "devices 0–1 core 0 subcore 1, device 2 core 0 subcores 1–2, device 3 core 0 subcore 1, "
            "device 5 core 0 subcore 1");
}

TEST(MergeFindingsTest, OtherSitesAndCodesStayApartInOrder) {
  std::vector<SubcoreFinding> f = {{At(9, "late"), 0, 0},
                                   {At(4, "early"), 0, 1},
                                   {At(9, "late", "RT-SYNC"), 0, 2},
                                   {At(9, "late"), 0, 3}};
  std::vector<Diagnostic> out = MergeFindings(f, "k", MeshKind::kVector);
  ASSERT_EQ(out.size(), 3u);
  EXPECT_EQ(out[0].loc.line, 9);
  EXPECT_EQ(out[0].code, "RT-BOUNDS");
  EXPECT_EQ(out[0].notes, std::vector<std::string>{"in kernel @k, 2 subcores: core 0 subcores 0, 3"});
  EXPECT_EQ(out[1].loc.line, 4);
  EXPECT_EQ(out[2].code, "RT-SYNC");
}

TEST(MergeFindingsTest, FindingsThatNameTheirSubcorePassThrough) {
  Diagnostic timeout = At(0, "timed out", "RT-TIMEOUT");
  timeout.notes = {"subcore (core 0, subcore 2) was still in this loop"};
  std::vector<Diagnostic> out = MergeFindings({{At(4, "x"), 0, 0}, {timeout, 0, 2, false}}, "k", MeshKind::kVector);
  ASSERT_EQ(out.size(), 2u);
  EXPECT_EQ(out[1].notes, timeout.notes);
}

// One bad index read by every subcore: one report, not 32.
TEST(MergeFindingsTest, JitRunReportsABadIndexOnce) {
  testing::CommandResult r = testing::RunCommand("cd '" + testing::SourceDir() + "' && '" SCJIT_JIT_RUN
                                                 "' examples/gather_indirect.scir --in ids=fill:5000");
  EXPECT_EQ(r.exit_code, 1);
  EXPECT_EQ(r.err,
            "examples/gather_indirect.scir:39:5: error[RT-BOUNDS]: copy %x[idx(%row_ids)] -> %o_vmem: entry 0 of the "
            "index list is 5000, outside dimension 0 of the source (size 4096)\n"
            "   39 |     copy %x[idx(%row_ids)] -> %o_vmem              // the gather op\n"
            "      |     ^~~~\n"
            "note: in kernel @gather_indirect, 32 subcores: core 0 subcores 0–15, core 1 subcores 0–15\n");
}

}  // namespace
}  // namespace scjit
