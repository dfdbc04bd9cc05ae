// The JAX release whose SparseCore lowering a compilation answers for.
//
// Pallas' SparseCore lowering words some of its errors differently from one JAX
// release to the next (and adds and drops a few). scjit's rules report the
// words of the release a compilation names (CompileOptions::jax, `jit-run
// --jax`, what scjit.jax finds installed): the catalog's messages are JAX
// 0.11.1's, and jax_messages.def lists the messages that differ, each with the
// first release that has it (docs/jax.md, "Versions").
#ifndef SCJIT_LOWERING_BASE_JAX_RELEASE_H_
#define SCJIT_LOWERING_BASE_JAX_RELEASE_H_

#include <compare>
#include <span>
#include <string>
#include <string_view>

#include "absl/status/statusor.h"
#include "lowering/base/diagnostic.h"

namespace scjit {

struct JaxRelease {
  int major = 0, minor = 10, patch = 2;

  auto operator<=>(const JaxRelease&) const = default;
  std::string ToString() const;
};

// The releases scjit answers for, oldest and newest.
inline constexpr JaxRelease kOldestJax{0, 10, 2};
inline constexpr JaxRelease kNewestJax{0, 12, 1};
// The release whose lowering the catalog (sc-errors.md) records, word for word
// and rule for rule: the default when a compilation names none.
inline constexpr JaxRelease kCatalogJax{0, 11, 1};

// "0.12.1" (a suffix such as ".dev20261101" or "rc1" is ignored); "" is the
// catalog's. IO-USAGE for text that is no release or one outside the range.
absl::StatusOr<JaxRelease> ParseJaxRelease(std::string_view text);

// The message template `release` gives `id`: the newest of jax_messages.def's
// rows for `id` and the catalog's (which holds from kCatalogJax on) not newer
// than `release`; the catalog's where no row is.
std::string_view MessageFor(DiagId id, JaxRelease release);

// The exception type `release` raises for `id` (the same rows).
std::string_view ExceptionFor(DiagId id, JaxRelease release);

// True when the lowering of `release` has the rule `id`: every catalog rule
// does; a rule JAX added later (SCJIT_JAX_RULE rows of jax_messages.def) from
// its first release on.
bool RuleIn(DiagId id, JaxRelease release);

// The first release whose lowering has the rule `id` (the oldest for catalog rules).
JaxRelease RuleSince(DiagId id);

// One rule JAX added after the catalog's releases, for docs and tests.
struct JaxRule {
  DiagId id;
  JaxRelease since;
};
std::span<const JaxRule> JaxRules();

// One row of jax_messages.def, for docs and tests.
struct JaxMessage {
  DiagId id;
  JaxRelease since;
  std::string_view exception;
  std::string_view message;
};
std::span<const JaxMessage> JaxMessages();

}  // namespace scjit

#endif  // SCJIT_LOWERING_BASE_JAX_RELEASE_H_
