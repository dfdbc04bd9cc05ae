#include "lowering/ir/ir.h"

#include <array>
#include <functional>
#include <utility>


namespace scjit {
namespace {

constexpr std::array kOps = {
#define SCJIT_OP(Enum, name, Family, Syntax_, min_ops, max_ops, min_res, max_res, Rule, flags, attrs, \
                 summary)                                                                             \
  OpInfo{OpKind::Enum, name, OpFamily::Family, Syntax::Syntax_, min_ops, max_ops, min_res, max_res,   \
         TypeRule::Rule, static_cast<uint32_t>(flags), attrs, summary},
#include "lowering/ir/ops.def"
};

constexpr std::array kAttrs = {
#define SCJIT_ATTR(name, Kind, where, summary) \
  AttrInfo{name, AttrKind::Kind, AttrWhere::where, summary},
#include "lowering/ir/attrs.def"
};

constexpr std::string_view kPredicates[] = {"eq", "ne", "lt", "le", "gt", "ge"};

}  // namespace

bool OpInfo::AcceptsAttr(std::string_view attr) const {
  std::string_view rest = attrs;
  while (!rest.empty()) {
    size_t comma = rest.find(',');
    if (rest.substr(0, comma) == attr) return true;
    if (comma == std::string_view::npos) break;
    rest.remove_prefix(comma + 1);
  }
  return false;
}

const OpInfo& Info(OpKind kind) { return kOps[static_cast<size_t>(kind)]; }

std::optional<OpKind> OpKindFromName(std::string_view name) {
  for (const OpInfo& info : kOps) {
    if (info.name == name) return info.kind;
  }
  return std::nullopt;
}

size_t NumOpKinds() { return kOps.size(); }

std::vector<OpKind> OpsWhere(const std::function<bool(const OpInfo&)>& pred) {
  std::vector<OpKind> out;
  for (const OpInfo& info : kOps) {
    if (pred(info)) out.push_back(info.kind);
  }
  return out;
}

std::vector<OpKind> OpsOf(OpFamily family) {
  return OpsWhere([family](const OpInfo& info) { return info.family == family; });
}

std::span<const AttrInfo> AllAttrs() { return kAttrs; }

const AttrInfo* FindAttrInfo(std::string_view name) {
  for (const AttrInfo& a : kAttrs) {
    if (a.name == name) return &a;
  }
  return nullptr;
}

Type Operand::type() const {
  if (kind == Kind::kValue) return value != nullptr ? value->type : Type();
  return literal_type;
}

std::string_view PredicateName(CmpPredicate p) { return kPredicates[static_cast<int>(p)]; }

std::optional<CmpPredicate> PredicateFromName(std::string_view name) {
  for (int i = 0; i < 6; ++i) {
    if (kPredicates[i] == name) return static_cast<CmpPredicate>(i);
  }
  return std::nullopt;
}

std::string_view AxisName(MeshAxis a) {
  switch (a) {
    case MeshAxis::kCore: return "core";
    case MeshAxis::kSubcore: return "subcore";
    case MeshAxis::kDevice: return "device";
  }
  return "";
}


const Attribute* Op::FindAttr(std::string_view attr) const {
  for (const Attribute& a : attrs) {
    if (a.name == attr) return &a;
  }
  return nullptr;
}

bool Op::RoundsToEven() const {
  const Attribute* a = FindAttr("rounding_method");
  return a != nullptr && a->value.str == "to_nearest_even";
}

std::vector<const KernelDef*> KernelDef::Parts() const {
  if (first != nullptr) return first->Parts();
  std::vector<const KernelDef*> out{this};
  for (const auto& p : more_parts) out.push_back(p.get());
  return out;
}

std::vector<KernelDef*> KernelDef::Parts() {
  std::vector<KernelDef*> out;
  for (const KernelDef* p : std::as_const(*this).Parts()) out.push_back(const_cast<KernelDef*>(p));
  return out;
}

const Attribute* KernelDef::FindAttribute(std::string_view attr) const {
  if (first != nullptr) return first->FindAttribute(attr);
  for (const Attribute& a : attributes) {
    if (a.name == attr) return &a;
  }
  return nullptr;
}

int KernelDef::FindDeviceAxis(std::string_view name) const {
  const std::vector<DeviceAxis>& axes = device_axes();
  for (size_t i = 0; i < axes.size(); ++i) {
    if (axes[i].name == name) return static_cast<int>(i);
  }
  return -1;
}

int64_t KernelDef::device_count() const {
  int64_t n = 1;
  for (const DeviceAxis& a : device_axes()) n *= a.size;
  return n;
}

int64_t KernelDef::device_stride(int axis) const {
  const std::vector<DeviceAxis>& axes = device_axes();
  int64_t stride = 1;
  for (size_t i = static_cast<size_t>(axis) + 1; i < axes.size(); ++i) stride *= axes[i].size;
  return stride;
}

DeviceTarget DeviceTargetOf(const Op& op, const KernelDef& k) {
  DeviceTarget t;
  if (const Attribute* a = op.FindAttr("device")) {
    t.loc = a->loc;
    if (a->value.kind == AttrValue::Kind::kList) {
      t.form = DeviceTarget::Form::kMesh;
      t.listed = true;
      for (const AttrValue& e : a->value.list) t.coords.push_back(&e.operand);
    } else {
      t.form = DeviceTarget::Form::kLogical;
      t.logical = &a->value.operand;
    }
    return t;
  }
  for (const Attribute& a : op.attrs) {
    int axis = k.FindDeviceAxis(a.name);
    if (axis < 0) continue;
    if (t.form == DeviceTarget::Form::kLocal) {
      t.form = DeviceTarget::Form::kMesh;
      t.loc = a.loc;
      t.coords.assign(k.device_axes().size(), nullptr);
    }
    t.coords[static_cast<size_t>(axis)] = &a.value.operand;
  }
  return t;
}

bool KernelDef::layout_passes() const {
  const Attribute* a = FindAttribute("layout_passes");
  if (a == nullptr || a->value.kind != AttrValue::Kind::kOperand) return true;
  return a->value.operand.int_value != 0;
}

Value* KernelDef::NewValue(std::string name, Type type, Location loc, Value::Kind kind) {
  auto v = std::make_unique<Value>();
  v->name = std::move(name);
  v->type = std::move(type);
  v->loc = loc;
  v->kind = kind;
  values.push_back(std::move(v));
  return values.back().get();
}

const Value* ViewRoot(const Value* v) {
  while (v != nullptr && v->def != nullptr && v->def->info().family == OpFamily::kView) v = v->def->operands[0].value;
  return v;
}

const KernelDef* Module::FindKernel(std::string_view name) const {
  for (const auto& k : kernels) {
    if (k->name == name) return k.get();
  }
  return nullptr;
}

}  // namespace scjit
