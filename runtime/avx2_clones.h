// SCJIT_AVX2_CLONES: compile a function twice, for AVX2 and for any x86-64,
// and pick one when the program loads (an ifunc). For the check loops over
// state and data bytes the compiler vectorizes. Not under ThreadSanitizer, whose
// runtime is not ready when ifunc resolvers run (the program crashes before main).
#ifndef SCJIT_RUNTIME_AVX2_CLONES_H_
#define SCJIT_RUNTIME_AVX2_CLONES_H_

#if defined(__SANITIZE_THREAD__) || !defined(__x86_64__)
#define SCJIT_AVX2_CLONES
#else
#define SCJIT_AVX2_CLONES __attribute__((target_clones("avx2", "default")))
#endif

#endif  // SCJIT_RUNTIME_AVX2_CLONES_H_
