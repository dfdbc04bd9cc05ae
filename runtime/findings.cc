#include "runtime/findings.h"

#include <algorithm>
#include <tuple>

#include "lowering/base/strings.h"

namespace scjit {
namespace {

// "0–15", or "3" for a single number.
std::string Range(int lo, int hi) { return lo == hi ? Cat(lo) : Cat(lo, "–", hi); }

// Consecutive runs of `values` (ascending): "0–15, 17, 19–20".
std::string Runs(const std::vector<int>& values) {
  std::string out;
  for (size_t i = 0; i < values.size();) {
    size_t j = i;
    while (j + 1 < values.size() && values[j + 1] == values[j] + 1) ++j;
    Append(&out, out.empty() ? "" : ", ", Range(values[i], values[j]));
    i = j + 1;
  }
  return out;
}

// `members` sorted, each subcore once (one op in a loop fails on a subcore
// once per iteration).
std::vector<FindingSource> Distinct(std::vector<FindingSource> members) {
  std::sort(members.begin(), members.end());
  members.erase(std::unique(members.begin(), members.end()), members.end());
  return members;
}

// Findings of one code at one site, split by their text.
struct Group {
  const SubcoreFinding* first;
  // Each distinct text, in order of first appearance, with who made it.
  std::vector<std::pair<const SubcoreFinding*, std::vector<FindingSource>>> variants;
  std::vector<FindingSource> all;
};

bool SameSite(const SubcoreFinding& x, const SubcoreFinding& y) {
  const Diagnostic& a = x.diagnostic;
  const Diagnostic& b = y.diagnostic;
  return a.code == b.code && a.severity == b.severity && a.file == b.file && a.loc == b.loc && x.mesh == y.mesh;
}

bool SameText(const Diagnostic& a, const Diagnostic& b) {
  return std::tie(a.message, a.notes, a.help) == std::tie(b.message, b.notes, b.help);
}

// "in kernel @k, subcore (core 0, subcore 3)" or "in kernel @k, 30 subcores: ...".
std::string Name(MeshKind mesh, const FindingSource& who) { return SubcoreName(mesh, who.core, who.subcore, who.device); }

std::string WhoNote(std::string_view kernel, MeshKind mesh, const std::vector<FindingSource>& members) {
  std::vector<FindingSource> who = Distinct(members);
  if (who.size() == 1) return Cat("in kernel @", kernel, ", ", Name(mesh, who[0]));
  std::string_view kind = mesh == MeshKind::kScalar ? " scalar subcores: " : " subcores: ";
  return Cat("in kernel @", kernel, ", ", who.size(), kind, SubcoreRangesOnChips(mesh, who));
}

Diagnostic Render(const Group& g, std::string_view kernel, MeshKind mesh) {
  const auto& [shown, shown_by] = g.variants[0];
  Diagnostic d = shown->diagnostic;
  d.notes.push_back(WhoNote(kernel, mesh, shown_by));
  if (g.variants.size() == 1) return d;
  std::vector<FindingSource> others;
  for (size_t v = 1; v < g.variants.size(); ++v) {
    others.insert(others.end(), g.variants[v].second.begin(), g.variants[v].second.end());
  }
  others = Distinct(std::move(others));
  const auto& [next, next_by] = g.variants[1];
  d.notes.push_back(Cat("this op failed the same check on ", others.size(), " more subcore",
                        others.size() == 1 ? "" : "s", " with other values (", SubcoreRangesOnChips(mesh, others),
                        "); the next: ", Name(mesh, next_by[0]), ": ",
                        next->diagnostic.message));
  return d;
}

}  // namespace

std::string SubcoreName(MeshKind mesh, int core, int subcore, int device) {
  std::string chip = device >= 0 ? Cat("device ", device, ", ") : "";
  if (mesh == MeshKind::kScalar) return Cat("scalar subcore (", chip, "core ", core, ")");
  return Cat("subcore (", chip, "core ", core, ", subcore ", subcore, ")");
}

std::string SubcoreRangesOnChips(MeshKind mesh, const std::vector<FindingSource>& members) {
  std::vector<FindingSource> sorted = Distinct(members);
  // Each chip's subcores, then runs of consecutive chips with the same ones:
  // "devices 0–63 core 0" rather than 64 entries.
  std::vector<std::pair<int, std::string>> chips;
  for (size_t i = 0; i < sorted.size();) {
    std::vector<std::pair<int, int>> on_chip;
    size_t j = i;
    for (; j < sorted.size() && sorted[j].device == sorted[i].device; ++j) {
      on_chip.emplace_back(sorted[j].core, sorted[j].subcore);
    }
    chips.emplace_back(sorted[i].device, SubcoreRanges(mesh, on_chip));
    i = j;
  }
  std::string out;
  for (size_t i = 0; i < chips.size();) {
    size_t j = i;
    while (j + 1 < chips.size() && chips[j + 1].first == chips[j].first + 1 && chips[j + 1].second == chips[i].second) {
      ++j;
    }
    const auto& [device, subcores] = chips[i];
    std::string which = device < 0 ? "" : i == j ? Cat("device ", device, " ") : Cat("devices ", Range(device, chips[j].first), " ");
    Append(&out, out.empty() ? "" : ", ", which, subcores);
    i = j + 1;
  }
  return out;
}

std::string SubcoreRanges(MeshKind mesh, const std::vector<std::pair<int, int>>& members) {
  std::vector<std::pair<int, int>> sorted = members;
  std::sort(sorted.begin(), sorted.end());
  sorted.erase(std::unique(sorted.begin(), sorted.end()), sorted.end());
  if (mesh == MeshKind::kScalar) {
    std::vector<int> cores;
    for (const auto& m : sorted) cores.push_back(m.first);
    return Cat(cores.size() == 1 ? "core " : "cores ", Runs(cores));
  }
  std::string out;
  for (size_t i = 0; i < sorted.size();) {
    std::vector<int> subcores;
    size_t j = i;
    for (; j < sorted.size() && sorted[j].first == sorted[i].first; ++j) subcores.push_back(sorted[j].second);
    Append(&out, out.empty() ? "" : ", ", "core ", sorted[i].first, subcores.size() == 1 ? " subcore " : " subcores ",
           Runs(subcores));
    i = j;
  }
  return out;
}

std::vector<Diagnostic> MergeFindings(std::vector<SubcoreFinding> findings, std::string_view kernel, MeshKind mesh) {
  // Groups and pass-through findings in order of first appearance; a launch has
  // at most one finding per subcore and site, so the scans stay short.
  std::vector<Group> groups;
  std::vector<std::pair<size_t, const SubcoreFinding*>> order;  // group index, or the finding itself
  for (const SubcoreFinding& f : findings) {
    if (!f.name_subcore) {
      order.emplace_back(0, &f);
      continue;
    }
    FindingSource who{f.device, f.core, f.subcore};
    Group* g = nullptr;
    for (Group& candidate : groups) {
      if (SameSite(*candidate.first, f)) g = &candidate;
    }
    if (g == nullptr) {
      order.emplace_back(groups.size(), nullptr);
      groups.push_back(Group{&f, {}, {}});
      g = &groups.back();
    }
    g->all.push_back(who);
    auto variant = std::find_if(g->variants.begin(), g->variants.end(),
                                [&](const auto& v) { return SameText(v.first->diagnostic, f.diagnostic); });
    if (variant == g->variants.end()) {
      g->variants.push_back({&f, {who}});
    } else {
      variant->second.push_back(who);
    }
  }
  std::vector<Diagnostic> out;
  for (const auto& [index, passed] : order) {
    if (passed != nullptr) {
      out.push_back(passed->diagnostic);
    } else {
      const Group& g = groups[index];
      out.push_back(Render(g, kernel, g.first->mesh.value_or(mesh)));
    }
  }
  return out;
}

}  // namespace scjit
