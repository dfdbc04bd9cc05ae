#include "runtime/host_memory.h"

#include <unistd.h>

#include <algorithm>
#include <fstream>
#include <string>

#include "lowering/base/diagnostic.h"
#include "lowering/base/strings.h"

namespace scjit {
namespace {

// cgroup v2's memory.max: a byte count, or "max" (no limit: 0 here).
int64_t CgroupLimit() {
  std::ifstream in("/sys/fs/cgroup/memory.max");
  std::string text;
  if (!(in >> text) || text.empty() || text.find_first_not_of("0123456789") != std::string::npos) return 0;
  return text.size() > 18 ? 0 : std::stoll(text);
}

}  // namespace

int64_t HostMemoryBytes() {
  static const int64_t bytes = [] {
    int64_t physical = static_cast<int64_t>(sysconf(_SC_PHYS_PAGES)) * static_cast<int64_t>(sysconf(_SC_PAGESIZE));
    int64_t cgroup = CgroupLimit();
    return cgroup > 0 ? std::min(physical, cgroup) : physical;
  }();
  return bytes;
}

absl::Status HostMemoryError(int64_t bytes, std::string_view what, std::string_view reason) {
  return DiagnosticStatus(MakeDiagnostic(DiagId::kIoMemory, nullptr, Location{},
                                         {{"bytes", Cat(bytes)}, {"what", std::string(what)}, {"reason", std::string(reason)}}),
                          absl::StatusCode::kResourceExhausted);
}

absl::Status CheckHostMemory(int64_t bytes, std::string_view what) {
  int64_t host = HostMemoryBytes();
  if (bytes <= host) return absl::OkStatus();
  return HostMemoryError(bytes, what, Cat("the host has ", host, " bytes of memory"));
}

}  // namespace scjit
