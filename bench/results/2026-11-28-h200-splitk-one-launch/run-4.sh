#!/bin/bash
# Call 3: the reworked split-K branch (this tree) against main (/tmp/mainsrc, the patch reversed).
# GPU 1: the branch's split tests, split verification, then the rest of its GPU suite.
# GPU 0: held-out and split-winner shapes, main and branch alternated, each hgemm against
# cublaslt-best interleaved.
set -u
t0=$(date +%s); o=/tmp/o3; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,power.draw --format=csv > $o/env.txt
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 15; done ) &
arch=$!
rm -rf /tmp/mainsrc && mkdir /tmp/mainsrc && tar cf - --exclude=./build --exclude=./build-br --exclude=./scratch . | tar xf - -C /tmp/mainsrc
git -C /tmp/mainsrc apply -R $PWD/scratch/br3.patch > $o/apply.log 2>&1 || { echo APPLY FAILED; cat $o/apply.log; }
( cmake -S /tmp/mainsrc -B /tmp/mainsrc/build-main -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=a0be76e > $o/build-main.log 2>&1 &&
  cmake --build /tmp/mainsrc/build-main -j 32 >> $o/build-main.log 2>&1 || echo "main BUILD FAILED" >> $o/progress ) &
bm=$!
cmake -S . -B build-br -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=br4 > $o/build-br.log 2>&1 &&
  cmake --build build-br -j 32 >> $o/build-br.log 2>&1 || { echo "br BUILD FAILED"; tail -30 $o/build-br.log; }
echo "br built $(( $(date +%s)-t0 )) s" >> $o/progress
( export CUDA_VISIBLE_DEVICES=1; bin=build-br/hgemm
  ctest --test-dir build-br -V --timeout 200 -R 'test_sm90_family|memcheck_sm90_split_k|memcheck_split_k' > $o/br-split-tests.log 2>&1
  echo "br split tests rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  for sk in 3 16; do
    $bin verify --suite edge --impl family:sm90 --split-k $sk --out $o/verify-edge-sm90-sk$sk.csv > $o/verify-edge-sm90-sk$sk.log 2>&1
    echo "verify edge sk$sk rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done
  $bin verify --suite llm-heldout --out $o/verify-llm-heldout.csv > $o/verify-llm-heldout.log 2>&1
  echo "verify llm-heldout rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  true ) &
v=$!
wait $bm; echo "main built $(( $(date +%s)-t0 )) s" >> $o/progress
( export CUDA_VISIBLE_DEVICES=0
  for acc in f32 f16; do for r in 1; do for t in main br; do
    [ $(( $(date +%s)-t0 )) -gt 200 ] && break 3
    bin=/tmp/mainsrc/build-main/hgemm; [ $t = br ] && bin=build-br/hgemm
    $bin bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph,latency --layout tn,nn \
      --acc $acc --out $o/heldout-$t-$r-$acc.csv > $o/heldout-$t-$r-$acc.log 2>&1
    echo "heldout $t $r $acc rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
    $bin bench --suite scratch/split-shapes.txt --impl hgemm,cublaslt-best --modes graph,latency --layout tn,nn \
      --acc $acc --out $o/split-$t-$r-$acc.csv > $o/split-$t-$r-$acc.log 2>&1
    echo "split $t $r $acc rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
  done; done; done ) &
s=$!
wait $s $v
kill $arch; gzip -9 -n $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress; grep -h -E "tests passed|tests failed|\*\*\*Failed|Timeout|FAIL" $o/br-split-tests.log $o/br-gpu-rest.log 2>/dev/null | head; tail -2 $o/verify-*.log
