// The init check's state of values (runtime.md, "Init check"), as the emitter's
// emit_shadows.cc carries it: each value's shadow and origin, made by loads from
// the state bytes of memory and written back by stores, and the uses that
// decide something, where an unwritten value is RT-INIT. The rules of the ops
// that compute with shadows are in the ops' own files.
#include "jit/interp/program.h"
#include "lowering/analysis/decisions.h"

namespace scjit::interp {

void Val::set_shadow(int64_t i, Bits s) {
  if (s == 0 && shadow.empty()) return;
  if (shadow.empty()) shadow.assign(bytes.size(), 0);
  StoreBits(shadow.data() + i * width(), width(), s);
}

void Val::Settle(int32_t with_origin) {
  bool any = false;
  for (uint8_t b : shadow) any = any || b != 0;
  if (!any) shadow.clear();
  origin = shadow.empty() ? 0 : with_origin;
}

int32_t Exec::Require(const Val& v, int site, const Val* on) {
  if (v.written()) return 0;
  for (int64_t i = 0; i < v.count(); ++i) {
    if (on != nullptr && (on->at(i) & 1) == 0) continue;
    if (v.shadow_at(i) != 0) return scjit_rt_unwritten_use(ctx, site, v.origin);
  }
  return 0;
}

int32_t Exec::RequireUses(const Op& op) {
  if (!shadows()) return 0;
  int32_t status = 0;
  std::optional<Val> mask;
  ForEachUse(op, *program.kernel, [&](const Operand& o, Use use) {
    if (status != 0) return;
    int site = program.SitesOf(op).uses.at(&o);
    // A gather's or scatter's lane indices decide only in the lanes it uses.
    if (use == Use::kLaneIndex && op.mask) {
      if (!mask) mask = Get(*op.mask);
      status = Require(Get(o), site, &*mask);
      return;
    }
    status = Require(Get(o), site);
  });
  return status;
}

int32_t Exec::RequireOperand(const Op& op, const Operand& value) {
  if (!shadows() || value.is_literal() || value.value == nullptr || value.value->type.is_memory()) return 0;
  return Require(Get(value), program.SitesOf(op).uses.at(&value));
}

void Builder::UseSite(const Op& op, const Operand& value, Use use) {
  if (!program.options.init_shadows || value.is_literal()) return;
  SitesOf(op).uses[&value] = Site(op, UseText(op, value, use), value.loc);
}

void Builder::UseSites(const Op& op) {
  ForEachUse(op, kernel, [&](const Operand& o, Use use) { UseSite(op, o, use); });
  if (op.kind == OpKind::kWhile) UseSite(op, op.regions[0]->ops.back()->operands[0], Use::kCondition);
}

int32_t Exec::LoadShadow(Val* v, const std::vector<int64_t>& elements, const std::vector<uint8_t*>& bytes_of,
                         int site, const uint8_t* lane0, int64_t lane_bytes) {
  if (!shadows()) return 0;
  int w = v->width();
  const uint8_t* unwritten = nullptr;  // its first unwritten byte
  for (size_t j = 0; j < bytes_of.size(); ++j) {
    if ((bytes_of[j][ctx->shadow_delta] & SCJIT_SHADOW_WRITTEN) != 0) continue;
    if (unwritten == nullptr) unwritten = bytes_of[j];
    int64_t i = elements[j / static_cast<size_t>(w)];
    v->set_shadow(i, v->shadow_at(i) | (Bits{0xFF} << (8 * (static_cast<int64_t>(j) % w))));
  }
  if (unwritten == nullptr) return 0;
  int32_t origin = 0;
  if (int32_t s = scjit_rt_unwritten_read(ctx, site, unwritten, lane0, lane_bytes, &origin); s != 0) return s;
  if (v->origin == 0) v->origin = origin;
  return 0;
}

int32_t Exec::StoreShadow(const Val& v, const std::vector<int64_t>& elements, const std::vector<uint8_t*>& bytes_of) {
  if (!shadows() || bytes_of.empty()) return 0;
  int w = v.width();
  bool computed = (v.origin & SCJIT_ORIGIN_COMPUTED) != 0;
  uint8_t undefined = computed ? SCJIT_SHADOW_COMPUTED : 0;
  bool any = false;
  for (size_t j = 0; j < bytes_of.size(); ++j) {
    int64_t i = elements[j / static_cast<size_t>(w)];
    bool bad = ((v.shadow_at(i) >> (8 * (static_cast<int64_t>(j) % w))) & 0xFF) != 0;
    uint8_t& state = bytes_of[j][ctx->shadow_delta];
    state = static_cast<uint8_t>((state & ~SCJIT_SHADOW_INIT_BITS) | (bad ? undefined : SCJIT_SHADOW_WRITTEN));
    any = any || bad;
  }
  if (!any || !computed) return 0;
  // The bytes from the first stored to the last (the emitter's StoreShadow).
  const uint8_t* lo = std::min(bytes_of.front(), bytes_of.back());
  const uint8_t* hi = std::max(bytes_of.front(), bytes_of.back());
  return scjit_rt_stored_origin(ctx, v.origin, lo, hi - lo + 1);
}

std::vector<int64_t> FirstElements(int64_t n) {
  std::vector<int64_t> out(static_cast<size_t>(n));
  for (int64_t i = 0; i < n; ++i) out[i] = i;
  return out;
}

}  // namespace scjit::interp
