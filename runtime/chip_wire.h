// What processes linked by a ChipLink (include/scjit/chip_link.h) send each
// other: effects of subcores on chips of another process (remote signals, and
// remote copies with their bytes), and at a launch's end its findings and
// statistics. Every process runs the same binary, so records are the plain
// bytes of the structs below.
//
// Thread safety: plain functions of their arguments.
#ifndef SCJIT_RUNTIME_CHIP_WIRE_H_
#define SCJIT_RUNTIME_CHIP_WIRE_H_

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "runtime/abi.h"
#include "runtime/findings.h"
#include "scjit/chip_link.h"
#include "scjit/launch.h"

namespace scjit {

// A place in the buffers of one subcore's chip: an arena of the subcore (or of
// its core) or an HBM parameter, by offset. The same address names the same
// buffer's bytes for the subcore at the same place on any chip.
struct BufferAddress {
  enum class Kind : int32_t { kVmem, kSmem, kVmemShared, kParam } kind = Kind::kVmem;
  int32_t param = 0;  // kParam: its index
  int64_t offset = 0;
};

// An effect of a subcore of another process on a subcore of this one.
struct RemoteEffect {
  enum class Kind : int32_t { kSignal, kCopy } kind = Kind::kSignal;
  int32_t source = 0;  // global subcore indices
  int32_t target = 0;
  int32_t sem = 0;     // the target's semaphore to credit
  int32_t site = 0;    // the op (sem_signal or dma_start)
  int64_t amount = 0;  // the credit
  // kCopy: the descriptor as its sender started it (its pointers mean nothing
  // here), where its destination lies, and the source's elements, dense in
  // row-major order of the source's shape.
  scjit_dma dma{};
  BufferAddress where;
  std::string_view payload;
};

// Effects from other processes, by sending subcore in its order (they point
// into `received`).
struct RemoteInbox {
  ChipLink::Messages received;
  std::map<int, std::vector<RemoteEffect>> by_source;
};

// The bytes EncodeSignal and EncodeCopy append.
int64_t EncodedSignalBytes();
int64_t EncodedCopyBytes(const scjit_dma& dma);
// Appends a signal, or a copy with its source's bytes read now, to `out`.
void EncodeSignal(int source, int target, int sem, int64_t amount, int site, std::string* out);
void EncodeCopy(int source, int target, int64_t amount, int site, const scjit_dma& dma, const BufferAddress& where,
                std::string* out);
// Adds the effects of `message` (which must outlive the inbox) to the inbox.
absl::Status DecodeEffects(std::string_view message, RemoteInbox* inbox);
// A received copy's descriptor: `e.dma` with its source the payload and its
// destination at `dst`.
scjit_dma ArrivedCopy(const RemoteEffect& e, uint8_t* dst);

// One process's part of a deadlock report: the part and site of its first
// blocked subcore (-1: none), a note per blocked subcore, its finished ones.
std::string EncodeDeadlockNotes(int part, int site, const std::vector<std::string>& blocked,
                                const std::vector<std::string>& finished);
// Reads them back, appending to `blocked` and `finished`.
absl::Status DecodeDeadlockNotes(std::string_view text, int* part, int* site, std::vector<std::string>* blocked,
                                 std::vector<std::string>* finished);

// A launch's findings and per-subcore statistics (with each subcore's count of
// every runtime op), and back.
std::string EncodeFindings(const std::vector<SubcoreFinding>& findings);
absl::Status DecodeFindings(std::string_view text, std::vector<SubcoreFinding>* out);
std::string EncodeStats(const std::vector<SubcoreStats>& stats, const std::vector<std::vector<int64_t>>& ops);
absl::Status DecodeStats(std::string_view text, std::vector<SubcoreStats>* stats,
                         std::vector<std::vector<int64_t>>* ops);

// Several texts as one, and back (`count` of them, or an error).
std::string JoinSections(const std::vector<std::string>& sections);
absl::StatusOr<std::vector<std::string_view>> SplitSections(std::string_view text, size_t count);

}  // namespace scjit

#endif  // SCJIT_RUNTIME_CHIP_WIRE_H_
