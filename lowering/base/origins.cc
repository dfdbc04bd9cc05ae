#include "lowering/base/origins.h"

#include <algorithm>
#include <filesystem>
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
  d.source_line = SourceLine(o->file, o->line);
}

std::string OriginMap::SourceLine(const std::string& path, int line) const {
  std::lock_guard<std::mutex> lock(mu_);
  const SourceFile* file = UserFile(path);
  return file != nullptr ? std::string(file->Line(line)) : "";
}

const SourceFile* OriginMap::UserFile(const std::string& path) const {
  auto [it, added] = files_.try_emplace(path);
  if (!added) return it->second.get();
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) return nullptr;
  uint64_t size = std::filesystem::file_size(path, ec);
  if (ec || size > kMaxOriginBytes - bytes_read_) return nullptr;
  std::ifstream in(path, std::ios::binary);
  std::string bytes(size, '\0');  // no more than allowed for, should the file grow
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  bytes.resize(static_cast<size_t>(in.gcount()));
  bytes_read_ += bytes.size();
  it->second = std::make_unique<const SourceFile>(path, std::move(bytes));
  return it->second.get();
}

}  // namespace scjit
