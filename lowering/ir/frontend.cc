#include "lowering/ir/frontend.h"

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "lowering/ir/parser.h"
#include "lowering/ir/verifier.h"

namespace scjit {

absl::StatusOr<std::shared_ptr<const SourceFile>> ReadSourceFile(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) {
    return DiagnosticStatus(MakeDiagnostic(DiagId::kIoOpen, nullptr, Location{},
                                           {{"path", path}, {"reason", "it is a directory"}}));
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) {
    return DiagnosticStatus(MakeDiagnostic(DiagId::kIoOpen, nullptr, Location{},
                                           {{"path", path}, {"reason", std::strerror(errno)}}));
  }
  std::ostringstream text;
  text << in.rdbuf();
  if (in.bad()) {
    return DiagnosticStatus(
        MakeDiagnostic(DiagId::kIoOpen, nullptr, Location{}, {{"path", path}, {"reason", "read error"}}));
  }
  return std::make_shared<const SourceFile>(path, std::move(text).str());
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
