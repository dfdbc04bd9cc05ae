// MpiChipLink: a ChipLink over MPI (Open MPI from Debian): each rank of
// MPI_COMM_WORLD holds a block of a launch's chips (scjit/chip_link.h).
// Built (library scjit_mpi, not part of libscjit) when CMake finds MPI
// (SCJIT_HAVE_MPI); `jit-run` uses it when mpirun started it. A program of its
// own links scjit_mpi and MPI, or implements ChipLink over its own transport.
//
//   absl::StatusOr<std::unique_ptr<scjit::MpiChipLink>> link = scjit::MpiChipLink::Start(&argc, &argv);
//   scjit::LaunchOptions options;
//   options.link = link->get();   // every rank: the same kernel, options and buffers
//
// Thread safety: one launch at a time; MPI calls are made from the thread that
// called Start (MPI_THREAD_FUNNELED).
#ifndef SCJIT_RUNTIME_MPI_MPI_LINK_H_
#define SCJIT_RUNTIME_MPI_MPI_LINK_H_

#include <memory>

#include "absl/status/statusor.h"
#include "scjit/chip_link.h"

namespace scjit {

class MpiChipLink final : public ChipLink {
 public:
  // True when this process was started by mpirun (or another MPI launcher)
  // among more than one process.
  static bool StartedByMpirun();
  // Initializes MPI (once per process); the link finalizes it when destroyed.
  static absl::StatusOr<std::unique_ptr<MpiChipLink>> Start(int* argc, char*** argv);
  ~MpiChipLink() override;

  int rank() const override { return rank_; }
  int ranks() const override { return ranks_; }
  absl::StatusOr<Messages> Exchange(std::vector<std::string> to_each) override;
  absl::StatusOr<Messages> AllGather(std::string_view mine) override;
  absl::Status AllGatherBlocks(std::span<uint8_t> whole, std::span<const int64_t> at) override;
  absl::Status Broadcast(std::span<uint8_t> bytes) override;

 private:
  MpiChipLink(int rank, int ranks) : rank_(rank), ranks_(ranks) {}
  int rank_, ranks_;
};

}  // namespace scjit

#endif  // SCJIT_RUNTIME_MPI_MPI_LINK_H_
