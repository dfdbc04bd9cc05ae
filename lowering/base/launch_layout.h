// LaunchLayout: everything the runtime needs to launch a compiled kernel besides
// its code, as plain data — the mesh, where each parameter lives, how large each
// subcore's arenas are, what is filled with poison at the start, and the site
// table that names ops in findings. The compiler makes it (lowering/analysis/
// kernel_info.h); the runtime reads it and knows nothing of the IR; the disk
// cache stores it beside the object code (Serialize / Deserialize).
#ifndef SCJIT_LOWERING_BASE_LAUNCH_LAYOUT_H_
#define SCJIT_LOWERING_BASE_LAUNCH_LAYOUT_H_

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "absl/status/statusor.h"
#include "lowering/base/diagnostic.h"
#include "lowering/base/dtype.h"
#include "lowering/base/shape.h"
#include "lowering/base/spaces.h"
#include "lowering/base/target.h"
#include "scjit/diagnostic.h"
#include "scjit/types.h"

namespace scjit {

// Byte alignment of every arena slot (a cache line; also AVX-512 vector width).
inline constexpr int64_t kSlotAlign = 64;

// One kernel parameter: its declaration and where its bytes live.
struct ParamLayout {
  std::string name;  // without '%'
  ParamDirection direction = ParamDirection::kIn;
  // A semaphore ref: its buffer holds one int32 count per semaphore, and
  // `offset` is the index of its first semaphore (each subcore has its own).
  bool semaphore = false;
  ElementType dtype = ElementType::kI32;
  Shape shape;
  MemorySpace space = MemorySpace::kHbm;
  std::string type_text;  // "hbm<4096x128xi32>", for messages
  // Staged parameters (vmem, smem, vmem_shared): their offset in each copy of
  // their arena; HBM ones are used in place (ctx->hbm[position]).
  int64_t offset = 0;
  // Integer parameters whose values the kernel uses as indices: the smallest
  // dimension they index and its ref (lowering/analysis/index_bounds.h).
  std::optional<int64_t> index_bound;
  std::string indexed_ref;  // without '%'
  // An `out` parameter in HBM (or host memory) the kernel only writes, as the
  // destination of plain DMAs: nothing reads it, so its poison fill can wait
  // for the end of a launch (runtime/poison.h).
  bool write_only = false;
  // An `in` parameter in HBM (or host memory) nothing the kernel does writes:
  // its bytes are all written and never change, so a DMA reading them can
  // neither race nor read unwritten bytes (the checks skip them).
  bool read_only = false;

  bool staged() const { return !semaphore && !OffCore(space); }
  int64_t num_elements() const;
  int64_t bytes() const { return num_elements() * ByteWidth(dtype); }
};

// A region of an arena filled with the poison pattern when a launch starts.
struct PoisonRange {
  MemorySpace space = MemorySpace::kVmem;
  int64_t offset = 0;
  int64_t count = 0;  // elements
  ElementType element = ElementType::kI32;
};

// A named buffer in an arena (a staged parameter, scratch, an alloc, a
// pipeline's block buffers), so that findings can name "%buf[3, 5]" rather
// than a byte offset. Scoped allocs of sibling regions may share bytes: the
// first buffer holding an address names it.
struct ArenaBuffer {
  std::string name;  // with '%'
  MemorySpace space = MemorySpace::kVmem;
  int64_t offset = 0;
  ElementType element = ElementType::kI32;
  Shape shape;
  int copies = 1;  // consecutive copies (a pipeline's buffers)
  // An SMEM buffer fetch_and_add targets: the race check orders other subcores'
  // fetch_and_adds against the plain accesses of its owner (SCJIT_SHADOW_WATCHED).
  bool fetch_and_add = false;
};

// An op that calls into the runtime, for findings ("barrier at k.scir:12:3").
struct Site {
  std::string op;           // the op's name: "dma_start"
  Location loc;             // the op, or the operand the site is about
  std::string source_line;  // the text of loc.line
  std::string text;         // the operand(s) as written, or debug_print's format
  std::string file;         // the file of loc: "" for the kernel's (LaunchLayout::file); a
                            // generated kernel's ops are at their origin (origins.h)
};

struct LaunchLayout {
  std::string kernel;  // without '@'
  std::string file;    // the source file's name, for messages
  TargetId target = kDefaultTarget;
  MeshKind mesh = MeshKind::kVector;
  int cores = 1;
  int subcores = 1;  // per core; 1 on a scalar mesh
  int lanes = 16;
  // The kernel's device mesh (`devices(y = 2, x = 4)`): axis names and sizes,
  // major first; empty for one device. Every device runs every part, and each
  // parameter has one buffer per device (a leading device axis).
  std::vector<std::string> device_axes;
  Shape device_shape;

  std::vector<ParamLayout> params;
  int64_t vmem_bytes = 0;         // per subcore
  int64_t smem_bytes = 0;         // per subcore
  int64_t vmem_shared_bytes = 0;  // per core
  int semaphores = 0;             // per subcore
  std::vector<std::string> semaphore_names;  // "%sems[1, 2]", by index
  std::vector<PoisonRange> poison;
  std::vector<ArenaBuffer> buffers;
  std::vector<Site> sites;
  // The kernel function's stack frame (its allocas, large values included): the
  // runtime sizes subcore stacks from it.
  int64_t frame_bytes = 0;
  // The code tests the state byte of each VMEM/SMEM access (compiled with init
  // or race checks): the runtime must give it state bytes (scjit_ctx::shadow_delta).
  bool access_checks = false;
  // The code carries the init state of its values (compiled with the init
  // check): without it, a launch runs no init check.
  bool init_shadows = false;
  std::string entry;  // the kernel function's symbol
  // A kernel of several parts (MPMD): this layout is its first part's, and each
  // further part has a layout of its own here (the same kernel, file, target
  // and parameters; its own mesh, arenas, semaphores, sites and entry). All
  // parts run in one launch.
  std::vector<LaunchLayout> more_parts;

  int subcores_total() const { return cores * subcores; }
  // The devices of a launch (the product of device_shape).
  int devices() const;
  // Every part's layout, this one first.
  std::vector<const LaunchLayout*> Parts() const;
  // "barrier at k.scir:12:3".
  std::string Describe(int site) const;
  // "k.scir:12:3": where a site is.
  std::string Where(int site) const;
  // "%buf[3, 5]" for byte `offset` of a `space` arena, or "byte N of VMEM"
  // when no buffer holds it.
  std::string DescribeByte(MemorySpace space, int64_t offset) const;
  // A diagnostic located at `site` (none for -1).
  Diagnostic SiteDiagnostic(DiagId id, int site, std::initializer_list<DiagArg> args) const;
};

// The bytes of `layout`, and back. Deserialize fails (DataLoss) on any input
// Serialize did not make, whatever its bytes.
std::string Serialize(const LaunchLayout& layout);
absl::StatusOr<LaunchLayout> Deserialize(std::string_view bytes);

}  // namespace scjit

#endif  // SCJIT_LOWERING_BASE_LAUNCH_LAYOUT_H_
