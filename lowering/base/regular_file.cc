#include "lowering/base/regular_file.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace scjit {

namespace {

const char* KindOf(mode_t mode) {
  if (S_ISCHR(mode)) return "a character device";
  if (S_ISBLK(mode)) return "a block device";
  if (S_ISFIFO(mode)) return "a FIFO";
  if (S_ISSOCK(mode)) return "a socket";
  return "not a file";
}

}  // namespace

absl::StatusOr<std::FILE*> OpenRegularFile(const std::string& path) {
  // O_NONBLOCK: opening a FIFO nobody writes would otherwise block here,
  // before fstat can tell what it is.
  int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) return absl::NotFoundError(std::strerror(errno));
  struct stat st {};
  if (::fstat(fd, &st) != 0) {
    int error = errno;
    ::close(fd);
    return absl::NotFoundError(std::strerror(error));
  }
  if (!S_ISREG(st.st_mode)) {
    ::close(fd);
    if (S_ISDIR(st.st_mode)) return absl::FailedPreconditionError("it is a directory");
    return absl::FailedPreconditionError(std::string("it is not a regular file (") + KindOf(st.st_mode) + ")");
  }
  ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) & ~O_NONBLOCK);
  std::FILE* f = ::fdopen(fd, "rb");
  if (f == nullptr) {
    int error = errno;
    ::close(fd);
    return absl::NotFoundError(std::strerror(error));
  }
  return f;
}

}  // namespace scjit
