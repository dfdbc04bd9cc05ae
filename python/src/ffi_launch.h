// The XLA FFI handler of scjit.jax (ffi_launch.cc): register it with
// jax.ffi.register_ffi_target("scjit_launch", <capsule of ScjitLaunch>, platform="cpu").
#ifndef SCJIT_PYTHON_SRC_FFI_LAUNCH_H_
#define SCJIT_PYTHON_SRC_FFI_LAUNCH_H_

#include "xla/ffi/api/c_api.h"

extern "C" XLA_FFI_Error* ScjitLaunch(XLA_FFI_CallFrame* call_frame);

#endif  // SCJIT_PYTHON_SRC_FFI_LAUNCH_H_
