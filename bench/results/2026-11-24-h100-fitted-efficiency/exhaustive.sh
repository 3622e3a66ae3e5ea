#!/usr/bin/env bash
set -u
T0=$(date +%s)
if [ ! -x build-gpu/hgemm ]; then
  cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_BUILD_PYTHON=OFF > $OUT/cmake.log 2>&1
  cmake --build build-gpu -j16 > $OUT/build.log 2>&1 || { tail -50 $OUT/build.log; exit 1; }
fi
echo "build $(( $(date +%s) - T0 )) s"
HGEMM_PDL=0 timeout 500 build-gpu/hgemm tune --shape ${SHAPES} --layout tn --acc f32 --policy exhaustive --db $OUT/exh-f32.jsonl --no-user-table < /dev/null > $OUT/exh.log 2>&1
echo "rc $? $(( $(date +%s) - T0 )) s"; tail -3 $OUT/exh.log
gzip -9n $OUT/exh-f32.jsonl
