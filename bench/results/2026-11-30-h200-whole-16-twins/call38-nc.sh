#!/bin/bash
# 1) whole-16-twins on the GPU: test_sm90_family, memcheck_sm90, memcheck_sm90_split_k.
# 2) Branch no-odd-charge (the wave rule no longer charges the swap-AB twins of 144, 176, 208 tokens, now
#    staged whole) against whole-16-twins over the 45 fp32 calls it changes (nc-f32-LAYOUT.txt: llm-fresh,
#    llm-tune/llm and the 288-call prefill probe), three rounds alternated.
# Run: REFHASH=<whole-16-twins> NEWHASH=<no-odd-charge> bash scratch/ab/call38-nc.sh   (about 6 minutes)
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o/ab $o/tests
t0=$(date +%s); unset HGEMM_JIT
git apply -R scratch/ab/nc.patch 2>/dev/null || true   # the device's tree is no-odd-charge: back to whole-16-twins
grep -c odd_width src/dispatch/neighbors.cpp
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=$REFHASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli test_sm90_family >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; tar czf $OUT/all.tgz -C $o .; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"; grep -c spill $o/build.log
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt; cp $o/env.txt $o/ab/; cp $o/env.txt $o/tests/
ctest --test-dir /tmp/b -R '^(test_sm90_family|memcheck_sm90|memcheck_sm90_split_k)$' > $o/tests/ctest.log 2>&1; echo "ctest rc=$?"
grep -E "Test +#|tests passed" $o/tests/ctest.log
echo "tests $(( $(date +%s) - t0 )) s"; tar czf $OUT/all.tgz -C $o .
cp /tmp/b/hgemm /tmp/b/hgemm-ref
git apply scratch/ab/nc.patch || { echo PATCH FAILED; exit 1; }
grep -c odd_width src/dispatch/neighbors.cpp
cmake -S . -B /tmp/b -DHGEMM_GIT_HASH=$NEWHASH >> $o/build.log 2>&1 && cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo REBUILD FAILED; tail -30 $o/build.log; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-new
echo "rebuild $(( $(date +%s) - t0 )) s"
cp scratch/ab/nc-f32-*.txt $o/ab/
for lay in tn nn; do for side in ref new; do
  /tmp/b/hgemm-$side explain --suite scratch/ab/nc-f32-$lay.txt --layout $lay --acc f32 > $o/ab/explain-$side-$lay.txt 2>&1
done; done
for round in 1 2 3; do
  for side in ref new; do
    for lay in tn nn; do
      /tmp/b/hgemm-$side bench --suite scratch/ab/nc-f32-$lay.txt --impl hgemm,cublaslt-best --modes graph --layout $lay --acc f32 \
        --out $o/ab/ab-run-nc-$lay-$side-$round-f32.csv >> $o/ab/ab-$lay-f32-$side.log 2>&1 || echo "bench rc=$? $side $lay"
    done
  done
  echo "round $round $(( $(date +%s) - t0 )) s"; tar czf $OUT/all.tgz -C $o .
done
gzip $o/ab/*.csv $o/ab/*.log $o/ab/explain*
rm -f $o/build.log; tar czf $OUT/all.tgz -C $o .
