#!/usr/bin/env bash
set -u
T0=$(date +%s)
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_BUILD_PYTHON=ON > /dev/null 2>&1
export TUNE_LAYOUTS=nn TUNE_INCLUDE=m8_st_sk1_f32_nn_swap,m8_st_sk1_f16_nn_swap TUNE_TIME_LIMIT=200
O=/tmp/o/inc2
HGEMM_GIT_HASH=$1 timeout 480 scripts/gpu-check $O include-bench/results/2026-11-25-h100-nn-swap-tables/shapes.txt
echo "include done $(( $(date +%s) - T0 )) s"
H=build-gpu/hgemm
for acc in f32 f16; do
  HGEMM_USER_TABLE=/tmp/absent HGEMM_DB=$O/dispatch-$acc.table timeout 60 $H bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph,latency --layout tn,nn --acc $acc --out $O/heldout-$acc.csv < /dev/null > $O/heldout-$acc.log 2>&1
  echo "$acc rc $? $(( $(date +%s) - T0 )) s"
done
cd $O && tar czf $OUT/inc2.tgz .
