// Diagnostics: the catalog of every code scjit reports (diagnostics.def), how a
// reported finding (the public Diagnostic of scjit/diagnostic.h) is made from it,
// and the collector the front end writes to (DiagnosticSink).
//
// Every diagnostic renders in the form of sc-rules.md §3:
//
//   file.scir:LINE:COL: error[CODE]: [ExceptionType: ]message
//      LINE | <source line>
//           |       ^~~~~
//   note: ...
//   help: ...
#ifndef SCJIT_LOWERING_BASE_DIAGNOSTIC_H_
#define SCJIT_LOWERING_BASE_DIAGNOSTIC_H_

#include <cstdint>
#include <initializer_list>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/status.h"
#include "lowering/base/source.h"
#include "scjit/diagnostic.h"

namespace scjit {

enum class DiagId : uint16_t {
#define SCJIT_DIAG(Enum, code, exception, title, message, help, explanation, bad, good) Enum,
#include "lowering/base/diagnostics.def"
};

// One row of the catalog.
struct DiagInfo {
  DiagId id;
  std::string_view code;         // `IR-UNDEFINED`, `SWAP-5`, `IO-SHAPE`
  std::string_view exception;    // Python exception type Pallas raises, or ""
  std::string_view title;        // one line: what the code is about
  std::string_view message;      // the message template, `{name}` placeholders
  std::string_view help;         // default fix ("" when it depends on the case)
  std::string_view explanation;  // why the rule exists, for --explain
  std::string_view bad;          // a kernel that triggers it ("" if none)
  std::string_view good;         // its fixed version ("" if none)
};

const DiagInfo& Info(DiagId id);
std::span<const DiagInfo> AllDiagnostics();
// The catalog row whose code is `code` (case-sensitive), if any.
std::optional<DiagId> DiagIdFromCode(std::string_view code);

// The long explanation printed by `jit-run --explain CODE`.
std::string Explain(DiagId id);

// One `{name}` substitution for a message template.
struct DiagArg {
  std::string_view name;
  std::string value;
};

// Replaces each `{name}` of `templ` by its argument. Placeholders without an
// argument are kept verbatim (Pallas prints some templates with literal braces).
std::string FormatTemplate(std::string_view templ, std::initializer_list<DiagArg> args);
std::string FormatTemplate(std::string_view templ, std::span<const DiagArg> args);

// Builds a diagnostic for `id` at `loc` in `file` (which may be null), formatting
// the catalog template with `args` and taking the catalog's default help.
Diagnostic MakeDiagnostic(DiagId id, const SourceFile* file, Location loc,
                          std::initializer_list<DiagArg> args = {});
// The same for a file known by name, with the text of line loc.line.
Diagnostic MakeDiagnostic(DiagId id, std::string file, Location loc, std::string source_line,
                          std::initializer_list<DiagArg> args = {});

// Diagnostics as a Status: InvalidArgument whose message is their rendering
// (without the final newline) and whose payload kDiagnosticsPayload holds them
// (DiagnosticsOf, DiagnosticCodeOf of scjit/diagnostic.h read it back), so
// callers and tests can tell IO-SHAPE from IO-DTYPE without parsing text.
// (DiagnosticStatus, DiagnosticsStatus: scjit/diagnostic.h.) `rendered`: their
// text as the caller wants it shown (a sink sorts them by location).
absl::Status DiagnosticsStatus(const std::vector<Diagnostic>& diagnostics, std::string rendered,
                               absl::StatusCode code = absl::StatusCode::kInvalidArgument);
// One diagnostic as a status of another code than InvalidArgument (IO-MEMORY is
// ResourceExhausted, RT-TIMEOUT outside a launch DeadlineExceeded).
absl::Status DiagnosticStatus(const Diagnostic& d, absl::StatusCode code);
inline constexpr std::string_view kDiagnosticsPayload = "scjit.dev/diagnostics";
// The code of the first error a status carries, or "" (DiagnosticCodeOf).
inline std::string DiagnosticCode(const absl::Status& status) { return DiagnosticCodeOf(status); }

// Collects the diagnostics of one compilation. Not thread-safe.
class DiagnosticSink {
 public:
  // Stops recording (but keeps counting) after `limit` diagnostics, so that an
  // enormous broken input cannot produce enormous output.
  explicit DiagnosticSink(size_t limit = 50) : limit_(limit) {}

  // Records `d`; returns a reference to the stored copy (or to a scratch copy
  // when over the limit) so callers can append notes.
  Diagnostic& Report(Diagnostic d);

  const std::vector<Diagnostic>& diagnostics() const { return diagnostics_; }
  // Calls `fn` on each recorded diagnostic (to move them to another location).
  template <typename Fn>
  void Update(Fn&& fn) {
    for (Diagnostic& d : diagnostics_) fn(d);
  }
  size_t error_count() const { return error_count_; }
  bool has_errors() const { return error_count_ > 0; }

  // All recorded diagnostics in report order, plus a line saying how many were
  // dropped over the limit.
  std::string Render() const;

  // InvalidArgument carrying Render() when there are errors, else OK.
  absl::Status ToStatus() const;

 private:
  size_t limit_;
  size_t error_count_ = 0;
  size_t dropped_ = 0;
  std::vector<Diagnostic> diagnostics_;
  Diagnostic overflow_;  // sink for notes added to dropped diagnostics
};

}  // namespace scjit

#endif  // SCJIT_LOWERING_BASE_DIAGNOSTIC_H_
