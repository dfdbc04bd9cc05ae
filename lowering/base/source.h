// Source text of a kernel file and positions in it.
#ifndef SCJIT_LOWERING_BASE_SOURCE_H_
#define SCJIT_LOWERING_BASE_SOURCE_H_

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

#include "scjit/diagnostic.h"  // Location

namespace scjit {

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
