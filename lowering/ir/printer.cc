#include "lowering/ir/printer.h"

#include <charconv>
#include <cmath>

#include "lowering/base/strings.h"

namespace scjit {
namespace {

std::string QuoteString(std::string_view s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '"') {
      out += "\\\"";
    } else if (c == '\\') {
      out += "\\\\";
    } else {
      out += c;
    }
  }
  return out + "\"";
}

std::string FloatLiteral(double v) {
  if (std::isnan(v)) return "nan";
  if (std::isinf(v)) return v < 0 ? "-inf" : "inf";
  char buf[64];
  auto [end, ec] = std::to_chars(buf, buf + sizeof(buf), v);
  std::string s(buf, end);
  if (s.find_first_of(".e") == std::string::npos) s += ".0";
  return s;
}

std::string PrintEntry(const IndexEntry& e) {
  switch (e.kind) {
    case IndexEntry::Kind::kIndex:
      return Print(e.start);
    case IndexEntry::Kind::kSlice: {
      std::string s = Cat("ds(", Print(e.start), ", ", Print(e.size));
      if (e.stride) Append(&s, ", stride = ", Print(*e.stride));
      return s + ")";
    }
    case IndexEntry::Kind::kRange: {
      std::string s;
      if (e.lo) Append(&s, *e.lo);
      s += ':';
      if (e.hi) Append(&s, *e.hi);
      return s;
    }
    case IndexEntry::Kind::kAll:
      return ":";
    case IndexEntry::Kind::kIndirect: {
      std::string s = Cat("idx(", Print(e.start));
      if (e.ignore) Append(&s, ", ignore = ", Print(*e.ignore));
      return s + ")";
    }
  }
  return "";
}

std::string PrintAttrValue(const AttrValue& v) {
  switch (v.kind) {
    case AttrValue::Kind::kOperand:
      return Print(v.operand);
    case AttrValue::Kind::kString:
      return QuoteString(v.str);
    case AttrValue::Kind::kList: {
      std::string s = "[";
      for (size_t i = 0; i < v.list.size(); ++i) {
        if (i > 0) s += ", ";
        s += PrintAttrValue(v.list[i]);
      }
      return s + "]";
    }
  }
  return "";
}

std::string PrintAttrs(const std::vector<Attribute>& attrs) {
  std::string s = "{";
  for (size_t i = 0; i < attrs.size(); ++i) {
    if (i > 0) s += ", ";
    Append(&s, attrs[i].name, " = ", PrintAttrValue(attrs[i].value));
  }
  return s + "}";
}

template <typename T, typename F>
std::string Join(const std::vector<T>& items, F&& print) {
  std::string s;
  for (size_t i = 0; i < items.size(); ++i) {
    if (i > 0) s += ", ";
    s += print(items[i]);
  }
  return s;
}

std::string TypeList(const std::vector<Value*>& values) {
  return Join(values, [](const Value* v) { return v->type.ToString(); });
}

class Printer {
 public:
  std::string out;

  void PrintKernel(const KernelDef& k) {
    Append(&out, "kernel @", k.name, "(");
    for (size_t i = 0; i < k.params.size(); ++i) {
      if (i > 0) out += ", ";
      const Param& p = k.params[i];
      Append(&out, DirectionName(p.direction), " %", p.value->name, ": ", p.value->type.ToString());
    }
    out += ")\n";
    for (const KernelDef* part : k.Parts()) PrintPart(*part);
  }

 private:
  // One part: its mesh, scratch (and on the first, the kernel's attributes), body.
  void PrintPart(const KernelDef& k) {
    if (k.mesh.written) {
      Append(&out, "    mesh ", MeshKindName(k.mesh.kind));
      std::vector<std::string> args;
      if (k.mesh.cores) args.push_back(Cat("cores = ", *k.mesh.cores));
      if (k.mesh.subcores) args.push_back(Cat("subcores = ", *k.mesh.subcores));
      if (!args.empty()) Append(&out, "(", Join(args, [](const std::string& s) { return s; }), ")");
      out += '\n';
    }
    if (!k.devices.empty()) {
      Append(&out, "    devices(", Join(k.devices, [](const DeviceAxis& a) { return Cat(a.name, " = ", a.size); }),
             ")\n");
    }
    if (!k.scratch.empty()) {
      Append(&out, "    scratch(", Join(k.scratch, [](const Value* v) {
               std::string other;
               if (v->other_mesh) other = Cat(" @", MeshKindName(*v->other_mesh));
               return Cat("%", v->name, ": ", v->type.ToString(), other);
             }), ")\n");
    }
    if (!k.attributes.empty()) Append(&out, "    attributes ", PrintAttrs(k.attributes), "\n");
    out += "{\n";
    PrintOps(k.body, 1);
    out += "}\n";
  }

  void Indent(int level) { out.append(static_cast<size_t>(level) * 2, ' '); }

  void PrintOps(const Region& r, int level) {
    for (const auto& op : r.ops) PrintOp(*op, level);
  }

  // `{ ...ops... }` with the closing brace at `level`; no trailing newline.
  void PrintRegion(const Region& r, int level) {
    out += "{\n";
    PrintOps(r, level + 1);
    Indent(level);
    out += "}";
  }

  void PrintOp(const Op& op, int level) {
    Indent(level);
    if (!op.results.empty()) {
      Append(&out, Join(op.results, [](const Value* v) { return Cat("%", v->name); }), " = ");
    }
    out += op.name();
    switch (op.info().syntax) {
      case Syntax::kGeneric:
      case Syntax::kCmp:
      case Syntax::kAxis:
        PrintGeneric(op);
        break;
      case Syntax::kConst:
        PrintConst(op);
        break;
      case Syntax::kDma:
        PrintDma(op);
        break;
      case Syntax::kPrint:
        Append(&out, " ", QuoteString(op.text));
        if (!op.operands.empty()) Append(&out, " ", Join(op.operands, [](const Operand& o) { return Print(o); }));
        if (!op.attrs.empty()) Append(&out, " ", PrintAttrs(op.attrs));
        break;
      case Syntax::kCheck:
        Append(&out, " ", Print(op.operands[0]), ", ", QuoteString(op.text));
        break;
      case Syntax::kAlloc:
        Append(&out, " ", op.alloc_type.ToString());
        break;
      case Syntax::kFor:
        PrintFor(op, level);
        break;
      case Syntax::kIf:
        Append(&out, " ", Print(op.operands[0]));
        if (!op.results.empty()) Append(&out, " : ", TypeList(op.results));
        out += ' ';
        PrintRegion(*op.regions[0], level);
        if (op.has_else && op.regions.size() > 1) {
          out += " else ";
          PrintRegion(*op.regions[1], level);
        }
        break;
      case Syntax::kWhile:
        PrintWhile(op, level);
        break;
      case Syntax::kScoped:
        out += ' ';
        PrintRegion(*op.regions[0], level);
        break;
      case Syntax::kPipeline:
        PrintPipeline(op, level);
        break;
    }
    if (op.origin) Append(&out, " loc(", QuoteString(op.origin->file), ":", op.origin->line, ":", op.origin->col, ")");
    out += '\n';
  }

  void PrintGeneric(const Op& op) {
    if (op.info().syntax == Syntax::kCmp) Append(&out, " ", PredicateName(op.predicate));
    if (op.info().syntax == Syntax::kAxis) {
      Append(&out, " ", op.axis == MeshAxis::kDevice ? std::string_view(op.device_axis) : AxisName(op.axis));
    }
    if (op.kind == OpKind::kYield && !op.map_entries.empty()) {
      Append(&out, " ", Join(op.map_entries, PrintEntry));
    }
    for (size_t i = 0; i < op.operands.size(); ++i) {
      Append(&out, i == 0 ? " " : ", ", Print(op.operands[i]));
      if (i == 0 && !op.index_vectors.empty()) {
        Append(&out, " [", Join(op.index_vectors, [](const Operand& o) { return Print(o); }), "]");
      }
    }
    if (op.mask) Append(&out, " mask ", Print(*op.mask));
    if (!op.attrs.empty()) Append(&out, " ", PrintAttrs(op.attrs));
    if (!op.results.empty()) Append(&out, " : ", TypeList(op.results));
  }

  void PrintConst(const Op& op) {
    const ConstValue& c = op.constant;
    out += ' ';
    if (c.dense) {
      out += "dense<";
      if (c.dense_list) {
        Append(&out, "[", Join(c.elements, [](const Operand& o) { return PrintLiteral(o); }), "]");
      } else if (!c.elements.empty()) {
        out += PrintLiteral(c.elements[0]);
      }
      out += '>';
    } else if (!c.elements.empty()) {
      out += PrintLiteral(c.elements[0]);
    }
    if (!op.results.empty()) Append(&out, " : ", TypeList(op.results));
  }

  void PrintDma(const Op& op) {
    for (size_t i = 0; i < op.operands.size(); ++i) {
      const char* sep = i == 0 ? " " : i == 1 ? " -> " : (op.has_src_sem && i == 3) ? " src_sem " : ", ";
      Append(&out, sep, Print(op.operands[i]));
    }
    if (op.dma_add) out += " add";
    if (!op.attrs.empty()) Append(&out, " ", PrintAttrs(op.attrs));
  }

  void PrintIter(const Op& op, const Region& r, size_t first_arg, size_t first_init) {
    if (r.args.size() <= first_arg) return;
    out += " iter(";
    for (size_t i = first_arg; i < r.args.size(); ++i) {
      if (i > first_arg) out += ", ";
      size_t init = first_init + (i - first_arg);
      Append(&out, "%", r.args[i]->name, " = ", init < op.operands.size() ? Print(op.operands[init]) : "");
    }
    std::vector<Value*> carried(r.args.begin() + static_cast<long>(first_arg), r.args.end());
    Append(&out, ") : ", TypeList(carried));
  }

  void PrintFor(const Op& op, int level) {
    const Region& body = *op.regions[0];
    Append(&out, " %", body.args[0]->name, " = ", Print(op.operands[0]), " to ", Print(op.operands[1]),
           " step ", Print(op.operands[2]));
    if (!op.attrs.empty()) Append(&out, " ", PrintAttrs(op.attrs));
    PrintIter(op, body, 1, 3);
    out += ' ';
    PrintRegion(body, level);
  }

  void PrintWhile(const Op& op, int level) {
    PrintIter(op, *op.regions[0], 0, 0);
    out += " cond ";
    PrintRegion(*op.regions[0], level);
    out += " body ";
    PrintRegion(*op.regions[1], level);
  }

  void PrintPipeline(const Op& op, int level) {
    const PipelineInfo& p = *op.pipeline;
    Append(&out, " grid(", Join(p.grid, [](const Operand& o) { return Print(o); }), ")");
    if (!p.partition.empty()) {
      Append(&out, " partition(", Join(p.partition, [](MeshAxis a) { return std::string(AxisName(a)); }), ")");
    }
    if (p.all_parallel) out += " parallel";
    if (!p.dims.empty()) {
      Append(&out, " dims(", Join(p.dims, [](DimSemantics d) {
               return std::string(d == DimSemantics::kParallel ? "parallel" : "arbitrary");
             }), ")");
    }
    for (const PipelineOperand& po : p.operands) {
      out += '\n';
      Indent(level + 2);
      Append(&out, po.is_output ? "out(" : "in(", Print(po.ref), ", block [",
             Join(po.block, [](const BlockDim& d) {
               switch (d.kind) {
                 case BlockDim::Kind::kSize:
                   return Cat(d.size);
                 case BlockDim::Kind::kSqueezed:
                   return std::string("squeezed");
                 case BlockDim::Kind::kIndirect:
                   return Cat("indirect(", d.size, ")");
               }
               return std::string();
             }),
             "], map (", Join(po.map->args, [](const Value* v) { return Cat("%", v->name); }), ")");
      const Op* yield = po.map->ops.empty() ? nullptr : po.map->ops.back().get();
      if (po.short_map && yield != nullptr) {
        Append(&out, " -> (", Join(yield->map_entries, PrintEntry), "))");
      } else {
        out += " ";
        PrintRegion(*po.map, level + 2);
        out += ")";
      }
    }
    const Region& body = *op.regions[0];
    out += '\n';
    Indent(level + 2);
    Append(&out, "body(", Join(body.args, [](const Value* v) {
             return Cat("%", v->name, ": ", v->type.ToString());
           }), ") ");
    PrintRegion(body, level);
  }
};

}  // namespace

std::string PrintLiteral(const Operand& o) {
  switch (o.kind) {
    case Operand::Kind::kInt:
      return Cat(o.int_value);
    case Operand::Kind::kFloat:
      return FloatLiteral(o.float_value);
    case Operand::Kind::kBool:
      return o.int_value != 0 ? "true" : "false";
    case Operand::Kind::kValue:
      return Cat("%", o.name);
  }
  return "";
}

std::string Print(const Operand& o) {
  std::string s = PrintLiteral(o);
  if (o.indexed) Append(&s, "[", Join(o.index, PrintEntry), "]");
  return s;
}

std::string Print(const KernelDef& kernel) {
  Printer p;
  p.PrintKernel(kernel);
  return p.out;
}

std::string Print(const Module& module) {
  std::string out;
  if (module.target) Append(&out, "target \"", Info(*module.target).name, "\"\n");
  if (module.jax) Append(&out, "jax \"", module.jax->ToString(), "\"\n");
  if (module.target || module.jax) out += "\n";
  for (size_t i = 0; i < module.kernels.size(); ++i) {
    if (i > 0) out += '\n';
    out += Print(*module.kernels[i]);
  }
  return out;
}

}  // namespace scjit
