// DiskCache: compiled kernels on disk, one file per kernel, so that a later
// process skips compiling them (CompileOptions::cache_dir, `--cache-dir`).
//
// An entry is named by the SHA-256 of its key — the text of everything that
// decides the code: the source, the kernel, the target, the options that change
// code, the host CPU and its features, the scjit build and the LLVM version — and
// holds the key itself, the launch layout and the object code, behind a magic,
// a length and a checksum. Writes go to a temporary file renamed into place, so
// processes sharing a directory never see half an entry. An entry that is
// truncated, corrupt or of another key is a miss with a warning (IO-CACHE), never
// a crash and never stale code; storing over it replaces it.
//
// Thread safety: thread-safe (it holds no mutable state; the file system
// arbitrates between threads and processes).
#ifndef SCJIT_JIT_DISK_CACHE_H_
#define SCJIT_JIT_DISK_CACHE_H_

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "lowering/base/launch_layout.h"
#include "scjit/diagnostic.h"

namespace scjit {

class DiskCache {
 public:
  explicit DiskCache(std::string dir) : dir_(std::move(dir)) {}

  struct Entry {
    LaunchLayout layout;
    std::string object;
  };

  // The entry for `key`: nullopt when there is none, or (with a warning added to
  // *warnings) when the one there cannot be used.
  std::optional<Entry> Load(std::string_view key, std::vector<Diagnostic>* warnings) const;
  // Stores an entry for `key`, replacing any. A failure to write is a warning.
  void Store(std::string_view key, const LaunchLayout& layout, std::string_view object,
             std::vector<Diagnostic>* warnings) const;

  // The file an entry for `key` lives in.
  std::string PathFor(std::string_view key) const;

 private:
  std::string dir_;
};

// The SHA-256 of `data`, in hex.
std::string Sha256Hex(std::string_view data);

}  // namespace scjit

#endif  // SCJIT_JIT_DISK_CACHE_H_
