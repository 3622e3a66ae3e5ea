#!/bin/bash
# Late GELU, one test per part (branch late-gelu) against main e6eba06: fused/plain per build,
# builds alternated; SASS of the 128x224 tile; ncu warp states of the fused call.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
rm -rf /tmp/ref; mkdir -p /tmp/ref && tar xf scratch/ab/ref.tar -C /tmp/ref
( cmake -S /tmp/ref -B /tmp/ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=e6eba06 > $o/build-ref.log 2>&1 &&
  cmake --build /tmp/ref/b -j 8 --target hgemm_cli >> $o/build-ref.log 2>&1 || echo "REF BUILD FAILED" >> $o/progress ) &
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 8 --target hgemm_cli >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
wait
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
S=bench/results/2026-11-28-h200-api-bars/epilogue-shapes.txt
for r in 1 2; do
  for side in ref new; do
    bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
    for e in bias_gelu gelu; do
      $bin bench --suite $S --impl hgemm,hgemm-plain,cublaslt-best --modes graph --layout tn --acc f32 \
        --epilogue $e --out $o/epi-$side-$r-f16-$e.csv > $o/epi-$side-$r-f16-$e.log 2>&1
      echo "$side $r $e rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    done
  done
done
for dt in f16 bf16; do
  timeout 60 b/hgemm verify --suite $S --acc f32 --dtype $dt --epilogue bias_gelu --out $o/verify-$dt.csv > $o/verify-$dt.log 2>&1
  echo "verify $dt rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done
cuobjdump -sass b/hgemm > /tmp/all.sass 2>$o/cuobjdump.err
pat=Li128ELi224ELi64ELi4ELi2ELi2ELi1ELNS_8EpilogueE1ELNS_5AccumE0ELNS_6LayoutE1ELNS_8ScheduleE0ELb0ELNS_5DTypeE0ELb0ELb0E
awk -v p="$pat" '/Function :/ {on = index($0, p) > 0} on' /tmp/all.sass > $o/sass-128x224.txt
for e in bias_gelu none; do
  timeout 100 ncu -k regex:Li224E --launch-skip 6 --launch-count 1 --section SpeedOfLight --section WarpStateStats \
    --section InstructionStats --section SchedulerStats --metrics smsp__inst_executed_pipe_xu.sum \
    b/hgemm bench --shape 4096x14336x4096 --impl hgemm --modes offline --layout tn --acc f32 \
    --epilogue $e --loops 5 --out /tmp/x.csv > $o/ncu-$e.txt 2>&1
  echo "ncu $e rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done
gzip -9 -n $o/*.txt $o/*.log; tar czf $OUT/all.tgz -C $o .
cat $o/progress
