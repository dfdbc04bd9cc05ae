// Helpers shared by scjit's tests: files of the repository, commands.
#ifndef SCJIT_TESTS_TEST_UTIL_H_
#define SCJIT_TESTS_TEST_UTIL_H_

#include <string>
#include <vector>

namespace scjit::testing {

// The repository root (tests read examples/ from it).
std::string SourceDir();

// Every file under `dir` (relative to the repository root) ending in `suffix`,
// sorted.
std::vector<std::string> FilesIn(const std::string& dir, const std::string& suffix);

std::string ReadFile(const std::string& path);

// Runs a command with /bin/sh, capturing its exit code, stdout and stderr.
struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};
CommandResult RunCommand(const std::string& command);

// A fresh empty directory under the system's temporary directory.
std::string TempDir();

}  // namespace scjit::testing

#endif  // SCJIT_TESTS_TEST_UTIL_H_
