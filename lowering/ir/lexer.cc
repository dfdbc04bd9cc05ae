#include "lowering/ir/lexer.h"

#include <charconv>
#include <cmath>

#include "absl/strings/str_format.h"
#include "lowering/base/strings.h"

namespace scjit {
namespace {

bool IsIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool IsDigit(char c) { return c >= '0' && c <= '9'; }
bool IsIdentChar(char c) { return IsIdentStart(c) || IsDigit(c) || c == '.'; }

// A byte as it reads in a message: 'c' for printable ASCII, else 0xNN.
std::string DescribeByte(char c) {
  unsigned char u = static_cast<unsigned char>(c);
  if (u >= 0x21 && u < 0x7f) return Cat("character '", c, "'");
  return absl::StrFormat("byte 0x%02X", u);
}

// At most `n` bytes of `s` for a message, with non-printable bytes escaped.
std::string Excerpt(std::string_view s, size_t n = 24) {
  std::string out;
  for (size_t i = 0; i < s.size() && i < n; ++i) {
    unsigned char u = static_cast<unsigned char>(s[i]);
    if (u >= 0x20 && u < 0x7f) {
      out += s[i];
    } else {
      out += absl::StrFormat("\\x%02X", u);
    }
  }
  if (s.size() > n) out += "...";
  return out;
}

}  // namespace

std::string Describe(const Token& t) {
  switch (t.kind) {
    case Tok::kEof:
      return "end of file";
    case Tok::kError:
      return "an invalid token";
    case Tok::kValueName:
    case Tok::kSymbol:
    case Tok::kInt:
    case Tok::kFloat:
      return Excerpt(t.text);
    case Tok::kString:
      return Cat("string ", Excerpt(t.text));
    default:
      return Cat("'", Excerpt(t.text), "'");
  }
}

void Lexer::SkipTrivia() {
  std::string_view s = file_.text();
  while (pos_ < s.size()) {
    char c = s[pos_];
    if (c == ' ' || c == '\t' || c == '\n' || c == '\r') {
      ++pos_;
    } else if (c == '/' && pos_ + 1 < s.size() && s[pos_ + 1] == '/') {
      while (pos_ < s.size() && s[pos_] != '\n') ++pos_;
    } else {
      break;
    }
  }
}

Token Lexer::Make(Tok kind, size_t begin) const {
  Token t;
  t.kind = kind;
  t.offset = begin;
  t.text = file_.text().substr(begin, pos_ - begin);
  return t;
}

Token Lexer::Error(size_t begin, size_t end, std::string detail) {
  pos_ = std::max(end, begin + 1);
  Token t = Make(Tok::kError, begin);
  sink_.Report(MakeDiagnostic(DiagId::kIrLex, &file_, LocationOf(t), {{"detail", detail}}));
  return t;
}

Token Lexer::Next() {
  SkipTrivia();
  std::string_view s = file_.text();
  size_t begin = pos_;
  if (pos_ >= s.size()) return Make(Tok::kEof, begin);
  char c = s[pos_];
  auto single = [&](Tok kind) {
    ++pos_;
    return Make(kind, begin);
  };
  switch (c) {
    case '(': return single(Tok::kLParen);
    case ')': return single(Tok::kRParen);
    case '[': return single(Tok::kLBracket);
    case ']': return single(Tok::kRBracket);
    case '{': return single(Tok::kLBrace);
    case '}': return single(Tok::kRBrace);
    case '<': return single(Tok::kLess);
    case '>': return single(Tok::kGreater);
    case ',': return single(Tok::kComma);
    case ':': return single(Tok::kColon);
    case '=': return single(Tok::kEqual);
    case '?': return single(Tok::kQuestion);
    case ';': return single(Tok::kSemicolon);
    case '.':
      if (s.substr(pos_, 3) == "...") {
        pos_ += 3;
        return Make(Tok::kEllipsis, begin);
      }
      break;
    case '"': return LexString(begin);
    case '%': return LexName(Tok::kValueName, begin);
    case '@': return LexName(Tok::kSymbol, begin);
    case '-':
      if (pos_ + 1 < s.size() && s[pos_ + 1] == '>') {
        pos_ += 2;
        return Make(Tok::kArrow, begin);
      }
      if (pos_ + 1 < s.size() && (IsDigit(s[pos_ + 1]) || s.substr(pos_ + 1, 3) == "inf")) {
        return LexNumber(begin);
      }
      return Error(begin, begin + 1, "unexpected character '-'");
    default:
      break;
  }
  if (IsDigit(c)) return LexNumber(begin);
  if (IsIdentStart(c)) {
    while (pos_ < s.size() && IsIdentChar(s[pos_])) ++pos_;
    return Make(Tok::kIdent, begin);
  }
  return Error(begin, begin + 1, Cat("unexpected ", DescribeByte(c)));
}

Token Lexer::LexName(Tok kind, size_t begin) {
  std::string_view s = file_.text();
  ++pos_;  // '%' or '@'
  size_t name_begin = pos_;
  while (pos_ < s.size() && IsIdentChar(s[pos_])) ++pos_;
  std::string_view name = s.substr(name_begin, pos_ - name_begin);
  char sigil = kind == Tok::kValueName ? '%' : '@';
  if (name.empty()) {
    return Error(begin, pos_, Cat("'", sigil, "' must be followed by a name"));
  }
  bool all_digits = true;
  for (char c : name) all_digits = all_digits && IsDigit(c);
  if (IsDigit(name[0]) && !all_digits) {
    return Error(begin, pos_,
                 Cat("invalid name '", sigil, Excerpt(name),
                     "': a name is a letter or '_' followed by letters, digits, '_' and '.', "
                     "or only digits"));
  }
  Token t = Make(kind, begin);
  t.str = std::string(name);
  return t;
}

Token Lexer::LexNumber(size_t begin) {
  std::string_view s = file_.text();
  bool negative = s[pos_] == '-';
  if (negative) ++pos_;
  if (s.substr(pos_, 3) == "inf") {
    pos_ += 3;
    if (pos_ < s.size() && IsIdentChar(s[pos_])) {
      while (pos_ < s.size() && IsIdentChar(s[pos_])) ++pos_;
      return Error(begin, pos_, Cat("malformed number '", Excerpt(s.substr(begin, pos_ - begin)), "'"));
    }
    Token t = Make(Tok::kFloat, begin);
    t.float_value = -INFINITY;
    return t;
  }
  size_t digits_begin = pos_;
  bool is_float = false;
  bool hex = s.substr(pos_, 2) == "0x" || s.substr(pos_, 2) == "0X";
  if (hex) {
    pos_ += 2;
    digits_begin = pos_;
    while (pos_ < s.size() && std::isxdigit(static_cast<unsigned char>(s[pos_]))) ++pos_;
  } else {
    while (pos_ < s.size() && IsDigit(s[pos_])) ++pos_;
    if (pos_ + 1 < s.size() && s[pos_] == '.' && IsDigit(s[pos_ + 1])) {
      is_float = true;
      ++pos_;
      while (pos_ < s.size() && IsDigit(s[pos_])) ++pos_;
    }
    if (pos_ < s.size() && (s[pos_] == 'e' || s[pos_] == 'E')) {
      size_t save = pos_;
      ++pos_;
      if (pos_ < s.size() && (s[pos_] == '+' || s[pos_] == '-')) ++pos_;
      if (pos_ < s.size() && IsDigit(s[pos_])) {
        is_float = true;
        while (pos_ < s.size() && IsDigit(s[pos_])) ++pos_;
      } else {
        pos_ = save;  // reported below as a malformed number
      }
    }
  }
  // A number glued to letters (`12ab`, `0x`) is an error, not two tokens.
  if ((pos_ < s.size() && (IsIdentChar(s[pos_]))) || pos_ == digits_begin) {
    while (pos_ < s.size() && IsIdentChar(s[pos_])) ++pos_;
    return Error(begin, pos_, Cat("malformed number '", Excerpt(s.substr(begin, pos_ - begin)), "'"));
  }
  Token t = Make(is_float ? Tok::kFloat : Tok::kInt, begin);
  std::string_view digits = s.substr(digits_begin, pos_ - digits_begin);
  if (is_float) {
    double v = 0;
    auto [end, ec] = std::from_chars(t.text.data(), t.text.data() + t.text.size(), v);
    if (ec != std::errc() || end != t.text.data() + t.text.size()) {
      if (ec == std::errc::result_out_of_range) {
        Token err = Make(Tok::kError, begin);
        sink_.Report(MakeDiagnostic(DiagId::kIrLimit, &file_, LocationOf(err),
                                    {{"detail", Cat("float literal ", Excerpt(t.text),
                                                    " is out of the range of f64")}}));
        return err;
      }
      return Error(begin, pos_, Cat("malformed number '", Excerpt(t.text), "'"));
    }
    t.float_value = v;
    return t;
  }
  uint64_t magnitude = 0;
  auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), magnitude,
                                   hex ? 16 : 10);
  // Hex literals may spell any 64-bit pattern; decimals must fit int64.
  uint64_t limit = hex ? UINT64_MAX : (negative ? (1ull << 63) : (1ull << 63) - 1);
  if (ec != std::errc() || magnitude > limit || (hex && negative && magnitude > (1ull << 63))) {
    Token err = Make(Tok::kError, begin);
    sink_.Report(MakeDiagnostic(
        DiagId::kIrLimit, &file_, LocationOf(err),
        {{"detail", Cat("integer literal ", Excerpt(t.text), " does not fit in 64 bits")}}));
    return err;
  }
  t.int_value = negative ? static_cast<int64_t>(0 - magnitude) : static_cast<int64_t>(magnitude);
  return t;
}

Token Lexer::LexString(size_t begin) {
  std::string_view s = file_.text();
  ++pos_;  // opening quote
  std::string value;
  while (true) {
    if (pos_ >= s.size() || s[pos_] == '\n') {
      return Error(begin, pos_, "unterminated string literal");
    }
    char c = s[pos_];
    if (c == '"') {
      ++pos_;
      break;
    }
    if (c == '\\') {
      if (pos_ + 1 >= s.size()) return Error(begin, pos_ + 1, "unterminated string literal");
      char e = s[pos_ + 1];
      if (e == 'n') {
        value += '\n';
      } else if (e == '"') {
        value += '"';
      } else if (e == '\\') {
        value += '\\';
      } else {
        size_t esc = pos_;
        Token err = Error(esc, esc + 2, Cat("invalid escape sequence '\\", Excerpt(s.substr(esc + 1, 1)),
                                            "' in string literal (use \\n, \\\" or \\\\)"));
        return err;
      }
      pos_ += 2;
      continue;
    }
    value += c;
    ++pos_;
  }
  Token t = Make(Tok::kString, begin);
  t.str = std::move(value);
  return t;
}

Token Lexer::LexShapeBody(size_t offset) {
  pos_ = offset;
  std::string_view s = file_.text();
  while (pos_ < s.size() && (s[pos_] == ' ' || s[pos_] == '\t')) ++pos_;
  size_t begin = pos_;
  while (pos_ < s.size() && (IsIdentStart(s[pos_]) || IsDigit(s[pos_]) || s[pos_] == '?')) ++pos_;
  if (pos_ == begin) return Next();  // e.g. `<>`: let the parser report what it found
  return Make(Tok::kShapeBody, begin);
}

}  // namespace scjit
