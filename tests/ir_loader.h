// The front end alone (parse and verify, no SC rules) for the tests of the IR
// layer (frontend_test, diagnostics_test), which look inside the module.
#ifndef SCJIT_TESTS_IR_LOADER_H_
#define SCJIT_TESTS_IR_LOADER_H_

#include <memory>
#include <string>
#include <vector>

#include "lowering/ir/ir.h"

namespace scjit::testing {

// Parses and verifies `text` as a file named `name`.
struct Loaded {
  std::unique_ptr<Module> module;  // null on errors
  std::string diagnostics;         // every diagnostic, rendered
  std::vector<std::string> codes;  // their codes, in report order
};
Loaded Load(const std::string& text, const std::string& name = "test.scir");

}  // namespace scjit::testing

#endif  // SCJIT_TESTS_IR_LOADER_H_
