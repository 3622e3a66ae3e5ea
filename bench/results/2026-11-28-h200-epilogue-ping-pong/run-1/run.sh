#!/bin/bash
# Device call: main (staged merged, the scratch refactor): build, a ping-pong epilogue
# experiment (bias+GELU at K <= 1024 with dispatch forced to sm90_pp through a user table of real
# measurements), then the whole GPU suite.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 15; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
S=1024x16384x1024,2048x8192x512,8192x4096x1024,4096x14336x1024
HGEMM_USER_TABLE=/tmp/absent-user.table b/hgemm tune --shape $S --layout tn --acc f32 --budget 1 --include sm90_pp_128x128 \
  --db $o/pp-tune.jsonl --user-table /tmp/pp-all.table > $o/pp-tune.log 2>&1
(head -1 $o/pp-tune.jsonl; grep '"config":"sm90_pp_' $o/pp-tune.jsonl) > /tmp/pp-only.jsonl
b/hgemm db export /tmp/pp-only.jsonl --table $o/pp.table --acc f32 >> $o/pp-tune.log 2>&1
echo "pp tuned $(( $(date +%s)-t0 )) s" >> $o/progress
for r in 1 2; do for t in dispatch pp; do for e in none bias_gelu; do
  tab=/tmp/absent-user.table; [ $t = pp ] && tab=$o/pp.table
  HGEMM_USER_TABLE=$tab b/hgemm bench --shape $S --impl hgemm,cublaslt-best --modes graph --layout tn --acc f32 \
    --epilogue $e --out $o/epi-$t-$e-$r.csv > $o/epi-$t-$e-$r.log 2>&1
  echo "epi $t $e $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done; done; done
export HGEMM_USER_TABLE=/tmp/absent-user.table
left=$(( 570 - ($(date +%s)-t0) ))
timeout $left ctest --test-dir b -V --timeout 300 -L gpu > $o/gpu-tests.log 2>&1
echo "gpu rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; gzip -9 -n $o/*.csv $o/gpu-tests.log; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; zgrep -h -E "tests passed|tests failed|\*\*\*Failed|Not Run|Timeout" $o/gpu-tests.log.gz
for f in $o/epi-*.log; do echo "== $f"; grep " ms:" $f; done
