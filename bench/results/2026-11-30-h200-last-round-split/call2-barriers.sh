#!/bin/bash
# Why the last round's split slowed unsplit calls: ref (main), x2 (the tree: every named barrier an
# immediate), x1 (the split as first built, barriers named by registers, with the split compiled
# out of every kernel). x-calls.txt, hgemm and cublaslt-best interleaved, graph, two rounds; then
# llm-heldout and llm-fresh fp32 for ref and x2.
# Run: REFHASH=<main> NEWHASH=<tree> bash scratch/ab/call2-barriers.sh  (carry scratch/ab)
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o/ab $o/x
t0=$(date +%s); unset HGEMM_JIT
el() { echo $(( $(date +%s) - t0 )); }
build() { cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$1 >> $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED $1; grep -B2 -A12 "error" $o/build.log | head -40; exit 1; }
  cp /tmp/b/hgemm /tmp/b/hgemm-$2; echo "build $2 $(el) s"; }
git apply -R scratch/ab/x2.patch || { echo UNPATCH FAILED; exit 1; }
build $REFHASH ref
git apply scratch/ab/x2.patch || { echo PATCH FAILED; exit 1; }
build $NEWHASH x2
cp src/kernels/sm90/sm90_ws.cuh /tmp/ws_x2.cuh; cp scratch/ab/ws_x1.cuh src/kernels/sm90/sm90_ws.cuh
build $NEWHASH-x1 x1
cp /tmp/ws_x2.cuh src/kernels/sm90/sm90_ws.cuh
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
for round in 1 2; do
  while read m n k lay acc; do
    for side in ref x2 x1; do
      timeout 30 /tmp/b/hgemm-$side bench --shape ${m}x${n}x${k} --layout $lay --acc $acc --modes graph \
        --impl hgemm,cublaslt-best --out $o/x/x-$round-$side-$m-$n-$k-$lay-$acc.csv >> $o/x/bench.log 2>&1 || echo "x rc=$? $side $m $n $k $lay $acc"
    done
  done < scratch/ab/x-calls.txt
  echo "x round $round $(el) s"
done
tar czf $OUT/all.tgz -C $o --exclude build.log .
for s in llm-heldout llm-fresh; do
  for side in ref x2; do
    [ $(el) -lt 555 ] || break
    timeout $(( 585 - $(el) )) /tmp/b/hgemm-$side bench --suite $s --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f32 \
      --out $o/ab/$s-f32-$side.csv > $o/ab/$s-f32-$side.log 2>&1 || echo "suite rc=$? $s $side"
    echo "$s $side $(el) s"
  done
done
gzip $o/ab/* $o/x/*
tar czf $OUT/all.tgz -C $o --exclude build.log .
