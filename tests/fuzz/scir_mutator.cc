// frontend_fuzzer's mutations: half the time libFuzzer's own byte mutations,
// otherwise one edit that keeps the text's lines and tokens whole, so that more
// mutants parse and reach the verifier, the SC rules and the memory plan:
//   - delete, duplicate or swap lines;
//   - repeat a run of 1-4 lines 8 to 512 times (piles of dma_start, long
//     straight-line blocks: the front end must stay linear in them);
//   - replace a number by a boundary value (0, -1, 2^31, 2^40, 2^63 - 1...);
//   - replace a word (an op, a type, a keyword) or a %name by another of the
//     same kind found in the input.
#include <algorithm>
#include <cstdint>
#include <cstring>
#include <iterator>
#include <random>
#include <string>
#include <string_view>
#include <vector>

extern "C" size_t LLVMFuzzerMutate(uint8_t* data, size_t size, size_t max_size);

namespace scjit {
namespace {

using Rng = std::minstd_rand;

size_t Pick(Rng& rng, size_t n) { return std::uniform_int_distribution<size_t>(0, n - 1)(rng); }

// The text split after each '\n' (the last line may have none).
std::vector<std::string_view> Lines(std::string_view text) {
  std::vector<std::string_view> out;
  for (size_t at = 0; at < text.size();) {
    size_t end = text.find('\n', at);
    end = end == std::string_view::npos ? text.size() : end + 1;
    out.push_back(text.substr(at, end - at));
    at = end;
  }
  return out;
}

// Lines [i, i + n) repeated `times` times in place (the copies after the run).
void Repeat(std::vector<std::string_view>& lines, size_t i, size_t n, size_t times) {
  n = std::min(n, lines.size() - i);
  std::vector<std::string_view> run(lines.begin() + i, lines.begin() + i + n);
  for (size_t t = 1; t < times; ++t) lines.insert(lines.begin() + i + n, run.begin(), run.end());
}

std::string EditLines(std::string_view text, Rng& rng, size_t max_size) {
  std::vector<std::string_view> lines = Lines(text);
  if (lines.empty()) return std::string(text);
  size_t i = Pick(rng, lines.size()), j = Pick(rng, lines.size());
  switch (Pick(rng, 4)) {
    case 0: lines.erase(lines.begin() + i); break;
    case 1: lines.insert(lines.begin() + i, lines[j]); break;
    case 2: std::swap(lines[i], lines[j]); break;
    default: {
      // As many copies as fit libFuzzer's size limit, at most 512.
      size_t n = 1 + Pick(rng, 4), bytes = 0;
      for (size_t k = i; k < i + n && k < lines.size(); ++k) bytes += lines[k].size();
      size_t room = max_size > text.size() ? (max_size - text.size()) / std::max<size_t>(bytes, 1) + 1 : 1;
      Repeat(lines, i, n, std::min<size_t>({size_t{8} << (3 * Pick(rng, 3)), room}));
      break;
    }
  }
  std::string out;
  for (std::string_view l : lines) out += l;
  return out;
}

// A token: a run of name characters, with its kind.
enum class Kind { kName, kNumber, kWord };
struct Token {
  size_t at, size;
  Kind kind;
};

bool NameChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' || c == '.';
}

std::vector<Token> Tokens(std::string_view text) {
  std::vector<Token> out;
  for (size_t at = 0; at < text.size();) {
    size_t begin = at;
    if (text[at] == '%' || text[at] == '-') ++at;
    while (at < text.size() && NameChar(text[at])) ++at;
    if (at == begin || (at == begin + 1 && !NameChar(text[begin]))) {
      at = begin + 1;
      continue;
    }
    char first = text[begin] == '-' ? text[begin + 1] : text[begin];
    Kind kind = text[begin] == '%' ? Kind::kName : (first >= '0' && first <= '9') ? Kind::kNumber : Kind::kWord;
    out.push_back({begin, at - begin, kind});
  }
  return out;
}

constexpr std::string_view kBoundaries[] = {
    "0", "1", "-1", "2", "16", "255", "256", "-128", "65535", "2147483647", "2147483648", "-2147483648",
    "4294967296", "1099511627776", "9223372036854775807", "-9223372036854775808", "0x80000000", "1.5", "1e39",
    "nan", "-inf"};

std::string EditToken(std::string_view text, Rng& rng) {
  std::vector<Token> tokens = Tokens(text);
  if (tokens.empty()) return std::string(text);
  const Token& t = tokens[Pick(rng, tokens.size())];
  std::string_view with;
  if (t.kind == Kind::kNumber) {
    with = kBoundaries[Pick(rng, std::size(kBoundaries))];
  } else {
    std::vector<const Token*> same;
    for (const Token& o : tokens) {
      if (o.kind == t.kind) same.push_back(&o);
    }
    const Token* o = same[Pick(rng, same.size())];
    with = text.substr(o->at, o->size);
  }
  return std::string(text.substr(0, t.at)) + std::string(with) + std::string(text.substr(t.at + t.size));
}

}  // namespace
}  // namespace scjit

extern "C" size_t LLVMFuzzerCustomMutator(uint8_t* data, size_t size, size_t max_size, unsigned int seed) {
  scjit::Rng rng(seed);
  if (size == 0 || scjit::Pick(rng, 2) == 0) return LLVMFuzzerMutate(data, size, max_size);
  std::string_view text(reinterpret_cast<const char*>(data), size);
  std::string out = scjit::Pick(rng, 2) == 0 ? scjit::EditLines(text, rng, max_size) : scjit::EditToken(text, rng);
  if (out.empty() || out.size() > max_size) return LLVMFuzzerMutate(data, size, max_size);
  std::memcpy(data, out.data(), out.size());
  return out.size();
}
