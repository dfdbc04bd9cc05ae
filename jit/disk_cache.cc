#include "jit/disk_cache.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <fstream>
#include <sstream>

#include "lowering/base/diagnostic.h"
#include "lowering/base/serialize.h"
#include "lowering/base/strings.h"
#include "llvm/Support/SHA256.h"
#include "llvm/Support/xxhash.h"

namespace scjit {
namespace {

// The file: magic, payload length, xxh3 of the payload, payload (key, layout,
// object, each length-prefixed).
constexpr std::string_view kMagic = "SCJITKC1";
constexpr size_t kHeaderBytes = 8 + 8 + 8;
// Entries are object files of a few KiB to a few MiB; anything far larger is
// not one of ours (and reading it would cost memory for nothing).
constexpr uint64_t kMaxEntryBytes = uint64_t{1} << 30;

Diagnostic Warning(const std::string& path, std::string reason) {
  Diagnostic d = MakeDiagnostic(DiagId::kIoCache, nullptr, Location{}, {{"path", path}, {"reason", std::move(reason)}});
  d.severity = Severity::kWarning;
  return d;
}

std::string Hex(const std::array<uint8_t, 32>& digest) {
  static constexpr char kDigits[] = "0123456789abcdef";
  std::string out;
  for (uint8_t b : digest) {
    out += kDigits[b >> 4];
    out += kDigits[b & 15];
  }
  return out;
}

uint64_t Checksum(std::string_view payload) { return llvm::xxh3_64bits(llvm::StringRef(payload.data(), payload.size())); }

// mkdir -p.
bool MakeDirs(const std::string& dir) {
  for (size_t i = 1; i <= dir.size(); ++i) {
    if (i < dir.size() && dir[i] != '/') continue;
    std::string prefix = dir.substr(0, i);
    if (mkdir(prefix.c_str(), 0777) != 0 && errno != EEXIST) return false;
  }
  struct stat st;
  return stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode);
}

}  // namespace

std::string Sha256Hex(std::string_view data) {
  llvm::SHA256 sha;
  sha.update(llvm::StringRef(data.data(), data.size()));
  return Hex(sha.final());
}

std::string DiskCache::PathFor(std::string_view key) const { return Cat(dir_, "/", Sha256Hex(key), ".scjit"); }

std::optional<DiskCache::Entry> DiskCache::Load(std::string_view key, std::vector<Diagnostic>* warnings) const {
  std::string path = PathFor(key);
  std::ifstream in(path, std::ios::binary);
  if (!in) return std::nullopt;  // no entry: an ordinary miss
  char header[kHeaderBytes];
  in.read(header, kHeaderBytes);
  auto bad = [&](std::string why) -> std::optional<Entry> {
    warnings->push_back(Warning(path, Cat("is ignored: ", why, "; the kernel is compiled again")));
    return std::nullopt;
  };
  if (in.gcount() != static_cast<std::streamsize>(kHeaderBytes)) return bad("the file is truncated");
  if (std::string_view(header, 8) != kMagic) return bad("it is not a scjit cache entry");
  uint64_t length = 0, checksum = 0;
  std::memcpy(&length, header + 8, 8);
  std::memcpy(&checksum, header + 16, 8);
  if (length > kMaxEntryBytes) return bad("its header is corrupt");
  std::string payload(length, '\0');
  in.read(payload.data(), static_cast<std::streamsize>(length));
  if (static_cast<uint64_t>(in.gcount()) != length) {
    return bad(Cat("the file is truncated (", in.gcount(), " of ", length, " bytes)"));
  }
  if (in.peek() != std::char_traits<char>::eof()) return bad("the file has bytes past its end");
  if (Checksum(payload) != checksum) return bad("its checksum does not match (the file is corrupt)");
  Reader r(payload);
  std::string stored_key, layout_bytes;
  Entry entry;
  if (!r.Get(&stored_key) || !r.Get(&layout_bytes) || !r.Get(&entry.object) || !r.done()) {
    return bad("its contents are malformed");
  }
  if (stored_key != key) return bad("it was written for another kernel or build");
  absl::StatusOr<LaunchLayout> layout = Deserialize(layout_bytes);
  if (!layout.ok()) return bad("its launch layout is malformed");
  entry.layout = *std::move(layout);
  return entry;
}

void DiskCache::Store(std::string_view key, const LaunchLayout& layout, std::string_view object,
                      std::vector<Diagnostic>* warnings) const {
  std::string path = PathFor(key);
  Writer w;
  w.Put(key);
  w.Put(Serialize(layout));
  w.Put(object);
  std::string payload = w.Take();
  uint64_t length = payload.size(), checksum = Checksum(payload);
  std::string bytes(kMagic);
  bytes.append(reinterpret_cast<const char*>(&length), 8);
  bytes.append(reinterpret_cast<const char*>(&checksum), 8);
  bytes += payload;

  auto fail = [&](const std::string& what) {
    warnings->push_back(Warning(path, Cat("is not written: cannot ", what, ": ", std::strerror(errno))));
  };
  if (!MakeDirs(dir_)) return fail("create its directory");
  // A name no other writer uses (mkstemp), then an atomic rename into place.
  std::string tmp = Cat(path, ".tmp.XXXXXX");
  int fd = mkstemp(tmp.data());
  if (fd < 0) return fail("write it");
  fchmod(fd, 0644);
  size_t done = 0;
  while (done < bytes.size()) {
    ssize_t n = write(fd, bytes.data() + done, bytes.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) {
      fail("write it");
      close(fd);
      unlink(tmp.c_str());
      return;
    }
    done += static_cast<size_t>(n);
  }
  if (close(fd) != 0) {
    fail("write it");
    unlink(tmp.c_str());
    return;
  }
  if (rename(tmp.c_str(), path.c_str()) != 0) {
    fail("move it into place");
    unlink(tmp.c_str());
  }
}

}  // namespace scjit
