// `pipeline` (Pallas' emit_pipeline) on both lane counts, in both DMA modes at 1
// and 2 threads, against references written here from kernel-ir.md §4.6 and
// sc-semantics.md §5:
//   - the grid runs in row-major order; with partition(...) the workers (numbered
//     row-major over the named axes, in the order written) split it: the first
//     PARALLEL dimension whose static size the worker count divides goes in equal
//     contiguous chunks; else the only run-time-sized PARALLEL dimension if no
//     PARALLEL dimension is static, else the first largest static one, split as
//     divmod: the first `rem` workers get one point more. Without partition every
//     subcore runs the whole grid;
//   - program_id / num_programs in a body are the global index and the full size;
//   - an input block is copied in when its index changes; an output block is
//     written back when the next point's index differs and after the last point,
//     so consecutive points accumulate into it; a new output window holds the
//     poison pattern (runtime.md §7.9); writes to an input block persist while its
//     index stays;
//   - whole-array blocks are copied in once before the first point and out once
//     after the last; blocks in hbm (or the source's own space) are windows of the
//     source; squeezed dimensions drop out of the block; a ragged last block stops
//     at the array's end; a block index out of range is RT-BOUNDS at the map;
//   - an indirect(N) block moves at every point: an input gathers the rows its
//     idx(...) list names before the body (ignored entries leave poison rows), an
//     output starts as the poison pattern and scatters its rows after the body
//     (ignored entries skipped, duplicates: the later one wins); an hbm one is the
//     source indexed by its list (copies from it gather, into it scatter).
#include <gtest/gtest.h>

#include <bit>
#include <cstdint>
#include <cstring>
#include <functional>
#include <map>
#include <random>
#include <string>
#include <vector>

#include "tests/kernel_runner.h"

namespace scjit::testing {
namespace {

struct Target {
  const char* id;
  int lanes;
  const char* name;
};
const Target kTargets[] = {{"v7x", 16, "v7x"}, {"v5p", 8, "v5p"}};

struct Mode {
  DmaMode dma;
  int threads;
};
const Mode kModes[] = {{DmaMode::kEager, 1}, {DmaMode::kEager, 2}, {DmaMode::kOnWait, 1}, {DmaMode::kOnWait, 2}};

constexpr uint32_t kPoison = 0xBEBEBEBEu;

using KernelRun = Run;  // `Run` is also a member of every TEST's fixture

CompileOptions On(const Target& t) {
  CompileOptions o;
  o.target = t.id;
  return o;
}

// `text` with every ${NAME} replaced by vars[NAME].
std::string Fill(std::string text, const std::map<std::string, std::string>& vars) {
  for (const auto& [name, value] : vars) {
    std::string key = "${" + name + "}";
    for (size_t at = text.find(key); at != std::string::npos; at = text.find(key, at + value.size())) {
      text.replace(at, key.size(), value);
    }
  }
  return text;
}

std::vector<uint32_t> Random(size_t n, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<uint32_t> v(n);
  for (uint32_t& x : v) x = rng();
  return v;
}

// n row ids in [0, rows), fixed-seed random.
std::vector<int32_t> Ids(size_t n, uint32_t rows, uint32_t seed) {
  std::mt19937 rng(seed);
  std::vector<int32_t> ids(n);
  for (int32_t& id : ids) id = static_cast<int32_t>(rng() % rows);
  return ids;
}

// Body lines (${ACCUMULATE}) that add %xb into the output block %ov, starting
// from 0 when program_id 1 is 0 (%j).
const char* const kAccumulate = R"(%first = cmp eq %j, 0 : i1
    %acc = if %first : ${V} {
      %z = const dense<0> : ${V}
      yield %z
    } else {
      %a = get %ov[ds(0, ${L})] : ${V}
      yield %a
    }
    %s = add %acc, %xb : ${V}
    store %ov[ds(0, ${L})], %s)";

// Runs `text` on `t` in every DMA mode at 1 and 2 threads and calls `check` on
// each run, which must succeed. `checks`: a kernel that reads the poison of a
// new window on purpose runs without the init check.
void RunEveryMode(const std::string& text, const Target& t, const std::map<std::string, std::vector<uint8_t>>& inputs,
                  const std::function<void(const KernelRun&)>& check, Checks checks = Checks::All()) {
  for (const Mode& m : kModes) {
    SCOPED_TRACE(std::string(t.name) + (m.dma == DmaMode::kEager ? " eager" : " on_wait") + " threads " +
                 std::to_string(m.threads));
    LaunchOptions launch;
    launch.dma = m.dma;
    launch.threads = m.threads;
    CompileOptions compile = On(t);
    compile.checks = checks;
    KernelRun run = RunText(text, inputs, compile, launch);
    ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings() << "\n" << text;
    check(run);
  }
}

// --- Which worker runs which grid point ---------------------------------------------

struct SplitCase {
  const char* name;
  int cores, subcores;
  std::vector<std::string> axes;  // partition(...), in the order written
  std::vector<int64_t> grid;      // sizes at run time
  std::vector<bool> dynamic;      // the size is an i32 value read from SMEM
  std::vector<bool> parallel;     // dimension semantics
  bool spell_dims = false;        // write dims(...) even when every dim is parallel
  std::vector<int64_t> array;     // the output's grid extent (default: grid)
};

void PrintTo(const SplitCase& c, std::ostream* os) { *os << c.name; }

// The index range [lo, hi) of each grid dimension that worker w of `workers`
// runs, from sc-semantics.md §5.2.
std::vector<std::pair<int64_t, int64_t>> Ranges(const SplitCase& c, int64_t workers, int64_t w) {
  std::vector<std::pair<int64_t, int64_t>> r;
  for (int64_t n : c.grid) r.push_back({0, n});
  if (workers == 1) return r;
  int dim = -1;
  for (size_t d = 0; d < c.grid.size() && dim < 0; ++d) {
    if (c.parallel[d] && !c.dynamic[d] && c.grid[d] % workers == 0) dim = static_cast<int>(d);
  }
  if (dim >= 0) {
    int64_t part = c.grid[dim] / workers;
    r[dim] = {w * part, (w + 1) * part};
    return r;
  }
  std::vector<int> dynamic, fixed;
  for (size_t d = 0; d < c.grid.size(); ++d) {
    if (c.parallel[d]) (c.dynamic[d] ? dynamic : fixed).push_back(static_cast<int>(d));
  }
  if (!dynamic.empty() && fixed.empty()) {
    dim = dynamic[0];
  } else {
    for (int d : fixed) {
      if (dim < 0 || c.grid[d] > c.grid[dim]) dim = d;
    }
  }
  int64_t base = c.grid[dim] / workers, rem = c.grid[dim] % workers;
  int64_t lo = w < rem ? w * (base + 1) : w * base + rem;
  r[dim] = {lo, lo + (w < rem ? base + 1 : base)};
  return r;
}

std::string SplitKernel(const SplitCase& c, int lanes, int replicas) {
  int rank = static_cast<int>(c.grid.size());
  std::string shape, grid, vars, sq, body;
  for (int d = 0; d < rank; ++d) {
    std::string n = std::to_string(c.array.empty() ? c.grid[d] : c.array[d]);
    shape += n + "x";
    grid += std::string(d ? ", " : "") + (c.dynamic[d] ? "%n" + std::to_string(d) : std::to_string(c.grid[d]));
    vars += std::string(d ? ", " : "") + "%g" + std::to_string(d);
    sq += "squeezed, ";
    std::string ds = std::to_string(d);
    body += "    %p" + ds + " = program_id " + ds + " : i32\n    %q" + ds + " = num_programs " + ds + " : i32\n";
    body += "    %a" + ds + " = insert %p" + ds + ", " + (d ? "%b" + std::to_string(d - 1) : "%zero") + "[" +
            std::to_string(2 * d) + "] : ${V}\n";
    body += "    %b" + ds + " = insert %q" + ds + ", %a" + ds + "[" + std::to_string(2 * d + 1) + "] : ${V}\n";
  }
  std::string last = "%b" + std::to_string(rank - 1);
  body += "    %c0 = insert %core, " + last + "[" + std::to_string(2 * rank) + "] : ${V}\n";
  body += "    %v = insert %sub, %c0[" + std::to_string(2 * rank + 1) + "] : ${V}\n";
  std::string sizes;
  for (int d = 0; d < rank; ++d) {
    if (c.dynamic[d]) sizes += "  %n" + std::to_string(d) + " = get %sizes[" + std::to_string(d) + "] : i32\n";
  }
  bool core = false, sub = false;
  std::string part;
  for (const std::string& a : c.axes) {
    part += (part.empty() ? "" : ", ") + a;
    core = core || a == "core";
    sub = sub || a == "subcore";
  }
  if (!part.empty()) part = "partition(" + part + ")";
  // The replica a worker writes: its place along the axes that do not split the grid.
  std::string replica = !core && !sub ? "  %r0 = mul %core, ${S} : i32\n  %r = add %r0, %sub : i32\n"
                        : !core       ? "  %r = add %core, 0 : i32\n"
                        : !sub        ? "  %r = add %sub, 0 : i32\n"
                                      : "  %r = add %core, 0 : i32\n";
  std::string rentry = core && sub ? "0" : "%r";
  bool all = true, any = false;
  std::string dims;
  for (int d = 0; d < rank; ++d) {
    all = all && c.parallel[d];
    any = any || c.parallel[d];
    dims += std::string(d ? ", " : "") + (c.parallel[d] ? "parallel" : "arbitrary");
  }
  std::string sem = all && !c.spell_dims ? "parallel" : any ? "dims(" + dims + ")" : "";
  std::string text = R"(
kernel @split(in %sizes: smem<4xi32>, out %o: hbm<${R}x${SHAPE}${L}xi32>)
    mesh vector(cores = ${C}, subcores = ${S})
{
  %core = axis_index core : i32
  %sub = axis_index subcore : i32
${REPLICA}${SIZES}  %zero = const dense<0> : ${V}
  pipeline grid(${GRID}) ${PART} ${SEM}
      out(%o, block [squeezed, ${SQ}${L}], map (${VARS}) -> (${RENTRY}, ${VARS}, 0))
      body(%ov: vmem<${L}xi32>) {
${BODY}    store %ov[ds(0, ${L})], %v
  }
}
)";
  return Fill(text, {{"R", std::to_string(replicas)},
                     {"SHAPE", shape},
                     {"L", std::to_string(lanes)},
                     {"C", std::to_string(c.cores)},
                     {"S", std::to_string(c.subcores)},
                     {"REPLICA", replica},
                     {"SIZES", sizes},
                     {"GRID", grid},
                     {"PART", part},
                     {"SEM", sem},
                     {"SQ", sq},
                     {"VARS", vars},
                     {"RENTRY", rentry},
                     {"BODY", Fill(body, {{"V", "vector<" + std::to_string(lanes) + "xi32>"}})},
                     {"V", "vector<" + std::to_string(lanes) + "xi32>"}});
}

const SplitCase kSplits[] = {
    {"subcore_divisible", 1, 16, {"subcore"}, {32}, {false}, {true}, false, {}},
    {"subcore_remainder", 1, 16, {"subcore"}, {37}, {false}, {true}, false, {}},
    {"fewer_points_than_workers", 1, 16, {"subcore"}, {5}, {false}, {true}, false, {}},
    {"core_subcore_second_dim_divides", 2, 16, {"core", "subcore"}, {6, 32}, {false, false}, {true, true}, true, {}},
    {"core_only_largest_dim", 2, 4, {"core"}, {7, 9}, {false, false}, {true, true}, false, {}},
    {"subcore_only_cores_redundant", 2, 4, {"subcore"}, {8}, {false}, {true}, false, {}},
    {"no_partition", 2, 2, {}, {3, 4}, {false, false}, {false, false}, false, {}},
    {"one_core_no_split", 1, 4, {"core"}, {5}, {false}, {false}, false, {}},
    {"axes_in_written_order", 2, 4, {"subcore", "core"}, {8}, {false}, {true}, false, {}},
    {"arbitrary_dim_skipped", 1, 4, {"subcore"}, {6, 6}, {false, false}, {false, true}, false, {}},
    {"largest_tie_takes_first", 1, 4, {"subcore"}, {5, 5}, {false, false}, {true, true}, false, {}},
    {"three_dims_remainder", 2, 2, {"core", "subcore"}, {3, 1, 2}, {false, false, false}, {true, true, true}, false, {}},
    {"dynamic_only", 1, 4, {"subcore"}, {10}, {true}, {true}, false, {}},
    {"dynamic_beside_static_takes_static", 1, 4, {"subcore"}, {10, 5}, {true, false}, {true, true}, false, {}},
    {"dynamic_beside_divisible", 1, 4, {"subcore"}, {9, 8}, {true, false}, {true, true}, false, {}},
    {"dynamic_arbitrary", 1, 4, {"subcore"}, {3, 6}, {true, false}, {false, true}, false, {}},
    {"dynamic_no_partition", 1, 2, {}, {3, 2}, {true, true}, {false, false}, false, {}},
    {"dynamic_zero_runs_nothing", 1, 2, {}, {0, 3}, {true, false}, {false, false}, false, {2, 3}},
};

class SplitTest : public ::testing::TestWithParam<SplitCase> {};

TEST_P(SplitTest, EachPointOnceByTheRightWorker) {
  const SplitCase& c = GetParam();
  int64_t workers = 1;
  for (const std::string& a : c.axes) workers *= a == "core" ? c.cores : c.subcores;
  int64_t points = 1;
  for (size_t d = 0; d < c.grid.size(); ++d) points *= c.array.empty() ? c.grid[d] : c.array[d];
  int64_t replicas = c.cores * c.subcores / workers;
  std::vector<int32_t> sizes(4, 0);
  for (size_t d = 0; d < c.grid.size(); ++d) sizes[d] = static_cast<int32_t>(c.grid[d]);
  for (const Target& t : kTargets) {
    int L = t.lanes;
    std::string text = SplitKernel(c, L, static_cast<int>(replicas));
    // Expected rows: (replica, point) -> [p0, n0, p1, n1, ..., core, subcore, 0...].
    std::vector<uint32_t> want(static_cast<size_t>(replicas * points * L), kPoison);
    for (int core = 0; core < c.cores; ++core) {
      for (int sub = 0; sub < c.subcores; ++sub) {
        int64_t w = 0, r = 0;
        for (const std::string& a : c.axes) w = w * (a == "core" ? c.cores : c.subcores) + (a == "core" ? core : sub);
        bool core_split = false, sub_split = false;
        for (const std::string& a : c.axes) (a == "core" ? core_split : sub_split) = true;
        if (!core_split) r = r * c.cores + core;
        if (!sub_split) r = r * c.subcores + sub;
        auto ranges = Ranges(c, workers, w);
        // Every point of the ranges, row-major.
        std::vector<int64_t> p(c.grid.size());
        for (size_t d = 0; d < p.size(); ++d) p[d] = ranges[d].first;
        bool empty = false;
        for (auto [lo, hi] : ranges) empty = empty || lo >= hi;
        while (!empty) {
          int64_t row = r;
          for (size_t d = 0; d < p.size(); ++d) row = row * (c.array.empty() ? c.grid[d] : c.array[d]) + p[d];
          uint32_t* out = &want[static_cast<size_t>(row * L)];
          for (int l = 0; l < L; ++l) out[l] = 0;
          for (size_t d = 0; d < p.size(); ++d) {
            out[2 * d] = static_cast<uint32_t>(p[d]);
            out[2 * d + 1] = static_cast<uint32_t>(c.grid[d]);
          }
          out[2 * p.size()] = static_cast<uint32_t>(core);
          out[2 * p.size() + 1] = static_cast<uint32_t>(sub);
          int d = static_cast<int>(p.size()) - 1;
          for (; d >= 0; --d) {
            if (++p[d] < ranges[d].second) break;
            p[d] = ranges[d].first;
          }
          if (d < 0) break;
        }
      }
    }
    RunEveryMode(text, t, {{"sizes", Bytes(sizes)}}, [&](const KernelRun& run) {
      std::vector<uint32_t> got = run.As<uint32_t>("o");
      ASSERT_EQ(got.size(), want.size());
      for (size_t i = 0; i < got.size(); ++i) {
        ASSERT_EQ(got[i], want[i]) << "row " << i / L << " lane " << i % L << "\n" << text;
      }
    });
  }
}

INSTANTIATE_TEST_SUITE_P(Pipeline, SplitTest, ::testing::ValuesIn(kSplits),
                         [](const ::testing::TestParamInfo<SplitCase>& i) { return std::string(i.param.name); });

// --- The Pallas guide's sc_add_one -----------------------------------------------------

TEST(Pipeline, GuideAddOne) {
  std::vector<uint32_t> x = Random(4096 * 128, 7);
  x[0] = 0x7FFFFFFF;  // wraps
  for (const Target& t : kTargets) {
    for (const Mode& m : kModes) {
      LaunchOptions launch;
      launch.dma = m.dma;
      launch.threads = m.threads;
      KernelRun run = RunFile("examples/pipelined_add_one.scir", {{"x", Bytes(x)}}, On(t), launch);
      ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
      std::vector<uint32_t> o = run.As<uint32_t>("o");
      for (size_t i = 0; i < x.size(); ++i) ASSERT_EQ(o[i], x[i] + 1) << t.name << " element " << i;
      // Each block is copied in once and out once.
      EXPECT_EQ(run.stats.dma_bytes, 2 * 4096 * 128 * 4);
    }
  }
}

TEST(Pipeline, EmbeddingLookupExample) {
  std::vector<int32_t> ids = Ids(4096, 4096, 41);
  ids[1] = ids[0];  // a duplicate
  ids[2] = 4095;
  std::vector<uint32_t> table = Random(4096 * 128, 43);
  for (const Target& t : kTargets) {
    for (const Mode& m : kModes) {
      LaunchOptions launch;
      launch.dma = m.dma;
      launch.threads = m.threads;
      KernelRun run = RunFile("examples/embedding_lookup.scir", {{"table", Bytes(table)}, {"ids", Bytes(ids)}}, On(t),
                              launch);
      ASSERT_TRUE(run.ok()) << run.diagnostics << run.Findings();
      std::vector<uint32_t> o = run.As<uint32_t>("o");
      for (int i = 0; i < 4096; ++i) {
        for (int c = 0; c < 128; ++c) ASSERT_EQ(o[i * 128 + c], table[ids[i] * 128 + c]) << t.name << " row " << i;
      }
    }
  }
  // An id past the table is RT-BOUNDS at the gather.
  ids[77] = 4096;
  KernelRun run = RunFile("examples/embedding_lookup.scir", {{"table", Bytes(table)}, {"ids", Bytes(ids)}});
  ASSERT_EQ(run.findings.size(), 1u) << run.Findings();
  EXPECT_NE(run.Findings().find("RT-BOUNDS"), std::string::npos) << run.Findings();
}

// --- Revisited blocks: accumulation, persistence, write-back on change ------------------

TEST(Pipeline, ConsecutivePointsAccumulateIntoOneOutputBlock) {
  // grid (4, 3): point (i, j) reads block 3i + j (a region map) and adds it into
  // output block i, which starts at 0 when j == 0.
  const char* text = R"(
kernel @acc(in %x: hbm<${NX}xi32>, out %o: hbm<${NO}xi32>)
    mesh vector(cores = 1, subcores = 2)
{
  pipeline grid(4, 3) partition(subcore) dims(parallel, arbitrary)
      in(%x, block [${L}], map (%i, %j) {
        %t = mul %i, 3 : i32
        %u = add %t, %j : i32
        yield %u
      })
      out(%o, block [${L}], map (%i, %j) -> (%i))
      body(%xv: vmem<${L}xi32>, %ov: vmem<${L}xi32>) {
    %j = program_id 1 : i32
    %xb = get %xv[ds(0, ${L})] : ${V}
    ${ACCUMULATE}
  }
}
)";
  for (const Target& t : kTargets) {
    int L = t.lanes;
    std::string k = Fill(Fill(text, {{"ACCUMULATE", kAccumulate}}),
                         {{"NX", std::to_string(12 * L)}, {"NO", std::to_string(4 * L)}, {"L", std::to_string(L)},
                          {"V", "vector<" + std::to_string(L) + "xi32>"}});
    std::vector<uint32_t> x = Random(12 * L, 11);
    std::vector<uint32_t> want(4 * L, 0);
    for (int i = 0; i < 4; ++i) {
      for (int j = 0; j < 3; ++j) {
        for (int l = 0; l < L; ++l) want[i * L + l] += x[(3 * i + j) * L + l];
      }
    }
    RunEveryMode(k, t, {{"x", Bytes(x)}}, [&](const KernelRun& run) {
      EXPECT_EQ(run.As<uint32_t>("o"), want);
      // x in once per block, each output block out once.
      EXPECT_EQ(run.stats.dma_bytes, (12 + 4) * L * 4);
    });
  }
}

TEST(Pipeline, InputBlockKeepsWritesWhileItsIndexStays) {
  // The input block of point (i, j) is i for every j: the body's +1 to it is seen
  // by the next j (no re-fetch), so output block i is x + 1, + 2, + 3 summed.
  const char* text = R"(
kernel @keep(in %x: hbm<${N}xi32>, out %o: hbm<${N}xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  %one = const dense<1> : ${V}
  pipeline grid(2, 3)
      in(%x, block [${L}], map (%i, %j) -> (%i))
      out(%o, block [${L}], map (%i, %j) -> (%i))
      body(%xv: vmem<${L}xi32>, %ov: vmem<${L}xi32>) {
    %j = program_id 1 : i32
    %x0 = get %xv[ds(0, ${L})] : ${V}
    %xb = add %x0, %one : ${V}
    store %xv[ds(0, ${L})], %xb
    ${ACCUMULATE}
  }
}
)";
  for (const Target& t : kTargets) {
    int L = t.lanes;
    std::string k = Fill(Fill(text, {{"ACCUMULATE", kAccumulate}}),
                         {{"N", std::to_string(2 * L)}, {"L", std::to_string(L)},
                          {"V", "vector<" + std::to_string(L) + "xi32>"}});
    std::vector<uint32_t> x = Random(2 * L, 12);
    std::vector<uint32_t> want(2 * L);
    for (int i = 0; i < 2 * L; ++i) want[i] = 3 * x[i] + 6;
    RunEveryMode(k, t, {{"x", Bytes(x)}}, [&](const KernelRun& run) { EXPECT_EQ(run.As<uint32_t>("o"), want); });
  }
}

TEST(Pipeline, OutputWrittenBackWhenItsBlockChanges) {
  // grid (3, 2): the output block of point (i, j) is j, so it changes at every
  // point: each point's block is written back, the last writer of block j is
  // i = 2, and every new window starts as the poison pattern (seen by %seen).
  const char* text = R"(
kernel @change(in %x: hbm<${N6}xi32>, out %o: hbm<${N2}xi32>, out %seen: hbm<${N6}xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(3, 2)
      in(%x, block [${L}], map (%i, %j) {
        %t = mul %i, 2 : i32
        %u = add %t, %j : i32
        yield %u
      })
      out(%o, block [${L}], map (%i, %j) -> (%j))
      out(%seen, block [${L}], map (%i, %j) {
        %t = mul %i, 2 : i32
        %u = add %t, %j : i32
        yield %u
      })
      body(%xv: vmem<${L}xi32>, %ov: vmem<${L}xi32>, %sv: vmem<${L}xi32>) {
    %old = get %ov[ds(0, ${L})] : ${V}
    store %sv[ds(0, ${L})], %old
    %xb = get %xv[ds(0, ${L})] : ${V}
    store %ov[ds(0, ${L})], %xb
  }
}
)";
  for (const Target& t : kTargets) {
    int L = t.lanes;
    std::string k = Fill(text, {{"N6", std::to_string(6 * L)}, {"N2", std::to_string(2 * L)}, {"L", std::to_string(L)},
                               {"V", "vector<" + std::to_string(L) + "xi32>"}});
    std::vector<uint32_t> x = Random(6 * L, 13);
    std::vector<uint32_t> want(x.begin() + 4 * L, x.end());
    Checks no_init = Checks::All();
    no_init.init = false;
    RunEveryMode(
        k, t, {{"x", Bytes(x)}},
        [&](const KernelRun& run) {
          EXPECT_EQ(run.As<uint32_t>("o"), want);
          EXPECT_EQ(run.As<uint32_t>("seen"), std::vector<uint32_t>(6 * L, kPoison));
        },
        no_init);
    // With it, the new window's poison copied on as it is decides nothing and
    // is no finding (value-precise init: runtime.md, "Init check").
    KernelRun run = RunText(k, {{"x", Bytes(x)}}, On(t));
    EXPECT_TRUE(run.findings.empty()) << run.Findings();
    EXPECT_EQ(run.As<uint32_t>("seen"), std::vector<uint32_t>(6 * L, kPoison));
  }
}

// --- Block shapes ---------------------------------------------------------------------

TEST(Pipeline, SqueezedDimsFirstAndInTheMiddle) {
  // x: (4, 3, L) f32 in blocks [2, squeezed, L] at (i, j); o: (3, 4, L) in blocks
  // [squeezed, 2, L] at (j, i): o[j, 2i + r, l] = (x[2i + r, j, l] + 1.5) * 2.
  const char* text = R"(
kernel @squeeze(in %x: hbm<4x3x${L}xf32>, out %o: hbm<3x4x${L}xf32>)
    mesh vector(cores = 1, subcores = 2)
{
  %c = const dense<1.5> : ${V}
  %two = const dense<2.0> : ${V}
  pipeline grid(2, 3) partition(subcore) parallel
      in(%x, block [2, squeezed, ${L}], map (%i, %j) -> (%i, %j, 0))
      out(%o, block [squeezed, 2, ${L}], map (%i, %j) -> (%j, %i, 0))
      body(%xv: vmem<2x${L}xf32>, %ov: vmem<2x${L}xf32>) {
    for %r = 0 to 2 step 1 {
      %v = get %xv[%r, ds(0, ${L})] : ${V}
      %a = add %v, %c : ${V}
      %m = mul %a, %two : ${V}
      store %ov[%r, ds(0, ${L})], %m
    }
  }
}
)";
  for (const Target& t : kTargets) {
    int L = t.lanes;
    std::string k = Fill(text, {{"L", std::to_string(L)}, {"V", "vector<" + std::to_string(L) + "xf32>"}});
    std::mt19937 rng(5);
    std::uniform_real_distribution<float> dist(-100, 100);
    std::vector<float> x(12 * L);
    for (float& f : x) f = dist(rng);
    x[0] = -0.0f;
    x[1] = std::bit_cast<float>(0x7FC00001u);  // a NaN
    std::vector<float> want(12 * L);
    for (int i = 0; i < 2; ++i) {
      for (int j = 0; j < 3; ++j) {
        for (int r = 0; r < 2; ++r) {
          for (int l = 0; l < L; ++l) want[(j * 4 + 2 * i + r) * L + l] = (x[((2 * i + r) * 3 + j) * L + l] + 1.5f) * 2.0f;
        }
      }
    }
    RunEveryMode(k, t, {{"x", Bytes(x)}}, [&](const KernelRun& run) {
      std::vector<float> o = run.As<float>("o");
      for (size_t i = 0; i < o.size(); ++i) {
        ASSERT_EQ(std::bit_cast<uint32_t>(o[i]) == std::bit_cast<uint32_t>(want[i]) || (o[i] != o[i] && want[i] != want[i]),
                  true)
            << i << ": " << o[i] << " vs " << want[i];
      }
    });
  }
}

TEST(Pipeline, WholeArrayBlocksCopiedOnce) {
  // Whole-array blocks (`map () -> (0, 0)`, and a map constant in the grid): t
  // comes in once, so the body's +1 to it builds up; s goes out once, after the
  // last point: s = sum over g < 5 of (t + g + 1) = 5 t + 15. Both subcores run
  // the whole grid and write the same s.
  const char* text = R"(
kernel @whole(in %t: hbm<4x${L}xi32>, out %s: hbm<4x${L}xi32>)
    mesh vector(cores = 1, subcores = 2)
{
  %one = const dense<1> : ${V}
  %zero = const dense<0> : ${V}
  pipeline grid(5)
      in(%t, block [4, ${L}], map () -> (0, 0))
      out(%s, block [4, ${L}], map (%g) -> (0, 0))
      body(%tv: vmem<4x${L}xi32>, %sv: vmem<4x${L}xi32>) {
    %g = program_id 0 : i32
    %first = cmp eq %g, 0 : i1
    for %r = 0 to 4 step 1 {
      %v = get %tv[%r, ds(0, ${L})] : ${V}
      %v1 = add %v, %one : ${V}
      store %tv[%r, ds(0, ${L})], %v1
      %acc = if %first : ${V} {
        yield %zero
      } else {
        %a = get %sv[%r, ds(0, ${L})] : ${V}
        yield %a
      }
      %n = add %acc, %v1 : ${V}
      store %sv[%r, ds(0, ${L})], %n
    }
  }
}
)";
  for (const Target& t : kTargets) {
    int L = t.lanes;
    std::string k = Fill(text, {{"L", std::to_string(L)}, {"V", "vector<" + std::to_string(L) + "xi32>"}});
    std::vector<uint32_t> x = Random(4 * L, 17);
    std::vector<uint32_t> want(4 * L);
    for (int i = 0; i < 4 * L; ++i) want[i] = 5 * x[i] + 15;
    RunEveryMode(k, t, {{"t", Bytes(x)}}, [&](const KernelRun& run) {
      EXPECT_EQ(run.As<uint32_t>("s"), want);
      EXPECT_EQ(run.stats.dma_bytes, 2 * 2 * 4 * L * 4);  // per subcore: t in once, s out once
    });
  }
}

TEST(Pipeline, HbmBlocksAreWindowsOfTheSource) {
  // hbm blocks are passed through: %xw is rows 2(3 - i) .. of x (a region map),
  // %ow rows 2i .. of o, %yw the whole of y; the body moves data itself:
  // o[block i] = 3 x[block 3 - i] + y[block i].
  const char* text = R"(
kernel @windows(in %x: hbm<8x${L}xi32>, in %y: hbm<8x${L}xi32>, out %o: hbm<8x${L}xi32>)
    mesh vector(cores = 1, subcores = 4)
    scratch(%a: vmem<2x${L}xi32>, %b: vmem<2x${L}xi32>)
{
  %three = const dense<3> : ${V}
  pipeline grid(4) partition(subcore) parallel
      in(%x, block [2, ${L}], map (%i) {
        %k = sub 3, %i : i32
        yield %k, 0
      })
      in(%y, block [8, ${L}], map () -> (0, 0))
      out(%o, block [2, ${L}], map (%i) -> (%i, 0))
      body(%xw: hbm<2x${L}xi32>, %yw: hbm<8x${L}xi32>, %ow: hbm<2x${L}xi32>) {
    %i = program_id 0 : i32
    %row = mul %i, 2 : i32
    copy %xw -> %a
    copy %yw[ds(%row, 2), :] -> %b
    for %r = 0 to 2 step 1 {
      %v = get %a[%r, ds(0, ${L})] : ${V}
      %w = get %b[%r, ds(0, ${L})] : ${V}
      %m = mul %v, %three : ${V}
      %s = add %m, %w : ${V}
      store %a[%r, ds(0, ${L})], %s
    }
    copy %a -> %ow
  }
}
)";
  for (const Target& t : kTargets) {
    int L = t.lanes;
    std::string k = Fill(text, {{"L", std::to_string(L)}, {"V", "vector<" + std::to_string(L) + "xi32>"}});
    std::vector<uint32_t> x = Random(8 * L, 19), y = Random(8 * L, 20);
    std::vector<uint32_t> want(8 * L);
    for (int i = 0; i < 4; ++i) {
      for (int e = 0; e < 2 * L; ++e) want[i * 2 * L + e] = 3 * x[(3 - i) * 2 * L + e] + y[i * 2 * L + e];
    }
    RunEveryMode(k, t, {{"x", Bytes(x)}, {"y", Bytes(y)}}, [&](const KernelRun& run) { EXPECT_EQ(run.As<uint32_t>("o"), want); });
  }
}

TEST(Pipeline, VmemSourceBlocksAreWindows) {
  // A staged vmem parameter with vmem blocks: the body works on the parameter
  // itself (no copy), and its writes land in it.
  const char* text = R"(
kernel @vmem_windows(inout %x: vmem<4x${L}xi32>, out %o: hbm<4x${L}xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(4)
      in(%x, block [squeezed, ${L}], map (%i) -> (%i, 0))
      out(%o, block [squeezed, ${L}], map (%i) -> (%i, 0))
      body(%xw: vmem<${L}xi32>, %ov: vmem<${L}xi32>) {
    %v = get %xw[ds(0, ${L})] : ${V}
    %d = add %v, %v : ${V}
    store %ov[ds(0, ${L})], %d
    store %xw[ds(0, ${L})], %d
  }
}
)";
  for (const Target& t : kTargets) {
    int L = t.lanes;
    std::string k = Fill(text, {{"L", std::to_string(L)}, {"V", "vector<" + std::to_string(L) + "xi32>"}});
    std::vector<uint32_t> x = Random(4 * L, 23);
    std::vector<uint32_t> want(4 * L);
    for (int i = 0; i < 4 * L; ++i) want[i] = 2 * x[i];
    RunEveryMode(k, t, {{"x", Bytes(x)}}, [&](const KernelRun& run) {
      EXPECT_EQ(run.As<uint32_t>("o"), want);
      EXPECT_EQ(run.As<uint32_t>("x"), want);
      EXPECT_EQ(run.stats.dma_bytes, 4 * L * 4);  // only the output blocks move
    });
  }
}

TEST(Pipeline, SmemBlocks) {
  // ids in SMEM blocks of 8: o[i, :] = sum of ids[8i .. 8i + 7].
  const char* text = R"(
kernel @smem_blocks(in %ids: hbm<32xi32>, out %o: hbm<4x${L}xi32>)
    mesh vector(cores = 1, subcores = 2)
{
  pipeline grid(4) partition(subcore) parallel
      in(%ids, block [8], map (%i) -> (%i))
      out(%o, block [squeezed, ${L}], map (%i) -> (%i, 0))
      body(%iv: smem<8xi32>, %ov: vmem<${L}xi32>) {
    %s = for %k = 0 to 8 step 1 iter(%a = 0) : i32 {
      %e = get %iv[%k] : i32
      %a1 = add %a, %e : i32
      yield %a1
    }
    %v = broadcast %s : ${V}
    store %ov[ds(0, ${L})], %v
  }
}
)";
  for (const Target& t : kTargets) {
    int L = t.lanes;
    std::string k = Fill(text, {{"L", std::to_string(L)}, {"V", "vector<" + std::to_string(L) + "xi32>"}});
    std::vector<uint32_t> ids = Random(32, 29);
    std::vector<uint32_t> want(4 * L);
    for (int i = 0; i < 4; ++i) {
      uint32_t s = 0;
      for (int e = 0; e < 8; ++e) s += ids[8 * i + e];
      for (int l = 0; l < L; ++l) want[i * L + l] = s;
    }
    RunEveryMode(k, t, {{"ids", Bytes(ids)}}, [&](const KernelRun& run) { EXPECT_EQ(run.As<uint32_t>("o"), want); });
  }
}

TEST(Pipeline, RaggedLastBlocksStopAtTheArrayEnd) {
  // 20 rows in blocks of 8 (the last has 4) and 200 elements in blocks of 128
  // (the last has 72): every element gets + 1, nothing past the end is touched.
  const char* text = R"(
kernel @ragged(in %x: hbm<20x128xi32>, out %o: hbm<20x128xi32>, in %y: hbm<200xi32>, out %p: hbm<200xi32>)
    mesh vector(cores = 1, subcores = 3)
{
  %one = const dense<1> : ${V}
  pipeline grid(3) partition(subcore) parallel
      in(%x, block [8, 128], map (%i) -> (%i, 0))
      out(%o, block [8, 128], map (%i) -> (%i, 0))
      body(%xv: vmem<8x128xi32>, %ov: vmem<8x128xi32>) {
    for %r = 0 to 8 step 1 {
      for %c = 0 to 128 step ${L} {
        %v = get %xv[%r, ds(%c, ${L})] : ${V}
        %w = add %v, %one : ${V}
        store %ov[%r, ds(%c, ${L})], %w
      }
    }
  }
  pipeline grid(2)
      in(%y, block [128], map (%i) -> (%i))
      out(%p, block [128], map (%i) -> (%i))
      body(%yv: vmem<128xi32>, %pv: vmem<128xi32>) {
    for %c = 0 to 128 step ${L} {
      %v = get %yv[ds(%c, ${L})] : ${V}
      %w = add %v, %one : ${V}
      store %pv[ds(%c, ${L})], %w
    }
  }
}
)";
  for (const Target& t : kTargets) {
    int L = t.lanes;
    std::string k = Fill(text, {{"L", std::to_string(L)}, {"V", "vector<" + std::to_string(L) + "xi32>"}});
    std::vector<uint32_t> x = Random(20 * 128, 31), y = Random(200, 32);
    std::vector<uint32_t> wx(x.size()), wy(y.size());
    for (size_t i = 0; i < x.size(); ++i) wx[i] = x[i] + 1;
    for (size_t i = 0; i < y.size(); ++i) wy[i] = y[i] + 1;
    RunEveryMode(k, t, {{"x", Bytes(x)}, {"y", Bytes(y)}}, [&](const KernelRun& run) {
      EXPECT_EQ(run.As<uint32_t>("o"), wx);
      EXPECT_EQ(run.As<uint32_t>("p"), wy);
      // Ragged blocks move only their in-bounds part (the y pipeline runs on
      // every subcore).
      EXPECT_EQ(run.stats.dma_bytes, 2 * 20 * 128 * 4 + 3 * 2 * 200 * 4);
    });
  }
}

TEST(Pipeline, EveryElementType) {
  // Blocks [2, 32] of a (6, 32) array of each memory dtype, copied through.
  for (const char* dt : {"i8", "u8", "i16", "u16", "bf16", "f16", "i32", "u32", "f32"}) {
    std::string text = Fill(R"(
kernel @types(in %x: hbm<6x32x${T}>, out %o: hbm<6x32x${T}>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(3)
      in(%x, block [2, 32], map (%i) -> (%i, 0))
      out(%o, block [2, 32], map (%i) -> (%i, 0))
      body(%xv: vmem<2x32x${T}>, %ov: vmem<2x32x${T}>) {
    %v = get %xv[:, :] : vector<2x32x${T}>
    store %ov[:, :], %v
  }
}
)",
                            {{"T", dt}});
    int width = dt[1] == '8' ? 1 : (std::string(dt).find("16") != std::string::npos ? 2 : 4);
    std::vector<uint32_t> words = Random(6 * 32 * width / 4, 37);
    for (const Target& t : kTargets) {
      SCOPED_TRACE(dt);
      RunEveryMode(text, t, {{"x", Bytes(words)}}, [&](const KernelRun& run) { EXPECT_EQ(run.As<uint32_t>("o"), words); });
    }
  }
}

// --- Bounds, unsupported blocks, VMEM planning -------------------------------------

const char* kOutOfRange = R"(
kernel @oob(in %x: hbm<${N}xi32>, out %o: hbm<${N}xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(4)
      in(%x, block [${L}], map (%i) {
        %k = add %i, 1 : i32
        yield %k
      })
      out(%o, block [${L}], map (%i) -> (%i))
      body(%xv: vmem<${L}xi32>, %ov: vmem<${L}xi32>) {
    %v = get %xv[ds(0, ${L})] : ${V}
    store %ov[ds(0, ${L})], %v
  }
}
)";

TEST(Pipeline, BlockIndexOutOfRangeIsRtBoundsAtTheMap) {
  for (const Target& t : kTargets) {
    int L = t.lanes;
    std::string k = Fill(kOutOfRange, {{"N", std::to_string(4 * L)}, {"L", std::to_string(L)},
                                       {"V", "vector<" + std::to_string(L) + "xi32>"}});
    KernelRun run = RunText(k, {}, On(t));
    ASSERT_TRUE(run.status.ok()) << run.diagnostics << run.status;
    ASSERT_EQ(run.findings.size(), 1u) << run.Findings();
    std::string f = run.Findings();
    EXPECT_NE(f.find("RT-BOUNDS"), std::string::npos) << f;
    EXPECT_NE(f.find("index 4 is out of bounds for dimension 0 of %x in blocks [" + std::to_string(L) + "] (size 4)"),
              std::string::npos)
        << f;
    EXPECT_NE(f.find("test.scir:8:15"), std::string::npos) << f;  // the yielded entry
    // Unchecked, the index is clamped to the last block: no finding, no stray access.
    CompileOptions unchecked = On(t);
    unchecked.checks.bounds = false;
    LaunchOptions launch;
    launch.checks = Checks::None();
    KernelRun quiet = RunText(k, {}, unchecked, launch);
    EXPECT_TRUE(quiet.ok()) << quiet.Findings();
  }
}

// --- indirect(N) blocks: gathered and scattered rows ----------------------------------

TEST(Pipeline, IndirectInputBlocksGatherTheirRowsAtEveryPoint) {
  // The first pipeline's list is a ref (a view of the ids), its second block
  // dimension moves with %j; the second's is a vector value with `ignore = 7`,
  // the same at every point, and its body zeroes part of the gathered block,
  // which the next point must gather again.
  const char* text = R"(
kernel @gather(in %x: hbm<40x32xi32>, in %ids: hbm<64xi32>, out %o: hbm<64x32xi32>, out %p: hbm<${P}x32xi32>)
    mesh vector(cores = 1, subcores = 2)
    scratch(%idv: vmem<64xi32>)
{
  copy %ids -> %idv
  pipeline grid(8, 2) partition(subcore) dims(parallel, arbitrary)
      in(%x, block [indirect(8), 16], map (%i, %j) {
        %s = mul %i, 8 : i32
        %l = view %idv[ds(%s, 8)] : vmem<8xi32>
        yield idx(%l), %j
      })
      out(%o, block [8, 16], map (%i, %j) -> (%i, %j))
      body(%rows: vmem<8x16xi32>, %ov: vmem<8x16xi32>) {
    copy %rows -> %ov
  }
  %zero = const dense<0> : ${V}
  pipeline grid(4)
      in(%x, block [indirect(${L}), 32], map (%i) {
        %v = get %idv[ds(0, ${L})] : ${V}
        yield idx(%v, ignore = 7), 0
      })
      out(%p, block [${L}, 32], map (%i) -> (%i, 0))
      body(%rows: vmem<${L}x32xi32>, %pv: vmem<${L}x32xi32>) {
    copy %rows -> %pv
    store %rows[0, ds(0, ${L})], %zero
  }
}
)";
  std::vector<int32_t> ids = Ids(64, 40, 51);
  ids[0] = 39;
  ids[1] = 7;  // ignored by the second pipeline
  ids[3] = 7;
  ids[4] = ids[2];  // a duplicate
  ids[5] = 0;
  std::vector<uint32_t> x = Random(40 * 32, 52);
  for (const Target& t : kTargets) {
    int L = t.lanes;
    std::string k = Fill(text, {{"P", std::to_string(4 * L)}, {"L", std::to_string(L)},
                                {"V", "vector<" + std::to_string(L) + "xi32>"}});
    std::vector<uint32_t> wo(64 * 32), wp(4 * L * 32);
    for (int r = 0; r < 64; ++r) {
      for (int c = 0; c < 32; ++c) wo[r * 32 + c] = x[ids[r] * 32 + c];
    }
    for (int i = 0; i < 4; ++i) {
      for (int r = 0; r < L; ++r) {
        for (int c = 0; c < 32; ++c) wp[(i * L + r) * 32 + c] = ids[r] == 7 ? kPoison : x[ids[r] * 32 + c];
      }
    }
    RunEveryMode(k, t, {{"x", Bytes(x)}, {"ids", Bytes(ids)}}, [&](const KernelRun& run) {
      EXPECT_EQ(run.As<uint32_t>("o"), wo);
      EXPECT_EQ(run.As<uint32_t>("p"), wp);
    });
  }
  // An id past the table is RT-BOUNDS at the gather.
  ids[40] = 40;  // read by subcore 1 only, in the first pipeline
  KernelRun run = RunText(Fill(text, {{"P", "64"}, {"L", "16"}, {"V", "vector<16xi32>"}}),
                          {{"x", Bytes(x)}, {"ids", Bytes(ids)}});
  ASSERT_EQ(run.findings.size(), 1u) << run.Findings();
  EXPECT_NE(run.Findings().find("RT-BOUNDS"), std::string::npos) << run.Findings();
}

TEST(Pipeline, IndirectOutputBlocksScatterTheirRowsAtEveryPoint) {
  // Block i of x goes to the rows ids[8i .. 8i+7] of o: entries equal to 7 are
  // skipped, a row named twice keeps the later one (list order, then point
  // order), rows never named keep the poison pattern of a fresh `out`; the body
  // writes rows 6, 7 of a window at even points only, and at odd points they are
  // the poison pattern of a new window.
  const char* text = R"(
kernel @scatter(in %x: hbm<32x16xi32>, in %ids: hbm<32xi32>, out %o: hbm<40x16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%idv: vmem<32xi32>)
{
  copy %ids -> %idv
  pipeline grid(4)
      in(%x, block [8, 16], map (%i) -> (%i, 0))
      out(%o, block [indirect(8), 16], map (%i) {
        %s = mul %i, 8 : i32
        %l = view %idv[ds(%s, 8)] : vmem<8xi32>
        yield idx(%l, ignore = 7), 0
      })
      body(%xv: vmem<8x16xi32>, %ov: vmem<8x16xi32>) {
    copy %xv[0:6, :] -> %ov[0:6, :]
    %i = program_id 0 : i32
    %r = rem %i, 2 : i32
    %even = cmp eq %r, 0 : i1
    if %even {
      copy %xv[6:8, :] -> %ov[6:8, :]
    }
  }
}
)";
  std::vector<int32_t> ids = Ids(32, 40, 53);
  ids[2] = 7;
  ids[5] = ids[1];   // a duplicate in one list: the later entry wins
  ids[20] = ids[3];  // one across points: the later point wins
  ids[15] = ids[8];  // a poison row (row 7 of an odd window) after a data row
  std::vector<uint32_t> x = Random(32 * 16, 54);
  std::vector<uint32_t> want(40 * 16, kPoison);
  for (int i = 0; i < 32; ++i) {
    if (ids[i] == 7) continue;
    for (int c = 0; c < 16; ++c) want[ids[i] * 16 + c] = i % 8 < 6 || (i / 8) % 2 == 0 ? x[i * 16 + c] : kPoison;
  }
  for (const Target& t : kTargets) {
    // (Odd points write back rows 6 and 7 unwritten: a writeback is no RT-INIT.)
    RunEveryMode(text, t, {{"x", Bytes(x)}, {"ids", Bytes(ids)}},
                 [&](const KernelRun& run) { EXPECT_EQ(run.As<uint32_t>("o"), want); });
  }
}

TEST(Pipeline, IndirectHbmBlocksAreIndexedWindows) {
  // An hbm indirect block is the source with the list on its first dimension:
  // a copy from it gathers, a copy into it scatters (o2[ids[r]] = x[ids[r]]).
  const char* text = R"(
kernel @windows(in %x: hbm<40x16xi32>, in %ids: hbm<16xi32>, out %o: hbm<16x16xi32>, out %o2: hbm<40x16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%idv: vmem<16xi32>)
{
  copy %ids -> %idv
  pipeline grid(2)
      in(%x, block [indirect(8), 16], map (%i) {
        %s = mul %i, 8 : i32
        %l = view %idv[ds(%s, 8)] : vmem<8xi32>
        yield idx(%l), 0
      })
      out(%o, block [8, 16], map (%i) -> (%i, 0))
      out(%o2, block [indirect(8), 16], map (%i) {
        %s = mul %i, 8 : i32
        %l = view %idv[ds(%s, 8)] : vmem<8xi32>
        yield idx(%l), 0
      })
      body(%xw: hbm<8x16xi32>, %ov: vmem<8x16xi32>, %ow: hbm<8x16xi32>) {
    copy %xw -> %ov
    copy %ov -> %ow
  }
}
)";
  std::vector<int32_t> ids = Ids(16, 40, 57);
  std::vector<uint32_t> x = Random(40 * 16, 58);
  std::vector<uint32_t> wo(16 * 16), wo2(40 * 16, kPoison);
  for (int r = 0; r < 16; ++r) {
    for (int c = 0; c < 16; ++c) wo[r * 16 + c] = wo2[ids[r] * 16 + c] = x[ids[r] * 16 + c];
  }
  for (const Target& t : kTargets) {
    RunEveryMode(text, t, {{"x", Bytes(x)}, {"ids", Bytes(ids)}}, [&](const KernelRun& run) {
      EXPECT_EQ(run.As<uint32_t>("o"), wo);
      EXPECT_EQ(run.As<uint32_t>("o2"), wo2);
    });
  }
}

TEST(Pipeline, IndirectBlockListFromAnOuterBlock) {
  // The inner pipeline gathers the rows its outer block of ids names.
  const char* text = R"(
kernel @gather(in %x: hbm<64x16xi32>, in %ids: hbm<64xi32>, out %o: hbm<64x16xi32>)
    mesh vector(cores = 2, subcores = 2)
{
  pipeline grid(8) partition(core, subcore) parallel
      in(%ids, block [8], map (%i) -> (%i))
      out(%o, block [8, 16], map (%i) -> (%i, 0))
      body(%iv: vmem<8xi32>, %ov: vmem<8x16xi32>) {
    pipeline grid(1)
        in(%x, block [indirect(8), 16], map (%j) { yield idx(%iv), 0 })
        body(%rows: vmem<8x16xi32>) {
      copy %rows -> %ov
    }
  }
}
)";
  std::vector<int32_t> ids = Ids(64, 64, 55);
  std::vector<uint32_t> x = Random(64 * 16, 56);
  std::vector<uint32_t> want(64 * 16);
  for (int r = 0; r < 64; ++r) {
    for (int c = 0; c < 16; ++c) want[r * 16 + c] = x[ids[r] * 16 + c];
  }
  for (const Target& t : kTargets) {
    RunEveryMode(text, t, {{"x", Bytes(x)}, {"ids", Bytes(ids)}},
                 [&](const KernelRun& run) { EXPECT_EQ(run.As<uint32_t>("o"), want); });
  }
}

TEST(Pipeline, MeshVmemCountsTwoBuffersPerMovingBlock) {
  // A moving [256, 256] i32 block takes 2 x 256 KiB, the whole v7x VMEM; one more
  // scratch ref does not fit. A whole-array block of that size takes one buffer.
  const char* moving = R"(
kernel @big(in %x: hbm<512x256xi32>, out %o: hbm<16xi32>)
    mesh vector(cores = 1, subcores = 1)
    scratch(%s: vmem<16xi32>)
{
  pipeline grid(2)
      in(%x, block [256, 256], map (%i) -> (%i, 0))
      body(%xv: vmem<256x256xi32>) {
    %v = get %xv[0, ds(0, 16)] : vector<16xi32>
    store %s[ds(0, 16)], %v
  }
  copy %s -> %o
}
)";
  Checked c = Check(moving, "v7x");
  EXPECT_FALSE(c.ok);
  EXPECT_EQ(c.codes, std::vector<std::string>{"MESH-VMEM"}) << c.diagnostics;
  EXPECT_NE(c.diagnostics.find("pipeline block buffers"), std::string::npos) << c.diagnostics;
  std::string whole = moving;
  whole.replace(whole.find("hbm<512x256xi32>"), 16, "hbm<256x256xi32>");
  whole.replace(whole.find("map (%i) -> (%i, 0)"), 19, "map () -> (0, 0)");
  Checked w = Check(whole, "v7x");
  EXPECT_TRUE(w.ok) << w.diagnostics;
}

TEST(Pipeline, NestedPipelinesSeeTheirOwnGrid) {
  // An inner pipeline over the outer block: program_id inside it is the inner
  // grid's; o[i, j, :] = 10 i + j.
  const char* text = R"(
kernel @nested(out %o: hbm<3x4x${L}xi32>)
    mesh vector(cores = 1, subcores = 1)
{
  pipeline grid(3)
      out(%o, block [squeezed, 4, ${L}], map (%i) -> (%i, 0, 0))
      body(%ov: vmem<4x${L}xi32>) {
    %i = program_id 0 : i32
    %ten = mul %i, 10 : i32
    pipeline grid(4)
        out(%ov, block [squeezed, ${L}], map (%j) -> (%j, 0))
        body(%row: vmem<${L}xi32>) {
      %j = program_id 0 : i32
      %s = add %ten, %j : i32
      %v = broadcast %s : ${V}
      store %row[ds(0, ${L})], %v
    }
  }
}
)";
  for (const Target& t : kTargets) {
    int L = t.lanes;
    std::string k = Fill(text, {{"L", std::to_string(L)}, {"V", "vector<" + std::to_string(L) + "xi32>"}});
    std::vector<uint32_t> want(12 * L);
    for (int i = 0; i < 3; ++i) {
      for (int j = 0; j < 4; ++j) {
        for (int l = 0; l < L; ++l) want[(i * 4 + j) * L + l] = 10 * i + j;
      }
    }
    RunEveryMode(k, t, {}, [&](const KernelRun& run) { EXPECT_EQ(run.As<uint32_t>("o"), want); });
  }
}

}  // namespace
}  // namespace scjit::testing
