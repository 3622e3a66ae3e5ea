#!/usr/bin/env bash
set -u
T0=$(date +%s)
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_BUILD_PYTHON=OFF > $OUT/cmake.log 2>&1
cmake --build build-gpu -j16 > $OUT/build.log 2>&1 || { tail -50 $OUT/build.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
for acc in ${ACCS:-f32}; do
  HGEMM_USER_TABLE=/tmp/absent timeout $(( ${LIMIT:-560} - ($(date +%s) - T0) )) build-gpu/hgemm bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph,latency --layout tn,nn --acc $acc --out $OUT/heldout-$acc.csv ${RESUME:+--resume} > $OUT/heldout-$acc.log 2>&1
  echo "$acc rc $? $(( $(date +%s) - T0 )) s"
  build-gpu/hgemm report $OUT/heldout-$acc.csv 2>/dev/null | grep -i "geomean\|graph\|latency" | head -12
done
