// Helpers shared by scjit's tests.
#ifndef SCJIT_TESTS_TEST_UTIL_H_
#define SCJIT_TESTS_TEST_UTIL_H_

#include <memory>
#include <string>
#include <vector>

#include "lowering/base/diagnostic.h"
#include "lowering/ir/frontend.h"
#include "lowering/ir/ir.h"

namespace scjit::testing {

// The repository root (tests read examples/ from it).
std::string SourceDir();

// Every file under `dir` (relative to the repository root) ending in `suffix`,
// sorted.
std::vector<std::string> FilesIn(const std::string& dir, const std::string& suffix);

std::string ReadFile(const std::string& path);

// Parses and verifies `text` as a file named `name`.
struct Loaded {
  std::unique_ptr<Module> module;  // null on errors
  std::string diagnostics;         // every diagnostic, rendered
  std::vector<std::string> codes;  // their codes, in report order
};
Loaded Load(const std::string& text, const std::string& name = "test.scir");

// Runs a command with /bin/sh, capturing its exit code, stdout and stderr.
struct CommandResult {
  int exit_code = -1;
  std::string out, err;
};
CommandResult RunCommand(const std::string& command);

}  // namespace scjit::testing

#endif  // SCJIT_TESTS_TEST_UTIL_H_
