#include "lowering/base/diagnostic.h"

#include <algorithm>
#include <array>
#include <cctype>

#include "absl/strings/cord.h"
#include "lowering/base/serialize.h"
#include "lowering/base/strings.h"
#include "absl/strings/str_format.h"

namespace scjit {
namespace {

constexpr std::array kCatalog = {
#define SCJIT_DIAG(Enum, code, exception, title, message, help, explanation, bad, good) \
  DiagInfo{DiagId::Enum, code, exception, title, message, help, explanation, bad, good},
#include "lowering/base/diagnostics.def"
};

// The same rows, as the public API shows them.
constexpr std::array kPublicCatalog = {
#define SCJIT_DIAG(Enum, code, exception, title, message, help, explanation, bad, good) \
  CatalogEntry{code, exception, title, message, help, explanation, bad, good},
#include "lowering/base/diagnostics.def"
};

// Indents every line of `text` by `prefix` (for example kernels in --explain).
std::string Indent(std::string_view text, std::string_view prefix) {
  std::string out;
  size_t pos = 0;
  while (pos < text.size()) {
    size_t nl = text.find('\n', pos);
    std::string_view line = text.substr(pos, nl == std::string_view::npos ? nl : nl - pos);
    if (!line.empty()) Append(&out, prefix, line);
    out += '\n';
    if (nl == std::string_view::npos) break;
    pos = nl + 1;
  }
  return out;
}

}  // namespace

const DiagInfo& Info(DiagId id) { return kCatalog[static_cast<size_t>(id)]; }

std::span<const DiagInfo> AllDiagnostics() { return kCatalog; }

std::optional<DiagId> DiagIdFromCode(std::string_view code) {
  for (const DiagInfo& info : kCatalog) {
    if (info.code == code) return info.id;
  }
  return std::nullopt;
}

std::string Explain(DiagId id) {
  const DiagInfo& info = Info(id);
  std::string out = Cat(info.code, ": ", info.title, "\n\n");
  Append(&out, "message:\n    ");
  if (!info.exception.empty()) Append(&out, info.exception, ": ");
  Append(&out, info.message, "\n\n");
  Append(&out, info.explanation);
  if (!info.explanation.empty() && info.explanation.back() != '\n') out += '\n';
  if (!info.bad.empty()) {
    Append(&out, "\nA kernel that triggers it:\n\n", Indent(info.bad, "    "));
  }
  if (!info.good.empty()) {
    Append(&out, "\nThe fixed kernel:\n\n", Indent(info.good, "    "));
  }
  if (!info.help.empty()) Append(&out, "\nhelp: ", info.help, "\n");
  return out;
}

std::string FormatTemplate(std::string_view templ, std::initializer_list<DiagArg> args) {
  return FormatTemplate(templ, std::span<const DiagArg>(args.begin(), args.size()));
}

std::string FormatTemplate(std::string_view templ, std::span<const DiagArg> args) {
  std::string out;
  size_t pos = 0;
  while (pos < templ.size()) {
    size_t open = templ.find('{', pos);
    if (open == std::string_view::npos) break;
    size_t close = templ.find('}', open + 1);
    if (close == std::string_view::npos) break;
    std::string_view name = templ.substr(open + 1, close - open - 1);
    const DiagArg* arg = nullptr;
    for (const DiagArg& a : args) {
      if (a.name == name) arg = &a;
    }
    out.append(templ.substr(pos, open - pos));
    if (arg != nullptr) {
      out.append(arg->value);
    } else {
      out.append(templ.substr(open, close - open + 1));
    }
    pos = close + 1;
  }
  out.append(templ.substr(std::min(pos, templ.size())));
  return out;
}

std::string Diagnostic::Render() const {
  std::string out;
  if (!file.empty()) {
    out += file;
    if (loc.valid()) Append(&out, ":", loc.line, ":", loc.col);
    out += ": ";
  }
  Append(&out, severity == Severity::kError ? "error" : "warning", "[", code, "]: ");
  if (!exception.empty()) Append(&out, exception, ": ");
  Append(&out, message, "\n");
  if (loc.valid()) {
    std::string gutter = absl::StrFormat("%5d | ", loc.line);
    // Long lines are shown as a window around the location.
    constexpr size_t kWindow = 160;
    size_t col = static_cast<size_t>(loc.col - 1);
    size_t begin = 0, end = source_line.size();
    if (source_line.size() > kWindow) {
      begin = col > kWindow / 2 ? std::min(col - kWindow / 2, source_line.size() - kWindow) : 0;
      end = begin + kWindow;
    }
    std::string shown = Cat(begin > 0 ? "..." : "", std::string_view(source_line).substr(begin, end - begin),
                            end < source_line.size() ? "..." : "");
    size_t prefix = begin > 0 ? 3 : 0;
    // Control bytes would garble a terminal; each becomes one '?' so the caret
    // still lines up.
    for (char& c : shown) {
      if ((static_cast<unsigned char>(c) < 0x20 && c != '\t') || c == 0x7f) c = '?';
    }
    Append(&out, gutter, shown, "\n");
    // The caret line mirrors tabs of the source line so the caret lines up.
    std::string caret(gutter.size() - 2, ' ');
    caret += "| ";
    size_t caret_col = prefix + (col >= begin ? col - begin : 0);
    for (size_t i = 0; i < caret_col && i < shown.size(); ++i) caret += shown[i] == '\t' ? '\t' : ' ';
    caret += '^';
    size_t length = std::min<size_t>(static_cast<size_t>(std::max(loc.length, 1)), shown.size() > caret_col ? shown.size() - caret_col : 1);
    if (length > 1) caret.append(length - 1, '~');
    Append(&out, caret, "\n");
  }
  for (const std::string& note : notes) Append(&out, "note: ", note, "\n");
  if (!help.empty()) Append(&out, "help: ", help, "\n");
  return out;
}

Diagnostic MakeDiagnostic(DiagId id, std::string file, Location loc, std::string source_line,
                          std::initializer_list<DiagArg> args) {
  const DiagInfo& info = Info(id);
  Diagnostic d;
  d.code = std::string(info.code);
  d.exception = std::string(info.exception);
  d.file = std::move(file);
  d.loc = loc;
  if (loc.valid()) d.source_line = std::move(source_line);
  d.message = FormatTemplate(info.message, args);
  d.help = std::string(info.help);
  return d;
}

Diagnostic MakeDiagnostic(DiagId id, const SourceFile* file, Location loc,
                          std::initializer_list<DiagArg> args) {
  if (file == nullptr) return MakeDiagnostic(id, "", loc, "", args);
  return MakeDiagnostic(id, file->name(), loc, loc.valid() ? std::string(file->Line(loc.line)) : "", args);
}

Diagnostic& DiagnosticSink::Report(Diagnostic d) {
  if (d.severity == Severity::kError) ++error_count_;
  if (diagnostics_.size() >= limit_) {
    ++dropped_;
    overflow_ = std::move(d);
    return overflow_;
  }
  diagnostics_.push_back(std::move(d));
  return diagnostics_.back();
}

std::string DiagnosticSink::Render() const {
  std::vector<const Diagnostic*> sorted;
  for (const Diagnostic& d : diagnostics_) sorted.push_back(&d);
  std::stable_sort(sorted.begin(), sorted.end(), [](const Diagnostic* a, const Diagnostic* b) {
    if (a->file != b->file) return false;  // keep report order across files
    return std::pair(a->loc.line, a->loc.col) < std::pair(b->loc.line, b->loc.col);
  });
  std::string out;
  for (const Diagnostic* d : sorted) out += d->Render();
  if (dropped_ > 0) {
    Append(&out, "... ", dropped_, " more diagnostic", dropped_ == 1 ? "" : "s",
                    " not shown\n");
  }
  return out;
}

namespace {

void Encode(Writer& w, const Diagnostic& d) {
  w.Put(d.code);
  w.Put(d.severity);
  w.Put(d.exception);
  w.Put(d.file);
  w.Put<int32_t>(d.loc.line);
  w.Put<int32_t>(d.loc.col);
  w.Put<int32_t>(d.loc.length);
  w.Put(d.source_line);
  w.Put(d.message);
  w.Put(d.notes);
  w.Put(d.help);
}

bool Decode(Reader& r, Diagnostic* d) {
  int32_t line = 0, col = 0, length = 0;
  bool ok = r.Get(&d->code) && r.Get(&d->severity) && r.Get(&d->exception) && r.Get(&d->file) && r.Get(&line) &&
            r.Get(&col) && r.Get(&length) && r.Get(&d->source_line) && r.Get(&d->message) && r.Get(&d->notes) &&
            r.Get(&d->help);
  d->loc = Location{line, col, length};
  return ok;
}

}  // namespace

absl::Status DiagnosticsStatus(const std::vector<Diagnostic>& diagnostics, std::string rendered,
                               absl::StatusCode code) {
  if (!rendered.empty() && rendered.back() == '\n') rendered.pop_back();
  absl::Status status(code, rendered);
  Writer w;
  w.Put<uint64_t>(diagnostics.size());
  for (const Diagnostic& d : diagnostics) Encode(w, d);
  status.SetPayload(std::string(kDiagnosticsPayload), absl::Cord(w.Take()));
  return status;
}

absl::Status DiagnosticStatus(const Diagnostic& d) { return DiagnosticsStatus({d}, d.Render()); }

absl::Status DiagnosticStatus(const Diagnostic& d, absl::StatusCode code) {
  return DiagnosticsStatus({d}, d.Render(), code);
}

absl::Status DiagnosticsStatus(const std::vector<Diagnostic>& diagnostics) {
  std::string rendered;
  for (const Diagnostic& d : diagnostics) rendered += d.Render();
  return DiagnosticsStatus(diagnostics, std::move(rendered));
}

Diagnostic CatalogDiagnostic(std::string_view code,
                             std::initializer_list<std::pair<std::string_view, std::string>> args) {
  std::optional<DiagId> id = DiagIdFromCode(code);
  if (!id) {
    Diagnostic d;
    d.code = std::string(code);
    for (const auto& [name, value] : args) Append(&d.message, d.message.empty() ? "" : "; ", value);
    return d;
  }
  const DiagInfo& info = Info(*id);
  // FormatTemplate takes its arguments as DiagArgs.
  std::vector<DiagArg> list;
  for (const auto& [name, value] : args) list.push_back(DiagArg{name, value});
  Diagnostic d;
  d.code = std::string(info.code);
  d.exception = std::string(info.exception);
  d.message = FormatTemplate(info.message, list);
  d.help = std::string(info.help);
  return d;
}

std::vector<Diagnostic> DiagnosticsOf(const absl::Status& status) {
  auto payload = status.GetPayload(std::string(kDiagnosticsPayload));
  if (!payload) return {};
  std::string bytes(*payload);
  Reader r(bytes);
  uint64_t n = 0;
  if (!r.Get(&n)) return {};
  std::vector<Diagnostic> out;
  for (uint64_t i = 0; i < n; ++i) {
    Diagnostic d;
    if (!Decode(r, &d)) return out;
    out.push_back(std::move(d));
  }
  return out;
}

std::string DiagnosticCodeOf(const absl::Status& status) {
  for (const Diagnostic& d : DiagnosticsOf(status)) {
    if (d.severity == Severity::kError) return d.code;
  }
  return "";
}

std::span<const CatalogEntry> Catalog() { return kPublicCatalog; }

const CatalogEntry* FindCatalogEntry(std::string_view code) {
  for (const CatalogEntry& e : kPublicCatalog) {
    if (e.code.size() != code.size()) continue;
    bool same = true;
    for (size_t i = 0; i < code.size() && same; ++i) {
      same = std::toupper(static_cast<unsigned char>(code[i])) == std::toupper(static_cast<unsigned char>(e.code[i]));
    }
    if (same) return &e;
  }
  return nullptr;
}

absl::StatusOr<std::string> Explain(std::string_view code) {
  const CatalogEntry* e = FindCatalogEntry(code);
  if (e == nullptr) return absl::NotFoundError(Cat("unknown diagnostic code '", code, "'"));
  return Explain(*DiagIdFromCode(e->code));
}

absl::Status DiagnosticSink::ToStatus() const {
  if (!has_errors()) return absl::OkStatus();
  return DiagnosticsStatus(diagnostics_, Render());
}

}  // namespace scjit
