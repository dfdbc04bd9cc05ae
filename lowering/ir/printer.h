// The .scir printer: the canonical text of a module. Its output re-parses to the
// same IR (names, literals, attributes and syntax variants are kept; comments,
// spacing and literal spellings such as 0x1F are not).
#ifndef SCJIT_LOWERING_IR_PRINTER_H_
#define SCJIT_LOWERING_IR_PRINTER_H_

#include <string>

#include "lowering/ir/ir.h"

namespace scjit {

std::string Print(const Module& module);
std::string Print(const KernelDef& kernel);
// One operand as written, with its indexer: `%ref[ds(%i, 16), :]`, `3`, `1.5`.
std::string Print(const Operand& operand);
// A literal the way the printer writes it (floats always re-lex as floats).
std::string PrintLiteral(const Operand& literal);

}  // namespace scjit

#endif  // SCJIT_LOWERING_IR_PRINTER_H_
