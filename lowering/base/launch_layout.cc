#include "lowering/base/launch_layout.h"

#include <algorithm>

#include "lowering/base/serialize.h"
#include "lowering/base/strings.h"

namespace scjit {

int64_t ParamLayout::num_elements() const {
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

std::vector<const LaunchLayout*> LaunchLayout::Parts() const {
  std::vector<const LaunchLayout*> out{this};
  for (const LaunchLayout& p : more_parts) out.push_back(&p);
  return out;
}

std::string LaunchLayout::Describe(int site) const {
  if (site < 0 || site >= static_cast<int>(sites.size())) return "an unknown op";
  return Cat(sites[site].op, " at ", Where(site));
}

std::string LaunchLayout::Where(int site) const {
  if (site < 0 || site >= static_cast<int>(sites.size())) return "?";
  const Site& s = sites[site];
  const std::string& where = s.file.empty() ? file : s.file;
  return Cat(where.empty() ? std::string("?") : where, ":", s.loc.line, ":", s.loc.col);
}

std::string LaunchLayout::DescribeByte(MemorySpace space, int64_t offset) const {
  for (const ArenaBuffer& b : buffers) {
    int64_t width = ByteWidth(b.element);
    int64_t count = 1;
    for (int64_t d : b.shape) count *= d;
    if (b.space != space || offset < b.offset || offset >= b.offset + count * width * b.copies) continue;
    int64_t element = (offset - b.offset) / width;
    int64_t copy = element / std::max<int64_t>(count, 1);
    element %= std::max<int64_t>(count, 1);
    std::string index;
    for (int d = static_cast<int>(b.shape.size()) - 1; d >= 0; --d) {
      index = Cat(element % b.shape[d], index.empty() ? "" : ", ", index);
      element /= b.shape[d];
    }
    std::string name = b.shape.empty() ? b.name : Cat(b.name, "[", index, "]");
    return b.copies > 1 ? Cat(name, " (buffer ", copy, " of ", b.copies, ")") : name;
  }
  return Cat("byte ", offset, " of ", SpaceName(space));
}

Diagnostic LaunchLayout::SiteDiagnostic(DiagId id, int site, std::initializer_list<DiagArg> args) const {
  if (site < 0 || site >= static_cast<int>(sites.size())) return MakeDiagnostic(id, file, Location{}, "", args);
  const Site& s = sites[site];
  return MakeDiagnostic(id, s.file.empty() ? file : s.file, s.loc, s.source_line, args);
}

// ------------------------------------------------------------------------------------
// Serialization: a version tag, then every field in declaration order.

namespace {

constexpr uint32_t kLayoutVersion = 8;

void Put(Writer& w, const Location& l) {
  w.Put<int32_t>(l.line);
  w.Put<int32_t>(l.col);
  w.Put<int32_t>(l.length);
}

bool Get(Reader& r, Location* l) {
  int32_t line = 0, col = 0, length = 0;
  if (!r.Get(&line) || !r.Get(&col) || !r.Get(&length)) return false;
  *l = Location{line, col, length};
  return true;
}

// Counts of structs: at most one per remaining byte (each takes several).
template <typename T, typename Fn>
bool GetList(Reader& r, std::vector<T>* out, Fn&& get_one) {
  uint64_t n = 0;
  if (!r.Get(&n)) return false;
  out->clear();
  for (uint64_t i = 0; i < n; ++i) {
    T item;
    if (!get_one(&item)) return false;
    out->push_back(std::move(item));
  }
  return true;
}

template <typename E>
bool GetEnum(Reader& r, E* e, int count) {
  uint8_t v = 0;
  if (!r.Get(&v) || v >= count) return false;
  *e = static_cast<E>(v);
  return true;
}

constexpr int kDTypes = 0
#define SCJIT_DTYPE(Enum, ir_name, numpy_name, bits, kind, npy_descr) +1
#include "scjit/dtype.def"
    ;
constexpr int kSpaces = static_cast<int>(MemorySpace::kHost) + 1;  // the last space
constexpr int kTargetCount = 0
#define SCJIT_TARGET(Enum, ...) +1
#include "lowering/base/target.def"
    ;

void PutLayout(Writer& w, const LaunchLayout& l) {
  w.Put(l.kernel);
  w.Put(l.file);
  w.Put(static_cast<uint8_t>(l.target));
  w.Put(static_cast<uint8_t>(l.mesh));
  w.Put<int32_t>(l.cores);
  w.Put<int32_t>(l.subcores);
  w.Put<int32_t>(l.lanes);
  w.Put(l.device_axes);
  w.Put(l.device_shape);
  w.Put<uint64_t>(l.params.size());
  for (const ParamLayout& p : l.params) {
    w.Put(p.name);
    w.Put(static_cast<uint8_t>(p.direction));
    w.Put<uint8_t>(p.semaphore);
    w.Put(static_cast<uint8_t>(p.dtype));
    w.Put(p.shape);
    w.Put(static_cast<uint8_t>(p.space));
    w.Put(p.type_text);
    w.Put(p.offset);
    w.Put<int64_t>(p.index_bound.value_or(0));
    w.Put(p.indexed_ref);
    w.Put<uint8_t>(p.write_only);
    w.Put<uint8_t>(p.read_only);
  }
  w.Put(l.vmem_bytes);
  w.Put(l.smem_bytes);
  w.Put(l.vmem_shared_bytes);
  w.Put<int32_t>(l.semaphores);
  w.Put(l.semaphore_names);
  w.Put<uint64_t>(l.poison.size());
  for (const PoisonRange& p : l.poison) {
    w.Put(static_cast<uint8_t>(p.space));
    w.Put(p.offset);
    w.Put(p.count);
    w.Put(static_cast<uint8_t>(p.element));
  }
  w.Put<uint64_t>(l.buffers.size());
  for (const ArenaBuffer& b : l.buffers) {
    w.Put(b.name);
    w.Put(static_cast<uint8_t>(b.space));
    w.Put(b.offset);
    w.Put(static_cast<uint8_t>(b.element));
    w.Put(b.shape);
    w.Put<int32_t>(b.copies);
    w.Put<uint8_t>(b.fetch_and_add);
  }
  w.Put<uint64_t>(l.sites.size());
  for (const Site& s : l.sites) {
    w.Put(s.op);
    Put(w, s.loc);
    w.Put(s.source_line);
    w.Put(s.text);
    w.Put(s.file);
  }
  w.Put(l.frame_bytes);
  w.Put<uint8_t>(l.access_checks);
  w.Put<uint8_t>(l.init_shadows);
  w.Put(l.entry);
  w.Put<uint64_t>(l.more_parts.size());
  for (const LaunchLayout& p : l.more_parts) PutLayout(w, p);
}

}  // namespace

int LaunchLayout::devices() const {
  int64_t n = 1;
  for (int64_t d : device_shape) n *= d;
  return static_cast<int>(n);
}

std::string Serialize(const LaunchLayout& l) {
  Writer w;
  w.Put(kLayoutVersion);
  PutLayout(w, l);
  return w.Take();
}

namespace {

// One layout and its further parts (at most `depth` levels: parts have none).
bool GetLayout(Reader& r, LaunchLayout* out, int depth) {
  LaunchLayout& l = *out;
  int32_t cores = 0, subcores = 0, lanes = 0, semaphores = 0;
  bool ok = r.Get(&l.kernel) && r.Get(&l.file) &&
            GetEnum(r, &l.target, kTargetCount) && GetEnum(r, &l.mesh, 2) && r.Get(&cores) && r.Get(&subcores) &&
            r.Get(&lanes) && r.Get(&l.device_axes) && r.Get(&l.device_shape) &&
            l.device_axes.size() == l.device_shape.size();
  int64_t devices = 1;
  for (int64_t d : l.device_shape) {
    ok = ok && d >= 1 && d <= kMaxDevices;
    devices = ok ? devices * d : 1;
    ok = ok && devices <= kMaxDevices;
  }
  ok = ok && GetList(r, &l.params, [&](ParamLayout* p) {
         uint8_t semaphore = 0, write_only = 0, read_only = 0;
         int64_t bound = 0;  // 0: none
         bool got = r.Get(&p->name) && GetEnum(r, &p->direction, 3) && r.Get(&semaphore) &&
                    GetEnum(r, &p->dtype, kDTypes) && r.Get(&p->shape) && GetEnum(r, &p->space, kSpaces) &&
                    r.Get(&p->type_text) && r.Get(&p->offset) && r.Get(&bound) && bound >= 0 &&
                    r.Get(&p->indexed_ref) && r.Get(&write_only) && r.Get(&read_only);
         p->semaphore = semaphore != 0;
         p->write_only = write_only != 0;
         p->read_only = read_only != 0;
         if (bound > 0) p->index_bound = bound;
         return got;
       });
  ok = ok && r.Get(&l.vmem_bytes) && r.Get(&l.smem_bytes) && r.Get(&l.vmem_shared_bytes) && r.Get(&semaphores) &&
       r.Get(&l.semaphore_names);
  ok = ok && GetList(r, &l.poison, [&](PoisonRange* p) {
         return GetEnum(r, &p->space, kSpaces) && r.Get(&p->offset) && r.Get(&p->count) && GetEnum(r, &p->element, kDTypes);
       });
  ok = ok && GetList(r, &l.buffers, [&](ArenaBuffer* b) {
         int32_t copies = 0;
         uint8_t fetch_and_add = 0;
         bool got = r.Get(&b->name) && GetEnum(r, &b->space, kSpaces) && r.Get(&b->offset) &&
                    GetEnum(r, &b->element, kDTypes) && r.Get(&b->shape) && r.Get(&copies) && copies >= 1 &&
                    r.Get(&fetch_and_add) && fetch_and_add <= 1;
         b->copies = copies;
         b->fetch_and_add = fetch_and_add != 0;
         return got;
       });
  ok = ok && GetList(r, &l.sites, [&](Site* s) {
         return r.Get(&s->op) && Get(r, &s->loc) && r.Get(&s->source_line) && r.Get(&s->text) && r.Get(&s->file);
       });
  uint8_t access_checks = 0, init_shadows = 0;
  ok = ok && r.Get(&l.frame_bytes) && r.Get(&access_checks) && r.Get(&init_shadows) && r.Get(&l.entry);
  l.access_checks = access_checks != 0;
  l.init_shadows = init_shadows != 0;
  ok = ok && GetList(r, &l.more_parts, [&](LaunchLayout* p) { return depth > 0 && GetLayout(r, p, depth - 1); });
  l.cores = cores;
  l.subcores = subcores;
  l.lanes = lanes;
  l.semaphores = semaphores;
  // What the runtime trusts the layout for: sizes it allocates and indexes.
  ok = ok && cores >= 1 && subcores >= 1 && semaphores >= 0 && l.vmem_bytes >= 0 && l.smem_bytes >= 0 &&
       l.vmem_shared_bytes >= 0 && l.frame_bytes >= 0 && !l.entry.empty();
  for (const ParamLayout& p : l.params) {
    for (int64_t d : p.shape) ok = ok && d >= 0;
    ok = ok && p.offset >= 0;
  }
  return ok;
}

}  // namespace

absl::StatusOr<LaunchLayout> Deserialize(std::string_view bytes) {
  Reader r(bytes);
  LaunchLayout l;
  uint32_t version = 0;
  bool ok = r.Get(&version) && version == kLayoutVersion && GetLayout(r, &l, /*depth=*/1) && r.done();
  // The runtime gives every part the first part's parameter buffers.
  for (const LaunchLayout& p : l.more_parts) {
    ok = ok && p.params.size() == l.params.size();
    for (size_t i = 0; ok && i < p.params.size(); ++i) ok = p.params[i].bytes() == l.params[i].bytes();
  }
  if (!ok) return absl::DataLossError("not a launch layout this build of scjit wrote");
  return l;
}

}  // namespace scjit
