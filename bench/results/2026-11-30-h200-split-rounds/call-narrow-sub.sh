#!/bin/bash
# One round over every third call of narrowchanged.txt with next-narrow-unsplit.patch applied:
# the new pick (hgemm), the old one (config:) and cublaslt-best interleaved, graph mode; each CSV
# written straight into $OUT so that a call cut short by the device budget keeps what it ran.
set -u
t0=$(date +%s); unset HGEMM_JIT; mkdir -p $OUT/n
git apply scratch/ab/next-narrow-unsplit.patch || { echo PATCH FAILED; exit 1; }
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_GIT_HASH=$HASH > /tmp/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> /tmp/build.log 2>&1 || { echo BUILD FAILED; tail -30 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $OUT/env.txt
while read m n k lay acc new old; do
  timeout 10 /tmp/b/hgemm bench --shape ${m}x${n}x${k} --layout $lay --acc $acc --modes graph \
    --impl hgemm,config:$old,cublaslt-best --out $OUT/n/n-$m-$n-$k-$lay-$acc.csv >> $OUT/n/bench.log 2>&1 || echo "rc=$? $m $n $k $lay $acc"
done < scratch/ab/narrow-sub.txt
echo "done $(( $(date +%s) - t0 )) s"
