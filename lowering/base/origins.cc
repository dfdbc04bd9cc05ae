#include "lowering/base/origins.h"

#include <algorithm>
#include <fstream>

#include "lowering/base/strings.h"

namespace scjit {

const Origin* OriginMap::Find(int line) const {
  auto it = origins_.find(line);
  return it == origins_.end() ? nullptr : &it->second;
}

void OriginMap::Relocate(Diagnostic& d, const SourceFile& file) const {
  if (d.file != file.name() || !d.loc.valid()) return;
  const Origin* o = Find(d.loc.line);
  if (o == nullptr) return;
  std::string_view text = file.Line(d.loc.line);
  // The op as written, without its indentation and its own `loc(...)`.
  text.remove_prefix(std::min(text.find_first_not_of(" \t"), text.size()));
  if (size_t at = text.rfind(" loc(\""); at != std::string_view::npos) text = text.substr(0, at);
  d.notes.insert(d.notes.begin(), Cat("in the kernel file at ", file.name(), ":", d.loc.line, ":", d.loc.col, ": ", text));
  d.file = o->file;
  d.loc = Location{o->line, std::max(o->col, 1), 1};
  d.source_line = ReadSourceLine(o->file, o->line);
}

std::string ReadSourceLine(const std::string& path, int line) {
  std::ifstream in(path);
  std::string text;
  for (int n = 1; n <= line && std::getline(in, text); ++n) {
    if (n == line) {
      if (!text.empty() && text.back() == '\r') text.pop_back();
      return text;
    }
  }
  return "";
}

}  // namespace scjit
