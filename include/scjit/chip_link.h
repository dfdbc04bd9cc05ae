// ChipLink: how one process reaches the processes that hold the other chips of
// a launch, when a kernel's chips are spread over several processes (one MPI
// rank each, or hosts): LaunchOptions::link.
//
// With a link of R ranks, a launch of D chips runs chips [r*D/R, (r+1)*D/R) on
// rank r. Every rank compiles the same kernel and calls Launch with the same
// options and buffers of the whole mesh (the leading device axis holds every
// chip); a rank reads its own chips' rows of the inputs and, when the launch
// ends, every rank's outputs hold every chip's rows, its findings and
// statistics every chip's: the same as one process running all the chips.
// Between epochs the ranks trade the effects their subcores have on other
// ranks' chips (remote copies with their bytes, remote signals) in one
// collective exchange, then agree on whether anyone progressed, stopped or
// deadlocked; at the end each output's rows go to every rank in place
// (docs/runtime.md, "Chips in several processes").
//
// Every call is collective: each rank makes the same calls in the same order,
// from the thread that called Launch. Thread safety: one launch at a time per
// link.
#ifndef SCJIT_INCLUDE_SCJIT_CHIP_LINK_H_
#define SCJIT_INCLUDE_SCJIT_CHIP_LINK_H_

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"

namespace scjit {

class ChipLink {
 public:
  // What each rank sent, one message after another: rank r's is
  // bytes[at[r], at[r + 1]).
  struct Messages {
    std::string bytes;
    std::vector<size_t> at;  // ranks() + 1 offsets
    std::string_view from(int r) const {
      return std::string_view(bytes).substr(at[static_cast<size_t>(r)],
                                            at[static_cast<size_t>(r) + 1] - at[static_cast<size_t>(r)]);
    }
  };

  virtual ~ChipLink() = default;

  // This process's rank, in [0, ranks()).
  virtual int rank() const = 0;
  virtual int ranks() const = 0;

  // Sends to_each[r] to rank r (to_each has ranks() entries, this rank's own
  // included) and returns what each rank sent to this one.
  virtual absl::StatusOr<Messages> Exchange(std::vector<std::string> to_each) = 0;
  // Every rank's `mine`.
  virtual absl::StatusOr<Messages> AllGather(std::string_view mine) = 0;
  // Every rank's block of `whole` into every rank's `whole`, in place: rank r
  // holds bytes [at[r], at[r + 1]) (`at` has ranks() + 1 offsets, the same
  // everywhere).
  virtual absl::Status AllGatherBlocks(std::span<uint8_t> whole, std::span<const int64_t> at) = 0;
  // Rank 0's `bytes` into every rank's `bytes` (the same size everywhere).
  virtual absl::Status Broadcast(std::span<uint8_t> bytes) = 0;
};

}  // namespace scjit

#endif  // SCJIT_INCLUDE_SCJIT_CHIP_LINK_H_
