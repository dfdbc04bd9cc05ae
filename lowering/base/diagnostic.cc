#include "lowering/base/diagnostic.h"

#include <algorithm>
#include <array>

#include "absl/strings/cord.h"
#include "lowering/base/strings.h"
#include "absl/strings/str_format.h"

namespace scjit {
namespace {

constexpr std::array kCatalog = {
#define SCJIT_DIAG(Enum, code, exception, title, message, help, explanation, bad, good) \
  DiagInfo{DiagId::Enum, code, exception, title, message, help, explanation, bad, good},
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
  const DiagInfo& info = Info(id);
  std::string out;
  if (!file.empty()) {
    out += file;
    if (loc.valid()) Append(&out, ":", loc.line, ":", loc.col);
    out += ": ";
  }
  Append(&out, severity == Severity::kError ? "error" : "warning", "[", info.code,
                  "]: ");
  if (!info.exception.empty()) Append(&out, info.exception, ": ");
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

Diagnostic MakeDiagnostic(DiagId id, const SourceFile* file, Location loc,
                          std::initializer_list<DiagArg> args) {
  Diagnostic d;
  d.id = id;
  d.loc = loc;
  if (file != nullptr) {
    d.file = file->name();
    if (loc.valid()) d.source_line = std::string(file->Line(loc.line));
  }
  d.message = FormatTemplate(Info(id).message, args);
  d.help = std::string(Info(id).help);
  return d;
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

absl::Status DiagnosticStatus(const Diagnostic& d) {
  std::string text = d.Render();
  if (!text.empty() && text.back() == '\n') text.pop_back();
  absl::Status status = absl::InvalidArgumentError(text);
  status.SetPayload(std::string(kDiagCodePayload), absl::Cord(std::string(d.code())));
  return status;
}

std::string DiagnosticCode(const absl::Status& status) {
  auto code = status.GetPayload(std::string(kDiagCodePayload));
  return code.has_value() ? std::string(*code) : std::string();
}

absl::Status DiagnosticSink::ToStatus() const {
  if (!has_errors()) return absl::OkStatus();
  std::string text = Render();
  if (!text.empty() && text.back() == '\n') text.pop_back();
  absl::Status status = absl::InvalidArgumentError(text);
  for (const Diagnostic& d : diagnostics_) {
    if (d.severity == Severity::kError) {
      status.SetPayload(std::string(kDiagCodePayload), absl::Cord(std::string(d.code())));
      break;
    }
  }
  return status;
}

}  // namespace scjit
