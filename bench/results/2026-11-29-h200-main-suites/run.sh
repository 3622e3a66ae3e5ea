#!/bin/bash
# The README table's suites on the final tree: llm-fresh and llm-heldout, f32, graph, both layouts.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
( while true; do tar czf $OUT/all.tgz.tmp -C $o . 2>/dev/null && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 15; done ) &
arch=$!
export HGEMM_GIT_HASH=$HASH HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
timeout 50 b/hgemm bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f32 \
  --out $o/heldout-f32.csv > $o/heldout.log 2>&1
echo "heldout rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
timeout 100 b/hgemm bench --suite llm-fresh --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f32 \
  --out $o/fresh-f32.csv > $o/fresh.log 2>&1
echo "fresh rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress
