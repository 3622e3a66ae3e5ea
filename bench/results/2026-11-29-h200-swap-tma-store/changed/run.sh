#!/bin/bash
# Dispatch before (ref 5bca1ef) and after (new) the TMA-store rule, over the calls whose pick it changes.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o
t0=$(date +%s)
ref=/tmp/ref; rm -rf $ref; mkdir -p $ref; tar xf scratch/ab/ref.tar -C $ref
( cmake -S $ref -B $ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=5bca1ef > $o/build-ref.log 2>&1 &&
  cmake --build $ref/b -j 8 --target hgemm_cli >> $o/build-ref.log 2>&1 ) &
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -20 $o/build.log; exit 1; }
wait || true
[ -x $ref/b/hgemm ] || { echo REF BUILD FAILED; tail -20 $o/build-ref.log; exit 1; }
echo "builds $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
for acc in ${ACCS:-f32}; do
  for round in $(seq 1 ${ROUNDS:-1}); do
    for side in ref new; do
      bin=b/hgemm; [ $side = ref ] && bin=$ref/b/hgemm
      for lay in tn nn; do
        $bin bench --suite scratch/ab/tma-$acc-$lay.txt --impl hgemm,cublaslt-best --modes graph --layout $lay --acc $acc \
          --out $o/ab-run-tma-$acc-$lay-$side-$round-$acc.csv > $o/ab-$acc-$lay-$side-$round.log 2>&1 || echo "bench rc=$? $side $lay $acc"
      done
      echo "$acc round $round $side done $(( $(date +%s) - t0 )) s"
      tar czf $OUT/all.tgz -C $o .
      [ $(( $(date +%s) - t0 )) -gt ${STOP_AFTER:-560} ] && break 3
    done
  done
done
tar czf $OUT/all.tgz -C $o .
