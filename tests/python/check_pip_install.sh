#!/usr/bin/env bash
# `pip install` of the source tree into a scratch directory, as a user would, but against the
# hgemm that the install_install test put in PREFIX (HGEMM_PYTHON_PREBUILT): building the kernels
# a second time would take the CPU CI machine an hour. Then the installed package is imported
# outside the build tree and its CPU tests run against it.
#   check_pip_install.sh PYTHON SOURCE_DIR PREFIX WORK_DIR
set -euo pipefail
python=$1 source=$2 prefix=$3 work=$4
fail() { echo "FAIL: $*" >&2; exit 1; }
[ -f "$prefix/include/hgemm/hgemm.h" ] || fail "no installed hgemm in $prefix (run install_install)"
rm -rf "$work"
mkdir -p "$work"
"$python" -m pip install --no-build-isolation --no-deps --no-cache-dir --target "$work/site" \
  -C "cmake.define.HGEMM_PYTHON_PREBUILT=$prefix" -C "build-dir=$work/build" "$source"
for f in __init__.py _ops.py bench.py nn.py; do
  [ -f "$work/site/hgemm/$f" ] || fail "hgemm/$f was not installed"
done
ext=$(ls "$work/site/hgemm/"_hgemm*.so 2>/dev/null | head -1)
[ -n "$ext" ] || fail "the extension _hgemm was not installed"
# The extension needs libhgemm and the CUDA runtime, never libtorch or Python's own library.
deps=$(readelf -d "$ext" | awk '/NEEDED/ { print $NF }')
echo "$ext needs: $deps"
echo "$deps" | grep -q "libhgemm" || fail "the extension does not link libhgemm"
! echo "$deps" | grep -qE "libtorch|libc10" || fail "the extension links libtorch"
! ldd "$ext" | grep -q "not found" || { ldd "$ext"; fail "the extension has unresolved libraries"; }
cd "$work"
PYTHONPATH="$work/site" CUDA_VISIBLE_DEVICES= "$python" -c "
import hgemm, os, sys
assert hgemm.__file__.startswith('$work/site/'), hgemm.__file__
assert os.path.realpath(hgemm._hgemm.__file__) == os.path.realpath('$ext')
print('hgemm', hgemm.__version__, 'from', hgemm.__file__, 'library', hgemm._hgemm.library_path())
# The LLM proposer is a subpackage with a data file: both must ship in the wheel.
import hgemm.llm.proposals as proposals
assert os.path.isfile(proposals.HARDWARE_FACTS), proposals.HARDWARE_FACTS
"
PYTHONPATH="$work/site" CUDA_VISIBLE_DEVICES= "$python" "$source/tests/python/test_package_cpu.py"
PYTHONPATH="$work/site" CUDA_VISIBLE_DEVICES= "$python" "$source/tests/python/test_bf16_cpu.py"
echo "python_pip_install: ok"
