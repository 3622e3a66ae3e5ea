#!/bin/bash
# A/B of the TN small-M rule: this tree (new) against scratch/main.tar (ref), CLIs built side by
# side, alternated round by round: the validation shapes (M 9-16, (N, K) outside the probe that
# fitted the rule) f32 and f16 in graph and latency modes, three rounds; llm-fresh and
# llm-heldout f32 graph both layouts, two rounds; the new side also times the rule's candidate
# tiles on the validation shapes (the best the rule could have picked).
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
V=$(cat scratch/ab2/validate.txt)
for r in 1 2 3; do
  for side in ref new; do
    bin=b/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
    for acc in f32 f16; do
      $bin bench --shape "$V" --impl hgemm,cublaslt-best --modes graph,latency --layout tn --acc $acc \
        --out $o/val-$side-$r-$acc.csv > $o/val-$side-$r-$acc.log 2>&1
      echo "val $side $r $acc rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    done
    if [ $r -le 2 ]; then
      for s in llm-fresh llm-heldout; do
        $bin bench --suite $s --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f32 \
          --out $o/ab-$s-$side-$r-f32.csv > $o/ab-$s-$side-$r.log 2>&1
        echo "$s $side $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
      done
    fi
  done
done
for acc in f32 f16; do
  impls=hgemm,cublaslt-best
  for c in 16x128x64_s10_c1x1_w1_m8_st_sk1 16x128x64_s10_c1x1_w1_m8_st_sk2 16x128x64_s10_c1x1_w1_m8_st_sk4 \
           32x64x64_s12_c1x1_w2_m8_st_sk1 32x64x64_s12_c1x1_w2_m8_st_sk2 32x64x64_s12_c1x1_w2_m8_st_sk4; do
    impls="$impls,config:sm90_ws_${c}_${acc}_tn_swap"
  done
  b/hgemm bench --shape "$V" --impl "$impls" --modes graph --layout tn --acc $acc --loops 7 \
    --out $o/oracle-$acc.csv > $o/oracle-$acc.log 2>&1
  echo "oracle $acc rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
done
kill $arch; gzip -9 $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress
