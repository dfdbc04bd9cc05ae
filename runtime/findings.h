// The findings of a launch as the user reads them: one report per failing op,
// not one per subcore. Subcores run the same program, so one bad input usually
// fails the same check on many of them; a launch of 32 subcores should say so
// once, with the count and the subcores ("30 subcores: core 0 subcores 0–15,
// core 1 subcores 0–13"), rather than print 30 near-identical blocks.
//
// Thread safety: plain functions of their arguments.
#ifndef SCJIT_RUNTIME_FINDINGS_H_
#define SCJIT_RUNTIME_FINDINGS_H_

#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "lowering/base/diagnostic.h"
#include "lowering/base/launch_layout.h"

namespace scjit {

// A finding as one subcore made it, before the note that names the subcore.
struct SubcoreFinding {
  Diagnostic diagnostic;
  int core = 0;
  int subcore = 0;
  // False when the diagnostic already says who made it (a timeout): it is then
  // passed through as it is.
  bool name_subcore = true;
  // The mesh of the part that made it (a kernel of several parts has subcores of
  // both kinds); none: MergeFindings' `mesh`.
  std::optional<MeshKind> mesh = std::nullopt;
  // Its chip in a launch of several (-1: a launch of one chip, not named).
  int device = -1;
};

// Who made a finding: a chip (-1 when the launch has one), core and subcore.
struct FindingSource {
  int device = -1;
  int core = 0;
  int subcore = 0;
  friend auto operator<=>(const FindingSource&, const FindingSource&) = default;
};

// "subcore (core 0, subcore 3)", or "scalar subcore (core 1)" on a scalar mesh;
// with a chip (device >= 0) "subcore (device 2, core 0, subcore 3)".
std::string SubcoreName(MeshKind mesh, int core, int subcore, int device = -1);

// The subcores of `members` ((core, subcore) pairs in launch order) in short:
// "core 0 subcores 0–15, core 1 subcores 0–13"; on a scalar mesh "cores 0–1".
std::string SubcoreRanges(MeshKind mesh, const std::vector<std::pair<int, int>>& members);
// The same per chip: "device 0 core 0 subcores 0–15, device 1 core 1 subcore 3";
// consecutive chips with the same subcores together: "devices 0–3 core 0".
std::string SubcoreRangesOnChips(MeshKind mesh, const std::vector<FindingSource>& members);

// The launch's findings in the order they were made, merged per op: findings of
// one code at one site (one location) become one diagnostic. When they are
// identical but for the subcore, its note names them all (findings of subcores
// of different meshes are never merged) ("in kernel @k, 30
// subcores: ..."); when their details differ (another index, another value),
// the first is shown in full and a note counts the others, names them and
// quotes the second's message.
std::vector<Diagnostic> MergeFindings(std::vector<SubcoreFinding> findings, std::string_view kernel, MeshKind mesh);

}  // namespace scjit

#endif  // SCJIT_RUNTIME_FINDINGS_H_
