/* The C ABI between jitted kernels and the scjit runtime.
 *
 * Every function a compiled kernel calls is declared here, and every struct it
 * reads or fills. Two tables list them for C++: runtime/abi.def (each function
 * with its C signature) and runtime/abi_fields.def (each struct member, in
 * order). The emitter (lowering/emit/runtime_abi.cc) derives its LLVM function
 * and struct types from them and checks at compile time that they match these
 * declarations; the JIT resolves the functions by name, so compiled objects hold
 * no addresses and can be cached.
 *
 * NO COMPATIBILITY PROMISE: this ABI changes with scjit; objects compiled by one
 * build run only with the same build (the object cache key includes the version).
 *
 * Conventions:
 * - Functions return 0 on success. A non-zero status means the subcore must stop:
 *   a finding was reported (RT-BOUNDS...), or the launch was cancelled (a
 *   deadlock, another subcore's finding). Generated code returns that status from
 *   the kernel immediately.
 * - `ctx` is the calling subcore's context; every function is called only from
 *   the fiber running that subcore. Functions that block (barrier, waits) switch
 *   fibers inside the call and return when the subcore may go on.
 * - `site` numbers the op in the kernel's site table (LaunchLayout::sites), for
 *   messages that name the op and its source line.
 */
#ifndef SCJIT_RUNTIME_ABI_H_
#define SCJIT_RUNTIME_ABI_H_

#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define SCJIT_MAX_RANK 8

/* One subcore's view of the machine, filled by the runtime before the kernel
 * starts; the kernel reads it and never writes it (but `tick`). */
typedef struct scjit_ctx {
  uint8_t* vmem;         /* this subcore's VMEM arena (null on scalar meshes) */
  uint8_t* smem;         /* this subcore's SMEM arena */
  uint8_t* vmem_shared;  /* this core's VMEM_SHARED arena */
  uint8_t** hbm;         /* HBM address of each kernel parameter (null for staged ones) */
  int32_t core;          /* this subcore's coordinates and the mesh's size */
  int32_t subcore;
  int32_t num_cores;
  int32_t num_subcores;
  int32_t device;        /* this subcore's chip: its logical id in the kernel's device mesh */
  int32_t num_devices;   /* the chips of the launch (1 without a device mesh) */
  int32_t tick;          /* loop back-edges left before calling scjit_rt_tick */
  int32_t checks;        /* bit set of SCJIT_CHECK_*: which run-time checks are on */
  void* runtime;         /* the runtime's subcore object (opaque to the kernel) */
  int64_t shadow_delta;  /* code compiled with init or race checks: the state byte of
                            arena byte p is at p + shadow_delta (SCJIT_SHADOW_*) */
  const void* program;   /* the part's program when the kernel is interpreted (the
                            interpreter's entry point reads it; JIT code ignores it) */
} scjit_ctx;

#define SCJIT_CHECK_BOUNDS 1
#define SCJIT_CHECK_SORT_SIGN 2  /* `sort` warns about negative signed keys (RT-SORT-SIGN) */

/* The state of one byte of VMEM or SMEM, for RT-INIT and RT-RACE.
 *
 * Init (value-precise, as MemorySanitizer): WRITTEN when the byte holds a
 * value; COMPUTED (without WRITTEN) when it holds a value the kernel computed
 * from bytes nothing had written (its origin is the runtime's); neither when
 * nothing has written it. Code compiled with the init check loads these bits
 * with every load, into the value's shadow, and a store sets them from the
 * stored value's shadow (stores and DMAs carry them; only uses that decide
 * something are findings: scjit_rt_unwritten_use).
 *
 * Race: a kernel's load requires neither DMA_WRITES nor DMA_ADDS; a store
 * requires none of the DMA_* bits. The runtime keeps the DMA_* bits while a
 * DMA that reads, writes or adds into the byte has started and not been
 * retired by a wait. */
#define SCJIT_SHADOW_WRITTEN 1
#define SCJIT_SHADOW_DMA_READS 2
#define SCJIT_SHADOW_DMA_WRITES 4
#define SCJIT_SHADOW_DMA_ADDS 8
/* An SMEM word other subcores may fetch_and_add (the race check watches it):
 * every load and store of it goes to scjit_rt_access_fault, which orders it
 * against those fetch_and_adds. */
#define SCJIT_SHADOW_WATCHED 16
#define SCJIT_SHADOW_COMPUTED 32
#define SCJIT_SHADOW_INIT_BITS (SCJIT_SHADOW_WRITTEN | SCJIT_SHADOW_COMPUTED)
#define SCJIT_SHADOW_READ_MASK (SCJIT_SHADOW_DMA_WRITES | SCJIT_SHADOW_DMA_ADDS | SCJIT_SHADOW_WATCHED)
#define SCJIT_SHADOW_WRITE_MASK \
  (SCJIT_SHADOW_DMA_READS | SCJIT_SHADOW_DMA_WRITES | SCJIT_SHADOW_DMA_ADDS | SCJIT_SHADOW_WATCHED)

/* A value's origin (init check): 0 when every byte of it is written, else the
 * runtime's record of where its unwritten bytes were read (low 31 bits), with
 * SCJIT_ORIGIN_COMPUTED set once the kernel computed with them (rather than
 * only copying them). */
#define SCJIT_ORIGIN_COMPUTED ((int32_t)0x80000000u)

/* A strided view of memory: element i (multi-index) lives at
 * base + sum(index[d] * strides[d]) * element size. */
typedef struct scjit_ref {
  uint8_t* base;
  int64_t sizes[SCJIT_MAX_RANK];
  int64_t strides[SCJIT_MAX_RANK]; /* in elements */
  int32_t rank;
  int32_t space;                   /* a MemorySpace, for messages */
} scjit_ref;

/* A DMA: copy (or add) `src` into `dst` element by element, both of `elem_bytes`
 * wide elements of type `dtype` (an ElementType), crediting semaphore `sem` of
 * this subcore on completion: a DMA semaphore with the bytes of the transfer's
 * shape, a regular one with 1 (sc-semantics.md §4.3, §4.6).
 *
 * Indirect DMAs (kernel-ir.md §4.2 `idx(...)`, sc-semantics.md §4.4): when
 * `indexed` is SCJIT_DMA_GATHER the source is indexed, when SCJIT_DMA_SCATTER
 * the destination. The indexed side's dimension 0 is then the whole dimension
 * the list addresses (sizes[0] rows, strides[0] apart), and the transfer's
 * shape is (index_count, sizes[1:]) of that side: row i of the other side
 * moves from / to row indices[i * index_stride]. Entries equal to `ignore`
 * (when `has_ignore`) are skipped, but the semaphore is still credited with the
 * full shape (runtime.md §7.7). Entries outside [0, sizes[0]) are RT-BOUNDS
 * when checks are on and never touch memory. `list_in_vmem`: the list is a VMEM
 * ref of this subcore (the runtime checks it lies there); 0: a vector value the
 * kernel stored in its own frame. `dma_start` copies the list: the DMA uses the
 * indices as they were at the start, whenever it moves its rows.
 * With `add`, rows add into the destination (gather-add into VMEM, scatter-add
 * into HBM/VMEM_SHARED), duplicates accumulating in list order; a plain
 * scatter's duplicate rows take the last entry's row (runtime.md §7.6). */
#define SCJIT_DMA_PLAIN 0
#define SCJIT_DMA_GATHER 1
#define SCJIT_DMA_SCATTER 2
#define SCJIT_SEM_BYTES 0   /* `sem_unit`: a DMA semaphore counts bytes */
#define SCJIT_SEM_ONE 1     /* a regular semaphore counts completed DMAs */
typedef struct scjit_dma {
  scjit_ref src;
  scjit_ref dst;
  int32_t elem_bytes;
  int32_t dtype;
  int32_t sem;       /* index into this subcore's semaphores; -1 for copy */
  int32_t add;       /* 1: dst += src */
  int32_t sem_unit;  /* SCJIT_SEM_BYTES or SCJIT_SEM_ONE */
  int32_t indexed;   /* SCJIT_DMA_PLAIN, _GATHER or _SCATTER */
  const int32_t* indices;
  int64_t index_count;
  int64_t index_stride;  /* in elements */
  int32_t list_in_vmem;
  int32_t has_ignore;
  int32_t ignore;
  /* A remote copy (make_async_remote_copy): `device` is the logical id of the
   * chip whose memory `dst` names (the same buffer there: the same parameter,
   * or the same VMEM_SHARED scratch of this core), and `send_sem` the semaphore
   * of this subcore credited with the bytes read; `sem` is the receive
   * semaphore of this subcore's counterpart on that chip. A local copy has
   * device -1, and send_sem -1 unless it is a push stream with a source
   * semaphore (JAX 0.12's `src_sem`: credited when the source has been read). */
  int32_t send_sem;
  int32_t device;
  /* An add through a view_bitcast that widened the destination: each
   * element (of type `dtype`) is this many units of `elem_bytes` along the
   * innermost dimension, lowest first (the units lie a row apart in memory).
   * 0 otherwise. */
  int32_t add_pieces;
} scjit_dma;

/* Loop back-edges call this every SCJIT_TICK_PERIOD iterations, so that a
 * subcore spinning on memory lets the others (and deferred effects) progress;
 * `site` is the loop's (an RT-TIMEOUT names it). */
#define SCJIT_TICK_PERIOD 4096
int32_t scjit_rt_tick(scjit_ctx* ctx, int32_t site);

/* Starts an asynchronous DMA (`dma_start`). The descriptor is copied. */
int32_t scjit_rt_dma_start(scjit_ctx* ctx, const scjit_dma* dma, int32_t site);
/* Waits until `dma->sem` holds the descriptor's credit (the byte size of its
 * shape, or 1 on a regular semaphore), then subtracts it; first the same of
 * `dma->send_sem` when it is set (Pallas' `.wait()`: wait_send or wait_read,
 * then wait_recv / wait_write). */
int32_t scjit_rt_dma_wait(scjit_ctx* ctx, const scjit_dma* dma, int32_t site);
/* A synchronous copy (`copy`): start and wait on an internal semaphore. */
int32_t scjit_rt_copy(scjit_ctx* ctx, const scjit_dma* dma, int32_t site);

/* Adds `n` to semaphore `sem` of subcore (`core`, `subcore`) of part `part` of
 * chip `device` (a logical id); -1 means "mine" for each, except that the
 * subcore of another part defaults to 0 when that part's mesh is scalar, and
 * to this subcore's own when it is vector. */
int32_t scjit_rt_sem_signal(scjit_ctx* ctx, int32_t sem, int32_t n, int32_t core, int32_t subcore,
                            int32_t device, int32_t part, int32_t site);
/* Waits until semaphore `sem` of this subcore holds `n`, then subtracts `n`. */
int32_t scjit_rt_sem_wait(scjit_ctx* ctx, int32_t sem, int32_t n, int32_t site);
/* Stores the value of semaphore `sem` of this subcore in *value. */
int32_t scjit_rt_sem_read(scjit_ctx* ctx, int32_t sem, int32_t site, int32_t* value);

/* Waits for every subcore of this core (`barrier`). */
int32_t scjit_rt_barrier(scjit_ctx* ctx, int32_t site);

/* Atomically adds `value` to the i32 at byte `offset` of subcore `subcore`'s SMEM
 * (same core) and stores the old value in *old. */
int32_t scjit_rt_fetch_and_add(scjit_ctx* ctx, int64_t offset, int32_t value, int32_t subcore,
                               int32_t site, int32_t* old);

/* `debug_print`: the site's format string, then one value or ref, if any.
 * `kind` is SCJIT_PRINT_*: NONE (no value), SCALAR/VECTOR (`data` points to the
 * elements, `dtype` and `count` describe them), REF (`ref` describes it), SEMS
 * (semaphores: `ref` gives the shape and strides, its base is null, and `count`
 * is the index of the first semaphore). */
#define SCJIT_PRINT_NONE 0
#define SCJIT_PRINT_VALUE 1
#define SCJIT_PRINT_REF 2
#define SCJIT_PRINT_SEMS 3
int32_t scjit_rt_debug_print(scjit_ctx* ctx, int32_t site, int32_t kind, int32_t dtype,
                             const void* data, int64_t count, const scjit_ref* ref);

/* `debug_check` found its condition false: records the finding RT-CHECK with the
 * site's message and returns non-zero (always: the subcore stops, whatever the
 * checks, as a failed assert stops a TPU). */
int32_t scjit_rt_check_failed(scjit_ctx* ctx, int32_t site);

/* Reports an index outside its dimension, and returns non-zero unless findings
 * are warnings (then the generated code goes on with the index clamped).
 * `what` is SCJIT_BOUNDS_*: an integer index (not within [0, limit)), a slice
 * start (not within [0, limit)), a dynamic slice size (not within [0, limit)),
 * lane `what >> 8` of a gather's or scatter's index vector (not within
 * [0, limit)), a slice bound in a dimension a view packs in groups of `limit`
 * (not a multiple of it), or a device id's coordinate on device axis `dim`, or
 * with dim -1 a logical device id (not within [0, limit)). */
#define SCJIT_BOUNDS_INDEX 0
#define SCJIT_BOUNDS_SLICE_START 1
#define SCJIT_BOUNDS_SLICE_SIZE 2
#define SCJIT_BOUNDS_LANE 3
#define SCJIT_BOUNDS_ALIGN 4
#define SCJIT_BOUNDS_DEVICE 5
int32_t scjit_rt_bounds_error(scjit_ctx* ctx, int32_t site, int32_t what, int32_t dim, int64_t index,
                              int64_t limit);

/* Reports a warning finding at `site` (once per site and launch); the kernel
 * goes on. `what` is SCJIT_WARN_*: a `sort` of signed integer keys met a
 * negative key, which the hardware orders after the non-negative ones. */
#define SCJIT_WARN_SORT_SIGN 0
int32_t scjit_rt_warning(scjit_ctx* ctx, int32_t site, int32_t what);

/* Entering a `scoped` region's `alloc`, or a pipeline block taking new data:
 * fills `count` elements of `dtype` at `data` with the poison pattern (data
 * refs; `arg` is SCJIT_POISON_*), or zeroes `count` semaphores from index `arg`
 * (semaphore refs; `data` is null). */
#define SCJIT_POISON_UNWRITTEN 0  /* nothing has written the bytes (RT-INIT on a read) */
#define SCJIT_POISON_PADDING 1    /* a block's padding: poison the kernel may read */
int32_t scjit_rt_alloc(scjit_ctx* ctx, void* data, int64_t count, int32_t dtype, int32_t arg);

/* An access of the kernel to `bytes` bytes of VMEM or SMEM at `addr` found a
 * state byte it does not allow (SCJIT_SHADOW_*): reports RT-INIT or RT-RACE and
 * returns non-zero unless findings are warnings. `write`: the access stores. */
int32_t scjit_rt_access_fault(scjit_ctx* ctx, int32_t site, int32_t write, const void* addr, int64_t bytes);
/* Checks an access of `bytes` bytes at `addr` (a bulk copy of generated code)
 * like the inline race checks. */
int32_t scjit_rt_access_check(scjit_ctx* ctx, int32_t site, int32_t write, const void* addr, int64_t bytes);

/* Init check. A load at `site` read the byte at `addr`, whose state lacks
 * WRITTEN (the first such byte of the load): stores in *origin the origin of
 * the loaded value (SCJIT_ORIGIN_COMPUTED set when the byte holds a computed
 * value), made now when nothing had written it. A load of evenly spaced lanes
 * gives its lane 0's address `lane0` and their spacing `lane_bytes` (else null
 * and 0), for scjit_rt_lane_origin. */
int32_t scjit_rt_unwritten_read(scjit_ctx* ctx, int32_t site, const void* addr, const void* lane0, int64_t lane_bytes,
                                int32_t* origin);
/* An element `lane` extracted from the value a load gave, of origin `origin`,
 * holds bits nothing has written: stores in *out the origin naming that
 * lane's element (the load's record of it), or `origin` when the load's lanes
 * are not known or the value was computed. */
int32_t scjit_rt_lane_origin(scjit_ctx* ctx, int32_t origin, int64_t lane, int32_t* out);
/* The kernel stored a value of origin `origin` (computed from unwritten bytes)
 * over the `bytes` bytes at `addr`: those of them whose state is COMPUTED keep
 * that origin. */
int32_t scjit_rt_stored_origin(scjit_ctx* ctx, int32_t origin, const void* addr, int64_t bytes);
/* A value of origin `origin`, not written in full, decides something at `site`
 * (an index, a branch, a size...: the site's text names it): RT-INIT; returns
 * non-zero unless findings are warnings. */
int32_t scjit_rt_unwritten_use(scjit_ctx* ctx, int32_t site, int32_t origin);

/* 8-bit floats (lowering/base/float8.h): the generated code converts them to and
 * from f32 through these, `n` elements at a time; `dtype` is the 8-bit type (an
 * ElementType). They return 0. */
int32_t scjit_rt_f8_to_f32(const uint8_t* in, float* out, int64_t n, int32_t dtype);
int32_t scjit_rt_f32_to_f8(const float* in, uint8_t* out, int64_t n, int32_t dtype);

#ifdef __cplusplus
}  /* extern "C" */
#endif

#endif  /* SCJIT_RUNTIME_ABI_H_ */
