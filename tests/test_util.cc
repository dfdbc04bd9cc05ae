#include "tests/test_util.h"

#include <sys/wait.h>

#include <algorithm>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

namespace scjit::testing {

std::string SourceDir() {
  const char* env = std::getenv("SCJIT_SOURCE_DIR");
  return env != nullptr ? env : SCJIT_SOURCE_DIR;
}

std::vector<std::string> FilesIn(const std::string& dir, const std::string& suffix) {
  std::vector<std::string> out;
  for (const auto& entry : std::filesystem::directory_iterator(SourceDir() + "/" + dir)) {
    std::string path = entry.path().string();
    if (path.size() >= suffix.size() && path.compare(path.size() - suffix.size(), suffix.size(), suffix) == 0) {
      out.push_back(path);
    }
  }
  std::sort(out.begin(), out.end());
  return out;
}

std::string ReadFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream s;
  s << in.rdbuf();
  return s.str();
}

Loaded Load(const std::string& text, const std::string& name) {
  DiagnosticSink sink;
  auto file = std::make_shared<const SourceFile>(name, text);
  absl::StatusOr<std::unique_ptr<Module>> module = LoadModule(file, sink);
  Loaded result;
  if (module.ok()) result.module = *std::move(module);
  result.diagnostics = sink.Render();
  for (const Diagnostic& d : sink.diagnostics()) result.codes.push_back(std::string(d.code()));
  return result;
}

CommandResult RunCommand(const std::string& command) {
  std::string dir = std::filesystem::temp_directory_path() / "scjit-test-XXXXXX";
  std::vector<char> tmpl(dir.begin(), dir.end());
  tmpl.push_back('\0');
  std::string tmp = mkdtemp(tmpl.data());
  std::string out_path = tmp + "/out", err_path = tmp + "/err";
  std::string full = command + " >" + out_path + " 2>" + err_path;
  int status = std::system(full.c_str());
  CommandResult r;
  r.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : -1;
  r.out = ReadFile(out_path);
  r.err = ReadFile(err_path);
  std::filesystem::remove_all(tmp);
  return r;
}

}  // namespace scjit::testing
