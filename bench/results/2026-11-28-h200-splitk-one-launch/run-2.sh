#!/bin/bash
# Call 2: speed, main against the split-K branch on GPU 0 (alternated, each run hgemm against
# cublaslt-best interleaved); the branch's split verification on GPU 1.
set -u
t0=$(date +%s); o=/tmp/o2; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,power.draw --format=csv > $o/env.txt
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 15; done ) &
arch=$!
cmake --build build-main -j 16 > $o/build-main.log 2>&1 || echo "main build failed"
cmake --build /tmp/br/build-br -j 16 > $o/build-br.log 2>&1 || echo "br build failed"
echo "builds $(( $(date +%s)-t0 )) s"
( export CUDA_VISIBLE_DEVICES=0
  for r in 1 2; do for t in main br; do for acc in f32 f16; do
    bin=build-main/hgemm; [ $t = br ] && bin=/tmp/br/build-br/hgemm
    $bin bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph,latency --layout tn,nn \
      --acc $acc --out $o/heldout-$t-$r-$acc.csv > $o/heldout-$t-$r-$acc.log 2>&1
    echo "heldout $t $r $acc rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    $bin bench --suite scratch/split-shapes.txt --impl hgemm,cublaslt-best --modes graph,latency --layout tn,nn \
      --acc $acc --out $o/split-$t-$r-$acc.csv > $o/split-$t-$r-$acc.log 2>&1
    echo "split $t $r $acc rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done; done; done ) &
s=$!
( export CUDA_VISIBLE_DEVICES=1; cd /tmp/br; bin=build-br/hgemm
  for sk in 3 16; do
    $bin verify --suite edge --impl family:sm90 --split-k $sk --out $o/verify-edge-sm90-sk$sk.csv > $o/verify-edge-sm90-sk$sk.log 2>&1
    echo "verify edge sk$sk rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
  $bin verify --suite llm-heldout --out $o/verify-llm-heldout.csv > $o/verify-llm-heldout.log 2>&1
  echo "verify llm-heldout rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  timeout $(( 540 - ($(date +%s)-t0) )) $bin verify --suite grid --impl family:sm90 --split-k 8 --out $o/verify-grid-sm90-sk8.csv > $o/verify-grid-sm90-sk8.log 2>&1
  echo "verify grid sk8 rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress ) &
v=$!
wait $s $v
kill $arch; gzip -9 -n $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; tail -3 $o/verify-*.log
