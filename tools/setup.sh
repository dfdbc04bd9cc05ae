#!/usr/bin/env bash
# Sets up a Debian 12 machine for scjit and builds it. Idempotent: installs only
# the Debian packages that are missing, then configures and builds.
#
#   bash tools/setup.sh              # Release build in build/ of what the README's
#                                    # first command runs (jit-run, the library, the
#                                    # Python module), and the Python environment .venv
#                                    # (tests/python's packages, and scjit itself from
#                                    # the build); `ctest --test-dir build` then builds
#                                    # the tests before it runs them
#   bash tools/setup.sh --sanitize   # ASan+UBSan build of the tests in build-asan/
#   bash tools/setup.sh --tsan       # ThreadSanitizer build of the tests in build-tsan/
#   bash tools/setup.sh --tsan T...  # the same, building only targets T...
#   bash tools/setup.sh --fuzz       # the libFuzzer targets (clang-19, ASan+UBSan) in
#                                    # build-fuzz/, and their generated seeds
#                                    # (run them with tools/fuzz.sh; docs/fuzzing.md)
set -euo pipefail

cd "$(dirname "$0")/.."

build_dir=build
cmake_args=(-DCMAKE_BUILD_TYPE=Release)
mode_packages=()
mode=${1:-}
shift || true
case "$mode" in
  "") ;;
  --sanitize)
    build_dir=build-asan
    cmake_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCJIT_SANITIZE=ON -DSCJIT_BUILD_BENCHMARKS=OFF)
    ;;
  --tsan)
    build_dir=build-tsan
    cmake_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCJIT_SANITIZE_THREAD=ON -DSCJIT_BUILD_BENCHMARKS=OFF
      -DSCJIT_CTEST_BUILDS=OFF)
    ;;
  --fuzz)
    build_dir=build-fuzz
    cmake_args=(-DCMAKE_BUILD_TYPE=RelWithDebInfo -DSCJIT_FUZZ=ON -DCMAKE_C_COMPILER=clang-19
      -DCMAKE_CXX_COMPILER=clang++-19)
    mode_packages=(clang-19 libclang-rt-19-dev)
    ;;
  *) echo "usage: bash tools/setup.sh [--sanitize | --tsan | --fuzz]" >&2; exit 2 ;;
esac

packages=(cmake ninja-build g++ llvm-19-dev libabsl-dev libgtest-dev libgmock-dev libbenchmark-dev pkg-config
  python3 python3-venv python3-dev pybind11-dev libopenmpi-dev openmpi-bin "${mode_packages[@]}")
missing=()
for p in "${packages[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$p")
  fi
done
if ((${#missing[@]})); then
  echo "setup: installing ${missing[*]}"
  sudo=()
  if [ "$(id -u)" != 0 ]; then sudo=(sudo); fi
  export DEBIAN_FRONTEND=noninteractive
  "${sudo[@]}" apt-get update -qq
  "${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

# The Python tests (tests/python, run by CTest in the Release build) use Debian's
# python3 in a virtual environment, .venv, holding tests/python/requirements.txt. pip
# runs only when that file differs from the one last installed, so a second run is
# quick and needs no network.
if [ -z "$mode" ]; then
  requirements=tests/python/requirements.txt
  if ! .venv/bin/python -c '' 2>/dev/null; then
    echo "setup: creating .venv"
    rm -rf .venv
    /usr/bin/python3 -m venv .venv
  fi
  if ! cmp -s "$requirements" .venv/requirements.installed; then
    echo "setup: installing $requirements into .venv"
    .venv/bin/python -m pip install -q --disable-pip-version-check -r "$requirements"
    cp "$requirements" .venv/requirements.installed
  fi
fi

cmake -S . -B "$build_dir" -G Ninja "${cmake_args[@]}"
if (($#)); then
  cmake --build "$build_dir" --target "$@"
elif [ -z "$mode" ]; then
  # What the README's first command runs; ctest builds the rest (CTestCustom.cmake).
  cmake --build "$build_dir" --target jit-run _scjit scjit_shared scjit_static
else
  cmake --build "$build_dir"
fi

# The scjit Python package the build stages in build/python, imported in place by
# .venv (a .pth file), so that `.venv/bin/python -c "import scjit"` always finds
# the build's. (`pip install .` installs a copy instead: docs/python.md.)
if [ -z "$mode" ]; then
  site=$(.venv/bin/python -c 'import sysconfig; print(sysconfig.get_paths()["purelib"])')
  .venv/bin/python -m pip uninstall -q -y scjit 2>/dev/null || true
  echo "$PWD/$build_dir/python" > "$site/scjit-build.pth"
fi
