#!/bin/bash
# Next session, first device call (one H200), from a checkout of main (HASH=its hash): branch
# fast-division (scratch/fast-division.tar, `git archive fast-division ...`; rebuild the tar if
# main moved) built beside main, alternated twice: NT/TT against TN/NN on issue 20's shapes
# (hgemm-acol), bias + GELU and plain, the held-out fifth f32, each against cublaslt-best. Then,
# in a second call if it wins, the whole GPU suite on the branch (scripts/gpu-check or ctest -L gpu).
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
export HGEMM_USER_TABLE=/tmp/absent-user.table
( while true; do tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 15; done ) &
arch=$!
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
rm -rf /tmp/br && mkdir -p /tmp/br && tar xf scratch/fast-division.tar -C /tmp/br
( cmake -S /tmp/br -B /tmp/br/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_GIT_HASH=d4f0eb4 &&
  cmake --build /tmp/br/b -j 8 --target hgemm_cli ) > $o/build-branch.log 2>&1 &
bb=$!
( cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_GIT_HASH=$HASH &&
  cmake --build b -j 8 --target hgemm_cli ) > $o/build-main.log 2>&1
wait $bb
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
S=bench/results/2026-11-28-h200-api-bars/epilogue-shapes.txt
for r in 1 2; do
  for side in main branch; do
    bin=b/hgemm; [ $side = branch ] && bin=/tmp/br/b/hgemm
    $bin bench --suite $S --impl hgemm,hgemm-acol --modes graph --layout tn,nn --acc f32 \
      --out $o/acol-$side-$r.csv > $o/acol-$side-$r.log 2>&1
    for e in none bias_gelu; do
      $bin bench --suite $S --impl hgemm,cublaslt-best --modes graph --layout tn --acc f32 --epilogue $e \
        --out $o/epi-$side-$e-$r.csv > $o/epi-$side-$e-$r.log 2>&1
    done
    $bin bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f32 \
      --out $o/heldout-$side-$r.csv > $o/heldout-$side-$r.log 2>&1
    echo "$side $r $(( $(date +%s)-t0 )) s" >> $o/progress
  done
done
kill $arch; gzip -9 -n $o/*.csv; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress
