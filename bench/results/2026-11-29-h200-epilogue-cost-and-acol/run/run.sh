#!/bin/bash
# Device call 3: the working tree (new: hgemm-plain in bench, the general flavour's twin of a
# tuned tile in dispatch) beside HEAD (old, scratch/s26/old.tar). Epilogue cost against the
# plain call in one run; column-major A old/new alternated; unit tests and general GPU tests.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 15; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
rm -rf /tmp/old && mkdir -p /tmp/old && tar xf scratch/s26/old.tar -C /tmp/old
( cmake -S /tmp/old -B /tmp/old/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_GIT_HASH=$OLD &&
  cmake --build /tmp/old/b -j 6 --target hgemm_cli ) > $o/build-old.log 2>&1 &
bb=$!
( cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=$NEW &&
  cmake --build b -j 10 ) > $o/build-new.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build-new.log; }
wait $bb
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
b/tests/hgemm_unit_tests --gtest_filter='Dispatch*:Bench*:Results*:Report*' > $o/unit.log 2>&1
echo "unit rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
S=bench/results/2026-11-28-h200-api-bars/epilogue-shapes.txt
for r in 1 2; do
  b/hgemm bench --suite $S --impl hgemm,hgemm-plain,cublaslt-best --modes graph --layout tn --acc f32 \
    --epilogue bias_gelu --out $o/epi-bias_gelu-$r.csv > $o/epi-bias_gelu-$r.log 2>&1
done
b/hgemm bench --suite $S --impl hgemm,hgemm-plain,cublaslt-best --modes graph --layout tn --acc f32 \
  --epilogue bias --out $o/epi-bias.csv > $o/epi-bias.log 2>&1
b/hgemm bench --suite $S --impl hgemm,hgemm-plain,cublaslt-best --modes graph --layout tn --acc f32 \
  --dtype bf16 --epilogue bias_gelu --out $o/epi-bf16-bias_gelu.csv > $o/epi-bf16-bias_gelu.log 2>&1
echo "epi $(( $(date +%s)-t0 )) s" >> $o/progress
for r in 1 2; do
  for side in old new; do
    bin=b/hgemm; [ $side = old ] && bin=/tmp/old/b/hgemm
    $bin bench --suite $S --impl hgemm,hgemm-acol --modes graph --layout tn,nn --acc f32 \
      --out $o/acol-$side-$r.csv > $o/acol-$side-$r.log 2>&1
  done
done
for side in old new; do
  bin=b/hgemm; [ $side = old ] && bin=/tmp/old/b/hgemm
  $bin bench --suite llm-heldout --impl hgemm,hgemm-acol --modes graph --layout tn,nn --acc f32 \
    --out $o/heldout-acol-$side.csv > $o/heldout-acol-$side.log 2>&1
done
echo "acol $(( $(date +%s)-t0 )) s" >> $o/progress
left=$(( 540 - ($(date +%s)-t0) ))
timeout $left ctest --test-dir b -V --timeout 300 -R 'test_gemm_general|test_api_gpu|test_harness|memcheck_gemm_general|cli_bench_line_times_long_names' > $o/gpu-tests.log 2>&1
echo "gpu rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; gzip -9 -n $o/*.csv $o/gpu-tests.log; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; tail -3 $o/unit.log; zgrep -h -E "tests passed|tests failed|\*\*\*Failed|Not Run|Timeout" $o/gpu-tests.log.gz
