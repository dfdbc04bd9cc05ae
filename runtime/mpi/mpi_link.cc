#include "runtime/mpi/mpi_link.h"

#include <mpi.h>

#include <climits>
#include <cstdlib>
#include <string>

#include "lowering/base/strings.h"

namespace scjit {
namespace {

absl::Status MpiError(int code, std::string_view call) {
  char text[MPI_MAX_ERROR_STRING];
  int length = 0;
  MPI_Error_string(code, text, &length);
  return absl::InternalError(Cat("MPI: ", call, " failed: ", std::string_view(text, static_cast<size_t>(length))));
}

// MPI counts and displacements are ints: a message (or what one rank
// receives in one call) of 2 GiB or more is refused.
absl::Status TooLarge(int64_t bytes) {
  return absl::ResourceExhaustedError(
      Cat("MPI: one exchange between processes would move ", bytes, " bytes to one rank; the limit is ", INT_MAX,
          " (launch fewer chips per process, or smaller copies per epoch)"));
}

// Counts as displacements, or false when they do not fit an int.
bool Displacements(const std::vector<int64_t>& counts, std::vector<int>* n, std::vector<int>* at, int64_t* total) {
  *total = 0;
  for (int64_t c : counts) {
    if (c > INT_MAX || *total > INT_MAX - c) return false;
    n->push_back(static_cast<int>(c));
    at->push_back(static_cast<int>(*total));
    *total += c;
  }
  return true;
}

}  // namespace

bool MpiChipLink::StartedByMpirun() {
  for (const char* name : {"OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_SIZE"}) {
    const char* v = std::getenv(name);
    if (v != nullptr && std::atoi(v) > 1) return true;
  }
  return false;
}

absl::StatusOr<std::unique_ptr<MpiChipLink>> MpiChipLink::Start(int* argc, char*** argv) {
  int initialized = 0;
  MPI_Initialized(&initialized);
  if (!initialized) {
    int provided = 0;
    if (int e = MPI_Init_thread(argc, argv, MPI_THREAD_FUNNELED, &provided); e != MPI_SUCCESS) {
      return MpiError(e, "MPI_Init_thread");
    }
  }
  // Errors come back as codes, so that they become statuses.
  MPI_Comm_set_errhandler(MPI_COMM_WORLD, MPI_ERRORS_RETURN);
  int rank = 0, ranks = 1;
  MPI_Comm_rank(MPI_COMM_WORLD, &rank);
  MPI_Comm_size(MPI_COMM_WORLD, &ranks);
  return std::unique_ptr<MpiChipLink>(new MpiChipLink(rank, ranks));
}

MpiChipLink::~MpiChipLink() {
  int finalized = 0;
  MPI_Finalized(&finalized);
  if (!finalized) MPI_Finalize();
}

absl::StatusOr<ChipLink::Messages> MpiChipLink::Exchange(std::vector<std::string> to_each) {
  auto n = static_cast<size_t>(ranks_);
  to_each.resize(n);
  std::vector<int64_t> send(n), recv(n);
  for (size_t r = 0; r < n; ++r) send[r] = static_cast<int64_t>(to_each[r].size());
  if (int e = MPI_Alltoall(send.data(), 1, MPI_INT64_T, recv.data(), 1, MPI_INT64_T, MPI_COMM_WORLD); e != MPI_SUCCESS) {
    return MpiError(e, "MPI_Alltoall");
  }
  std::vector<int> send_n, send_at, recv_n, recv_at;
  int64_t send_total = 0, recv_total = 0;
  if (!Displacements(send, &send_n, &send_at, &send_total)) return TooLarge(send_total);
  if (!Displacements(recv, &recv_n, &recv_at, &recv_total)) return TooLarge(recv_total);
  std::string out;
  out.reserve(static_cast<size_t>(send_total));
  for (const std::string& s : to_each) out += s;
  Messages in;
  in.bytes.resize(static_cast<size_t>(recv_total));
  if (int e = MPI_Alltoallv(out.data(), send_n.data(), send_at.data(), MPI_BYTE, in.bytes.data(), recv_n.data(),
                            recv_at.data(), MPI_BYTE, MPI_COMM_WORLD);
      e != MPI_SUCCESS) {
    return MpiError(e, "MPI_Alltoallv");
  }
  in.at.assign(recv_at.begin(), recv_at.end());
  in.at.push_back(static_cast<size_t>(recv_total));
  return in;
}

absl::StatusOr<ChipLink::Messages> MpiChipLink::AllGather(std::string_view mine) {
  auto n = static_cast<size_t>(ranks_);
  auto size = static_cast<int64_t>(mine.size());
  std::vector<int64_t> sizes(n);
  if (int e = MPI_Allgather(&size, 1, MPI_INT64_T, sizes.data(), 1, MPI_INT64_T, MPI_COMM_WORLD); e != MPI_SUCCESS) {
    return MpiError(e, "MPI_Allgather");
  }
  std::vector<int> counts, at;
  int64_t total = 0;
  if (!Displacements(sizes, &counts, &at, &total)) return TooLarge(total);
  Messages in;
  in.bytes.resize(static_cast<size_t>(total));
  if (int e = MPI_Allgatherv(mine.data(), static_cast<int>(size), MPI_BYTE, in.bytes.data(), counts.data(), at.data(),
                             MPI_BYTE, MPI_COMM_WORLD);
      e != MPI_SUCCESS) {
    return MpiError(e, "MPI_Allgatherv");
  }
  in.at.assign(at.begin(), at.end());
  in.at.push_back(static_cast<size_t>(total));
  return in;
}

absl::Status MpiChipLink::AllGatherBlocks(std::span<uint8_t> whole, std::span<const int64_t> at) {
  std::vector<int64_t> sizes;
  for (size_t r = 0; r + 1 < at.size(); ++r) sizes.push_back(at[r + 1] - at[r]);
  std::vector<int> counts, displacements;
  int64_t total = 0;
  if (!Displacements(sizes, &counts, &displacements, &total) || at.front() != 0) return TooLarge(total);
  if (static_cast<size_t>(total) > whole.size()) return absl::InvalidArgumentError("MPI: blocks beyond the buffer");
  if (int e = MPI_Allgatherv(MPI_IN_PLACE, 0, MPI_BYTE, whole.data(), counts.data(), displacements.data(), MPI_BYTE,
                             MPI_COMM_WORLD);
      e != MPI_SUCCESS) {
    return MpiError(e, "MPI_Allgatherv");
  }
  return absl::OkStatus();
}

absl::Status MpiChipLink::Broadcast(std::span<uint8_t> bytes) {
  constexpr size_t kChunk = size_t{1} << 30;
  for (size_t at = 0; at < bytes.size(); at += kChunk) {
    int count = static_cast<int>(std::min(kChunk, bytes.size() - at));
    if (int e = MPI_Bcast(bytes.data() + at, count, MPI_BYTE, 0, MPI_COMM_WORLD); e != MPI_SUCCESS) {
      return MpiError(e, "MPI_Bcast");
    }
  }
  return absl::OkStatus();
}

}  // namespace scjit
