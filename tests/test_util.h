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

// A small kernel several tests compile: o = x + 1 over 64 rows of 16 int32, a
// row at a time on 16 subcores, with synchronous copies.
inline constexpr const char kAddOneKernel[] = R"(kernel @add_one(in %x: hbm<64x16xi32>, out %o: hbm<64x16xi32>)
    mesh vector(cores = 1, subcores = 16)
    scratch(%buf: vmem<16xi32>)
{
  %s = axis_index subcore : i32
  %one = const dense<1> : vector<16xi32>
  for %r = 0 to 4 step 1 {
    %base = mul %s, 4 : i32
    %row = add %base, %r : i32
    copy %x[%row] -> %buf
    %v = get %buf[:] : vector<16xi32>
    %w = add %v, %one : vector<16xi32>
    store %buf[:], %w
    copy %buf -> %o[%row]
  }
}
)";

}  // namespace scjit::testing

#endif  // SCJIT_TESTS_TEST_UTIL_H_
