#!/bin/bash
# A/B of the 64-row swap tiles for small M: this tree (new) against scratch/main.tar (ref), CLIs
# built side by side, alternated round by round: val16 (M 9-16, TN and NN) and val8 (M 1-8, NN)
# on 29 (N, K) pairs of llm-fresh that llm-tune and llm-heldout lack, f32 and f16, graph and
# latency; llm-fresh and llm-heldout f32 graph both layouts. Then (new side) the 16x64 tile split
# 1 and 2 on val16 TN: what M 9-11 would get from it.
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
( cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH &&
  cmake --build build-gpu -j 8 --target hgemm_cli ) > $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -30 $o/build.log; }
wait $bo || { echo "REF BUILD FAILED"; tail -20 $o/build-ref.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
V16=$(cat scratch/ab31/val16.txt); V8=$(cat scratch/ab31/val8.txt)
for r in 1 2; do
  for side in ref new; do
    bin=build-gpu/hgemm; [ $side = ref ] && bin=/tmp/ref/b/hgemm
    for acc in f32 f16; do
      $bin bench --shape "$V16" --impl hgemm,cublaslt-best --modes graph,latency --layout tn,nn --acc $acc \
        --out $o/val16-$side-$r-$acc.csv > $o/val16-$side-$r-$acc.log 2>&1
      $bin bench --shape "$V8" --impl hgemm,cublaslt-best --modes graph,latency --layout nn --acc $acc \
        --out $o/val8-$side-$r-$acc.csv > $o/val8-$side-$r-$acc.log 2>&1
      echo "val $side $r $acc rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    done
    for s in llm-fresh llm-heldout; do
      $bin bench --suite $s --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f32 \
        --out $o/ab-$s-$side-$r-f32.csv > $o/ab-$s-$side-$r.log 2>&1
      echo "$s $side $r rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    done
  done
done
impls=hgemm,cublaslt-best
for c in 16x64x64_s12_c1x1_w2_m8_st_sk1 16x64x64_s12_c1x1_w2_m8_st_sk2; do impls="$impls,config:sm90_ws_${c}_f32_tn_swap"; done
build-gpu/hgemm bench --shape "$V16" --impl "$impls" --modes graph --layout tn --acc f32 --out $o/oracle-f32.csv > $o/oracle-f32.log 2>&1
echo "oracle rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; gzip -9 $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress
