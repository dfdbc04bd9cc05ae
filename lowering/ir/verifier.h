// The verifier: the type rules of the Kernel IR (kernel-ir.md §2-§4).
//
// It rejects only what makes a kernel meaningless, with IR-* codes: wrong arity,
// operand kinds no op accepts, mismatched operand types, result types that
// contradict the op, malformed regions and headers. Restrictions that Pallas
// itself reports (ranks, shapes, dtypes, memory spaces, mask types, `reduce`
// values, loop-carry kinds...) are left to the SC rules, which carry the
// catalog's codes; where such a rule covers a condition, the verifier stays
// silent about it.
//
// The verifier also gives every literal operand the type its op requires
// (Operand::literal_type), so later stages never guess.
#ifndef SCJIT_LOWERING_IR_VERIFIER_H_
#define SCJIT_LOWERING_IR_VERIFIER_H_

#include "lowering/base/diagnostic.h"
#include "lowering/ir/ir.h"

namespace scjit {

// Verifies every kernel of `module`, reporting to `sink`. Ops whose operands were
// already reported (undefined names) are skipped, so one mistake gives one error.
void Verify(Module& module, DiagnosticSink& sink);

}  // namespace scjit

#endif  // SCJIT_LOWERING_IR_VERIFIER_H_
