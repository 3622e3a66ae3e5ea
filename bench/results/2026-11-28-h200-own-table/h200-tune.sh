#!/bin/bash
# Tune the grid and llm-tune on every GPU of the machine from the H100's history (top 3, budget 3),
# PDL off as the shipped databases were; resumes from scratch/resume/ when carried.
set -u
t0=$(date +%s); deadline=$(( t0 + ${BUDGET_S:-550} ))
out=${OUT:?}
export HGEMM_USER_TABLE=/tmp/absent-user.table HGEMM_PDL=0
nvidia-smi --query-gpu=index,name,driver_version,clocks.sm,power.draw --format=csv > $out/env.txt
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=${HGEMM_GIT_HASH:?} > $out/build.log 2>&1 &&
  cmake --build build-gpu -j $(nproc) --target hgemm_cli >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
[ -d scratch/resume ] && cp scratch/resume/* $out/ 2>/dev/null
for acc in ${ACCS:-f32 f16}; do
  for suite in ${SUITES:-grid llm-tune}; do
    left=$(( deadline - $(date +%s) ))
    [ $left -gt 30 ] || { echo "no time for $suite $acc"; continue; }
    t=$(date +%s)
    HGEMM_USER_TABLE=/tmp/absent-user-$acc.table build-gpu/hgemm tune --suite $suite --layout tn,nn --acc $acc --budget 3 --policy rl --resume \
      --db $out/tuned-$acc.jsonl --history data/tuned/nvidia-h100-80gb-hbm3-$acc.jsonl.gz \
      --history-top 3 --gpus all --time-limit $(( left - 25 )) > $out/tune-$suite-$acc.log 2>&1
    echo "tune $suite $acc rc=$? $(( $(date +%s) - t )) s; $(tail -2 $out/tune-$suite-$acc.log | tr '\n' ' ')"
  done
done
ls -la $out
