#!/bin/bash
# Run 2026-11-30 (ref 9a5438d = main's code, new = the working tree: split-K reduced in the GEMM's launch with
# its counters cleared by a programmatically launched kernel instead of a memset, and stream-K with
# num_splits fixed to 1). sk.patch is the change.
# 1) A/B ref vs new over the 99 suite calls dispatch splits (fs-ACC-LAYOUT.txt), two rounds;
# 2) stream-K probe: 24 low fp32 calls, the pick, the pick as stream-K (sk0) and cublaslt-best;
# 3) the sm90 family test and the split-K and stream-K memchecks on the new tree, as time allows.
# Run: REFHASH=<main> NEWHASH=<tree> bash scratch/ab/call3-sk.sh  (carry scratch/ab)
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o/ab $o/tests $o/probe
t0=$(date +%s); unset HGEMM_JIT
git apply -R scratch/ab/sk.patch || { echo UNPATCH FAILED; exit 1; }
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=$REFHASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-ref
echo "build $(( $(date +%s) - t0 )) s"
git apply scratch/ab/sk.patch || { echo PATCH FAILED; exit 1; }
cmake -S . -B /tmp/b -DHGEMM_GIT_HASH=$NEWHASH >> $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli test_sm90_family >> $o/build.log 2>&1 || { echo REBUILD FAILED; grep -B2 -A12 "error" $o/build.log | head -60; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-new
echo "rebuild $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt; cp $o/env.txt $o/ab/
cp scratch/ab/fs-*.txt $o/ab/
for round in 1 2; do
  for side in ref new; do
    for acc in f32 f16; do for lay in tn nn; do
      timeout 60 /tmp/b/hgemm-$side bench --suite scratch/ab/fs-$acc-$lay.txt --impl hgemm,cublaslt-best --modes graph --layout $lay \
        --acc $acc --out $o/ab/ab-run-sk-$lay-$side-$round-$acc.csv >> $o/ab/ab-$lay-$acc-$side.log 2>&1 || echo "bench rc=$? $side $acc $lay"
    done; done
  done
  echo "round $round $(( $(date +%s) - t0 )) s"; tar czf $OUT/all.tgz -C $o .
done
cp scratch/ab/sk-probe.txt $o/probe/
while read m n k lay pick sk; do
  timeout 15 /tmp/b/hgemm-new bench --shape ${m}x${n}x${k} --layout $lay --acc f32 --modes graph \
    --impl config:$pick,config:$sk,cublaslt-best --out $o/probe/probe-$m-$n-$k-$lay.csv >> $o/probe/bench.log 2>&1 || echo "probe rc=$? $m $n $k $lay"
done < scratch/ab/sk-probe.txt
echo "probe $(( $(date +%s) - t0 )) s"; tar czf $OUT/all.tgz -C $o .
left=$(( 570 - ($(date +%s) - t0) ))
timeout $left stdbuf -oL /tmp/b/tests/test_sm90_family > $o/tests/sm90_family.log 2>&1; echo "family rc=$? (limit $left s)"
grep -c "^ok" $o/tests/sm90_family.log; grep -m8 "^FAIL" $o/tests/sm90_family.log; tail -n 3 $o/tests/sm90_family.log
echo "tests $(( $(date +%s) - t0 )) s"
gzip $o/ab/*.csv $o/ab/*.log $o/probe/*.csv $o/tests/*.log
rm -f $o/build.log; tar czf $OUT/all.tgz -C $o .
