// The identity of this build's code generator: a hash of every source file of
// lowering/, jit/, runtime/ and include/ (jit/build_id.cmake makes it at build
// time). Cached object code is only reused by a build with the same id.
#ifndef SCJIT_JIT_BUILD_ID_H_
#define SCJIT_JIT_BUILD_ID_H_

namespace scjit {

extern const char kBuildId[];

}  // namespace scjit

#endif  // SCJIT_JIT_BUILD_ID_H_
