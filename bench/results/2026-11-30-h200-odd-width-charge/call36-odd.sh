#!/bin/bash
# Branch odd-width-charge (the wave rule charges swap-AB twins of 144, 176, 208 tokens over 128 rows) against
# main over the calls it changes (odd-f32-LAYOUT.txt), three rounds alternated; main built, then odd.patch and a rebuild.
# Run: REFHASH=<main> NEWHASH=<branch> bash scratch/ab/call36-odd.sh   (about 4 minutes)
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o/ab
t0=$(date +%s); unset HGEMM_JIT; here=$PWD
git apply -R scratch/ab/odd.patch 2>/dev/null || true   # the device's tree is the branch: back to main
grep -c odd_width src/dispatch/neighbors.cpp
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$REFHASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-ref
git apply scratch/ab/odd.patch || { echo PATCH FAILED; exit 1; }
grep -c odd_width src/dispatch/neighbors.cpp
cmake -S . -B /tmp/b -DHGEMM_GIT_HASH=$NEWHASH >> $o/build.log 2>&1 && cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo REBUILD FAILED; tail -30 $o/build.log; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-new
echo "builds $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt; cp $o/env.txt $o/ab/
cp scratch/ab/odd-f32-*.txt $o/ab/
for lay in tn nn; do
  /tmp/b/hgemm-ref explain --suite scratch/ab/odd-f32-$lay.txt --layout $lay --acc f32 > $o/ab/explain-ref-$lay.txt 2>&1
  /tmp/b/hgemm-new explain --suite scratch/ab/odd-f32-$lay.txt --layout $lay --acc f32 > $o/ab/explain-new-$lay.txt 2>&1
done
for round in 1 2 3; do
  for side in ref new; do
    for lay in tn nn; do
      /tmp/b/hgemm-$side bench --suite scratch/ab/odd-f32-$lay.txt --impl hgemm,cublaslt-best --modes graph --layout $lay --acc f32 \
        --out $o/ab/ab-run-odd-$lay-$side-$round-f32.csv >> $o/ab/ab-$lay-f32-$side.log 2>&1 || echo "bench rc=$? $side $lay"
    done
  done
  echo "round $round $(( $(date +%s) - t0 )) s"; tar czf $OUT/all.tgz -C $o .
done
gzip $o/ab/*.csv $o/ab/*.log
tar czf $OUT/all.tgz -C $o .
