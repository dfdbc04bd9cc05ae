// Opening the files scjit reads (kernels, .npy inputs and expected outputs):
// only regular files. A character device (/dev/zero) reads without end and a
// FIFO blocks until someone writes it, which would hang jit-run, or a Python
// thread holding the interpreter's lock; both are refused with the reason.
#ifndef SCJIT_LOWERING_BASE_REGULAR_FILE_H_
#define SCJIT_LOWERING_BASE_REGULAR_FILE_H_

#include <cstdio>
#include <string>

#include "absl/status/statusor.h"

namespace scjit {

// Opens `path` for reading ("rb") when it is a regular file. Otherwise (or
// when it cannot be opened) the reason, as IO-OPEN's "reason" argument would
// say it: "it is a directory", "it is not a regular file (a FIFO)", or the
// system's error text. The caller owns the FILE (fclose).
absl::StatusOr<std::FILE*> OpenRegularFile(const std::string& path);

}  // namespace scjit

#endif  // SCJIT_LOWERING_BASE_REGULAR_FILE_H_
