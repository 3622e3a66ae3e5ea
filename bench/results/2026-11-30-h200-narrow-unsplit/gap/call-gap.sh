#!/bin/bash
# The narrow-unsplit bound's gap: at K = 20480 and 24576 (unmeasured between 16384 and 27648),
# 52-92 tokens over N 4608-8192, the unsplit tile the unbounded rule takes (config:NEW) against
# the split pick dispatch keeps (config:OLD) and cublaslt-best, interleaved, one round, graph.
set -u
o=/tmp/og; rm -rf $o; mkdir -p $o/v; t0=$(date +%s); unset HGEMM_JIT
el() { echo $(( $(date +%s) - t0 )); }
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
echo "build $(el) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
while read m n k lay acc new old; do
  [ $(el) -lt 225 ] || { echo "stopped at $m $n $k $lay $acc"; break; }
  timeout 10 /tmp/b/hgemm bench --shape ${m}x${n}x${k} --layout $lay --acc $acc --modes graph \
    --impl config:$new,config:$old,cublaslt-best --out $o/v/g-$m-$n-$k-$lay-$acc.csv >> $o/v/bench.log 2>&1 || echo "rc=$? $m $n $k $lay $acc"
done < scratch/ab/gap-changed.txt
echo "done $(el) s"
gzip -f $o/v/*; tar czf $OUT/gap.tgz -C $o --exclude build.log .
