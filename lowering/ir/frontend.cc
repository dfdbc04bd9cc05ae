#include "lowering/ir/frontend.h"

#include <algorithm>
#include <cstdio>
#include <memory>

#include "lowering/base/regular_file.h"
#include "lowering/ir/parser.h"
#include "lowering/ir/verifier.h"

namespace scjit {

absl::StatusOr<std::shared_ptr<const SourceFile>> ReadSourceFile(const std::string& path) {
  auto cannot = [&](std::string reason) {
    return DiagnosticStatus(
        MakeDiagnostic(DiagId::kIoOpen, nullptr, Location{}, {{"path", path}, {"reason", std::move(reason)}}));
  };
  absl::StatusOr<std::FILE*> opened = OpenRegularFile(path);
  if (!opened.ok()) return cannot(std::string(opened.status().message()));
  std::unique_ptr<std::FILE, int (*)(std::FILE*)> in(*opened, &std::fclose);
  // At most one byte past the parser's limit: a larger file is IR-LIMIT
  // (the lexer says so), read no further.
  std::string text;
  char chunk[1 << 16];
  while (text.size() <= kMaxSourceBytes) {
    size_t got = std::fread(chunk, 1, std::min(sizeof(chunk), kMaxSourceBytes + 1 - text.size()), in.get());
    if (got == 0) break;
    text.append(chunk, got);
  }
  if (std::ferror(in.get())) return cannot("read error");
  return std::make_shared<const SourceFile>(path, std::move(text));
}

absl::StatusOr<std::unique_ptr<Module>> LoadModule(std::shared_ptr<const SourceFile> file,
                                                   DiagnosticSink& sink) {
  std::unique_ptr<Module> module = Parse(std::move(file), sink);
  // A module cut short by a syntax error is not verified: its missing parts
  // would only produce noise.
  if (module->complete) Verify(*module, sink);
  if (sink.has_errors()) return sink.ToStatus();
  return module;
}

}  // namespace scjit
