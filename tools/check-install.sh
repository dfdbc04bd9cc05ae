#!/usr/bin/env bash
# Installs a built scjit to a temporary prefix and uses it as a user would: the
# standalone examples/embed project through find_package (shared and static
# library), the same program and the README's example through pkg-config, and
# the installed jit-run. Run from the repository root (the README's example reads
# examples/add_one_manual.scir).
#
#   bash tools/check-install.sh [BUILD_DIR]     (default: build)
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
root=$(pwd)
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
prefix=$work/prefix

cmake --install "$build" --prefix "$prefix" > "$work/install.log"
kernel=$root/examples/add_one_manual.scir

for variant in shared static; do
  static=OFF
  [ "$variant" = static ] && static=ON
  cmake -S examples/embed -B "$work/embed-$variant" -G Ninja -DCMAKE_BUILD_TYPE=Release \
    -DCMAKE_PREFIX_PATH="$prefix" -DEMBED_STATIC=$static > "$work/configure-$variant.log"
  cmake --build "$work/embed-$variant" > "$work/build-$variant.log"
  echo "embed ($variant): $("$work/embed-$variant/embed" "$kernel")"
done

export PKG_CONFIG_PATH="$prefix/lib/pkgconfig"
# shellcheck disable=SC2046
g++ -std=c++20 -O1 examples/embed/main.cc $(pkg-config --cflags --libs scjit) -Wl,-rpath,"$prefix/lib" \
  -o "$work/embed-pc"
echo "embed (pkg-config): $("$work/embed-pc" "$kernel")"

# The README's example, as a user would paste it.
sed -n '/<!-- readme-example -->/,/<!-- \/readme-example -->/p' README.md | sed '/^<!--/d; /^```/d' \
  > "$work/readme.cc"
# shellcheck disable=SC2046
g++ -std=c++20 -O1 "$work/readme.cc" $(pkg-config --cflags --libs scjit) -Wl,-rpath,"$prefix/lib" -o "$work/readme"
out=$("$work/readme")
[ "$out" = "o[5] = 6" ] || { echo "README example printed: $out" >&2; exit 1; }
echo "README example: $out"

"$prefix/bin/jit-run" "$kernel" > "$work/jit-run.out"
echo "installed jit-run: $(cat "$work/jit-run.out")"
