#!/bin/bash
# The narrow-unsplit rule with its bound (tiles over 48 tokens wide keep the split at K > 16384):
# every call it changes on shapes not measured before (val-changed.txt: 36/76/84/92 tokens on the
# llm pairs with N >= 4096, and K = 20480/24576 at 24-88 tokens), new pick against old and
# cublaslt-best interleaved, three rounds; then llm-heldout and llm-fresh against cublaslt-best,
# graph mode, both layouts, fp32 then fp16.
set -u
o=/tmp/ov; rm -rf $o; mkdir -p $o/v $o/suites; t0=$(date +%s); unset HGEMM_JIT
el() { echo $(( $(date +%s) - t0 )); }
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
echo "build $(el) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
for round in 1 2 3; do
  while read m n k lay acc new old; do
    timeout 20 /tmp/b/hgemm bench --shape ${m}x${n}x${k} --layout $lay --acc $acc --modes graph,latency \
      --impl hgemm,config:$old,cublaslt-best --out $o/v/v-$round-$m-$n-$k-$lay-$acc.csv >> $o/v/bench.log 2>&1 || echo "v rc=$? $m $n $k $lay $acc"
  done < scratch/ab/val-changed.txt
  echo "round $round $(el) s"
done
gzip -f $o/v/*.csv; tar czf $OUT/val.tgz -C $o --exclude build.log .
for acc in f32 f16; do
  for s in llm-heldout llm-fresh; do
    [ $(el) -lt 520 ] || break
    timeout $(( 585 - $(el) )) /tmp/b/hgemm bench --suite $s --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc $acc \
      --out $o/suites/$s-$acc.csv > $o/suites/$s-$acc.log 2>&1 || echo "suite rc=$? $s $acc"
    echo "$s $acc $(el) s"
  done
done
gzip -f $o/suites/*; tar czf $OUT/val.tgz -C $o --exclude build.log .
