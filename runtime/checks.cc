// The public Checks (scjit/launch.h): `--check` text in and out.
#include "lowering/base/diagnostic.h"
#include "lowering/base/strings.h"
#include "scjit/launch.h"

namespace scjit {

absl::StatusOr<Checks> Checks::Parse(std::string_view text) {
  if (text == "all") return All();
  if (text == "none") return None();
  if (text == "warn" || text == "strict") {
    Checks c = All();
    (text == "warn" ? c.warn : c.strict) = true;
    return c;
  }
  Checks c = None();
  std::string_view rest = text;
  while (true) {
    size_t comma = rest.find(',');
    std::string_view item = rest.substr(0, comma);
    if (item == "bounds") {
      c.bounds = true;
    } else if (item == "sync") {
      c.sync = true;
    } else if (item == "init") {
      c.init = true;
    } else if (item == "race") {
      c.race = true;
    } else if (item == "strict") {
      c.strict = true;
    } else {
      return DiagnosticStatus(MakeDiagnostic(
          DiagId::kIoUsage, nullptr, Location{},
          {{"detail", Cat("option '--check' takes all, none, warn, strict or a list of bounds,init,race,sync,strict; "
                          "got '", text, "'")}}));
    }
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return c;
}

std::string Checks::ToString() const {
  Checks plain = *this;
  plain.warn = plain.strict = false;
  if (plain == All() && !(warn && strict)) return warn ? "warn" : strict ? "strict" : "all";
  if (plain == None() && !strict) return "none";
  std::string out;
  for (auto [on, name] : {std::pair{bounds, "bounds"}, {init, "init"}, {race, "race"}, {sync, "sync"},
                          {strict, "strict"}}) {
    if (on) Append(&out, out.empty() ? "" : ",", name);
  }
  return out;
}

}  // namespace scjit
