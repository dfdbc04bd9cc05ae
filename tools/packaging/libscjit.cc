// libscjit.so is the component libraries of lowering/, runtime/ and jit/, linked
// whole; CMake wants a source file of the library's own, and this is it.
