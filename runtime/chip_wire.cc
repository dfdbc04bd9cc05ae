#include "runtime/chip_wire.h"

#include <cstring>
#include <type_traits>

#include "runtime/dma_engine.h"

namespace scjit {
namespace {

// The fixed part of an effect record; a copy's payload follows it.
struct EffectHeader {
  RemoteEffect::Kind kind;
  int32_t source, target, sem, site;
  int32_t reserved = 0;
  int64_t amount;
  int64_t payload_bytes;
  BufferAddress where;
  scjit_dma dma;
};

template <typename T>
void Put(std::string* out, const T& v) {
  static_assert(std::is_trivially_copyable_v<T>);
  out->append(reinterpret_cast<const char*>(&v), sizeof v);
}

void PutText(std::string* out, std::string_view text) {
  Put(out, static_cast<int64_t>(text.size()));
  out->append(text);
}

// Reads what Put wrote; fails (and stays failed) past the end.
class Reader {
 public:
  explicit Reader(std::string_view text) : text_(text) {}
  template <typename T>
  bool Get(T* v) {
    if (text_.size() < sizeof *v) return ok_ = false;
    std::memcpy(v, text_.data(), sizeof *v);
    text_.remove_prefix(sizeof *v);
    return true;
  }
  bool GetBytes(int64_t n, std::string_view* v) {
    if (n < 0 || text_.size() < static_cast<size_t>(n)) return ok_ = false;
    *v = text_.substr(0, static_cast<size_t>(n));
    text_.remove_prefix(static_cast<size_t>(n));
    return true;
  }
  bool GetText(std::string* v) {
    int64_t n = 0;
    std::string_view bytes;
    if (!Get(&n) || !GetBytes(n, &bytes)) return false;
    *v = std::string(bytes);
    return true;
  }
  bool done() const { return text_.empty(); }
  bool ok() const { return ok_; }

 private:
  std::string_view text_;
  bool ok_ = true;
};

absl::Status Garbled(std::string_view what) {
  return absl::DataLossError(std::string("a message between processes is cut short: ") + std::string(what));
}

// Row-major element strides of `r`'s shape.
void DenseStrides(scjit_ref* r) {
  int64_t stride = 1;
  for (int d = r->rank - 1; d >= 0; --d) {
    r->strides[d] = stride;
    stride *= r->sizes[d];
  }
}

}  // namespace

int64_t EncodedSignalBytes() { return sizeof(EffectHeader); }

int64_t EncodedCopyBytes(const scjit_dma& dma) { return sizeof(EffectHeader) + ElementCount(dma.src) * dma.elem_bytes; }

void EncodeSignal(int source, int target, int sem, int64_t amount, int site, std::string* out) {
  EffectHeader h{RemoteEffect::Kind::kSignal, source, target, sem, site, 0, amount, 0, {}, {}};
  Put(out, h);
}

void EncodeCopy(int source, int target, int64_t amount, int site, const scjit_dma& dma, const BufferAddress& where,
                std::string* out) {
  int64_t bytes = EncodedCopyBytes(dma) - EncodedSignalBytes();
  EffectHeader h{RemoteEffect::Kind::kCopy, source, target, dma.sem, site, 0, amount, bytes, where, dma};
  Put(out, h);
  size_t at = out->size();
  out->resize(at + static_cast<size_t>(bytes));
  // The source's elements, dense: a copy into a view of the same shape.
  scjit_dma pack = dma;
  pack.dst = dma.src;
  pack.dst.base = reinterpret_cast<uint8_t*>(out->data() + at);
  DenseStrides(&pack.dst);
  pack.add = 0;
  pack.indexed = SCJIT_DMA_PLAIN;
  Transfer(pack);
}

absl::Status DecodeEffects(std::string_view message, RemoteInbox* inbox) {
  Reader in(message);
  while (!in.done()) {
    EffectHeader h;
    std::string_view payload;
    if (!in.Get(&h) || !in.GetBytes(h.payload_bytes, &payload)) return Garbled("an effect");
    RemoteEffect e{h.kind, h.source, h.target, h.sem, h.site, h.amount, h.dma, h.where, payload};
    inbox->by_source[h.source].push_back(e);
  }
  return absl::OkStatus();
}

scjit_dma ArrivedCopy(const RemoteEffect& e, uint8_t* dst) {
  scjit_dma d = e.dma;
  d.src.base = reinterpret_cast<uint8_t*>(const_cast<char*>(e.payload.data()));
  DenseStrides(&d.src);
  d.dst.base = dst;
  d.indices = nullptr;
  return d;
}

std::string EncodeDeadlockNotes(int part, int site, const std::vector<std::string>& blocked,
                                const std::vector<std::string>& finished) {
  std::string out;
  Put(&out, part);
  Put(&out, site);
  for (const auto* list : {&blocked, &finished}) {
    Put(&out, static_cast<int64_t>(list->size()));
    for (const std::string& text : *list) PutText(&out, text);
  }
  return out;
}

absl::Status DecodeDeadlockNotes(std::string_view text, int* part, int* site, std::vector<std::string>* blocked,
                                 std::vector<std::string>* finished) {
  Reader in(text);
  in.Get(part) && in.Get(site);
  for (auto* list : {blocked, finished}) {
    int64_t n = 0;
    in.Get(&n);
    for (int64_t k = 0; in.ok() && k < n; ++k) in.GetText(&list->emplace_back());
  }
  return in.ok() && in.done() ? absl::OkStatus() : Garbled("a deadlock report");
}

std::string EncodeFindings(const std::vector<SubcoreFinding>& findings) {
  std::string out;
  for (const SubcoreFinding& f : findings) {
    const Diagnostic& d = f.diagnostic;
    PutText(&out, d.code);
    Put(&out, d.severity);
    PutText(&out, d.exception);
    PutText(&out, d.file);
    Put(&out, d.loc);
    PutText(&out, d.source_line);
    PutText(&out, d.message);
    Put(&out, static_cast<int64_t>(d.notes.size()));
    for (const std::string& note : d.notes) PutText(&out, note);
    PutText(&out, d.help);
    Put(&out, f.core);
    Put(&out, f.subcore);
    Put(&out, f.name_subcore);
    Put(&out, static_cast<int32_t>(f.mesh.has_value() ? static_cast<int32_t>(*f.mesh) : -1));
    Put(&out, f.device);
  }
  return out;
}

absl::Status DecodeFindings(std::string_view text, std::vector<SubcoreFinding>* out) {
  Reader in(text);
  while (!in.done()) {
    SubcoreFinding f;
    Diagnostic& d = f.diagnostic;
    int64_t notes = 0;
    in.GetText(&d.code) && in.Get(&d.severity) && in.GetText(&d.exception) && in.GetText(&d.file) &&
        in.Get(&d.loc) && in.GetText(&d.source_line) && in.GetText(&d.message) && in.Get(&notes);
    for (int64_t k = 0; in.ok() && k < notes; ++k) in.GetText(&d.notes.emplace_back());
    int32_t mesh = -1;
    in.GetText(&d.help) && in.Get(&f.core) && in.Get(&f.subcore) && in.Get(&f.name_subcore) && in.Get(&mesh) &&
        in.Get(&f.device);
    if (!in.ok()) return Garbled("a finding");
    if (mesh >= 0) f.mesh = static_cast<MeshKind>(mesh);
    out->push_back(std::move(f));
  }
  return absl::OkStatus();
}

std::string EncodeStats(const std::vector<SubcoreStats>& stats, const std::vector<std::vector<int64_t>>& ops) {
  std::string out;
  for (size_t i = 0; i < stats.size(); ++i) {
    Put(&out, stats[i]);
    Put(&out, static_cast<int64_t>(ops[i].size()));
    for (int64_t n : ops[i]) Put(&out, n);
  }
  return out;
}

absl::Status DecodeStats(std::string_view text, std::vector<SubcoreStats>* stats,
                         std::vector<std::vector<int64_t>>* ops) {
  Reader in(text);
  while (!in.done()) {
    SubcoreStats s;
    int64_t n = 0;
    if (!in.Get(&s) || !in.Get(&n) || n < 0 || n > 64) return Garbled("statistics");
    std::vector<int64_t>& counts = ops->emplace_back(static_cast<size_t>(n));
    for (int64_t& c : counts) in.Get(&c);
    if (!in.ok()) return Garbled("statistics");
    stats->push_back(s);
  }
  return absl::OkStatus();
}

std::string JoinSections(const std::vector<std::string>& sections) {
  std::string out;
  for (const std::string& s : sections) PutText(&out, s);
  return out;
}

absl::StatusOr<std::vector<std::string_view>> SplitSections(std::string_view text, size_t count) {
  Reader in(text);
  std::vector<std::string_view> out(count);
  for (std::string_view& s : out) {
    int64_t n = 0;
    in.Get(&n) && in.GetBytes(n, &s);
  }
  if (!in.ok() || !in.done()) return Garbled("a launch's results");
  return out;
}

}  // namespace scjit
