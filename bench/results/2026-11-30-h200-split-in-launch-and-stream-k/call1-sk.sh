#!/bin/bash
# Run 2026-11-30 (ref 9a5438d = main, new = working tree: split-K reduced in the GEMM's own launch from
# partial tiles in register order, and stream-K as split_k = 0). sk.patch is the change.
# 1) the sm90 family test and split-K memcheck on the new tree, memcheck of the family under stream-K,
#    dispatch verified on the split calls (plain and bias + GELU) and the stream-K probe configs verified;
# 2) A/B ref vs new over the 99 suite calls dispatch splits (fs-ACC-LAYOUT.txt), one round;
# 3) stream-K probe: 24 low fp32 calls, their pick, the pick as stream-K (sk0) and cublaslt-best interleaved.
# Run: REFHASH=<main> NEWHASH=<tree> bash scratch/ab/call1-sk.sh  (carry scratch/ab)
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o/ab $o/tests $o/probe
t0=$(date +%s); unset HGEMM_JIT
git apply -R scratch/ab/sk.patch || { echo UNPATCH FAILED; exit 1; }
grep -c "count_arrival" src/ptx/barrier.cuh
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=$REFHASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-ref
echo "build $(( $(date +%s) - t0 )) s"
git apply scratch/ab/sk.patch || { echo PATCH FAILED; exit 1; }
grep -c "count_arrival" src/ptx/barrier.cuh
cmake -S . -B /tmp/b -DHGEMM_GIT_HASH=$NEWHASH >> $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli test_sm90_family >> $o/build.log 2>&1 || { echo REBUILD FAILED; grep -B2 -A12 "error" $o/build.log | head -60; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-new
echo "rebuild $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt; cp $o/env.txt $o/ab/
timeout 240 ctest --test-dir /tmp/b -R '^(test_sm90_family|memcheck_sm90_split_k|memcheck_sm90_stream_k)$' --output-on-failure > $o/tests/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "Test +#|tests passed" $o/tests/ctest.log; grep -m5 FAIL $o/tests/ctest.log
timeout 60 /tmp/b/hgemm-new verify --suite bench/suites/edge.txt --impl family:sm90 --split-k 0 --quick > $o/tests/verify-edge-sk0.log 2>&1; echo "verify edge stream-K rc=$?"; tail -2 $o/tests/verify-edge-sk0.log
cat scratch/ab/fs-*.txt | sort -u > $o/ab/fs-all.txt
timeout 90 /tmp/b/hgemm-new verify --suite $o/ab/fs-all.txt > $o/tests/verify-split.log 2>&1; echo "verify split calls rc=$?"; tail -2 $o/tests/verify-split.log
timeout 60 /tmp/b/hgemm-new verify --suite $o/ab/fs-all.txt --acc f32 --epilogue bias_gelu > $o/tests/verify-split-gelu.log 2>&1; echo "verify gelu rc=$?"; tail -2 $o/tests/verify-split-gelu.log
echo "tests $(( $(date +%s) - t0 )) s"; tar czf $OUT/all.tgz -C $o .
cp scratch/ab/sk-probe.txt $o/probe/
while read m n k lay pick sk; do
  /tmp/b/hgemm-new bench --shape ${m}x${n}x${k} --layout $lay --acc f32 --modes graph \
    --impl config:$pick,config:$sk,cublaslt-best --out $o/probe/probe-$m-$n-$k-$lay.csv >> $o/probe/bench.log 2>&1 || echo "probe rc=$? $m $n $k $lay"
done < scratch/ab/sk-probe.txt
echo "probe $(( $(date +%s) - t0 )) s"; tar czf $OUT/all.tgz -C $o .
cp scratch/ab/fs-*.txt $o/ab/
for round in 1; do
  for side in ref new; do
    for acc in f32 f16; do for lay in tn nn; do
      /tmp/b/hgemm-$side bench --suite scratch/ab/fs-$acc-$lay.txt --impl hgemm,cublaslt-best --modes graph --layout $lay \
        --acc $acc --out $o/ab/ab-run-sk-$lay-$side-$round-$acc.csv >> $o/ab/ab-$lay-$acc-$side.log 2>&1 || echo "bench rc=$? $side $acc $lay"
    done; done
  done
  echo "round $round $(( $(date +%s) - t0 )) s"; tar czf $OUT/all.tgz -C $o .
done
gzip $o/ab/*.csv $o/ab/*.log $o/probe/*.csv $o/tests/*.log
rm -f $o/build.log; tar czf $OUT/all.tgz -C $o .
