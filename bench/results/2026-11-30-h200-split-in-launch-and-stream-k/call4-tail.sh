#!/bin/bash
# Run 2026-11-30 (new = the working tree: call 3's patch with sk0 changed from an even share of the k-blocks to
# splitting only the tiles past the last whole round, each into the same number (2-4) of k-aligned pieces).
# The 14 fp32 suite calls whose pick leaves a part-filled last round of more than one round and where the
# split applies (tail-probe.txt): pick, pick as sk0 and cublaslt-best interleaved, verified first, two passes.
# Run: NEWHASH=<tree> bash scratch/ab/call4-tail.sh  (carry scratch/ab)
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o/probe
t0=$(date +%s); unset HGEMM_JIT
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$NEWHASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; grep -B2 -A12 error $o/build.log | head -40; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
cp scratch/ab/tail-probe.txt $o/probe/
for pass in 1 2; do
  while read m n k lay acc pick sk; do
    timeout 15 /tmp/b/hgemm bench --shape ${m}x${n}x${k} --layout $lay --acc $acc --modes graph \
      --impl config:$pick,config:$sk,cublaslt-best --out $o/probe/tail-$pass-$m-$n-$k-$lay.csv >> $o/probe/bench.log 2>&1 || echo "probe rc=$? $m $n $k $lay"
  done < scratch/ab/tail-probe.txt
  echo "pass $pass $(( $(date +%s) - t0 )) s"; tar czf $OUT/all.tgz -C $o .
done
rm -f $o/build.log; tar czf $OUT/all.tgz -C $o .
