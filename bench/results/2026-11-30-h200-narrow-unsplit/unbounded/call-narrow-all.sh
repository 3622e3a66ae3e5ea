#!/bin/bash
# The narrow-unsplit rule, unbounded (next-narrow-unsplit.patch applied): every call it changes
# (narrowall.txt: the 123 of narrowchanged.txt, then 64 at 44-88 tokens on no list), new pick
# (hgemm), old (config:) and cublaslt-best interleaved, three rounds, graph and latency.
set -u
o=/tmp/on; rm -rf $o; mkdir -p $o/v; t0=$(date +%s); unset HGEMM_JIT
el() { echo $(( $(date +%s) - t0 )); }
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
echo "build $(el) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
for round in 1 2 3; do
  while read m n k lay acc new old; do
    timeout 20 /tmp/b/hgemm bench --shape ${m}x${n}x${k} --layout $lay --acc $acc --modes graph,latency \
      --impl hgemm,config:$old,cublaslt-best --out $o/v/v-$round-$m-$n-$k-$lay-$acc.csv >> $o/v/bench.log 2>&1 || echo "v rc=$? $m $n $k $lay $acc"
  done < scratch/ab/narrowall.txt
  echo "round $round $(el) s"
  gzip -f $o/v/*.csv; tar czf $OUT/narrow.tgz -C $o --exclude build.log .
done
