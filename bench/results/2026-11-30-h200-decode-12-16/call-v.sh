#!/bin/bash
# 1) the TN 12-16-token decode rule (working tree): at the calls it changes (vchanged.txt: shapes
#    of llm-fresh/heldout/dev pairs not in the probe, 14 and 16 tokens, and the suites' 12-16), the
#    new pick (hgemm), the old swap-AB tile (config:) and cublaslt-best interleaved, three rounds;
# 2) split probe (splitprobe.txt): dispatch's split-K swap-AB picks at 20-300 tokens on llm-tune
#    pairs against unsplit 64-row swap-AB tiles of about as many CTAs.
set -u
o=/tmp/ov; rm -rf $o; mkdir -p $o/v $o/s; t0=$(date +%s); unset HGEMM_JIT
el() { echo $(( $(date +%s) - t0 )); }
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
echo "build $(el) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
for round in 1 2 3; do
  while read m n k lay acc new old; do
    timeout 30 /tmp/b/hgemm bench --shape ${m}x${n}x${k} --layout $lay --acc $acc --modes graph,latency \
      --impl hgemm,config:$old,cublaslt-best --out $o/v/v-$round-$m-$n-$k-$lay-$acc.csv >> $o/v/bench.log 2>&1 || echo "v rc=$? $m $n $k $lay $acc"
  done < scratch/ab/vchanged.txt
  echo "round $round $(el) s"
done
tar czf $OUT/v.tgz -C $o --exclude build.log .
while read m n k lay acc pick alts; do
  [ $(el) -lt 400 ] || break
  timeout 20 /tmp/b/hgemm bench --shape ${m}x${n}x${k} --layout $lay --acc $acc --modes graph \
    --impl hgemm,$alts,cublaslt-best --out $o/s/s-$m-$n-$k-$lay-$acc.csv >> $o/s/bench.log 2>&1 || echo "s rc=$? $m $n $k $lay $acc"
done < scratch/ab/splitprobe.txt
echo "split probe $(el) s"
gzip $o/v/* $o/s/*; tar czf $OUT/v.tgz -C $o --exclude build.log .
