#include "lowering/base/source.h"

#include <algorithm>
#include <climits>

namespace scjit {

SourceFile::SourceFile(std::string name, std::string text)
    : name_(std::move(name)), text_(std::move(text)) {
  line_starts_.push_back(0);
  for (size_t i = 0; i < text_.size(); ++i) {
    if (text_[i] == '\n') line_starts_.push_back(i + 1);
  }
}

std::string_view SourceFile::Line(int line) const {
  if (line < 1 || static_cast<size_t>(line) > line_starts_.size()) return {};
  size_t begin = line_starts_[line - 1];
  size_t end = static_cast<size_t>(line) < line_starts_.size() ? line_starts_[line] - 1
                                                               : text_.size();
  std::string_view s(text_.data() + begin, end - begin);
  if (!s.empty() && s.back() == '\r') s.remove_suffix(1);
  return s;
}

Location SourceFile::LocationOf(size_t offset, size_t length) const {
  offset = std::min(offset, text_.size());
  auto it = std::upper_bound(line_starts_.begin(), line_starts_.end(), offset);
  size_t line = static_cast<size_t>(it - line_starts_.begin());  // 1-based
  size_t col = offset - line_starts_[line - 1] + 1;
  auto clamp = [](size_t v) { return static_cast<int>(std::min<size_t>(v, INT_MAX)); };
  return Location{clamp(line), clamp(col), clamp(std::max<size_t>(length, 1))};
}

}  // namespace scjit
