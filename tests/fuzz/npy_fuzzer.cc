// libFuzzer target: arbitrary bytes as a .npy file, read by ParseNpy (from
// memory) and by ReadNpyArray (from a file: an in-memory memfd), with every
// `raw_as` type a '|V1' file can be read as.
//
// Besides crashes, leaks and undefined behaviour it checks what runtime/npy.h
// promises (docs/fuzzing.md):
//   - every input is read or rejected with one of the reader's IO-* codes;
//   - ParseNpy and ReadNpyArray agree (the same array, or the same error);
//   - an array read holds NumBytes() bytes, and SerializeNpy of it reads back
//     to the same array (as its own type, for those written as raw '|V1').
// A broken promise aborts with a message, which libFuzzer reports as a crash.
#include <sys/mman.h>
#include <unistd.h>

#include <array>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "lowering/base/diagnostic.h"
#include "lowering/base/strings.h"
#include "runtime/npy.h"
#include "tests/fuzz/require.h"

namespace scjit {
namespace {

bool SameArray(const NpyArray& a, const NpyArray& b) {
  return a.dtype == b.dtype && a.shape == b.shape && a.data == b.data;
}

// The codes the reader may give.
bool IsReaderCode(std::string_view code) {
  return code == "IO-NPY-FORMAT" || code == "IO-NPY-ORDER" || code == "IO-NPY-DTYPE" ||
         code == "IO-NPY-ENDIAN" || code == "IO-NPY-DATA";
}

// A file holding the input, for ReadNpyArray: one memfd, rewritten per input.
class MemFile {
 public:
  MemFile() : fd_(memfd_create("npy_fuzzer", 0)) {
    Require(fd_ >= 0, "memfd_create failed");
    path_ = Cat("/proc/self/fd/", fd_);
  }
  const std::string& path() const { return path_; }
  void Write(std::string_view bytes) {
    Require(ftruncate(fd_, 0) == 0, "ftruncate failed");
    size_t done = 0;
    while (done < bytes.size()) {
      ssize_t n = pwrite(fd_, bytes.data() + done, bytes.size() - done, static_cast<off_t>(done));
      Require(n > 0, "pwrite failed");
      done += static_cast<size_t>(n);
    }
  }

 private:
  int fd_;
  std::string path_;
};

// Reads `bytes` both ways and checks the promises; returns what was read.
absl::StatusOr<NpyArray> CheckRead(std::string_view bytes, const std::string& path,
                                   std::optional<ElementType> raw_as) {
  absl::StatusOr<NpyArray> parsed = ParseNpy(bytes, path, raw_as);
  absl::StatusOr<NpyArray> read = ReadNpyArray(path, raw_as);
  Require(parsed.ok() == read.ok(), "ParseNpy and ReadNpyArray disagree",
          Cat(parsed.status().ToString(), "\n", read.status().ToString()));
  if (!parsed.ok()) {
    Require(IsReaderCode(DiagnosticCode(parsed.status())), "an error without a reader code",
            parsed.status().ToString());
    Require(parsed.status() == read.status(), "ParseNpy and ReadNpyArray give other errors",
            Cat(parsed.status().ToString(), "\n", read.status().ToString()));
    return parsed;
  }
  Require(SameArray(*parsed, *read), "ParseNpy and ReadNpyArray read other arrays");
  Require(parsed->data.size() == static_cast<uint64_t>(parsed->NumBytes()), "an array of the wrong size");
  // The writer saves 8-bit floats and int4 as raw '|V1', which reads as raw_as.
  absl::StatusOr<NpyArray> again = ParseNpy(SerializeNpy(*parsed), path, parsed->dtype);
  Require(again.ok(), "SerializeNpy's output does not read", again.status().ToString());
  Require(SameArray(*parsed, *again), "an array changes through SerializeNpy");
  return parsed;
}

void FuzzNpy(std::string_view bytes) {
  static MemFile file;
  file.Write(bytes);
  // Without raw_as, and as one type '|V1' can be read as.
  absl::StatusOr<NpyArray> plain = CheckRead(bytes, file.path(), std::nullopt);
  absl::StatusOr<NpyArray> as_f8 = CheckRead(bytes, file.path(), ElementType::kF8E5M2);
  // raw_as names the type of a '|V1' descr only, which reads without it as
  // IO-NPY-DTYPE; any other file must read the same whatever raw_as says. The
  // other types a '|V1' file can be read as (and one it cannot) run only then:
  // most inputs are not '|V1' files, and four reads less make the fuzzer 3x faster.
  if (plain.ok() || DiagnosticCode(plain.status()) != "IO-NPY-DTYPE") {
    Require(plain.ok() == as_f8.ok(), "raw_as changes how a file that is not '|V1' reads",
            Cat(plain.status().ToString(), "\n", as_f8.status().ToString()));
    Require(plain.ok() ? SameArray(*plain, *as_f8) : plain.status() == as_f8.status(),
            "raw_as changes how a file that is not '|V1' reads");
    return;
  }
  constexpr std::array<ElementType, 5> kRawAs = {ElementType::kF8E4M3FN, ElementType::kF8E4M3B11FNUZ,
                                                 ElementType::kI4, ElementType::kU4, ElementType::kF32};
  for (ElementType raw_as : kRawAs) CheckRead(bytes, file.path(), raw_as);
}

}  // namespace
}  // namespace scjit

extern "C" int LLVMFuzzerTestOneInput(const uint8_t* data, size_t size) {
  scjit::FuzzNpy(std::string_view(reinterpret_cast<const char*>(data), size));
  return 0;
}
