// fuzz_seeds SOURCE_DIR OUT_DIR: writes the generated seed corpus of
// frontend_fuzzer and its dictionary (docs/fuzzing.md):
//
//   OUT_DIR/frontend/   every kernel the repository holds: the catalog's failing
//                       and fixed kernels (diagnostics.def), examples/ and tests/ir/
//                       .scir files, the raw-string kernels of tests/*.cc and the
//                       ```scir... blocks of docs/*.md, one file each
//   OUT_DIR/frontend.dict the .scir tokens: op, type, memory space, target and
//                       attribute names from their tables, and the grammar's words
//
// Kernels are named by a hash of their text, so the same kernel written twice is
// one file, and a rerun rewrites the same files.
#include <filesystem>
#include <fstream>
#include <functional>
#include <iostream>
#include <set>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "absl/strings/str_format.h"
#include "lowering/base/diagnostic.h"
#include "lowering/base/dtype.h"
#include "lowering/base/spaces.h"
#include "lowering/base/strings.h"
#include "lowering/base/target.h"
#include "lowering/ir/ir.h"

namespace scjit {
namespace {

namespace fs = std::filesystem;

// The grammar's own words and punctuation (parser.cc), which no table lists.
constexpr std::string_view kGrammarTokens[] = {
    "kernel", "target", "mesh", "vector", "scalar", "cores", "subcores", "scratch", "attributes", "in", "out",
    "inout", "sem", "dma_sem", "dense", "ds", "pl.ds", "pl.dslice", "idx", "ignore", "indirect", "squeezed",
    "block", "map", "grid", "body", "cond", "else", "iter", "to", "step", "stride", "dims", "partition", "core",
    "subcore", "parallel", "arbitrary", "mask", "add", "src_sem", "loc", "true", "false", "inf", "-inf", "nan",
    "->", "...", "?", "%", "@", "x", "0x", "{", "}", "(", ")", "[", "]", "<", ">", ":", "=", ",", ";", "//"};

std::string ReadFile(const fs::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return std::move(text).str();
}

// Writes `text` as OUT/<prefix>-<hash>.scir.
void WriteSeed(const fs::path& dir, std::string_view prefix, std::string_view text) {
  size_t hash = std::hash<std::string_view>{}(text);
  std::ofstream(dir / absl::StrFormat("%s-%016x.scir", std::string(prefix), hash), std::ios::binary) << text;
}

void CatalogSeeds(const fs::path& dir) {
  for (const DiagInfo& info : AllDiagnostics()) {
    if (!info.bad.empty()) WriteSeed(dir, "catalog", info.bad);
    if (!info.good.empty()) WriteSeed(dir, "catalog", info.good);
  }
}

void FileSeeds(const fs::path& root, const fs::path& dir) {
  for (const char* sub : {"examples", "tests/ir"}) {
    for (const auto& entry : fs::recursive_directory_iterator(root / sub)) {
      if (entry.is_regular_file() && entry.path().extension() == ".scir") {
        WriteSeed(dir, "file", ReadFile(entry.path()));
      }
    }
  }
}

// Each C++ raw string R"delim(...)delim" of `code` that holds a kernel.
std::vector<std::string_view> RawStringKernels(std::string_view code) {
  std::vector<std::string_view> out;
  for (size_t at = code.find("R\""); at != std::string_view::npos; at = code.find("R\"", at + 2)) {
    size_t open = code.find('(', at + 2);
    if (open == std::string_view::npos || open - at - 2 > 16) continue;
    std::string close = Cat(")", code.substr(at + 2, open - at - 2), "\"");
    size_t end = code.find(close, open + 1);
    if (end == std::string_view::npos) break;
    std::string_view body = code.substr(open + 1, end - open - 1);
    if (body.find("kernel @") != std::string_view::npos) out.push_back(body);
    at = end;
  }
  return out;
}

// Each block of a Markdown text fenced as ```scir, ```scir-ops, ```scir-error...
std::vector<std::string_view> ScirBlocks(std::string_view doc) {
  std::vector<std::string_view> out;
  constexpr std::string_view kOpen = "```scir";
  for (size_t at = doc.find(kOpen); at != std::string_view::npos; at = doc.find(kOpen, at + 1)) {
    size_t begin = doc.find('\n', at);
    size_t end = begin == std::string_view::npos ? begin : doc.find("```", begin);
    if (end == std::string_view::npos) break;
    out.push_back(doc.substr(begin + 1, end - begin - 1));
    at = end;
  }
  return out;
}

void EmbeddedSeeds(const fs::path& root, const fs::path& dir) {
  for (const auto& entry : fs::directory_iterator(root / "tests")) {
    if (entry.path().extension() != ".cc") continue;
    std::string code = ReadFile(entry.path());
    for (std::string_view kernel : RawStringKernels(code)) WriteSeed(dir, "test", kernel);
  }
  for (const auto& entry : fs::directory_iterator(root / "docs")) {
    if (entry.path().extension() != ".md") continue;
    std::string doc = ReadFile(entry.path());
    for (std::string_view kernel : ScirBlocks(doc)) WriteSeed(dir, "doc", kernel);
  }
}

// A libFuzzer dictionary entry: the token quoted, with '"' and '\' escaped.
std::string DictEntry(std::string_view token) {
  std::string out = "\"";
  for (char c : token) {
    if (c == '"' || c == '\\') out += '\\';
    out += c;
  }
  return out + "\"";
}

void WriteDictionary(const fs::path& path) {
  std::set<std::string> tokens(std::begin(kGrammarTokens), std::end(kGrammarTokens));
  for (size_t k = 0; k < NumOpKinds(); ++k) tokens.emplace(Info(static_cast<OpKind>(k)).name);
  for (ElementType t : AllElementTypes()) tokens.emplace(IrName(t));
  for (int s = 0; s <= static_cast<int>(MemorySpace::kHost); ++s) {
    tokens.emplace(MemorySpaceName(static_cast<MemorySpace>(s)));
  }
  for (const AttrInfo& attr : AllAttrs()) tokens.emplace(attr.name);
  for (const TargetInfo& target : Targets()) tokens.emplace(Cat("\"", target.name, "\""));
  std::ofstream out(path);
  for (const std::string& token : tokens) out << DictEntry(token) << "\n";
}

}  // namespace
}  // namespace scjit

int main(int argc, char** argv) {
  if (argc != 3) {
    std::cerr << "usage: fuzz_seeds SOURCE_DIR OUT_DIR\n";
    return 2;
  }
  namespace fs = std::filesystem;
  fs::path root = argv[1];
  fs::path out = argv[2];
  fs::path frontend = out / "frontend";
  fs::create_directories(frontend);
  scjit::CatalogSeeds(frontend);
  scjit::FileSeeds(root, frontend);
  scjit::EmbeddedSeeds(root, frontend);
  scjit::WriteDictionary(out / "frontend.dict");
  return 0;
}
