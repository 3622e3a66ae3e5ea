#!/bin/bash
# Swap-AB tiles of more than 128 accumulators a thread (branch wide-acc): 136 and 152 tokens over 256
# rows of N (cuBLASLt's 256 x 136-152), through the JIT, beside dispatch and cublaslt-best; the split-K
# partial store (rewritten) verified on split instances, small and the new tiles.
# Run: HASH=<rev> bash scratch/ab/call32-wide-acc.sh   (about 6 minutes)
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o
t0=$(date +%s); unset HGEMM_JIT
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"; rm -f $o/build.log
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
cp scratch/ab/wideacc-shapes.txt $o/
export HGEMM_JIT_CACHE=/tmp/jitc
news="136x256x64_s4_c1x1_w2_m8_st 152x256x64_s4_c1x1_w2_m8_st 136x256x64_s3_c1x1_w2_m8_tma"
jit=""
for lay in tn nn; do for c in $news; do jit="$jit sm90_ws_${c}_sk1_f32_${lay}_swap"; done; done
HGEMM_JIT=1 timeout 200 /tmp/b/hgemm jit build $jit --jobs 16 > $o/jit.log 2>&1 || { echo "jit rc=$?"; tail -20 $o/jit.log; }
echo "jit $(( $(date +%s) - t0 )) s"
for lay in tn nn; do
  HGEMM_JIT=1 timeout 60 /tmp/b/hgemm verify --suite smoke --layout $lay --acc f32 --impl config:sm90_ws_152x256x64_s4_c1x1_w2_m8_st_sk1_f32_${lay}_swap \
    --split-k 3 > $o/verify-152-$lay.log 2>&1; echo "verify 152 split3 $lay rc=$?"
  timeout 60 /tmp/b/hgemm verify --suite smoke --layout $lay --acc f32 --impl config:sm90_ws_152x128x64_s5_c1x1_w2_m8_tma_sk1_f32_${lay}_swap \
    --split-k 4 > $o/verify-152x128-$lay.log 2>&1; echo "verify 152x128 split4 $lay rc=$?"
  timeout 60 /tmp/b/hgemm verify --suite smoke --layout $lay --acc f32 --impl config:sm90_ws_128x128x64_s6_c1x1_w2_m8_st_sk1_f32_${lay} \
    --split-k 3 > $o/verify-128-$lay.log 2>&1; echo "verify 128x128 split3 $lay rc=$?"
done
for run in 1 2; do for lay in tn nn; do
  impls=hgemm,cublaslt-best
  for c in $news; do impls=$impls,config:sm90_ws_${c}_sk1_f32_${lay}_swap; done
  HGEMM_JIT=1 timeout 100 /tmp/b/hgemm bench --suite scratch/ab/wideacc-shapes.txt --impl $impls --modes graph --layout $lay \
    --acc f32 --out $o/w-$lay-$run.csv > $o/w-$lay-$run.log 2>&1 || echo "probe rc=$? $lay $run"
  echo "probe $lay $run $(( $(date +%s) - t0 )) s"
done; done
tar czf $OUT/all.tgz -C $o .
