#include "runtime/npy.h"

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstring>
#include <limits>
#include <sys/stat.h>
#include <memory>
#include <optional>
#include <utility>

#include "lowering/base/regular_file.h"
#include "absl/strings/str_format.h"
#include "lowering/base/diagnostic.h"
#include "lowering/base/float8.h"
#include "lowering/base/strings.h"
#include "runtime/host_memory.h"

namespace scjit {
namespace {

constexpr std::string_view kMagic("\x93NUMPY", 6);
// Magic, two version bytes, and the longest (4-byte) header length field.
constexpr size_t kMaxPreambleLength = 12;
constexpr int kNumpyAlign = 64;
// numpy leaves room for the first axis to grow to this many digits.
constexpr size_t kGrowthAxisMaxDigits = 21;
// Raw header text quoted in messages is cut to this many characters.
constexpr size_t kMaxQuoted = 80;

// Locale-independent character classes.
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsWordChar(char c) {
  return IsDigit(c) || (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}

// `text` made printable for a message: printable ASCII stays, everything else is
// \xNN, and long text is cut with "...".
std::string Printable(std::string_view text, size_t max_len = kMaxQuoted) {
  std::string out;
  for (size_t i = 0; i < text.size(); ++i) {
    if (out.size() >= max_len) {
      out += "...";
      break;
    }
    unsigned char c = static_cast<unsigned char>(text[i]);
    if (c >= 0x20 && c < 0x7F && c != '\\') {
      out += static_cast<char>(c);
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      out += absl::StrFormat("\\x%02x", c);
    }
  }
  return out;
}

// An IO-* diagnostic about `path`, with at most one more argument.
absl::Status NpyError(DiagId id, std::string_view path, std::string_view name = "",
                      std::string value = "") {
  return DiagnosticStatus(MakeDiagnostic(id, nullptr, Location{},
                                         {{"path", std::string(path)}, {name, std::move(value)}}));
}

absl::Status FormatError(std::string_view path, std::string detail) {
  return NpyError(DiagId::kIoNpyFormat, path, "detail", std::move(detail));
}

// The fixed-size start of a .npy file.
struct Preamble {
  int major = 0;
  int minor = 0;
  size_t header_start = 0;   // offset of the header text
  uint64_t header_length = 0;
};

// Parses the preamble from `bytes`, which is the whole file or at least its
// first kMaxPreambleLength bytes.
absl::StatusOr<Preamble> ParsePreamble(std::string_view bytes, std::string_view path) {
  if (bytes.empty()) return FormatError(path, "the file is empty");
  size_t n = std::min(bytes.size(), kMagic.size());
  if (bytes.substr(0, n) != kMagic.substr(0, n)) {
    return FormatError(path, Cat("bad magic: the file starts with '", Printable(bytes.substr(0, 6)),
                                 "', not '\\x93NUMPY'"));
  }
  if (bytes.size() < 8) {
    return FormatError(path, Cat("the file ends after ", bytes.size(),
                                 " bytes, inside the magic string and version"));
  }
  Preamble p;
  p.major = static_cast<unsigned char>(bytes[6]);
  p.minor = static_cast<unsigned char>(bytes[7]);
  if (p.minor != 0 || p.major < 1 || p.major > 3) {
    return FormatError(path, Cat("unsupported format version ", p.major, ".", p.minor,
                                 " (supported: 1.0, 2.0, 3.0)"));
  }
  size_t len_bytes = p.major == 1 ? 2 : 4;
  p.header_start = 8 + len_bytes;
  if (bytes.size() < p.header_start) {
    return FormatError(path, Cat("the file ends after ", bytes.size(),
                                 " bytes, inside the header length"));
  }
  for (size_t i = 0; i < len_bytes; ++i) {
    p.header_length |= uint64_t{static_cast<unsigned char>(bytes[8 + i])} << (8 * i);
  }
  if (p.header_length > kMaxNpyHeaderLength) {
    return FormatError(path, Cat("header length ", p.header_length, " exceeds the limit of ",
                                 kMaxNpyHeaderLength, " bytes"));
  }
  return p;
}

// A recursive-descent parser for the header dict, a Python literal such as
// {'descr': '<i4', 'fortran_order': False, 'shape': (64, 16), }. It recurses
// nowhere (nested values are only skipped, iteratively), so no input can
// exhaust the stack.
class HeaderParser {
 public:
  HeaderParser(std::string_view text, bool allow_long_suffix)
      : text_(text), allow_long_suffix_(allow_long_suffix) {}

  // Parses the whole header; on failure error() says why.
  bool Parse();
  const std::string& error() const { return error_; }

  // Results, valid after a successful Parse().
  bool descr_is_string() const { return descr_is_string_; }
  const std::string& descr() const { return descr_; }  // string value or raw text
  bool fortran_order() const { return fortran_order_; }
  const Shape& shape() const { return shape_; }
  int64_t num_elements() const { return num_elements_; }

 private:
  bool Fail(std::string message) {
    if (error_.empty()) error_ = std::move(message);
    return false;
  }
  bool AtEnd() const { return pos_ >= text_.size(); }
  char Peek() const { return AtEnd() ? '\0' : text_[pos_]; }
  void SkipSpace() {
    while (!AtEnd() && (Peek() == ' ' || Peek() == '\t' || Peek() == '\n' || Peek() == '\r' ||
                        Peek() == '\f' || Peek() == '\v')) {
      ++pos_;
    }
  }
  bool Consume(char c) {
    if (Peek() != c || AtEnd()) return false;
    ++pos_;
    return true;
  }
  // A short, printable description of what is at the current position.
  std::string Found() const {
    if (AtEnd()) return "the end of the header";
    return Cat("'", Printable(text_.substr(pos_, 20), 20), "'");
  }

  bool ParseString(std::string* out);
  // Moves past one value of any form that starts at `start` and returns its
  // raw text (trimmed); *balanced says whether its brackets and quotes close.
  std::string_view ScanValue(size_t start, bool* balanced);
  // ScanValue from the current position, failing if unbalanced.
  bool SkipValue(std::string_view* raw);
  bool ParseDescr();
  bool ParseFortranOrder();
  bool ParseShape();
  bool ShapeError(size_t start, std::string_view why);

  std::string_view text_;
  bool allow_long_suffix_;
  size_t pos_ = 0;
  std::string error_;

  bool have_descr_ = false;
  bool have_fortran_order_ = false;
  bool have_shape_ = false;
  bool descr_is_string_ = false;
  std::string descr_;
  bool fortran_order_ = false;
  Shape shape_;
  int64_t num_elements_ = 1;
};

bool HeaderParser::Parse() {
  SkipSpace();
  if (!Consume('{')) {
    return Fail(Cat("the header is not a dict: it starts with ", Found()));
  }
  while (true) {
    SkipSpace();
    if (Consume('}')) break;
    if (Peek() != '\'' && Peek() != '"') {
      return Fail(Cat("expected a quoted key or '}' in the header dict, found ", Found()));
    }
    std::string key;
    if (!ParseString(&key)) return false;
    SkipSpace();
    if (!Consume(':')) {
      return Fail(Cat("expected ':' after the key '", Printable(key), "', found ", Found()));
    }
    SkipSpace();
    bool* seen = nullptr;
    if (key == "descr") {
      seen = &have_descr_;
    } else if (key == "fortran_order") {
      seen = &have_fortran_order_;
    } else if (key == "shape") {
      seen = &have_shape_;
    } else {
      return Fail(Cat("unexpected key '", Printable(key),
                      "' in the header (the keys are 'descr', 'fortran_order' and 'shape')"));
    }
    if (*seen) return Fail(Cat("duplicate key '", key, "' in the header"));
    *seen = true;
    bool ok = key == "descr"           ? ParseDescr()
              : key == "fortran_order" ? ParseFortranOrder()
                                       : ParseShape();
    if (!ok) return false;
    SkipSpace();
    if (Consume(',')) continue;
    if (Consume('}')) break;
    return Fail(Cat("expected ',' or '}' after the value of '", key, "', found ", Found()));
  }
  SkipSpace();
  if (!AtEnd()) return Fail(Cat("unexpected text after the header dict: ", Found()));
  if (!have_descr_) return Fail("header is missing 'descr'");
  if (!have_fortran_order_) return Fail("header is missing 'fortran_order'");
  if (!have_shape_) return Fail("header is missing 'shape'");
  return true;
}

bool HeaderParser::ParseString(std::string* out) {
  size_t start = pos_;
  char quote = text_[pos_++];
  while (true) {
    if (AtEnd() || Peek() == '\n') {
      return Fail(Cat("unterminated string starting at byte ", start, " of the header"));
    }
    char c = text_[pos_++];
    if (c == quote) return true;
    if (c != '\\') {
      *out += c;
      continue;
    }
    if (AtEnd()) continue;  // reported as unterminated on the next iteration
    char e = text_[pos_++];
    switch (e) {
      case 'n': *out += '\n'; break;
      case 't': *out += '\t'; break;
      case 'r': *out += '\r'; break;
      case '0': *out += '\0'; break;
      case '\\': case '\'': case '"': *out += e; break;
      case 'x': {
        auto hex = [](char h) -> int {
          if (h >= '0' && h <= '9') return h - '0';
          if (h >= 'a' && h <= 'f') return h - 'a' + 10;
          if (h >= 'A' && h <= 'F') return h - 'A' + 10;
          return -1;
        };
        int hi = hex(Peek());
        int lo = pos_ + 1 < text_.size() ? hex(text_[pos_ + 1]) : -1;
        if (hi < 0 || lo < 0) {
          return Fail(Cat("bad \\x escape in the string at byte ", start, " of the header"));
        }
        *out += static_cast<char>(hi * 16 + lo);
        pos_ += 2;
        break;
      }
      default:  // Python keeps unknown escapes verbatim
        *out += '\\';
        *out += e;
        break;
    }
  }
}

std::string_view HeaderParser::ScanValue(size_t start, bool* balanced) {
  pos_ = start;
  std::vector<char> open;  // expected closing brackets; heap-bounded by the header
  *balanced = true;
  while (!AtEnd()) {
    char c = Peek();
    if (c == '\'' || c == '"') {  // skip a string, to its quote or the line's end
      ++pos_;
      while (!AtEnd() && Peek() != c && Peek() != '\n') pos_ += Peek() == '\\' ? 2 : 1;
      if (AtEnd()) {
        pos_ = text_.size();
        *balanced = false;
        break;
      }
      if (Peek() == '\n') *balanced = false;
      ++pos_;
      continue;
    }
    if (c == '(' || c == '[' || c == '{') {
      open.push_back(c == '(' ? ')' : c == '[' ? ']' : '}');
    } else if (c == ')' || c == ']' || c == '}') {
      if (open.empty()) break;
      if (open.back() != c) *balanced = false;
      open.pop_back();
    } else if (c == ',' && open.empty()) {
      break;
    }
    ++pos_;
  }
  if (!open.empty()) *balanced = false;
  std::string_view value = text_.substr(start, pos_ - start);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\n' || value.back() == '\t' ||
                            value.back() == '\r')) {
    value.remove_suffix(1);
  }
  return value;
}

bool HeaderParser::SkipValue(std::string_view* raw) {
  size_t start = pos_;
  bool balanced;
  *raw = ScanValue(start, &balanced);
  if (!balanced) {
    return Fail(Cat("unbalanced brackets or quotes in '", Printable(text_.substr(start)), "'"));
  }
  return true;
}

bool HeaderParser::ParseDescr() {
  char c = Peek();
  if (c == '\'' || c == '"') {
    descr_is_string_ = true;
    return ParseString(&descr_);
  }
  std::string_view raw;
  if (!SkipValue(&raw)) return false;
  if (c == '[' || c == '(' || c == '{') {
    // A structured or sub-array dtype: well-formed, but no kernel IR type.
    descr_is_string_ = false;
    descr_ = std::string(raw);
    return true;
  }
  return Fail(Cat("'descr' is not a string: '", Printable(raw), "'"));
}

bool HeaderParser::ParseFortranOrder() {
  size_t start = pos_;
  while (!AtEnd() && IsWordChar(Peek())) ++pos_;
  std::string_view word = text_.substr(start, pos_ - start);
  if (word == "True" || word == "False") {
    fortran_order_ = word == "True";
    return true;
  }
  pos_ = start;
  std::string_view raw;
  if (!SkipValue(&raw)) return false;
  return Fail(Cat("'fortran_order' is not True or False: '", Printable(raw), "'"));
}

bool HeaderParser::ShapeError(size_t start, std::string_view why) {
  bool balanced;
  std::string_view raw = ScanValue(start, &balanced);
  std::string message = Cat("malformed shape '", Printable(raw), "'");
  if (!why.empty()) Append(&message, ": ", why);
  return Fail(std::move(message));
}

bool HeaderParser::ParseShape() {
  size_t start = pos_;
  if (!Consume('(')) return ShapeError(start, "not a tuple");
  int commas = 0;
  while (true) {
    SkipSpace();
    if (Consume(')')) break;
    bool negative = Consume('-');
    if (!IsDigit(Peek())) return ShapeError(start, "");
    uint64_t value = 0;
    bool too_large = false;
    while (true) {
      char c = Peek();
      if (IsDigit(c)) {
        uint64_t digit = static_cast<uint64_t>(c - '0');
        if (value > (static_cast<uint64_t>(std::numeric_limits<int64_t>::max()) - digit) / 10) {
          too_large = true;
        } else {
          value = value * 10 + digit;
        }
        ++pos_;
      } else if (c == '_' && pos_ + 1 < text_.size() &&
                 IsDigit(text_[pos_ + 1])) {
        ++pos_;  // Python's digit separator, 1_000
      } else {
        break;
      }
    }
    if (allow_long_suffix_ && (Peek() == 'L' || Peek() == 'l')) ++pos_;  // Python 2: 3L
    if (IsWordChar(Peek()) || Peek() == '.') {
      return ShapeError(start, "");
    }
    if (negative && (value != 0 || too_large)) return ShapeError(start, "negative dimension");
    if (too_large) return ShapeError(start, "a dimension of 2^63 or more");
    if (shape_.size() >= static_cast<size_t>(kMaxNpyRank)) {
      return ShapeError(start, Cat("more than ", kMaxNpyRank, " dimensions"));
    }
    shape_.push_back(static_cast<int64_t>(value));
    SkipSpace();
    if (Consume(',')) {
      ++commas;
      continue;
    }
    if (Consume(')')) break;
    return ShapeError(start, "");
  }
  if (shape_.size() == 1 && commas == 0) {
    return ShapeError(start, Cat("not a tuple; a 1-d shape is written (", shape_[0], ",)"));
  }
  // Element count, guarding against overflow (a zero dimension makes it 0).
  num_elements_ = 1;
  bool has_zero = std::find(shape_.begin(), shape_.end(), 0) != shape_.end();
  if (has_zero) {
    num_elements_ = 0;
  } else {
    for (int64_t d : shape_) {
      if (num_elements_ > std::numeric_limits<int64_t>::max() / d) {
        return ShapeError(start, "2^63 or more elements");
      }
      num_elements_ *= d;
    }
  }
  return true;
}

// The element type of a descr string, or why there is none.
enum class DescrStatus { kOk, kUnsupported, kBigEndian };

DescrStatus ResolveDescr(std::string_view descr, std::optional<ElementType> raw_as, ElementType* out) {
  if (descr == "bfloat16") {
    *out = ElementType::kBF16;
    return DescrStatus::kOk;
  }
  char order = '=';
  if (!descr.empty() && (descr[0] == '<' || descr[0] == '>' || descr[0] == '=' || descr[0] == '|')) {
    order = descr[0];
    descr.remove_prefix(1);
  }
  if (descr.size() != 2) return DescrStatus::kUnsupported;
  char kind = descr[0];
  char size = descr[1];
  std::optional<ElementType> type;
  switch (kind) {
    case 'b':
      if (size == '1') type = ElementType::kI1;
      break;
    case 'i':
      if (size == '1') type = ElementType::kI8;
      if (size == '2') type = ElementType::kI16;
      if (size == '4') type = ElementType::kI32;
      if (size == '8') type = ElementType::kI64;
      break;
    case 'u':
      if (size == '1') type = ElementType::kU8;
      if (size == '2') type = ElementType::kU16;
      if (size == '4') type = ElementType::kU32;
      if (size == '8') type = ElementType::kU64;
      break;
    case 'f':
      if (size == '1') type = ElementType::kF8E5M2;  // what np.save writes for it
      if (size == '2') type = ElementType::kF16;
      if (size == '4') type = ElementType::kF32;
      if (size == '8') type = ElementType::kF64;
      break;
    case 'V':
      if (size == '2') type = ElementType::kBF16;
      if (size == '1' && raw_as && (IsFloat8(*raw_as) || IsInt4(*raw_as))) type = *raw_as;
      break;
    default:
      break;
  }
  if (!type) return DescrStatus::kUnsupported;
  if (order == '>' && ByteWidth(*type) > 1) return DescrStatus::kBigEndian;
  *out = *type;
  return DescrStatus::kOk;
}

// Everything the header says about the array.
struct HeaderInfo {
  ElementType dtype = ElementType::kF32;
  Shape shape;
  uint64_t data_offset = 0;
  uint64_t data_bytes = 0;
};

// Parses preamble and header from `bytes`, which is the whole file or at least
// its preamble and header.
absl::StatusOr<HeaderInfo> ParseHeader(std::string_view bytes, std::string_view path,
                                       std::optional<ElementType> raw_as) {
  absl::StatusOr<Preamble> preamble = ParsePreamble(bytes, path);
  if (!preamble.ok()) return preamble.status();
  uint64_t available = bytes.size() - preamble->header_start;
  if (available < preamble->header_length) {
    return FormatError(path, Cat("the file ends inside the header (the header length is ",
                                 preamble->header_length, " bytes, but only ", available,
                                 " follow)"));
  }
  std::string_view text =
      bytes.substr(preamble->header_start, static_cast<size_t>(preamble->header_length));
  HeaderParser parser(text, /*allow_long_suffix=*/preamble->major <= 2);
  if (!parser.Parse()) return FormatError(path, parser.error());

  HeaderInfo info;
  info.shape = parser.shape();
  info.data_offset = preamble->header_start + preamble->header_length;
  if (parser.fortran_order()) {
    // Fortran and C order lay out the bytes identically when at most one
    // dimension exceeds 1 (or there are no elements).
    int big_dims = 0;
    for (int64_t d : info.shape) big_dims += d > 1 ? 1 : 0;
    if (big_dims > 1 && parser.num_elements() > 0) {
      return NpyError(DiagId::kIoNpyOrder, path);
    }
  }
  if (!parser.descr_is_string()) {
    return NpyError(DiagId::kIoNpyDtype, path, "descr", Printable(parser.descr()));
  }
  switch (ResolveDescr(parser.descr(), raw_as, &info.dtype)) {
    case DescrStatus::kOk:
      break;
    case DescrStatus::kUnsupported:
      return NpyError(DiagId::kIoNpyDtype, path, "descr", Printable(parser.descr()));
    case DescrStatus::kBigEndian:
      return NpyError(DiagId::kIoNpyEndian, path, "descr", Printable(parser.descr()));
  }
  int64_t width = ByteWidth(info.dtype);
  if (parser.num_elements() > std::numeric_limits<int64_t>::max() / width) {
    return FormatError(path, Cat("shape ", ShapeRepr(info.shape), " of ", NumpyName(info.dtype),
                                 " holds 2^63 or more bytes"));
  }
  info.data_bytes = static_cast<uint64_t>(parser.num_elements() * width);
  return info;
}

absl::Status DataSizeError(std::string_view path, const HeaderInfo& info, uint64_t got) {
  return DiagnosticStatus(MakeDiagnostic(
      DiagId::kIoNpyData, nullptr, Location{},
      {{"path", std::string(path)},
       {"got", Cat(got)},
       {"want", Cat(info.data_bytes, " bytes (shape ", ShapeRepr(info.shape), " of ",
                    NumpyName(info.dtype), ")")}}));
}

std::string ErrnoText(int err) { return err != 0 ? std::strerror(err) : "I/O error"; }

// Before any data is read: a regular file's data must have the header's size
// (IO-NPY-DATA, as if it had been read), and the data must fit the host's memory
// (IO-MEMORY); a stream (a pipe) is measured as it is read.
absl::Status CheckDataSize(std::FILE* f, std::string_view path, const HeaderInfo& info, uint64_t header_end) {
  struct stat st;
  if (fstat(fileno(f), &st) == 0 && S_ISREG(st.st_mode)) {
    uint64_t size = static_cast<uint64_t>(st.st_size);
    uint64_t got = size > header_end ? size - header_end : 0;
    if (got != info.data_bytes) return DataSizeError(path, info, got);
  }
  return CheckHostMemory(static_cast<int64_t>(info.data_bytes), Cat("the data of '", path, "'"));
}

struct FileCloser {
  void operator()(std::FILE* f) const { std::fclose(f); }
};
using File = std::unique_ptr<std::FILE, FileCloser>;

// Appends up to `n` bytes read from `f` to `out`; returns how many it read.
size_t ReadInto(std::FILE* f, std::string* out, size_t n) {
  size_t old = out->size();
  out->resize(old + n);
  size_t got = std::fread(out->data() + old, 1, n, f);
  out->resize(old + got);
  return got;
}

}  // namespace

int64_t NpyArray::NumElements() const {
  // An empty dimension empties the array, whatever the others (the header
  // bounds their product only when none is 0).
  for (int64_t d : shape) {
    if (d == 0) return 0;
  }
  int64_t n = 1;
  for (int64_t d : shape) n *= d;
  return n;
}

int64_t NpyArray::NumBytes() const { return NumElements() * ByteWidth(dtype); }

absl::StatusOr<NpyArray> ParseNpy(std::string_view bytes, std::string_view path,
                                  std::optional<ElementType> raw_as) {
  absl::StatusOr<HeaderInfo> info = ParseHeader(bytes, path, raw_as);
  if (!info.ok()) return info.status();
  uint64_t got = bytes.size() - info->data_offset;
  if (got != info->data_bytes) return DataSizeError(path, *info, got);
  NpyArray array;
  array.dtype = info->dtype;
  array.shape = std::move(info->shape);
  const auto* data = reinterpret_cast<const uint8_t*>(bytes.data() + info->data_offset);
  array.data.assign(data, data + got);
  return array;
}

absl::StatusOr<NpyArray> ReadNpyArray(const std::string& path, std::optional<ElementType> raw_as) {
  absl::StatusOr<std::FILE*> opened = OpenRegularFile(path);
  if (!opened.ok()) return NpyError(DiagId::kIoOpen, path, "reason", std::string(opened.status().message()));
  File file(*opened);
  auto read_error = [&]() {
    return NpyError(DiagId::kIoOpen, path, "reason", ErrnoText(errno));
  };
  // The preamble first, then exactly the header it announces: the header is
  // bounded by kMaxNpyHeaderLength, the data by what the file holds.
  std::string head;
  errno = 0;
  ReadInto(file.get(), &head, kMaxPreambleLength);
  if (std::ferror(file.get())) return read_error();
  absl::StatusOr<Preamble> preamble = ParsePreamble(head, path);
  if (!preamble.ok()) return preamble.status();
  uint64_t header_end = preamble->header_start + preamble->header_length;
  if (header_end > head.size()) {
    ReadInto(file.get(), &head, static_cast<size_t>(header_end - head.size()));
    if (std::ferror(file.get())) return read_error();
  }
  absl::StatusOr<HeaderInfo> info = ParseHeader(head, path, raw_as);
  if (!info.ok()) return info.status();
  if (absl::Status s = CheckDataSize(file.get(), path, *info, header_end); !s.ok()) return s;

  NpyArray array;
  array.dtype = info->dtype;
  array.shape = info->shape;
  std::vector<uint8_t>& data = array.data;
  // Data bytes already read with the preamble (a tiny header) come first.
  if (head.size() > header_end) {
    data.assign(head.begin() + static_cast<ptrdiff_t>(header_end), head.end());
  }
  // Grow geometrically with what actually arrives: a header that claims
  // petabytes costs nothing until the bytes are there.
  constexpr size_t kChunk = size_t{1} << 24;
  while (data.size() < info->data_bytes) {
    size_t want = static_cast<size_t>(std::min<uint64_t>(info->data_bytes - data.size(), kChunk));
    size_t old = data.size();
    if (data.capacity() < old + want) {
      size_t target = std::max(old + want, data.capacity() * 2);
      data.reserve(static_cast<size_t>(std::min<uint64_t>(target, info->data_bytes)));
    }
    data.resize(old + want);
    size_t got = std::fread(data.data() + old, 1, want, file.get());
    data.resize(old + got);
    if (got < want) break;
  }
  if (std::ferror(file.get())) return read_error();
  uint64_t total = data.size();
  if (total >= info->data_bytes) {
    // Count (without keeping) anything past the expected end.
    char buf[1 << 14];
    size_t got;
    while ((got = std::fread(buf, 1, sizeof(buf), file.get())) > 0) total += got;
    if (std::ferror(file.get())) return read_error();
  }
  if (total != info->data_bytes) return DataSizeError(path, *info, total);
  return array;
}

std::string NpyHeader(ElementType dtype, const Shape& shape) {
  std::string dict = Cat("{'descr': '", Info(dtype).npy_descr,
                         "', 'fortran_order': False, 'shape': ", ShapeRepr(shape), ", }");
  if (!shape.empty()) {
    size_t digits = Cat(shape[0]).size();
    if (digits < kGrowthAxisMaxDigits) dict.append(kGrowthAxisMaxDigits - digits, ' ');
  }
  // numpy pads with 1..64 spaces (a full 64 when already aligned) before '\n'.
  size_t header_len = dict.size() + 1;
  int major = 1;
  size_t prefix = 10;
  size_t pad = kNumpyAlign - (prefix + header_len) % kNumpyAlign;
  if (header_len + pad > 0xFFFF) {
    major = 2;
    prefix = 12;
    pad = kNumpyAlign - (prefix + header_len) % kNumpyAlign;
  }
  uint64_t stored_len = header_len + pad;
  std::string out(kMagic);
  out += static_cast<char>(major);
  out += '\0';
  for (size_t i = 0; i < prefix - 8; ++i) out += static_cast<char>((stored_len >> (8 * i)) & 0xFF);
  out += dict;
  out.append(pad, ' ');
  out += '\n';

  return out;
}

std::string SerializeNpy(const NpyArray& array) {
  std::string out = NpyHeader(array.dtype, array.shape);
  out.append(reinterpret_cast<const char*>(array.data.data()), array.data.size());
  return out;
}

absl::Status WriteNpy(const std::string& path, const NpyArray& array) {
  return WriteNpy(path, array.dtype, array.shape, array.data.data(), array.data.size());
}

absl::Status WriteNpy(const std::string& path, ElementType dtype, const Shape& shape, const uint8_t* data,
                      size_t bytes) {
  // The header, then the data straight from where it is: no copy of the array.
  std::string header = NpyHeader(dtype, shape);
  auto write_error = [&](int err) {
    return NpyError(DiagId::kIoWrite, path, "reason", ErrnoText(err));
  };
  errno = 0;
  std::FILE* f = std::fopen(path.c_str(), "wb");
  if (f == nullptr) return write_error(errno);
  errno = 0;
  bool failed = std::fwrite(header.data(), 1, header.size(), f) != header.size() ||
                (bytes > 0 && std::fwrite(data, 1, bytes, f) != bytes) || std::ferror(f);
  int err = errno;
  errno = 0;
  if (std::fclose(f) != 0 && !failed) {
    failed = true;
    err = errno;
  }
  if (failed) return write_error(err);
  return absl::OkStatus();
}

absl::Status CheckFits(ElementType dtype, const Shape& shape, std::string_view source, std::string_view param,
                       ElementType want_dtype, const Shape& want, std::string_view type_text) {
  bool shape_ok = want.size() == shape.size();
  for (size_t i = 0; shape_ok && i < want.size(); ++i) {
    shape_ok = want[i] == kDynamic || want[i] == shape[i];
  }
  std::string param_text = std::string(param);
  if (dtype != want_dtype) {
    Diagnostic d = MakeDiagnostic(DiagId::kIoDtype, nullptr, Location{},
                                  {{"param", param_text},
                                   {"type", std::string(type_text)},
                                   {"source", std::string(source)},
                                   {"want", std::string(NumpyName(want_dtype))},
                                   {"got", std::string(NumpyName(dtype))}});
    if (!shape_ok) {
      d.notes.push_back(
          Cat("the shape differs too: the kernel expects ", ShapeRepr(want), ", ", source, " has ", ShapeRepr(shape)));
    }
    return DiagnosticStatus(d);
  }
  if (!shape_ok) {
    return DiagnosticStatus(MakeDiagnostic(DiagId::kIoShape, nullptr, Location{},
                                           {{"param", param_text},
                                            {"type", std::string(type_text)},
                                            {"source", std::string(source)},
                                            {"want", ShapeRepr(want)},
                                            {"got", ShapeRepr(shape)}}));
  }
  return absl::OkStatus();
}

absl::Status CheckNpyMatches(const NpyArray& array, std::string_view path, std::string_view param,
                             ElementType dtype, const Shape& shape, std::string_view type_text) {
  return CheckFits(array.dtype, array.shape, Cat("'", path, "'"), param, dtype, shape, type_text);
}

}  // namespace scjit
