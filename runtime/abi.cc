// The runtime's side of the C ABI (runtime/abi.h): each function forwards to
// the calling Subcore, which the context carries.
#include "runtime/abi.h"

#include "lowering/base/float8.h"
#include "runtime/machine.h"

namespace {
scjit::Subcore& Self(scjit_ctx* ctx) { return *static_cast<scjit::Subcore*>(ctx->runtime); }
}  // namespace

extern "C" {

int32_t scjit_rt_tick(scjit_ctx* ctx, int32_t site) { return Self(ctx).Tick(site); }

int32_t scjit_rt_dma_start(scjit_ctx* ctx, const scjit_dma* dma, int32_t site) { return Self(ctx).DmaStart(*dma, site); }

int32_t scjit_rt_dma_wait(scjit_ctx* ctx, const scjit_dma* dma, int32_t site) { return Self(ctx).DmaWait(*dma, site); }

int32_t scjit_rt_copy(scjit_ctx* ctx, const scjit_dma* dma, int32_t site) { return Self(ctx).Copy(*dma, site); }

int32_t scjit_rt_sem_signal(scjit_ctx* ctx, int32_t sem, int32_t n, int32_t core, int32_t subcore, int32_t device,
                            int32_t part, int32_t site) {
  return Self(ctx).SemSignal(sem, n, core, subcore, device, part, site);
}

int32_t scjit_rt_sem_wait(scjit_ctx* ctx, int32_t sem, int32_t n, int32_t site) {
  return Self(ctx).SemWait(sem, n, site);
}

int32_t scjit_rt_sem_read(scjit_ctx* ctx, int32_t sem, int32_t site, int32_t* value) {
  return Self(ctx).SemRead(sem, site, value);
}

int32_t scjit_rt_barrier(scjit_ctx* ctx, int32_t site) { return Self(ctx).Barrier(site); }

int32_t scjit_rt_fetch_and_add(scjit_ctx* ctx, int64_t offset, int32_t value, int32_t subcore, int32_t site,
                               int32_t* old) {
  return Self(ctx).FetchAndAdd(offset, value, subcore, site, old);
}

int32_t scjit_rt_debug_print(scjit_ctx* ctx, int32_t site, int32_t kind, int32_t dtype, const void* data,
                             int64_t count, const scjit_ref* ref) {
  return Self(ctx).DebugPrint(site, kind, dtype, data, count, ref);
}

int32_t scjit_rt_check_failed(scjit_ctx* ctx, int32_t site) { return Self(ctx).CheckFailed(site); }

int32_t scjit_rt_bounds_error(scjit_ctx* ctx, int32_t site, int32_t what, int32_t dim, int64_t index, int64_t limit) {
  return Self(ctx).BoundsError(site, what, dim, index, limit);
}

int32_t scjit_rt_warning(scjit_ctx* ctx, int32_t site, int32_t what) { return Self(ctx).Warning(site, what); }

int32_t scjit_rt_access_fault(scjit_ctx* ctx, int32_t site, int32_t write, const void* addr, int64_t bytes) {
  return Self(ctx).AccessFault(site, write != 0, static_cast<const uint8_t*>(addr), bytes);
}

int32_t scjit_rt_access_check(scjit_ctx* ctx, int32_t site, int32_t write, const void* addr, int64_t bytes) {
  return Self(ctx).AccessCheck(site, write != 0, static_cast<const uint8_t*>(addr), bytes);
}

int32_t scjit_rt_unwritten_read(scjit_ctx* ctx, int32_t site, const void* addr, const void* lane0, int64_t lane_bytes,
                                int32_t* origin) {
  return Self(ctx).UnwrittenRead(site, static_cast<const uint8_t*>(addr), static_cast<const uint8_t*>(lane0),
                                 lane_bytes, origin);
}

int32_t scjit_rt_lane_origin(scjit_ctx* ctx, int32_t origin, int64_t lane, int32_t* out) {
  return Self(ctx).LaneOrigin(origin, lane, out);
}

int32_t scjit_rt_stored_origin(scjit_ctx* ctx, int32_t origin, const void* addr, int64_t bytes) {
  return Self(ctx).StoredOrigin(origin, static_cast<const uint8_t*>(addr), bytes);
}

int32_t scjit_rt_unwritten_use(scjit_ctx* ctx, int32_t site, int32_t origin) {
  return Self(ctx).UnwrittenUse(site, origin);
}

int32_t scjit_rt_alloc(scjit_ctx* ctx, void* data, int64_t count, int32_t dtype, int32_t first_sem) {
  return Self(ctx).Alloc(data, count, dtype, first_sem);
}

int32_t scjit_rt_f8_to_f32(const uint8_t* in, float* out, int64_t n, int32_t dtype) {
  for (int64_t i = 0; i < n; ++i) out[i] = scjit::Float8ToFloat(in[i], static_cast<scjit::ElementType>(dtype));
  return 0;
}

int32_t scjit_rt_f32_to_f8(const float* in, uint8_t* out, int64_t n, int32_t dtype) {
  for (int64_t i = 0; i < n; ++i) out[i] = scjit::FloatToFloat8(in[i], static_cast<scjit::ElementType>(dtype));
  return 0;
}

}  // extern "C"
