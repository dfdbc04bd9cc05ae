#include "lowering/ir/parser.h"

#include <algorithm>
#include <cctype>
#include <cmath>
#include <deque>
#include <limits>
#include <string>
#include <utility>
#include <vector>

#include "absl/container/flat_hash_map.h"
#include "lowering/ir/lexer.h"
#include "lowering/base/strings.h"

namespace scjit {
namespace {

// Edit distance between two short strings.
size_t EditDistance(std::string_view a, std::string_view b) {
  std::vector<size_t> row(b.size() + 1);
  for (size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (size_t i = 1; i <= a.size(); ++i) {
    size_t diagonal = row[0];
    row[0] = i;
    for (size_t j = 1; j <= b.size(); ++j) {
      size_t above = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diagonal + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diagonal = above;
    }
  }
  return row[b.size()];
}

// The op name closest to a misspelled one, if it is close enough to suggest.
std::string_view NearestOpName(std::string_view name) {
  if (name.size() > 64) return {};
  std::string_view best;
  size_t best_distance = 3;  // suggest only names within two edits
  for (size_t k = 0; k < NumOpKinds(); ++k) {
    std::string_view candidate = Info(static_cast<OpKind>(k)).name;
    size_t d = EditDistance(name, candidate);
    if (d < best_distance) {
      best = candidate;
      best_distance = d;
    }
  }
  return best;
}

// The result type `op` has by its operands alone, for the help of a missing
// `: type` ("" when it depends on more than the first operand's type).
std::string ImpliedResultType(const Op& op) {
  if (op.operands.empty() || !op.operands[0].is_value() || op.operands[0].indexed ||
      op.operands[0].value == nullptr) {
    return "";
  }
  const Type& t = op.operands[0].value->type;
  if (!t.is_value()) return "";
  switch (op.info().family) {
    case OpFamily::kElementwise:
      if (op.kind == OpKind::kCmp) return t.WithElement(ElementType::kI1).ToString();
      if (op.kind == OpKind::kConvert || op.kind == OpKind::kBitcast || op.kind == OpKind::kSelect) return "";
      return t.ToString();
    case OpFamily::kReduction:
      return Type::Scalar(t.element()).ToString();
    case OpFamily::kScan:
      return op.info().max_results == 1 ? t.ToString() : "";
    default:
      return "";
  }
}

// The op whose Pallas spelling (op_docs.def) names `written`, the last part of
// a dotted name (`pltpu.sync_copy` -> copy, `jnp.where` -> select, `fori_loop`
// -> for), with its .scir example; {} when none does.
struct PallasMatch {
  std::string_view op, example;
};
std::optional<PallasMatch> OpForPallasName(std::string_view written) {
  std::string_view base = written.substr(written.rfind('.') + 1);
  if (base.size() < 3) return std::nullopt;
  auto ident = [](char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; };
  std::optional<PallasMatch> found;
  auto consider = [&](OpKind kind, std::string_view example, std::string_view pallas) {
    for (size_t at = pallas.find(base); !found && at != std::string_view::npos; at = pallas.find(base, at + 1)) {
      size_t end = at + base.size();
      if ((at == 0 || !ident(pallas[at - 1])) && (end == pallas.size() || !ident(pallas[end]))) {
        found = PallasMatch{Info(kind).name, example};
      }
    }
  };
#define SCJIT_OP_DOC(Enum, example, pallas, ...) consider(OpKind::Enum, example, pallas);
#include "lowering/ir/op_docs.def"
  return found;
}

class Parser {
 public:
  Parser(std::shared_ptr<const SourceFile> file, DiagnosticSink& sink)
      : file_(std::move(file)), sink_(sink), lexer_(*file_, sink) {}

  std::unique_ptr<Module> ParseModule();

 private:
  // --- Tokens --------------------------------------------------------------------
  const Token& Peek(size_t n);
  void Advance();
  bool At(Tok k) const { return tok_.kind == k; }
  bool AtIdent(std::string_view word) const { return tok_.kind == Tok::kIdent && tok_.text == word; }
  bool AtItemStart() const;
  int LineOf(size_t offset) const { return file_->LocationOf(offset, 1).line; }
  // True when the current token starts a line after the previous token's.
  bool OnNewLine() const { return tok_.kind != Tok::kEof && LineOf(tok_.offset) > LineOf(prev_end_ - (prev_end_ > 0)); }
  Location Loc(const Token& t) const { return lexer_.LocationOf(t); }
  // From `begin` (a byte offset) to the end of the last consumed token.
  Location Span(size_t begin) const {
    return file_->LocationOf(begin, prev_end_ > begin ? prev_end_ - begin : 1);
  }

  // --- Errors --------------------------------------------------------------------
  // Reports IR-SYNTAX "expected <what>, found <current token>" (with `help` when
  // given) and stops parsing. Where the construct being parsed ended early at a
  // line break (see LineEndedEarly) the error is placed at that line's end.
  bool SyntaxError(std::string_view what, std::string_view help = {});
  // True when the current token starts a new line although the construct being
  // parsed (an op after its name, the kernel's parameter list) was not finished,
  // and the previous line did not end in a token that asks for more (`,`, `->`,
  // an open bracket...): the user ended it there, so that is where it is wrong.
  bool LineEndedEarly() const;
  bool Expect(Tok k, std::string_view what);
  bool ExpectIdent(std::string_view word);
  void Report(DiagId id, Location loc, std::initializer_list<DiagArg> args) {
    sink_.Report(MakeDiagnostic(id, file_.get(), loc, args));
  }
  bool Fail(DiagId id, Location loc, std::initializer_list<DiagArg> args) {
    Report(id, loc, args);
    failed_ = true;
    return false;
  }

  // --- Names ---------------------------------------------------------------------
  Value* Lookup(const std::string& name) const;
  Value* Resolve(const Token& t);
  void Define(Value* v);
  // Creates a value of the kernel (part) being parsed; names_ indexes it.
  Value* NewValue(std::string name, Type type, Location loc, Value::Kind kind);
  Value* NewValue(const Token& name_tok, Type type, Value::Kind kind) {
    return NewValue(name_tok.str, std::move(type), Loc(name_tok), kind);
  }
  // The first value of the kernel (part) being parsed named `name`, visible
  // here or not; null if there is none.
  const Value* FirstNamed(const std::string& name) const;
  // Starts parsing the values of `k` (a kernel, or a further part).
  void BeginKernel(KernelDef* k) {
    kernel_ = k;
    names_.clear();
  }
  struct ScopeGuard {
    explicit ScopeGuard(Parser* p) : p(p) { p->scopes_.emplace_back(); }
    ~ScopeGuard() { p->scopes_.pop_back(); }
    Parser* p;
  };

  // --- Grammar -------------------------------------------------------------------
  bool ParseTarget();
  bool ParseJax();
  bool ParseKernel();
  bool ParseMesh(KernelDef& k);
  bool ParseDevices(KernelDef& k);
  bool ParsePart(KernelDef& k);
  bool ParseFurtherPart(KernelDef& k);
  bool ParseNamedRefList(std::vector<Value*>* out, Value::Kind kind);
  bool ParseType(Type* out, Location* loc = nullptr);
  bool ParseShapeBody(const Token& kw, Type* out);
  bool ParseTypeList(std::vector<Type>* out);
  bool ParseRegion(Region* region);
  bool ParseOp(Region* region);
  bool ParseGeneric(Op* op, std::vector<Type>* types, bool has_results);
  bool ParseConst(Op* op, std::vector<Type>* types);
  bool ParseDma(Op* op);
  bool ParsePrint(Op* op);
  bool ParseCheck(Op* op);
  bool ParseFor(Op* op, std::vector<Type>* types);
  bool ParseIf(Op* op, std::vector<Type>* types);
  bool ParseWhile(Op* op, std::vector<Type>* types);
  bool ParsePipeline(Op* op);
  bool ParsePipelineOperand(Op* op, bool is_output);
  bool ParseMapEntry(IndexEntry* e);
  bool ParseIterArgs(std::vector<Token>* names, std::vector<Operand>* inits);
  bool ParseCarriedRegion(Op* op, const std::vector<Token>& carries,
                          const std::vector<Type>& types, const Token* iv);
  bool ParseItems(std::vector<Operand>* out, Op* op, bool optional);
  bool ParseItem(Operand* o, bool allow_index);
  bool ParseLiteral(Operand* o);
  bool ParseIndexer(Operand* o);
  bool ParseIndexEntry(IndexEntry* e);
  bool ParseIndirect(IndexEntry* e);
  bool ParseDenseList(std::vector<Operand>* out, int depth);
  bool IsAttrDictAhead();
  bool ParseAttrDict(std::vector<Attribute>* out);
  bool ParseAttrValue(AttrValue* v, int depth);
  bool ExpectOpEnd(const Op& op, bool more_items, bool needs_types);
  // `loc("file.py":12:5)` after an op, on its line.
  bool AtLocSuffix() { return AtIdent("loc") && !OnNewLine() && Peek(1).kind == Tok::kLParen; }
  bool ParseLocSuffix(Op& op);
  void SplatLiterals(Op& op, const std::vector<Type>& types, Region* region);
  bool EnterNesting(Location loc);
  // Parses `item (',' item)* close`, the opening token already consumed; `item`
  // parses one element and returns false after reporting an error.
  template <typename Item>
  bool ParseListUntil(Tok close, Item&& item);
  bool NestingTooDeep(Location loc);

  std::shared_ptr<const SourceFile> file_;
  DiagnosticSink& sink_;
  Lexer lexer_;
  Token tok_;
  std::deque<Token> ahead_;
  size_t prev_end_ = 0;  // end offset of the last consumed token
  Tok prev_kind_ = Tok::kEof;  // ... and its kind
  bool continuing_ = false;  // inside an op after its name, or the parameter list
  bool failed_ = false;
  int depth_ = 0;

  Module* module_ = nullptr;
  KernelDef* kernel_ = nullptr;
  std::vector<absl::flat_hash_map<std::string, Value*>> scopes_;
  // Every value of kernel_ by name, the first one of each name (a kernel may
  // reuse a name in sibling regions): what FirstNamed looks up.
  absl::flat_hash_map<std::string, const Value*> names_;
  std::vector<Region*> regions_;  // the regions being parsed, innermost last
  absl::flat_hash_map<std::string, Location> kernel_names_;
};

// ------------------------------------------------------------------------------------
// Tokens and errors.

const Token& Parser::Peek(size_t n) {
  if (n == 0) return tok_;
  while (ahead_.size() < n) ahead_.push_back(lexer_.Next());
  return ahead_[n - 1];
}

void Parser::Advance() {
  if (tok_.kind != Tok::kEof) {
    prev_end_ = tok_.offset + tok_.text.size();
    prev_kind_ = tok_.kind;
  }
  if (!ahead_.empty()) {
    tok_ = std::move(ahead_.front());
    ahead_.pop_front();
  } else {
    tok_ = lexer_.Next();
  }
}

bool Parser::AtItemStart() const {
  switch (tok_.kind) {
    case Tok::kValueName:
    case Tok::kInt:
    case Tok::kFloat:
      return true;
    case Tok::kIdent:
      return tok_.text == "true" || tok_.text == "false" || tok_.text == "inf" ||
             tok_.text == "nan";
    default:
      return false;
  }
}

bool Parser::LineEndedEarly() const {
  if (!continuing_ || !OnNewLine()) return false;
  switch (prev_kind_) {
    case Tok::kComma: case Tok::kArrow: case Tok::kEqual: case Tok::kColon: case Tok::kLParen:
    case Tok::kLBracket: case Tok::kLBrace: case Tok::kLess:
      return false;
    default:
      return true;
  }
}

bool Parser::SyntaxError(std::string_view what, std::string_view help) {
  // A lexer error was already reported for the current token.
  if (tok_.kind != Tok::kError) {
    bool line_ended = LineEndedEarly();
    Location loc = line_ended ? file_->LocationOf(prev_end_, 1) : Loc(tok_);
    Diagnostic& d = sink_.Report(MakeDiagnostic(
        DiagId::kIrSyntax, file_.get(), loc,
        {{"expected", std::string(what)}, {"found", line_ended ? std::string("the end of the line") : Describe(tok_)}}));
    if (!help.empty()) d.help = std::string(help);
  }
  failed_ = true;
  return false;
}

bool Parser::Expect(Tok k, std::string_view what) {
  if (!At(k)) return SyntaxError(what);
  Advance();
  return true;
}

bool Parser::ExpectIdent(std::string_view word) {
  if (!AtIdent(word)) return SyntaxError(Cat("'", word, "'"));
  Advance();
  return true;
}

bool Parser::EnterNesting(Location loc) {
  if (depth_ >= kMaxNesting) return NestingTooDeep(loc);
  return true;
}

bool Parser::NestingTooDeep(Location loc) {
  return Fail(DiagId::kIrLimit, loc, {{"detail", Cat("nesting deeper than ", kMaxNesting, " levels")}});
}

template <typename Item>
bool Parser::ParseListUntil(Tok close, Item&& item) {
  std::string_view close_text = close == Tok::kRParen ? "')'" : close == Tok::kRBracket ? "']'" : "'}'";
  while (!At(close)) {
    if (!item()) return false;
    if (At(Tok::kComma)) {
      Advance();
    } else if (!At(close)) {
      return SyntaxError(Cat("',' or ", close_text));
    }
  }
  Advance();
  return true;
}

// ------------------------------------------------------------------------------------
// Names.

Value* Parser::Lookup(const std::string& name) const {
  for (auto it = scopes_.rbegin(); it != scopes_.rend(); ++it) {
    auto found = it->find(name);
    if (found != it->end()) return found->second;
  }
  return nullptr;
}

Value* Parser::Resolve(const Token& t) {
  Value* v = Lookup(t.str);
  if (v != nullptr) return v;
  Diagnostic& d = sink_.Report(MakeDiagnostic(DiagId::kIrUndefined, file_.get(), Loc(t), {{"name", Cat("%", t.str)}}));
  // Pallas' `ref.at[...]` reads as the name `%ref.at`.
  if (std::string_view n = t.str; n.size() > 3 && n.substr(n.size() - 3) == ".at" &&
                                  Lookup(std::string(n.substr(0, n.size() - 3))) != nullptr) {
    std::string ref(n.substr(0, n.size() - 3));
    d.help = Cat("Pallas' ", ref, ".at[...] is a view in .scir: `%row = view %", ref,
                 "[...] : <type>`, or index the operand in place: `copy %", ref, "[%i] -> %buf`");
    return nullptr;
  }
  // A definition in a region that has ended explains most of these.
  if (const Value* other = FirstNamed(t.str)) {
    d.notes.push_back(Cat("%", t.str, " is defined at ", file_->name(), ":", other->loc.line, ":",
                          other->loc.col, ", inside a region that has ended before this use"));
    d.help = "pass the value out of the region with 'yield' and use the op's result";
  }
  return nullptr;
}

Value* Parser::NewValue(std::string name, Type type, Location loc, Value::Kind kind) {
  Value* v = kernel_->NewValue(std::move(name), std::move(type), loc, kind);
  names_.try_emplace(v->name, v);
  return v;
}

const Value* Parser::FirstNamed(const std::string& name) const {
  auto it = names_.find(name);
  return it == names_.end() ? nullptr : it->second;
}

void Parser::Define(Value* v) {
  if (Value* previous = Lookup(v->name)) {
    Diagnostic& d =
        sink_.Report(MakeDiagnostic(DiagId::kIrRedefined, file_.get(), v->loc, {{"name", Cat("%", v->name)}}));
    d.notes.push_back(Cat("%", v->name, " is first defined at ", file_->name(), ":",
                          previous->loc.line, ":", previous->loc.col));
    return;
  }
  scopes_.back()[v->name] = v;
}

// ------------------------------------------------------------------------------------
// Module and kernel headers.

std::unique_ptr<Module> Parser::ParseModule() {
  auto module = std::make_unique<Module>();
  module->source = file_;
  module_ = module.get();
  if (file_->text().size() > kMaxSourceBytes) {
    Report(DiagId::kIrLimit, Location{},
           {{"detail", Cat("the file holds more than ", kMaxSourceBytes, " bytes, the limit")}});
    module->complete = false;
    return module;
  }
  Advance();
  while (!failed_ && !At(Tok::kEof)) {
    if (At(Tok::kError)) {
      failed_ = true;
      break;
    }
    if (AtIdent("target")) {
      if (!ParseTarget()) break;
    } else if (AtIdent("jax")) {
      if (!ParseJax()) break;
    } else if (AtIdent("kernel")) {
      if (!ParseKernel()) break;
    } else {
      SyntaxError("'kernel', 'target' or 'jax'");
    }
  }
  module->complete = !failed_;
  return module;
}

bool Parser::ParseTarget() {
  Location kw = Loc(tok_);
  Advance();
  if (!At(Tok::kString)) return SyntaxError("a target name string such as \"v7x\"");
  Location loc = Loc(tok_);
  if (module_->target.has_value() || !module_->kernels.empty()) {
    Report(DiagId::kIrKernel, kw,
           {{"detail", module_->target.has_value()
                           ? "the target is given twice"
                           : "'target' must come before the first kernel"}});
  } else if (auto id = TargetFromName(tok_.str)) {
    module_->target = *id;
    module_->target_loc = loc;
  } else {
    Report(DiagId::kIrTarget, loc, {{"name", tok_.str}, {"targets", TargetNameList()}});
  }
  Advance();
  return true;
}

bool Parser::ParseJax() {
  Location kw = Loc(tok_);
  Advance();
  if (!At(Tok::kString)) return SyntaxError("a JAX release string such as \"0.12.1\"");
  Location loc = Loc(tok_);
  absl::StatusOr<JaxRelease> release = ParseJaxRelease(tok_.str);
  if (module_->jax.has_value() || !module_->kernels.empty()) {
    Report(DiagId::kIrKernel, kw,
           {{"detail", module_->jax.has_value() ? "the JAX release is given twice"
                                                : "'jax' must come before the first kernel"}});
  } else if (tok_.str.empty() || !release.ok()) {
    Report(DiagId::kIrKernel, loc,
           {{"detail", Cat("'", tok_.str, "' is not a JAX release scjit answers for (", kOldestJax.ToString(), " to ",
                           kNewestJax.ToString(), ")")}});
  } else {
    module_->jax = *release;
    module_->jax_loc = loc;
  }
  Advance();
  return true;
}

bool Parser::ParseKernel() {
  Advance();  // 'kernel'
  if (!At(Tok::kSymbol)) return SyntaxError("a kernel name such as @my_kernel");
  auto kernel = std::make_unique<KernelDef>();
  kernel->name = tok_.str;
  kernel->loc = Loc(tok_);
  if (auto it = kernel_names_.find(kernel->name); it != kernel_names_.end()) {
    Diagnostic& d = sink_.Report(MakeDiagnostic(
        DiagId::kIrKernel, file_.get(), kernel->loc,
        {{"detail", Cat("kernel @", kernel->name, " is defined twice")}}));
    d.notes.push_back(Cat("@", kernel->name, " is first defined at ", file_->name(), ":",
                          it->second.line, ":", it->second.col));
  } else {
    kernel_names_[kernel->name] = kernel->loc;
  }
  BeginKernel(kernel.get());
  module_->kernels.push_back(std::move(kernel));
  KernelDef& k = *kernel_;
  Advance();

  scopes_.clear();
  ScopeGuard kernel_scope(this);
  if (!Expect(Tok::kLParen, "'(' and the kernel's parameters")) return false;
  continuing_ = true;
  bool params_ok = ParseListUntil(Tok::kRParen, [&] {
    Param p;
    if (AtIdent("in")) {
      p.direction = ParamDirection::kIn;
    } else if (AtIdent("out")) {
      p.direction = ParamDirection::kOut;
    } else if (AtIdent("inout")) {
      p.direction = ParamDirection::kInOut;
    } else {
      return SyntaxError(k.params.empty() ? "'in', 'out', 'inout' or ')'" : "'in', 'out' or 'inout'");
    }
    Advance();
    if (!At(Tok::kValueName)) return SyntaxError("a parameter name such as %x");
    Token name = tok_;
    Advance();
    Type type;
    if (!Expect(Tok::kColon, "':' and the parameter's type") || !ParseType(&type)) return false;
    p.value = NewValue(name, type, Value::Kind::kParam);
    p.value->index = static_cast<int>(k.params.size());
    Define(p.value);
    k.params.push_back(p);
    return true;
  });
  continuing_ = false;
  if (!params_ok) return false;

  if (!ParsePart(k)) return false;
  while (AtIdent("mesh")) {
    if (!ParseFurtherPart(k)) return false;
  }
  kernel_ = &k;
  return true;
}

// A further part of kernel `k`: `mesh ... ⟨scratch(...)⟩ { body }`, in a scope of
// its own holding its own values of the kernel's parameters.
bool Parser::ParseFurtherPart(KernelDef& k) {
  auto part = std::make_unique<KernelDef>();
  part->name = k.name;
  part->loc = Loc(tok_);
  part->first = &k;
  part->part = static_cast<int>(k.more_parts.size()) + 1;
  BeginKernel(part.get());
  k.more_parts.push_back(std::move(part));
  // The first part's scope (its parameters and scratch) is not this part's.
  std::vector<absl::flat_hash_map<std::string, Value*>> outer = std::exchange(scopes_, {});
  bool ok = false;
  {
    ScopeGuard part_scope(this);
    for (const Param& p : k.params) {
      Param copy = p;
      copy.value = NewValue(p.value->name, p.value->type, p.value->loc, Value::Kind::kParam);
      copy.value->index = p.value->index;
      Define(copy.value);
      kernel_->params.push_back(copy);
    }
    ok = ParsePart(*kernel_);
  }
  scopes_ = std::move(outer);
  return ok;
}

// The clauses and body of one part of a kernel (the first part also takes
// `attributes`).
bool Parser::ParsePart(KernelDef& k) {
  bool seen_scratch = false, seen_attrs = false;
  while (!At(Tok::kLBrace)) {
    Location clause = Loc(tok_);
    auto duplicate = [&](std::string_view what) {
      Report(DiagId::kIrKernel, clause, {{"detail", Cat("duplicate '", what, "' clause")}});
    };
    if (AtIdent("mesh")) {
      if (k.mesh.written) duplicate("mesh");
      if (!ParseMesh(k)) return false;
    } else if (AtIdent("scratch")) {
      if (seen_scratch) duplicate("scratch");
      seen_scratch = true;
      Advance();
      if (!ParseNamedRefList(&k.scratch, Value::Kind::kScratch)) return false;
    } else if (AtIdent("devices") && k.first == nullptr) {
      if (k.devices_loc.valid()) duplicate("devices");
      if (!ParseDevices(k)) return false;
    } else if (AtIdent("attributes") && k.first == nullptr) {
      if (seen_attrs) duplicate("attributes");
      seen_attrs = true;
      k.attributes_loc = clause;
      Advance();
      if (!At(Tok::kLBrace)) return SyntaxError("'{' and the kernel's attributes");
      if (!ParseAttrDict(&k.attributes)) return false;
    } else {
      return SyntaxError(k.first == nullptr ? "'mesh', 'devices', 'scratch', 'attributes' or '{'" : "'scratch' or '{'");
    }
  }
  return ParseRegion(&k.body);
}

bool Parser::ParseMesh(KernelDef& k) {
  Mesh& mesh = k.mesh;
  mesh.written = true;
  mesh.loc = Loc(tok_);
  Advance();  // 'mesh'
  if (AtIdent(MeshKindName(MeshKind::kVector))) {
    mesh.kind = MeshKind::kVector;
  } else if (AtIdent(MeshKindName(MeshKind::kScalar))) {
    mesh.kind = MeshKind::kScalar;
  } else {
    return SyntaxError("'vector' or 'scalar'");
  }
  Advance();
  if (!At(Tok::kLParen)) return true;
  Advance();
  if (!ParseListUntil(Tok::kRParen, [&] {
      Token key = tok_;
      bool is_cores = AtIdent("cores");
      bool is_subcores = AtIdent("subcores");
      if (!is_cores && !is_subcores) {
        return SyntaxError(mesh.kind == MeshKind::kVector ? "'cores' or 'subcores'" : "'cores'");
      }
      Advance();
      if (!Expect(Tok::kEqual, "'='")) return false;
      if (!At(Tok::kInt)) return SyntaxError("an integer");
      Location value_loc = Loc(tok_);
      int64_t value = tok_.int_value;
      Advance();
      if (is_subcores && mesh.kind == MeshKind::kScalar) {
        Report(DiagId::kIrKernel, Loc(key),
               {{"detail", "a scalar mesh has one scalar subcore per core; it takes no 'subcores'"}});
      } else if ((is_cores ? mesh.cores : mesh.subcores).has_value()) {
        Report(DiagId::kIrKernel, Loc(key), {{"detail", Cat("'", key.text, "' is given twice")}});
      } else if (is_cores) {
        mesh.cores = value;
        mesh.cores_loc = value_loc;
      } else {
        mesh.subcores = value;
        mesh.subcores_loc = value_loc;
      }
      return true;
    })) {
    return false;
  }
  return true;
}

// `devices(y = 2, x = 4)`: the kernel's device mesh, major axis first. Names
// and sizes are checked by the verifier.
bool Parser::ParseDevices(KernelDef& k) {
  k.devices_loc = Loc(tok_);
  Advance();  // 'devices'
  if (!Expect(Tok::kLParen, "'('")) return false;
  return ParseListUntil(Tok::kRParen, [&] {
    if (!At(Tok::kIdent)) return SyntaxError("a device axis name such as x");
    DeviceAxis axis;
    axis.name = std::string(tok_.text);
    axis.loc = Loc(tok_);
    Advance();
    if (!Expect(Tok::kEqual, "'='")) return false;
    if (!At(Tok::kInt)) return SyntaxError("an integer");
    axis.size = tok_.int_value;
    Advance();
    k.devices.push_back(std::move(axis));
    return true;
  });
}

// `(%a: type, %b: type)` defining values of `kind` in the current scope.
bool Parser::ParseNamedRefList(std::vector<Value*>* out, Value::Kind kind) {
  if (!Expect(Tok::kLParen, "'('")) return false;
  if (!ParseListUntil(Tok::kRParen, [&] {
      if (!At(Tok::kValueName)) return SyntaxError(out->empty() ? "a name such as %buf or ')'" : "a name such as %buf");
      Token name = tok_;
      Advance();
      Type type;
      if (!Expect(Tok::kColon, "':' and a type") || !ParseType(&type)) return false;
      Value* v = NewValue(name, type, kind);
      v->index = static_cast<int>(out->size());
      // `%s: sem @scalar`: another part's semaphore (checked by the verifier).
      if (kind == Value::Kind::kScratch && At(Tok::kSymbol)) {
        std::string_view mesh = std::string_view(tok_.text).substr(std::min<size_t>(1, tok_.text.size()));
        if (mesh != MeshKindName(MeshKind::kScalar) && mesh != MeshKindName(MeshKind::kVector)) {
          return SyntaxError("'@scalar' or '@vector'");
        }
        v->other_mesh = mesh == MeshKindName(MeshKind::kScalar) ? MeshKind::kScalar : MeshKind::kVector;
        v->other_loc = Loc(tok_);
        Advance();
      }
      Define(v);
      out->push_back(v);
      return true;
    })) {
    return false;
  }
  return true;
}

// ------------------------------------------------------------------------------------
// Types.

bool Parser::ParseType(Type* out, Location* loc) {
  if (!At(Tok::kIdent)) return SyntaxError("a type");
  Token kw = tok_;
  size_t begin = tok_.offset;
  if (auto e = ElementTypeFromIrName(kw.text)) {
    Advance();
    *out = Type::Scalar(*e);
    if (loc != nullptr) *loc = Span(begin);
    return true;
  }
  bool is_sem = kw.text == "dma_sem" || kw.text == "sem";
  if (kw.text != "vector" && !is_sem && !SpaceFromName(kw.text).has_value()) {
    return SyntaxError("a type");
  }
  Advance();
  if (!At(Tok::kLess)) {
    if (!is_sem) return SyntaxError(Cat("'<' after '", kw.text, "'"));
    *out = Type::Semaphore(kw.text == "sem" ? SemaphoreKind::kRegular : SemaphoreKind::kDma, {});
    if (loc != nullptr) *loc = Span(begin);
    return true;
  }
  // Shapes are lexed from just after '<' in a mode of their own.
  ahead_.clear();
  prev_end_ = tok_.offset + 1;
  tok_ = lexer_.LexShapeBody(tok_.offset + 1);
  if (!At(Tok::kShapeBody)) {
    return SyntaxError(is_sem ? "a shape such as 2x4" : "a shape such as 16x128xi32");
  }
  if (!ParseShapeBody(kw, out)) return false;
  Advance();
  if (!Expect(Tok::kGreater, "'>'")) return false;
  if (loc != nullptr) *loc = Span(begin);
  return true;
}

bool Parser::ParseShapeBody(const Token& kw, Type* out) {
  std::string_view body = tok_.text;
  bool is_sem = kw.text == "dma_sem" || kw.text == "sem";
  std::vector<std::string_view> parts;
  size_t pos = 0;
  while (true) {
    size_t x = body.find('x', pos);
    parts.push_back(body.substr(pos, x == std::string_view::npos ? std::string_view::npos : x - pos));
    if (x == std::string_view::npos) break;
    pos = x + 1;
  }
  auto malformed = [&](std::string_view why) {
    return Fail(DiagId::kIrSyntax, Loc(tok_),
                {{"expected", Cat("a shape such as ", is_sem ? "2x4" : "16x128xi32", " (", why, ")")},
                 {"found", Cat("'", body, "'")}});
  };
  std::optional<ElementType> element;
  if (!is_sem) {
    element = ElementTypeFromIrName(parts.back());
    if (!element) return malformed("it must end with an element type");
    parts.pop_back();
  }
  Shape shape;
  int64_t elements = 1;
  for (std::string_view part : parts) {
    if (part == "?") {
      if (kw.text == "vector" || is_sem) return malformed("only ref dimensions may be '?'");
      shape.push_back(kDynamic);
      continue;
    }
    int64_t d = 0;
    auto [end, ec] = std::from_chars(part.data(), part.data() + part.size(), d);
    if (part.empty() || end != part.data() + part.size()) return malformed("dimensions are integers");
    if (ec != std::errc() || d > kMaxElements) {
      return Fail(DiagId::kIrLimit, Loc(tok_),
                  {{"detail", Cat("dimension ", part, " is larger than 2^40")}});
    }
    if (d == 0) return malformed("dimensions are positive");
    shape.push_back(d);
    if (elements > kMaxElements / d) {
      return Fail(DiagId::kIrLimit, Loc(tok_),
                  {{"detail", Cat("type ", kw.text, "<", body, "> has more than 2^40 elements")}});
    }
    elements *= d;
  }
  if (kw.text == "vector") {
    if (shape.empty()) return malformed("a vector has at least one dimension");
    *out = Type::Vector(*element, std::move(shape));
  } else if (is_sem) {
    *out = Type::Semaphore(kw.text == "sem" ? SemaphoreKind::kRegular : SemaphoreKind::kDma,
                           std::move(shape));
  } else {
    *out = Type::Ref(*SpaceFromName(kw.text), *element, std::move(shape));
  }
  return true;
}

bool Parser::ParseTypeList(std::vector<Type>* out) {
  while (true) {
    Type t;
    if (!ParseType(&t)) return false;
    out->push_back(std::move(t));
    if (!At(Tok::kComma)) return true;
    Advance();
  }
}

// ------------------------------------------------------------------------------------
// Regions and ops.

bool Parser::ParseRegion(Region* region) {
  region->loc = Loc(tok_);
  if (!Expect(Tok::kLBrace, "'{'")) return false;
  if (!EnterNesting(region->loc)) return false;
  ++depth_;
  regions_.push_back(region);
  bool enclosing_continuing = continuing_;  // the op that owns the region goes on after it
  continuing_ = false;
  ScopeGuard scope(this);
  // Region arguments were created by the caller; they live in this scope.
  for (Value* arg : region->args) Define(arg);
  bool ok = true;
  while (ok && !At(Tok::kRBrace)) {
    if (At(Tok::kSemicolon)) {
      Advance();
      continue;
    }
    if (At(Tok::kEof)) {
      ok = SyntaxError("'}' to close the region opened at line " + std::to_string(region->loc.line));
      break;
    }
    ok = ParseOp(region);
  }
  regions_.pop_back();
  --depth_;
  continuing_ = enclosing_continuing;
  if (!ok) return false;
  region->end_loc = Loc(tok_);
  Advance();  // '}'
  return true;
}

bool Parser::ParseOp(Region* region) {
  std::vector<Token> names;
  if (At(Tok::kValueName)) {
    while (true) {
      names.push_back(tok_);
      Advance();
      if (At(Tok::kComma)) {
        Advance();
        if (!At(Tok::kValueName)) return SyntaxError("a result name such as %r");
        continue;
      }
      if (!Expect(Tok::kEqual, "',' or '='")) return false;
      break;
    }
  }
  if (!At(Tok::kIdent)) return SyntaxError(names.empty() ? "an operation" : "an operation name");
  std::optional<OpKind> kind = OpKindFromName(tok_.text);
  if (!kind) {
    std::string name(tok_.text.substr(0, 40));
    if (tok_.text.size() > 40) name += "...";
    Diagnostic& d = sink_.Report(MakeDiagnostic(DiagId::kIrUnknownOp, file_.get(), Loc(tok_), {{"name", name}}));
    if (std::optional<PallasMatch> pallas = OpForPallasName(tok_.text)) {
      d.help = Cat("Pallas' ", name, " is the op '", pallas->op, "': `", pallas->example, "`");
    } else if (std::string_view near = NearestOpName(tok_.text); !near.empty()) {
      d.help = Cat("did you mean '", near, "'?");
    }
    failed_ = true;
    return false;
  }
  auto op = std::make_unique<Op>(*kind, Loc(tok_));
  op->parent = region;
  Advance();
  continuing_ = true;

  std::vector<Type> types;
  bool explicit_types = true;  // the result types come from `: types`
  bool ok = true;
  switch (op->info().syntax) {
    case Syntax::kGeneric:
    case Syntax::kCmp:
    case Syntax::kAxis:
      ok = ParseGeneric(op.get(), &types, !names.empty());
      break;
    case Syntax::kConst:
      ok = ParseConst(op.get(), &types);
      break;
    case Syntax::kDma:
      ok = ParseDma(op.get());
      break;
    case Syntax::kPrint:
      ok = ParsePrint(op.get());
      break;
    case Syntax::kCheck:
      ok = ParseCheck(op.get());
      break;
    case Syntax::kAlloc:
      ok = ParseType(&op->alloc_type);
      types.push_back(op->alloc_type);
      explicit_types = false;
      break;
    case Syntax::kFor:
      ok = ParseFor(op.get(), &types);
      break;
    case Syntax::kIf:
      ok = ParseIf(op.get(), &types);
      break;
    case Syntax::kWhile:
      ok = ParseWhile(op.get(), &types);
      break;
    case Syntax::kScoped:
      op->regions.push_back(std::make_unique<Region>());
      op->regions[0]->parent = op.get();
      ok = ParseRegion(op->regions[0].get());
      break;
    case Syntax::kPipeline:
      ok = ParsePipeline(op.get());
      break;
  }
  if (ok && AtLocSuffix()) ok = ParseLocSuffix(*op);
  continuing_ = false;
  if (!ok) return false;
  SplatLiterals(*op, types, region);

  if (names.size() != types.size() && (explicit_types || !names.empty())) {
    bool carries = op->info().syntax == Syntax::kFor || op->info().syntax == Syntax::kWhile;
    std::string detail =
        carries ? Cat("carries ", types.size(), " value", types.size() == 1 ? "" : "s", " but defines ",
                      names.size(), " result", names.size() == 1 ? "" : "s")
                : Cat("defines ", names.size(), " result", names.size() == 1 ? "" : "s", " but ",
                      types.size(), " result type", types.size() == 1 ? " is" : "s are", " written");
    Report(DiagId::kIrArity, op->loc, {{"op", std::string(op->name())}, {"detail", detail}});
  }
  for (size_t i = 0; i < names.size(); ++i) {
    Value* v = NewValue(names[i], i < types.size() ? types[i] : Type(), Value::Kind::kResult);
    v->def = op.get();
    v->index = static_cast<int>(i);
    Define(v);
    op->results.push_back(v);
  }
  region->ops.push_back(std::move(op));
  return true;
}

// `items ⟨[index vectors]⟩ ⟨mask %m⟩ ⟨{attrs}⟩ ⟨: types⟩`, with the predicate of
// `cmp` and the axis of `axis_index`/`axis_size` in front.
bool Parser::ParseGeneric(Op* op, std::vector<Type>* types, bool has_results) {
  const OpInfo& info = op->info();
  if (info.syntax == Syntax::kCmp) {
    std::optional<CmpPredicate> p;
    if (At(Tok::kIdent)) p = PredicateFromName(tok_.text);
    if (!p) return SyntaxError("a comparison predicate (eq, ne, lt, le, gt, ge)");
    op->predicate = *p;
    Advance();
  } else if (info.syntax == Syntax::kAxis) {
    op->axis_loc = Loc(tok_);
    if (AtIdent("core")) {
      op->axis = MeshAxis::kCore;
    } else if (AtIdent("subcore")) {
      op->axis = MeshAxis::kSubcore;
    } else if (At(Tok::kIdent)) {
      op->axis = MeshAxis::kDevice;  // the verifier looks the name up in `devices`
      op->device_axis = std::string(tok_.text);
    } else {
      return SyntaxError("'core', 'subcore' or a device axis name");
    }
    Advance();
  }
  if (info.max_operands != 0) {
    bool is_yield_of_map = op->kind == OpKind::kYield && !regions_.empty() &&
                           regions_.back()->is_pipeline_map;
    if (is_yield_of_map) {
      if (!OnNewLine() && (AtItemStart() || AtIdent("idx"))) {
        while (true) {
          IndexEntry e;
          if (!ParseMapEntry(&e)) return false;
          op->map_entries.push_back(std::move(e));
          if (!At(Tok::kComma)) break;
          Advance();
        }
      }
    } else if (!ParseItems(&op->operands, op, info.min_operands == 0)) {
      return false;
    }
  }
  if (AtIdent("mask") && !OnNewLine()) {
    Advance();
    op->mask.emplace();
    if (!At(Tok::kValueName)) return SyntaxError("a mask value such as %m");
    if (!ParseItem(&*op->mask, /*allow_index=*/false)) return false;
  }
  if (At(Tok::kLBrace) && IsAttrDictAhead()) {
    if (!ParseAttrDict(&op->attrs)) return false;
  }
  if (At(Tok::kColon)) {
    Advance();
    if (!ParseTypeList(types)) return false;
  }
  bool more_items = info.max_operands < 0 ||
                    static_cast<int>(op->operands.size()) < info.max_operands;
  return ExpectOpEnd(*op, more_items && !op->operands.empty(), has_results && types->empty());
}

// Pallas' `x + 1`: a scalar literal where an elementwise op computes on vectors
// is broadcast. The parser puts a `const dense<literal>` of the vector type
// before the op and uses its value, so every later stage sees an ordinary
// vector operand (and the literal's range is checked as a constant's).
void Parser::SplatLiterals(Op& op, const std::vector<Type>& types, Region* region) {
  if (op.info().family != OpFamily::kElementwise || op.kind == OpKind::kConvert || op.kind == OpKind::kBitcast) return;
  // The data operands' type: a vector operand's, else the result's (not for
  // cmp, whose result is i1). Select's condition stays as written.
  size_t first = op.kind == OpKind::kSelect ? 1 : 0;
  Type vector;
  for (size_t i = first; i < op.operands.size() && !vector.is_vector(); ++i) {
    const Operand& o = op.operands[i];
    if (o.is_value() && !o.indexed && o.value != nullptr && o.value->type.is_vector()) vector = o.value->type;
  }
  if (!vector.is_vector() && op.kind != OpKind::kCmp && !types.empty()) vector = types[0];
  if (!vector.is_vector()) return;
  for (size_t i = first; i < op.operands.size(); ++i) {
    Operand& o = op.operands[i];
    if (!o.is_literal()) continue;
    auto splat = std::make_unique<Op>(OpKind::kConst, o.loc);
    splat->parent = region;
    splat->origin = op.origin;
    splat->constant.dense = true;
    splat->constant.elements.push_back(o);
    // A name no kernel value has, so that the printed IR parses back.
    std::string name = Cat("splat.", o.loc.line, ".", o.loc.col);
    for (int k = 1; FirstNamed(name) != nullptr; ++k) name = Cat("splat.", o.loc.line, ".", o.loc.col, ".", k);
    Value* v = NewValue(name, vector, o.loc, Value::Kind::kResult);
    v->def = splat.get();
    v->index = 0;
    splat->results.push_back(v);
    region->ops.push_back(std::move(splat));
    Operand use;
    use.kind = Operand::Kind::kValue;
    use.value = v;
    use.name = name;
    use.loc = o.loc;
    o = std::move(use);
  }
}

bool Parser::ParseLocSuffix(Op& op) {
  Advance();  // 'loc'
  Advance();  // '('
  Origin o;
  if (!At(Tok::kString)) return SyntaxError("a file name string", "an op's origin is written loc(\"file.py\":12:5)");
  o.file = tok_.str;
  Advance();
  for (int* number : {&o.line, &o.col}) {
    if (!Expect(Tok::kColon, "':'")) return false;
    if (!At(Tok::kInt) || tok_.int_value < 1 || tok_.int_value > std::numeric_limits<int32_t>::max()) {
      return SyntaxError(number == &o.line ? "a line number (1 or more)" : "a column number (1 or more)");
    }
    *number = static_cast<int>(tok_.int_value);
    Advance();
  }
  if (!Expect(Tok::kRParen, "')'")) return false;
  module_->origins.Add(op.loc.line, o);
  op.origin = std::move(o);
  return true;
}

// After an op: the next token must end it (`}`, `;`, end of file) or start a new
// line. Otherwise say what could have continued the op.
bool Parser::ExpectOpEnd(const Op& op, bool more_items, bool needs_types) {
  if (At(Tok::kRBrace) || At(Tok::kSemicolon) || At(Tok::kEof) || OnNewLine() || AtLocSuffix()) {
    if (!needs_types) return true;
    std::string implied = ImpliedResultType(op);
    return SyntaxError("':' and the result types",
                       implied.empty() ? "every op that defines a value writes its type after ':' "
                                         "(`%v = get %buf[...] : vector<16xi32>`)"
                                       : Cat("every op that defines a value writes its type: end this one with `: ",
                                             implied, "`"));
  }
  std::vector<std::string_view> options;
  if (more_items) options.push_back("','");
  if (needs_types) options.push_back("':'");
  if (options.empty()) return SyntaxError("the end of the operation");
  std::string what(options[0]);
  if (options.size() > 1) what = Cat(options[0], " or ", options[1]);
  return SyntaxError(what);
}

bool Parser::ParseItems(std::vector<Operand>* out, Op* op, bool optional) {
  // Optional operand lists (yield, debug_print) must start on the op's own line,
  // so that `barrier` followed by `%x = ...` on the next line stays two ops.
  if (optional && (OnNewLine() || !AtItemStart())) return true;
  while (true) {
    Operand o;
    if (!ParseItem(&o, /*allow_index=*/true)) return false;
    out->push_back(std::move(o));
    if (op != nullptr && op->info().has(kIndexVectors) && out->size() == 1 && out->back().indexed &&
        At(Tok::kLBracket)) {
      Advance();
      if (!ParseListUntil(Tok::kRBracket, [&] {
          Operand v;
          if (!ParseItem(&v, /*allow_index=*/false)) return false;
          op->index_vectors.push_back(std::move(v));
          return true;
        })) {
        return false;
      }
    }
    if (!At(Tok::kComma)) return true;
    Advance();
  }
}

bool Parser::ParseItem(Operand* o, bool allow_index) {
  o->loc = Loc(tok_);
  if (At(Tok::kValueName)) {
    size_t begin = tok_.offset;
    o->kind = Operand::Kind::kValue;
    o->name = tok_.str;
    o->value = Resolve(tok_);
    Advance();
    if (allow_index && At(Tok::kLBracket)) {
      if (!ParseIndexer(o)) return false;
      o->loc = Span(begin);  // the caret covers the whole `%ref[...]`
    }
    return true;
  }
  return ParseLiteral(o);
}

bool Parser::ParseLiteral(Operand* o) {
  o->loc = Loc(tok_);
  if (At(Tok::kInt)) {
    o->kind = Operand::Kind::kInt;
    o->int_value = tok_.int_value;
  } else if (At(Tok::kFloat)) {
    o->kind = Operand::Kind::kFloat;
    o->float_value = tok_.float_value;
  } else if (AtIdent("true") || AtIdent("false")) {
    o->kind = Operand::Kind::kBool;
    o->int_value = AtIdent("true") ? 1 : 0;
  } else if (AtIdent("inf")) {
    o->kind = Operand::Kind::kFloat;
    o->float_value = std::numeric_limits<double>::infinity();
  } else if (AtIdent("nan")) {
    o->kind = Operand::Kind::kFloat;
    o->float_value = std::numeric_limits<double>::quiet_NaN();
  } else {
    return SyntaxError("an operand");
  }
  Advance();
  return true;
}

// `[entries]`. Pallas' `...` is accepted: `%ref[...]` is the whole ref (the same
// as no indexer), and among other entries it stands for as many `:` as the
// dimensions they leave unnamed (`%ref[..., 0]` on a 2-D ref is `%ref[:, 0]`).
bool Parser::ParseIndexer(Operand* o) {
  o->indexed = true;
  Advance();  // '['
  std::optional<size_t> ellipsis;  // where `...` stands among the entries
  Location ellipsis_loc;
  if (!ParseListUntil(Tok::kRBracket, [&] {
      if (At(Tok::kEllipsis)) {
        if (ellipsis) {
          return SyntaxError("an index, a slice (a:b, ds(...)), ':' or idx(...)",
                             "'...' may appear once in an indexer: it stands for every dimension the other "
                             "entries do not name");
        }
        ellipsis = o->index.size();
        ellipsis_loc = Loc(tok_);
        Advance();
        return true;
      }
      IndexEntry e;
      if (!ParseIndexEntry(&e)) return false;
      o->index.push_back(std::move(e));
      return true;
    })) {
    return false;
  }
  if (!ellipsis) return true;
  if (o->index.empty()) {
    o->indexed = false;  // `%ref[...]`: the whole ref
    return true;
  }
  // Too many entries for the rank stay as written: the verifier reports them.
  int rank = o->value != nullptr ? o->value->type.rank() : 0;
  int unnamed = rank - static_cast<int>(o->index.size());
  IndexEntry all;
  all.kind = IndexEntry::Kind::kAll;
  all.loc = ellipsis_loc;
  if (unnamed > 0) o->index.insert(o->index.begin() + static_cast<std::ptrdiff_t>(*ellipsis), unnamed, all);
  return true;
}

bool Parser::ParseIndexEntry(IndexEntry* e) {
  size_t begin = tok_.offset;
  e->loc = Loc(tok_);
  if (At(Tok::kColon) || (At(Tok::kInt) && Peek(1).kind == Tok::kColon)) {
    e->kind = IndexEntry::Kind::kAll;
    if (At(Tok::kInt)) {
      e->lo = tok_.int_value;
      e->kind = IndexEntry::Kind::kRange;
      Advance();
    }
    Advance();  // ':'
    if (At(Tok::kInt)) {
      e->hi = tok_.int_value;
      e->kind = IndexEntry::Kind::kRange;
      Advance();
    }
  } else if (AtIdent("ds") && Peek(1).kind == Tok::kLParen) {
    e->kind = IndexEntry::Kind::kSlice;
    Advance();
    Advance();
    if (!ParseItem(&e->start, false) || !Expect(Tok::kComma, "',' and the slice size") ||
        !ParseItem(&e->size, false)) {
      return false;
    }
    if (At(Tok::kComma)) {
      Advance();
      if (!ExpectIdent("stride") || !Expect(Tok::kEqual, "'='")) return false;
      e->stride.emplace();
      if (!ParseItem(&*e->stride, false)) return false;
    }
    if (!Expect(Tok::kRParen, "')'")) return false;
  } else if (AtIdent("idx") && Peek(1).kind == Tok::kLParen) {
    if (!ParseIndirect(e)) return false;
  } else {
    e->kind = IndexEntry::Kind::kIndex;
    if (!AtItemStart()) {
      return SyntaxError("an index, a slice (a:b, ds(...)), ':' or idx(...)",
                         AtIdent("pl.ds") || AtIdent("pl.dslice") ? "Pallas' pl.ds(start, size) is written `ds(%start, 16)`"
                                                                  : "");
    }
    if (!ParseItem(&e->start, false)) return false;
  }
  e->loc = Span(begin);
  return true;
}

bool Parser::ParseIndirect(IndexEntry* e) {
  e->kind = IndexEntry::Kind::kIndirect;
  Advance();  // 'idx'
  Advance();  // '('
  if (!ParseItem(&e->start, false)) return false;
  if (At(Tok::kComma)) {
    Advance();
    if (!ExpectIdent("ignore") || !Expect(Tok::kEqual, "'='")) return false;
    e->ignore.emplace();
    if (!ParseItem(&*e->ignore, false)) return false;
  }
  return Expect(Tok::kRParen, "')'");
}

bool Parser::IsAttrDictAhead() {
  if (!At(Tok::kLBrace)) return false;
  const Token& next = Peek(1);
  if (next.kind == Tok::kRBrace) return true;
  return next.kind == Tok::kIdent && Peek(2).kind == Tok::kEqual;
}

bool Parser::ParseAttrDict(std::vector<Attribute>* out) {
  Advance();  // '{'
  return ParseListUntil(Tok::kRBrace, [&] {
    if (!At(Tok::kIdent)) return SyntaxError("an attribute name");
    Attribute a;
    a.name = std::string(tok_.text);
    a.loc = Loc(tok_);
    Advance();
    if (!Expect(Tok::kEqual, "'='") || !ParseAttrValue(&a.value, 0)) return false;
    out->push_back(std::move(a));
    return true;
  });
}

bool Parser::ParseAttrValue(AttrValue* v, int depth) {
  v->loc = Loc(tok_);
  if (At(Tok::kString)) {
    v->kind = AttrValue::Kind::kString;
    v->str = tok_.str;
    Advance();
    return true;
  }
  if (At(Tok::kLBracket)) {
    if (depth + depth_ >= kMaxNesting) return NestingTooDeep(v->loc);
    v->kind = AttrValue::Kind::kList;
    Advance();
    if (!ParseListUntil(Tok::kRBracket, [&] {
        AttrValue element;
        if (!ParseAttrValue(&element, depth + 1)) return false;
        v->list.push_back(std::move(element));
        return true;
      })) {
      return false;
    }
    return true;
  }
  v->kind = AttrValue::Kind::kOperand;
  if (!AtItemStart()) return SyntaxError("an attribute value");
  return ParseItem(&v->operand, false);
}

bool Parser::ParseConst(Op* op, std::vector<Type>* types) {
  ConstValue& c = op->constant;
  if (AtIdent("dense")) {
    c.dense = true;
    Advance();
    if (!Expect(Tok::kLess, "'<'")) return false;
    if (At(Tok::kLBracket)) {
      c.dense_list = true;
      if (!ParseDenseList(&c.elements, 0)) return false;
    } else {
      Operand o;
      if (!ParseLiteral(&o)) return false;
      c.elements.push_back(std::move(o));
    }
    if (!Expect(Tok::kGreater, "'>'")) return false;
  } else {
    Operand o;
    if (At(Tok::kValueName)) return SyntaxError("a literal or dense<...>");
    if (!ParseLiteral(&o)) return false;
    c.elements.push_back(std::move(o));
  }
  if (!Expect(Tok::kColon, "':' and the constant's type")) return false;
  Type t;
  if (!ParseType(&t)) return false;
  types->push_back(std::move(t));
  return ExpectOpEnd(*op, false, false);
}

bool Parser::ParseDenseList(std::vector<Operand>* out, int depth) {
  if (depth + depth_ >= kMaxNesting) return NestingTooDeep(Loc(tok_));
  Advance();  // '['
  if (!ParseListUntil(Tok::kRBracket, [&] {
      if (At(Tok::kLBracket)) {
        if (!ParseDenseList(out, depth + 1)) return false;
      } else {
        Operand o;
        if (!ParseLiteral(&o)) return false;
        out->push_back(std::move(o));
      }
      return true;
    })) {
    return false;
  }
  return true;
}

// How each DMA op is written, for the help of a malformed one.
std::string_view DmaForm(OpKind kind) {
  switch (kind) {
    case OpKind::kDmaWait:
      return "dma_wait names the copy it waits for with the operands of its dma_start: "
             "`dma_wait %src -> %dst, %sem` (Pallas' `copy.wait()`); it waits for the destination's bytes";
    case OpKind::kDmaStart:
      return "a copy is written `dma_start %src -> %dst, %sem` (Pallas' `pltpu.async_copy(src, dst, sem)`)";
    default:
      return "a copy is written `copy %src -> %dst` (Pallas' `pltpu.sync_copy(src, dst)`)";
  }
}

bool Parser::ParseDma(Op* op) {
  Operand src, dst;
  if (!ParseItem(&src, true)) return false;
  if (!At(Tok::kArrow)) return SyntaxError("'->' and the destination", DmaForm(op->kind));
  Advance();
  if (!ParseItem(&dst, true)) return false;
  op->operands.push_back(std::move(src));
  op->operands.push_back(std::move(dst));
  if (op->kind != OpKind::kCopy && !At(Tok::kComma)) {
    return SyntaxError("',' and the semaphore", DmaForm(op->kind));
  }
  if (At(Tok::kComma)) {
    Advance();
    Operand sem;
    if (!ParseItem(&sem, true)) return false;
    op->operands.push_back(std::move(sem));
    if (AtIdent("src_sem")) {
      Advance();
      Operand src_sem;
      if (!ParseItem(&src_sem, true)) return false;
      op->operands.push_back(std::move(src_sem));
      op->has_src_sem = true;
    }
  }
  if (AtIdent("add") && !OnNewLine()) {
    op->dma_add = true;
    Advance();
  }
  if (At(Tok::kLBrace) && IsAttrDictAhead()) {
    if (!ParseAttrDict(&op->attrs)) return false;
  }
  return ExpectOpEnd(*op, op->operands.size() == 2, false);
}

bool Parser::ParsePrint(Op* op) {
  if (!At(Tok::kString)) return SyntaxError("a format string");
  op->text = tok_.str;
  Advance();
  if (!ParseItems(&op->operands, op, /*optional=*/true)) return false;
  if (At(Tok::kLBrace) && IsAttrDictAhead()) {
    if (!ParseAttrDict(&op->attrs)) return false;
  }
  if (At(Tok::kColon) && !OnNewLine()) {
    return SyntaxError("the end of the operation",
                       "debug_print has no result, so no type is written: `debug_print \"v\" %v` prints %v "
                       "with the type it was defined with");
  }
  return ExpectOpEnd(*op, !op->operands.empty(), false);
}

// `debug_check %cond, "message"`
bool Parser::ParseCheck(Op* op) {
  Operand cond;
  if (!ParseItem(&cond, /*allow_index=*/false)) return false;
  op->operands.push_back(std::move(cond));
  if (!Expect(Tok::kComma, "',' and the message")) return false;
  if (!At(Tok::kString)) return SyntaxError("the message, a string", "write `debug_check %ok, \"what went wrong\"`");
  op->text = tok_.str;
  Advance();
  return ExpectOpEnd(*op, false, false);
}

// `iter(%x = init, ...)`
bool Parser::ParseIterArgs(std::vector<Token>* names, std::vector<Operand>* inits) {
  Advance();  // 'iter'
  if (!Expect(Tok::kLParen, "'('")) return false;
  if (!ParseListUntil(Tok::kRParen, [&] {
      if (!At(Tok::kValueName)) return SyntaxError("a carried value name such as %acc");
      names->push_back(tok_);
      Advance();
      if (!Expect(Tok::kEqual, "'=' and the initial value")) return false;
      Operand init;
      if (!ParseItem(&init, false)) return false;
      inits->push_back(std::move(init));
      return true;
    })) {
    return false;
  }
  return true;
}

// A region whose arguments are an optional induction variable (i32) then the
// carried values.
bool Parser::ParseCarriedRegion(Op* op, const std::vector<Token>& carries,
                                const std::vector<Type>& types, const Token* iv) {
  auto region = std::make_unique<Region>();
  region->parent = op;
  Region* r = region.get();
  op->regions.push_back(std::move(region));
  if (iv != nullptr) {
    Value* v = NewValue(*iv, Type::Scalar(ElementType::kI32), Value::Kind::kRegionArg);
    v->region = r;
    r->args.push_back(v);
  }
  for (size_t i = 0; i < carries.size(); ++i) {
    Value* v = NewValue(carries[i], i < types.size() ? types[i] : Type(), Value::Kind::kRegionArg);
    v->region = r;
    v->index = static_cast<int>(r->args.size());
    r->args.push_back(v);
  }
  return ParseRegion(r);
}

bool Parser::ParseFor(Op* op, std::vector<Type>* types) {
  if (!At(Tok::kValueName)) return SyntaxError("an induction variable such as %i");
  Token iv = tok_;
  Advance();
  Operand lo, hi, step;
  if (!Expect(Tok::kEqual, "'='") || !ParseItem(&lo, false) || !ExpectIdent("to") ||
      !ParseItem(&hi, false) || !ExpectIdent("step") || !ParseItem(&step, false)) {
    return false;
  }
  op->operands.push_back(std::move(lo));
  op->operands.push_back(std::move(hi));
  op->operands.push_back(std::move(step));
  if (IsAttrDictAhead() && Peek(1).kind != Tok::kRBrace) {
    if (!ParseAttrDict(&op->attrs)) return false;
  }
  std::vector<Token> carries;
  if (AtIdent("iter")) {
    if (!ParseIterArgs(&carries, &op->operands)) return false;
    if (!Expect(Tok::kColon, "':' and the carried types") || !ParseTypeList(types)) return false;
  }
  return ParseCarriedRegion(op, carries, *types, &iv);
}

bool Parser::ParseIf(Op* op, std::vector<Type>* types) {
  Operand cond;
  if (!ParseItem(&cond, false)) return false;
  op->operands.push_back(std::move(cond));
  if (At(Tok::kColon)) {
    Advance();
    if (!ParseTypeList(types)) return false;
  }
  if (!ParseCarriedRegion(op, {}, {}, nullptr)) return false;
  if (AtIdent("else")) {
    Advance();
    op->has_else = true;
    if (!ParseCarriedRegion(op, {}, {}, nullptr)) return false;
  }
  return true;
}

bool Parser::ParseWhile(Op* op, std::vector<Type>* types) {
  std::vector<Token> carries;
  if (AtIdent("iter")) {
    if (!ParseIterArgs(&carries, &op->operands)) return false;
    if (!Expect(Tok::kColon, "':' and the carried types") || !ParseTypeList(types)) return false;
  }
  if (!ExpectIdent("cond") || !ParseCarriedRegion(op, carries, *types, nullptr)) return false;
  if (!ExpectIdent("body") || !ParseCarriedRegion(op, carries, *types, nullptr)) return false;
  return true;
}

// ------------------------------------------------------------------------------------
// Pipelines.

bool Parser::ParsePipeline(Op* op) {
  op->pipeline = std::make_unique<PipelineInfo>();
  PipelineInfo& p = *op->pipeline;
  if (!ExpectIdent("grid") || !Expect(Tok::kLParen, "'('")) return false;
  if (!ParseListUntil(Tok::kRParen, [&] {
      Operand g;
      if (!ParseItem(&g, false)) return false;
      p.grid.push_back(std::move(g));
      return true;
    })) {
    return false;
  }
  while (true) {
    if (AtIdent("partition")) {
      p.partition_loc = Loc(tok_);
      Advance();
      if (!Expect(Tok::kLParen, "'('")) return false;
      if (!ParseListUntil(Tok::kRParen, [&] {
          if (AtIdent("core")) {
            p.partition.push_back(MeshAxis::kCore);
          } else if (AtIdent("subcore")) {
            p.partition.push_back(MeshAxis::kSubcore);
          } else {
            return SyntaxError("'core' or 'subcore'");
          }
          Advance();
          return true;
        })) {
        return false;
      }
    } else if (AtIdent("parallel")) {
      p.all_parallel = true;
      p.dims_loc = Loc(tok_);
      Advance();
    } else if (AtIdent("dims")) {
      p.dims_loc = Loc(tok_);
      Advance();
      if (!Expect(Tok::kLParen, "'('")) return false;
      if (!ParseListUntil(Tok::kRParen, [&] {
          if (AtIdent("parallel")) {
            p.dims.push_back(DimSemantics::kParallel);
          } else if (AtIdent("arbitrary")) {
            p.dims.push_back(DimSemantics::kArbitrary);
          } else {
            return SyntaxError("'parallel' or 'arbitrary'");
          }
          Advance();
          return true;
        })) {
        return false;
      }
    } else {
      break;
    }
  }
  while (AtIdent("in") || AtIdent("out")) {
    if (!ParsePipelineOperand(op, AtIdent("out"))) return false;
  }
  if (!AtIdent("body")) return SyntaxError("'in(...)', 'out(...)' or 'body(...)'");
  Advance();
  auto body = std::make_unique<Region>();
  body->parent = op;
  if (!Expect(Tok::kLParen, "'('")) return false;
  if (!ParseListUntil(Tok::kRParen, [&] {
      if (!At(Tok::kValueName)) return SyntaxError("a block name such as %xv");
      Token name = tok_;
      Advance();
      Type type;
      if (!Expect(Tok::kColon, "':' and a type") || !ParseType(&type)) return false;
      Value* v = NewValue(name, type, Value::Kind::kRegionArg);
      v->region = body.get();
      v->index = static_cast<int>(body->args.size());
      body->args.push_back(v);
      return true;
    })) {
    return false;
  }
  Region* r = body.get();
  op->regions.push_back(std::move(body));
  return ParseRegion(r);
}

bool Parser::ParsePipelineOperand(Op* op, bool is_output) {
  PipelineOperand po;
  po.is_output = is_output;
  po.loc = Loc(tok_);
  Advance();  // 'in' / 'out'
  if (!Expect(Tok::kLParen, "'('") || !ParseItem(&po.ref, false) ||
      !Expect(Tok::kComma, "',' and the block") || !ExpectIdent("block") ||
      !Expect(Tok::kLBracket, "'['")) {
    return false;
  }
  if (!ParseListUntil(Tok::kRBracket, [&] {
      BlockDim d;
      d.loc = Loc(tok_);
      if (At(Tok::kInt)) {
        d.kind = BlockDim::Kind::kSize;
        d.size = tok_.int_value;
        Advance();
      } else if (AtIdent("squeezed")) {
        d.kind = BlockDim::Kind::kSqueezed;
        Advance();
      } else if (AtIdent("indirect")) {
        d.kind = BlockDim::Kind::kIndirect;
        Advance();
        if (!Expect(Tok::kLParen, "'('")) return false;
        if (!At(Tok::kInt)) return SyntaxError("the number of gathered rows");
        d.size = tok_.int_value;
        Advance();
        if (!Expect(Tok::kRParen, "')'")) return false;
      } else {
        return SyntaxError("a block size, 'squeezed' or 'indirect(N)'");
      }
      po.block.push_back(d);
      return true;
    })) {
    return false;
  }
  if (!Expect(Tok::kComma, "',' and the index map") || !ExpectIdent("map") ||
      !Expect(Tok::kLParen, "'(' and the grid variables")) {
    return false;
  }
  po.map = std::make_unique<Region>();
  po.map->parent = op;
  po.map->is_pipeline_map = true;
  if (!ParseListUntil(Tok::kRParen, [&] {
      if (!At(Tok::kValueName)) return SyntaxError("a grid variable such as %i");
      Value* v = NewValue(tok_, Type::Scalar(ElementType::kI32), Value::Kind::kRegionArg);
      v->region = po.map.get();
      v->index = static_cast<int>(po.map->args.size());
      po.map->args.push_back(v);
      Advance();
      return true;
    })) {
    return false;
  }
  if (At(Tok::kArrow)) {
    // Short form: `-> (entries)` is a region holding one yield.
    po.short_map = true;
    Advance();
    Location loc = Loc(tok_);
    po.map->loc = loc;
    if (!Expect(Tok::kLParen, "'(' and the block indices")) return false;
    ScopeGuard scope(this);
    for (Value* arg : po.map->args) Define(arg);
    auto yield = std::make_unique<Op>(OpKind::kYield, loc);
    yield->parent = po.map.get();
    if (!ParseListUntil(Tok::kRParen, [&] {
        IndexEntry e;
        if (!ParseMapEntry(&e)) return false;
        yield->map_entries.push_back(std::move(e));
        return true;
      })) {
      return false;
    }
    po.map->ops.push_back(std::move(yield));
  } else if (At(Tok::kLBrace)) {
    if (!ParseRegion(po.map.get())) return false;
  } else {
    return SyntaxError("'->' or '{'");
  }
  if (!Expect(Tok::kRParen, "')'")) return false;
  op->pipeline->operands.push_back(std::move(po));
  return true;
}

bool Parser::ParseMapEntry(IndexEntry* e) {
  size_t begin = tok_.offset;
  if (AtIdent("idx") && Peek(1).kind == Tok::kLParen) {
    if (!ParseIndirect(e)) return false;
  } else {
    e->kind = IndexEntry::Kind::kIndex;
    if (!ParseItem(&e->start, false)) return false;
  }
  e->loc = Span(begin);
  return true;
}

}  // namespace

std::unique_ptr<Module> Parse(std::shared_ptr<const SourceFile> file, DiagnosticSink& sink) {
  Parser parser(std::move(file), sink);
  return parser.ParseModule();
}

}  // namespace scjit
