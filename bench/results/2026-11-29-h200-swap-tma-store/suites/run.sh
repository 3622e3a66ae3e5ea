#!/bin/bash
# Dispatch before (ref 5bca1ef) and after (new) over whole suites, both layouts, alternated by round.
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
  rounds=${ROUNDS:-1}; [ $acc = f16 ] && rounds=${F16_ROUNDS:-1}
  for round in $(seq 1 $rounds); do
    for side in ref new; do
      bin=b/hgemm; [ $side = ref ] && bin=$ref/b/hgemm
      for suite in llm-fresh llm-heldout; do
        $bin bench --suite bench/suites/$suite.txt --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc $acc \
          --out $o/ab-run-$suite-$side-$round-$acc.csv > $o/ab-$suite-$side-$round-$acc.log 2>&1 || echo "bench rc=$? $side $suite $acc"
      done
      echo "$acc round $round $side done $(( $(date +%s) - t0 )) s"
      tar czf $OUT/all.tgz -C $o .
      [ $(( $(date +%s) - t0 )) -gt ${STOP_AFTER:-540} ] && break 3
    done
  done
done
tar czf $OUT/all.tgz -C $o .
