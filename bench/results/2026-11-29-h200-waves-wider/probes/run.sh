#!/bin/bash
# Call 4: probes for extending the prefill rule: TN fp32 at 600-980 tokens, NN fp32 at 1100-3300,
# every catalog tile of the rule's class beside dispatch and cublaslt-best, graph mode, 5 loops.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
( while true; do tar czf $OUT/all.tgz.tmp -C $o . 2>/dev/null && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 20; done ) &
arch=$!
export HGEMM_GIT_HASH=$HASH HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
timeout 150 b/hgemm bench --suite scratch/call4/mid-dev.txt --impl "$(cat scratch/call4/tn-impls.txt)" \
  --modes graph --layout tn --acc f32 --loops 5 --out $o/mid-tn-f32.csv > $o/mid.log 2>&1
echo "mid rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
timeout 150 b/hgemm bench --suite scratch/call4/prefill-dev.txt --impl "$(cat scratch/call4/nn-impls.txt)" \
  --modes graph --layout nn --acc f32 --loops 5 --out $o/prefill-nn-f32.csv > $o/nn.log 2>&1
echo "nn rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; gzip -9 $o/*.csv 2>/dev/null; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress
