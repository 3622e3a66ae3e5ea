#!/bin/bash
# The bias words + GELU change (HEAD) against 9fb1434 (scratch/head.tar): epilogue shapes with
# bias + GELU and plain, both builds alternated twice, each against cublaslt-best; ncu of the
# ping-pong tile's bias + GELU; the held-out fifth f32 (plain calls: unchanged?); the GPU suite.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 15; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
rm -rf /tmp/old && mkdir -p /tmp/old && tar xf scratch/head.tar -C /tmp/old
( cmake -S /tmp/old -B /tmp/old/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_GIT_HASH=9fb1434 &&
  cmake --build /tmp/old/b -j 6 --target hgemm_cli ) > $o/build-old.log 2>&1 &
bo=$!
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_PTXAS_VERBOSE=ON -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 12 >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
wait $bo || { echo "OLD BUILD FAILED"; tail -20 $o/build-old.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
grep -B3 "spill" $o/build.log | grep -E "Compiling entry|spill" | paste - - | grep -v " 0 bytes spill stores, 0 bytes spill loads" > $o/spills-new.txt
echo "spilling kernels: $(wc -l < $o/spills-new.txt)" >> $o/progress
S=bench/results/2026-11-28-h200-api-bars/epilogue-shapes.txt
for r in 1 2; do
  for side in old new; do
    bin=b/hgemm; [ $side = old ] && bin=/tmp/old/b/hgemm
    for e in none bias_gelu; do
      $bin bench --suite $S --impl hgemm,cublaslt-best --modes graph --layout tn --acc f32 --epilogue $e \
        --out $o/epi-$side-$e-$r.csv > $o/epi-$side-$e-$r.log 2>&1
      echo "epi $side $e $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    done
  done
done
timeout 100 ncu --clock-control none --section SpeedOfLight --section SourceCounters --section WarpStateStats \
  --kernel-name regex:sm90_ws_gemm --launch-skip 3 --launch-count 1 -o $o/pp-gelu-new \
  b/hgemm bench --shape 2048x8192x512 --impl hgemm --modes offline --layout tn --acc f32 --epilogue bias_gelu \
  --out $o/ncu.csv > $o/ncu.log 2>&1
ncu --import $o/pp-gelu-new.ncu-rep --page source --csv --print-source sass 2>/dev/null | gzip > $o/pp-gelu-new-sass.csv.gz
ncu --import $o/pp-gelu-new.ncu-rep --page details --csv > $o/pp-gelu-new-details.csv 2>/dev/null
rm -f $o/*.ncu-rep
echo "ncu $(( $(date +%s)-t0 )) s" >> $o/progress
b/hgemm bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph,latency --layout tn,nn --acc f32 \
  --out $o/heldout-f32.csv > $o/heldout-f32.log 2>&1
echo "heldout rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
left=$(( 585 - ($(date +%s)-t0) ))
timeout $left ctest --test-dir b -V --timeout 300 -L gpu > $o/gpu-tests.log 2>&1
echo "gpu rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; gzip -9 -n $o/*.csv $o/gpu-tests.log $o/build.log; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; zgrep -h -E "tests passed|tests failed|\*\*\*Failed|Not Run|Timeout" $o/gpu-tests.log.gz
