// The .scir parser: source text to an unverified Module (kernel-ir.md §1-§4).
//
// The parser resolves names as it goes (a value must be defined before its use,
// in its region or an enclosing one; no definition may shadow a visible one) and
// reports IR-UNDEFINED / IR-REDEFINED without stopping. A syntax error stops it:
// the rest of a malformed file is not guessed at. Type rules are the verifier's.
#ifndef SCJIT_LOWERING_IR_PARSER_H_
#define SCJIT_LOWERING_IR_PARSER_H_

#include <memory>

#include "lowering/base/diagnostic.h"
#include "lowering/ir/ir.h"
#include "lowering/base/source.h"

namespace scjit {

// Limits that keep hostile input from exhausting the host (IR-LIMIT).
inline constexpr int kMaxNesting = 200;            // nested regions and brackets
inline constexpr int64_t kMaxElements = int64_t{1} << 40;  // per type
inline constexpr size_t kMaxSourceBytes = size_t{64} << 20;

// Parses `file`. Always returns a module (possibly partial); the sink holds the
// diagnostics, and the module is only meaningful when the sink has no errors.
std::unique_ptr<Module> Parse(std::shared_ptr<const SourceFile> file, DiagnosticSink& sink);

}  // namespace scjit

#endif  // SCJIT_LOWERING_IR_PARSER_H_
