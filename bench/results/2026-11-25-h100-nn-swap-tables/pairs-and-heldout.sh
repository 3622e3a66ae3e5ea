#!/usr/bin/env bash
set -u
T0=$(date +%s)
W=/tmp/w6; rm -rf $W; mkdir -p $W
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_BUILD_PYTHON=ON > $W/cmake.log 2>&1
cmake --build build-gpu -j16 > $W/build.log 2>&1 || { tail -50 $W/build.log; exit 1; }
echo "build $(( $(date +%s) - T0 )) s"
H=build-gpu/hgemm
echo "$1" > $W/env.txt; nvidia-smi --query-gpu=name,driver_version --format=csv,noheader >> $W/env.txt
export HGEMM_USER_TABLE=/tmp/absent
i=0
while read s lay acc old new; do
  i=$((i+1))
  timeout 40 $H bench --shape $s --impl config:$old,config:$new,cublaslt-best --modes graph --layout $lay --acc $acc --loops 9 --out $W/pair-$i.csv < /dev/null > $W/pair-$i.log 2>&1
done < bench/results/2026-11-25-h100-nn-swap-tables/pairs.txt
echo "pairs $i $(( $(date +%s) - T0 )) s"
for acc in f32 f16; do
  timeout 150 $H bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph,latency --layout tn,nn --acc $acc --out $W/heldout-$acc.csv < /dev/null > $W/heldout-$acc.log 2>&1
  echo "$acc rc $? $(( $(date +%s) - T0 )) s"
done
cd $W && tar czf $OUT/w6.tgz *.csv *.log env.txt
