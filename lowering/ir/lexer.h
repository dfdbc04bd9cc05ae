// The .scir lexer (kernel-ir.md §1): turns source bytes into tokens on demand.
#ifndef SCJIT_LOWERING_IR_LEXER_H_
#define SCJIT_LOWERING_IR_LEXER_H_

#include <cstdint>
#include <string>
#include <string_view>

#include "lowering/base/diagnostic.h"
#include "lowering/base/source.h"

namespace scjit {

enum class Tok : uint8_t {
  kEof,
  kError,      // a malformed token; the lexer has reported it
  kValueName,  // %name
  kSymbol,     // @name
  kIdent,      // keywords, op names, element types, `true`, `inf`...
  kInt,
  kFloat,
  kString,
  kShapeBody,  // `16x128xi32` inside a type's angle brackets (see LexShapeBody)
  kLParen, kRParen, kLBracket, kRBracket, kLBrace, kRBrace,
  kLess, kGreater, kComma, kColon, kEqual, kArrow, kQuestion, kSemicolon,
  kEllipsis,   // `...` in an indexer: the whole ref, or the dimensions not named
};

struct Token {
  Tok kind = Tok::kEof;
  std::string_view text;  // the token's bytes in the source
  size_t offset = 0;      // byte offset of text
  int64_t int_value = 0;  // kInt
  double float_value = 0; // kFloat
  std::string str;        // kString: the decoded contents; kValueName/kSymbol: the name
};

// How a token reads in "expected X, found Y" messages: `'foo'`, `%x`, `3`,
// `end of file`.
std::string Describe(const Token& t);

// Lexes one file. Errors are reported to the sink as IR-LEX / IR-LIMIT and yield
// a kError token. Not thread-safe; one lexer per parse.
class Lexer {
 public:
  Lexer(const SourceFile& file, DiagnosticSink& sink) : file_(file), sink_(sink) {}

  Token Next();

  // Lexes the inside of a type's angle brackets starting at `offset` (just after
  // the `<`): a run of letters, digits, `_` and `?` such as `16x128xi32`, `?xi32`,
  // `i32` or `2x4`, as one kShapeBody token. Shapes cannot be lexed as ordinary
  // tokens because `16x128xi32` would read as the integer 16 then a name.
  Token LexShapeBody(size_t offset);

  Location LocationOf(const Token& t) const {
    return file_.LocationOf(t.offset, t.text.empty() ? 1 : t.text.size());
  }

 private:
  Token Make(Tok kind, size_t begin) const;
  Token Error(size_t begin, size_t end, std::string detail);
  Token LexNumber(size_t begin);
  Token LexString(size_t begin);
  Token LexName(Tok kind, size_t begin);
  void SkipTrivia();

  const SourceFile& file_;
  DiagnosticSink& sink_;
  size_t pos_ = 0;
};

}  // namespace scjit

#endif  // SCJIT_LOWERING_IR_LEXER_H_
