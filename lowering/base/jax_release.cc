#include "lowering/base/jax_release.h"

#include <charconv>

#include "lowering/base/strings.h"

namespace scjit {
namespace {

const JaxMessage kJaxMessages[] = {
#define SCJIT_JAX_MESSAGE(Enum, since, exception, message) {DiagId::Enum, since, exception, message},
#include "lowering/base/diagnostics/jax_messages.def"
#undef SCJIT_JAX_MESSAGE
};

const JaxRule kJaxRules[] = {
#define SCJIT_JAX_RULE(Enum, since) {DiagId::Enum, since},
#include "lowering/base/diagnostics/jax_messages.def"
#undef SCJIT_JAX_RULE
};

// The newest row for `id` not newer than `release`, or null for the catalog's
// words (a row older than the catalog's release holds until that release).
const JaxMessage* RowFor(DiagId id, JaxRelease release) {
  const JaxMessage* best = nullptr;
  for (const JaxMessage& m : kJaxMessages) {
    if (m.id == id && m.since <= release && (best == nullptr || best->since < m.since)) best = &m;
  }
  if (best != nullptr && best->since < kCatalogJax && kCatalogJax <= release) return nullptr;
  return best;
}

// The leading decimal number of `text` (at most 4 digits), consumed.
bool TakeNumber(std::string_view& text, int& out) {
  size_t n = 0;
  while (n < text.size() && n < 4 && text[n] >= '0' && text[n] <= '9') ++n;
  if (n == 0) return false;
  std::from_chars(text.data(), text.data() + n, out);
  text.remove_prefix(n);
  return true;
}

}  // namespace

std::string JaxRelease::ToString() const { return Cat(major, ".", minor, ".", patch); }

absl::StatusOr<JaxRelease> ParseJaxRelease(std::string_view text) {
  if (text.empty()) return kCatalogJax;
  JaxRelease r;
  std::string_view rest = text;
  bool ok = TakeNumber(rest, r.major) && !rest.empty() && rest[0] == '.' && (rest.remove_prefix(1), true) &&
            TakeNumber(rest, r.minor) && !rest.empty() && rest[0] == '.' && (rest.remove_prefix(1), true) &&
            TakeNumber(rest, r.patch) && (rest.empty() || !(rest[0] >= '0' && rest[0] <= '9'));
  if (!ok) {
    return DiagnosticStatus(MakeDiagnostic(DiagId::kIoUsage, nullptr, Location{},
                                           {{"detail", Cat("'", text, "' is not a JAX release such as ",
                                                                    kNewestJax.ToString())}}),
                            absl::StatusCode::kInvalidArgument);
  }
  if (r < kOldestJax || kNewestJax < r) {
    return DiagnosticStatus(
        MakeDiagnostic(DiagId::kIoUsage, nullptr, Location{},
                       {{"detail", Cat("scjit answers for JAX ", kOldestJax.ToString(), " to ",
                                                kNewestJax.ToString(), ", not ", r.ToString())}}),
        absl::StatusCode::kInvalidArgument);
  }
  return r;
}

std::string_view MessageFor(DiagId id, JaxRelease release) {
  const JaxMessage* row = RowFor(id, release);
  return row != nullptr ? row->message : Info(id).message;
}

std::string_view ExceptionFor(DiagId id, JaxRelease release) {
  const JaxMessage* row = RowFor(id, release);
  return row != nullptr ? row->exception : Info(id).exception;
}

std::span<const JaxMessage> JaxMessages() { return kJaxMessages; }

JaxRelease RuleSince(DiagId id) {
  for (const JaxRule& r : kJaxRules) {
    if (r.id == id) return r.since;
  }
  return kOldestJax;
}

bool RuleIn(DiagId id, JaxRelease release) { return !(release < RuleSince(id)); }

std::span<const JaxRule> JaxRules() { return kJaxRules; }

}  // namespace scjit
