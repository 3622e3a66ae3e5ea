#!/bin/bash
# Branch small-m-rounds: A/B ref ccde466 (main) vs new (the branch) over the 67 calls whose pick changes, then whole suites.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o
t0=$(date +%s)
ref=/tmp/ref; rm -rf $ref; mkdir -p $ref; tar xf scratch/ab/ref.tar -C $ref
( cmake -S $ref -B $ref/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=ccde466 > $o/build-ref.log 2>&1 &&
  cmake --build $ref/b -j 8 --target hgemm_cli >> $o/build-ref.log 2>&1 ) &
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -20 $o/build.log; exit 1; }
wait || true
[ -x $ref/b/hgemm ] || { echo REF BUILD FAILED; tail -20 $o/build-ref.log; exit 1; }
echo "builds $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
round=0
for acc in f32 f32 f16; do
  round=$((round+1))
  for side in ref new; do
    bin=b/hgemm; [ $side = ref ] && bin=$ref/b/hgemm
    for lay in tn nn; do
      f=scratch/ab/small-$acc-$lay.txt; [ -s $f ] || continue
      $bin bench --suite $f --impl hgemm,cublaslt-best --modes graph --layout $lay --acc $acc \
        --out $o/ab-run-small-$lay-$side-$round-$acc.csv >> $o/ab-$acc-$lay-$side.log 2>&1 || echo "bench rc=$? $side $lay $acc"
    done
  done
  echo "$acc ab round done $(( $(date +%s) - t0 )) s"
done
for acc in f32 f16; do
  for side in ref new; do
    bin=b/hgemm; [ $side = ref ] && bin=$ref/b/hgemm
    for suite in llm-fresh llm-heldout; do
      [ $(( $(date +%s) - t0 )) -gt 530 ] && { echo "time: suites stopped at $acc $side $suite"; break 3; }
      $bin bench --suite bench/suites/$suite.txt --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc $acc \
        --out $o/ab-run-$suite-$side-1-$acc.csv > $o/ab-$suite-$side-$acc.log 2>&1 || echo "bench rc=$? $side $suite $acc"
    done
    echo "suites $acc $side $(( $(date +%s) - t0 )) s"
  done
done
tar czf $OUT/all.tgz -C $o .
