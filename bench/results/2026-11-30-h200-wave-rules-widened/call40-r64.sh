#!/bin/bash
# Branch rounds-64 (r64.patch: kWaveFitMaxRounds 8 -> 64, the wave rules for picks of up to 64 rounds) against
# twin-area-112 over the 33 fp32 calls it changes (r64-f32-LAYOUT.txt: llm-fresh, llm-tune/llm and the 288-call
# prefill probe), three rounds alternated.
# Run: REFHASH=<twin-area-112> NEWHASH=<rounds-64> bash scratch/ab/call40-r64.sh   (about 3 minutes)
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o/ab
t0=$(date +%s); unset HGEMM_JIT
git apply -R scratch/ab/r64.patch 2>/dev/null || true   # the device's tree is the branch: back to main
grep -c "kWaveFitMaxRounds = 8;" src/dispatch/neighbors.hpp
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$REFHASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-ref
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt; cp $o/env.txt $o/ab/
tar czf $OUT/all.tgz -C $o .
git apply scratch/ab/r64.patch || { echo PATCH FAILED; exit 1; }
grep -c "kWaveFitMaxRounds = 64;" src/dispatch/neighbors.hpp
cmake -S . -B /tmp/b -DHGEMM_GIT_HASH=$NEWHASH >> $o/build.log 2>&1 && cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo REBUILD FAILED; tail -30 $o/build.log; exit 1; }
cp /tmp/b/hgemm /tmp/b/hgemm-new
echo "rebuild $(( $(date +%s) - t0 )) s"
cp scratch/ab/r64-f32-*.txt $o/ab/
for lay in tn nn; do for side in ref new; do
  /tmp/b/hgemm-$side explain --suite scratch/ab/r64-f32-$lay.txt --layout $lay --acc f32 > $o/ab/explain-$side-$lay.txt 2>&1
done; done
for round in 1 2 3; do
  for side in ref new; do
    for lay in tn nn; do
      /tmp/b/hgemm-$side bench --suite scratch/ab/r64-f32-$lay.txt --impl hgemm,cublaslt-best --modes graph --layout $lay --acc f32 \
        --out $o/ab/ab-run-r64-$lay-$side-$round-f32.csv >> $o/ab/ab-$lay-f32-$side.log 2>&1 || echo "bench rc=$? $side $lay"
    done
  done
  echo "round $round $(( $(date +%s) - t0 )) s"; tar czf $OUT/all.tgz -C $o .
done
gzip $o/ab/*.csv $o/ab/*.log $o/ab/explain*
rm -f $o/build.log; tar czf $OUT/all.tgz -C $o .
