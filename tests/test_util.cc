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

std::string TempDir() {
  std::string dir = std::filesystem::temp_directory_path() / "scjit-test-XXXXXX";
  std::vector<char> tmpl(dir.begin(), dir.end());
  tmpl.push_back('\0');
  return mkdtemp(tmpl.data());
}

CommandResult RunCommand(const std::string& command) {
  std::string tmp = TempDir();
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
