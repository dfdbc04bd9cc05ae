// Source text of a kernel file and positions in it.
#ifndef SCJIT_LOWERING_BASE_SOURCE_H_
#define SCJIT_LOWERING_BASE_SOURCE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace scjit {

// A position in a source file: 1-based line and column (in bytes), and the length
// of the token it points at (for the `^~~~` underline). line == 0 means "no
// position" (e.g. a diagnostic about a whole file).
struct Location {
  int line = 0;
  int col = 0;
  int length = 1;

  bool valid() const { return line > 0; }
  friend bool operator==(const Location&, const Location&) = default;
};

// An immutable kernel file: its name (as given by the user) and its bytes.
// Thread-safe after construction (read-only).
class SourceFile {
 public:
  SourceFile(std::string name, std::string text);

  const std::string& name() const { return name_; }
  std::string_view text() const { return text_; }

  // The text of line `line` (1-based) without its line terminator; empty when the
  // line does not exist.
  std::string_view Line(int line) const;

  // The location of the `length` bytes starting at byte `offset`.
  Location LocationOf(size_t offset, size_t length) const;

 private:
  std::string name_;
  std::string text_;
  std::vector<size_t> line_starts_;  // byte offset of the first byte of each line
};

}  // namespace scjit

#endif  // SCJIT_LOWERING_BASE_SOURCE_H_
