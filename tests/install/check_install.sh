#!/usr/bin/env bash
# One install-and-consume test (registered by tests/install/CMakeLists.txt):
#   check_install.sh MODE TESTS_DIR BUILD_DIR WORK_DIR LIBDIR
# MODE install: cmake --install BUILD_DIR into WORK_DIR/prefix and check what landed there;
# c, cxx: configure, build and run the consumer project TESTS_DIR/MODE against that prefix
#   (cxx also links the static library);
# pkg-config: build TESTS_DIR/c/main.c from `pkg-config --cflags --libs hgemm` and run it;
# add-subdirectory: configure TESTS_DIR/subdir, which add_subdirectory()s the source tree.
# CMAKE_GENERATOR, CC, CXX, CUDACXX and CUDAToolkit_ROOT come from the enclosing build.
set -euo pipefail
mode=$1 tests=$2 build=$3 work=$4 libdir=$5
prefix=$work/prefix
fail() { echo "FAIL: $*" >&2; exit 1; }

case $mode in
install)
  rm -rf "$prefix"
  cmake --install "$build" --prefix "$prefix"
  for f in "$libdir/libhgemm.so" "$libdir/libhgemm_static.a" include/hgemm/hgemm.h \
           include/hgemm/hgemm.hpp include/hgemm/version.h bin/hgemm \
           "$libdir/cmake/hgemm/hgemmConfig.cmake" "$libdir/cmake/hgemm/hgemmConfigVersion.cmake" \
           "$libdir/cmake/hgemm/hgemmTargets.cmake" "$libdir/pkgconfig/hgemm.pc"; do
    [ -e "$prefix/$f" ] || fail "$f was not installed"
  done
  source_dir=$(cd "$tests/../.." && pwd)
  if [ -d "$source_dir/data/tables" ] && [ -n "$(ls -A "$source_dir/data/tables")" ]; then
    [ -n "$(ls -A "$prefix/share/hgemm/tables" 2>/dev/null)" ] || fail "the tuning tables were not installed"
  fi
  # The package must point into the prefix only: not at src/ nor anywhere in the build tree.
  if grep -lF -e "$source_dir" -e "$(cd "$build" && pwd)" "$prefix/$libdir"/cmake/hgemm/*.cmake \
       "$prefix/$libdir/pkgconfig/hgemm.pc"; then
    fail "the installed package names the source or build tree"
  fi
  readelf -d "$prefix/bin/hgemm" | grep -qF "\$ORIGIN/../$libdir" ||
    fail "bin/hgemm has no RUNPATH to the installed libraries"
  for f in "$prefix/bin/hgemm" "$prefix/$libdir/libhgemm.so"; do
    ! ldd "$f" | grep -q "not found" || { ldd "$f"; fail "$f has unresolved libraries"; }
  done
  "$prefix/bin/hgemm" --help >/dev/null
  ;;
c | cxx)
  rm -rf "$work/$mode"
  cmake -S "$tests/$mode" -B "$work/$mode" -DCMAKE_BUILD_TYPE=Release -DCMAKE_PREFIX_PATH="$prefix"
  cmake --build "$work/$mode"
  "$work/$mode/consumer_$mode"
  if [ "$mode" = cxx ]; then "$work/$mode/consumer_cxx_static"; fi
  ;;
pkg-config)
  command -v pkg-config >/dev/null || fail "pkg-config is not installed"
  export PKG_CONFIG_PATH=$prefix/$libdir/pkgconfig
  version=$(pkg-config --modversion hgemm)
  grep -q "HGEMM_VERSION_MAJOR ${version%%.*}\$" "$prefix/include/hgemm/version.h" ||
    fail "hgemm.pc says version $version, version.h does not"
  flags=$(pkg-config --cflags --libs hgemm)
  echo "pkg-config --cflags --libs hgemm: $flags"
  mkdir -p "$work/pkg-config"
  # shellcheck disable=SC2086  # the flags are words
  "${CC:-cc}" -std=c99 -pedantic -Wall -Wextra -Werror "$tests/c/main.c" $flags \
    -o "$work/pkg-config/consumer_c"
  LD_LIBRARY_PATH=$prefix/$libdir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH} "$work/pkg-config/consumer_c"
  ;;
add-subdirectory)
  rm -rf "$work/subdir"
  cmake -S "$tests/subdir" -B "$work/subdir" -DCMAKE_BUILD_TYPE=Release \
    -DHGEMM_SOURCE_DIR="$(cd "$tests/../.." && pwd)"
  ;;
*)
  fail "unknown mode $mode"
  ;;
esac
echo "install_$mode: ok"
