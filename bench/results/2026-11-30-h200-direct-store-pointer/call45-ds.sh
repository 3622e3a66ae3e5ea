#!/bin/bash
# Run 2026-11-30 (ref 8386b54, new 32b6b08). Branch direct-store-pointer (ds.patch: the non-swap direct-store epilogue steps
# one pointer a row instead of computing every store's address, which spilled 192x192 and 192x208 of three
# warpgroups) against main: the sm90 family tests and memcheck on the branch, then an A/B over every suite call
# that runs 192x192 w3 with direct stores and one in five of the other non-swap direct-store calls
# (ds-ACC-LAYOUT.txt: llm-fresh, llm-heldout, llm-tune and the 288-call prefill probe), two rounds.
# Run: REFHASH=<main> NEWHASH=<direct-store-pointer> bash scratch/ab/call45-ds.sh   (about 7 minutes)
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o/ab $o/tests
t0=$(date +%s); unset HGEMM_JIT
git apply -R scratch/ab/ds.patch 2>/dev/null || true   # the device's tree is the branch: back to main
grep -c "p = ptx::pinned(p + 32)" src/kernels/sm90/sm90_ws.cuh
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=$REFHASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-ref
echo "build $(( $(date +%s) - t0 )) s"
git apply scratch/ab/ds.patch || { echo PATCH FAILED; exit 1; }
grep -c "p = ptx::pinned(p + 32)" src/kernels/sm90/sm90_ws.cuh
cmake -S . -B /tmp/b -DHGEMM_GIT_HASH=$NEWHASH >> $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli test_sm90_family >> $o/build.log 2>&1 || { echo REBUILD FAILED; tail -30 $o/build.log; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-new
echo "rebuild $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt; cp $o/env.txt $o/ab/; cp $o/env.txt $o/tests/
ctest --test-dir /tmp/b -R '^(test_sm90_family|memcheck_sm90|memcheck_sm90_split_k|memcheck_gemm_general)$' > $o/tests/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "Test +#|tests passed" $o/tests/ctest.log
echo "tests $(( $(date +%s) - t0 )) s"; tar czf $OUT/all.tgz -C $o .
cp scratch/ab/ds-*.txt $o/ab/
for round in 1 2; do
  for side in ref new; do
    for acc in f32 f16; do for lay in tn nn; do
      /tmp/b/hgemm-$side bench --suite scratch/ab/ds-$acc-$lay.txt --impl hgemm,cublaslt-best --modes graph --layout $lay \
        --acc $acc --out $o/ab/ab-run-ds-$lay-$side-$round-$acc.csv >> $o/ab/ab-$lay-$acc-$side.log 2>&1 || echo "bench rc=$? $side $acc $lay"
    done; done
  done
  echo "round $round $(( $(date +%s) - t0 )) s"; tar czf $OUT/all.tgz -C $o .
done
gzip $o/ab/*.csv $o/ab/*.log $o/tests/ctest.log
rm -f $o/build.log; tar czf $OUT/all.tgz -C $o .
