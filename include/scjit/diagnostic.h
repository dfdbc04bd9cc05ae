// Diagnostics: what scjit says about a kernel it rejects (parse, type and SC
// rule errors), about bad inputs, and about what a launch found (RT-* findings).
//
// Every diagnostic has a code from one catalog (`jit-run --explain CODE`, or
// Explain below) and renders as
//
//   file.scir:LINE:COL: error[CODE]: [ExceptionType: ]message
//      LINE | <source line>
//           |       ^~~~~
//   note: ...
//   help: ...
//
// A failed call returns an absl::Status whose message is every diagnostic,
// rendered; DiagnosticsOf(status) gives them back as values.
//
// Thread safety: Diagnostic is a plain value; the functions are pure.
#ifndef SCJIT_INCLUDE_SCJIT_DIAGNOSTIC_H_
#define SCJIT_INCLUDE_SCJIT_DIAGNOSTIC_H_

#include <initializer_list>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "absl/status/status.h"
#include "absl/status/statusor.h"

namespace scjit {

// A position in a source file: 1-based line and column (in bytes), and the length
// of the token it points at (the `^~~~` underline). line == 0: no position (a
// diagnostic about a whole file, or about no file).
struct Location {
  int line = 0;
  int col = 0;
  int length = 1;

  bool valid() const { return line > 0; }
  friend bool operator==(const Location&, const Location&) = default;
};

enum class Severity : uint8_t { kError, kWarning };

// One diagnostic, with everything needed to print it (it outlives its file).
struct Diagnostic {
  std::string code;         // "SWAP-5", "IR-UNDEFINED", "RT-BOUNDS"
  Severity severity = Severity::kError;
  std::string exception;    // the Python exception type Pallas raises ("ValueError"), or ""
  std::string file;         // "" for diagnostics not tied to a file
  Location loc;             // !loc.valid() for diagnostics about a whole file
  std::string source_line;  // the text of loc.line
  std::string message;
  std::vector<std::string> notes;
  std::string help;

  // The full multi-line form, ending with a newline.
  std::string Render() const;
};

// Diagnostics as an error status: InvalidArgument whose message is their
// rendering (without the final newline) and whose payload carries them.
absl::Status DiagnosticStatus(const Diagnostic& diagnostic);
absl::Status DiagnosticsStatus(const std::vector<Diagnostic>& diagnostics);

// One row of the catalog: a code and what `jit-run --explain` says of it.
struct CatalogEntry {
  std::string_view code;         // "SWAP-5"
  std::string_view exception;    // the Python exception type Pallas raises, or ""
  std::string_view title;        // one line: what the code is about
  std::string_view message;      // the message template, with `{name}` placeholders
  std::string_view help;         // the default fix ("" when it depends on the case)
  std::string_view explanation;  // why the rule exists
  std::string_view bad;          // a kernel that triggers it ("" if none)
  std::string_view good;         // its fixed version ("" if none)
};
// Every code, in catalog order (IR-*, IO-*, the SC rules, RT-*).
std::span<const CatalogEntry> Catalog();
// The entry of `code`, matched without regard to case, or null.
const CatalogEntry* FindCatalogEntry(std::string_view code);

// A diagnostic of the catalog's `code`, for tools that report in scjit's terms
// (`jit-run` says IO-USAGE with {detail}): the code's message template with each
// `{name}` replaced by the value `args` gives it, its exception type and default
// help; an error tied to no file. An unknown code keeps the code and joins the
// arguments' values as its message.
Diagnostic CatalogDiagnostic(std::string_view code,
                             std::initializer_list<std::pair<std::string_view, std::string>> args = {});

// Every diagnostic a status from scjit carries, in report order (empty for OK
// and for statuses that carry none).
std::vector<Diagnostic> DiagnosticsOf(const absl::Status& status);
// The code of the first error a status carries, or "".
std::string DiagnosticCodeOf(const absl::Status& status);

// The long explanation of a code (what `jit-run --explain CODE` prints), with a
// kernel that triggers it and its fix where there is one. Codes are matched
// without regard to case ("swap-5" is SWAP-5). NotFound for unknown codes.
absl::StatusOr<std::string> Explain(std::string_view code);

}  // namespace scjit

#endif  // SCJIT_INCLUDE_SCJIT_DIAGNOSTIC_H_
