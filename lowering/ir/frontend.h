// The front end in one call: read a .scir file, parse it, verify it.
#ifndef SCJIT_LOWERING_IR_FRONTEND_H_
#define SCJIT_LOWERING_IR_FRONTEND_H_

#include <memory>
#include <string>

#include "absl/status/statusor.h"
#include "lowering/base/diagnostic.h"
#include "lowering/ir/ir.h"
#include "lowering/base/source.h"

namespace scjit {

// Reads `path` into a SourceFile named `path`. IO-OPEN on failure.
absl::StatusOr<std::shared_ptr<const SourceFile>> ReadSourceFile(const std::string& path);

// Parses and verifies `file`. Every diagnostic goes to `sink`; the module is
// returned only when there are no errors (otherwise the sink's status, whose
// message is every diagnostic rendered).
absl::StatusOr<std::unique_ptr<Module>> LoadModule(std::shared_ptr<const SourceFile> file,
                                                   DiagnosticSink& sink);

}  // namespace scjit

#endif  // SCJIT_LOWERING_IR_FRONTEND_H_
