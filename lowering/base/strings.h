// String concatenation for std::string_view-based code.
//
// Debian 12's Abseil (20220623) is built with its own absl::string_view, which
// absl::StrCat does not accept from std::string_view. scjit uses std::string_view
// in its own interfaces, so it concatenates with Cat/Append below and formats with
// absl::StrFormat (which does take std::string_view).
#ifndef SCJIT_LOWERING_BASE_STRINGS_H_
#define SCJIT_LOWERING_BASE_STRINGS_H_

#include <charconv>
#include <concepts>
#include <string>
#include <string_view>

namespace scjit {
namespace strings_internal {

inline void AppendPiece(std::string* out, std::string_view s) { out->append(s); }
inline void AppendPiece(std::string* out, const char* s) { out->append(s); }
inline void AppendPiece(std::string* out, char c) { out->push_back(c); }
template <std::integral T>
  requires(!std::same_as<T, char> && !std::same_as<T, bool>)
void AppendPiece(std::string* out, T v) {
  char buf[24];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  out->append(buf, end);
}

}  // namespace strings_internal

// Appends the pieces (strings, characters, integers) to *out.
template <typename... Args>
void Append(std::string* out, const Args&... args) {
  (strings_internal::AppendPiece(out, args), ...);
}

// The concatenation of the pieces (strings, characters, integers).
template <typename... Args>
std::string Cat(const Args&... args) {
  std::string out;
  Append(&out, args...);
  return out;
}

}  // namespace scjit

#endif  // SCJIT_LOWERING_BASE_STRINGS_H_
