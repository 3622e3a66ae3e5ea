#!/bin/bash
# A/B: this tree (new) against scratch/main.tar (ref), both CLIs built side by side, alternated
# round by round over llm-fresh and llm-heldout (f32, graph, both layouts, hgemm and
# cublaslt-best interleaved in each run); then ncu instruction counts of both at two shapes.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 15; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
rm -rf /tmp/ref && mkdir -p /tmp/ref && tar xf scratch/main.tar -C /tmp/ref
( cmake -S /tmp/ref -B /tmp/ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$REF &&
  cmake --build /tmp/ref/b -j 8 --target hgemm_cli ) > $o/build-ref.log 2>&1 &
bo=$!
( cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH &&
  cmake --build b -j 8 --target hgemm_cli ) > $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
wait $bo || { echo "REF BUILD FAILED"; tail -20 $o/build-ref.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
for r in 1 2; do
  for side in ref new; do
    bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
    for s in llm-fresh llm-heldout; do
      $bin bench --suite $s --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f32 \
        --out $o/ab-$s-$side-$r-f32.csv > $o/ab-$s-$side-$r.log 2>&1
      echo "$s $side $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    done
  done
done
for side in ref new; do
  bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
  for sh in 150x10240x8192 2048x8192x512 12x8192x8192; do
    timeout 60 ncu --clock-control none --metrics smsp__inst_executed.sum,gpu__time_duration.sum,sm__cycles_elapsed.max \
      --kernel-name regex:sm90_ws --launch-skip 3 --launch-count 1 \
      $bin bench --shape $sh --impl config:sm90_ws_80x128x64_s8_c1x1_w2_m8_st_sk1_f32_tn_swap --modes offline --layout tn --acc f32 \
      --out $o/ncu-$side-$sh.csv > $o/ncu-$side-$sh.txt 2>&1
  done
done
echo "ncu $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; gzip -9 $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress
