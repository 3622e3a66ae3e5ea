#!/bin/bash
# Prepared 2026-11-30 (not run): 129-160 tokens over wide N (462-1187 tiles of 128 rows), where
# dispatch runs one token tile (152x128 or 160x128, TMA stores) and the split-round probe had 80x128
# in pairs (weights multicast) at 0.98-1.03 of cublaslt-best against dispatch's 0.95-0.99
# (150x59136x8192). Both layouts, fp32 and fp16, two runs; catalog configs only (no JIT).
# Run: HASH=<rev> bash scratch/ab/call31-wide150.sh   (about 3 minutes)
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o
t0=$(date +%s); unset HGEMM_JIT
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"; rm -f $o/build.log
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
cp scratch/ab/wide150-shapes.txt $o/
for acc in f32 f16; do for lay in tn nn; do
  impls=hgemm,cublaslt-best
  for c in 80x128x64_s8_c2x1_w2_m8_st_sk1 80x192x64_s6_c2x1_w3_m8_st_sk1 152x128x64_s5_c1x1_w2_m8_tma_sk1 \
           160x128x64_s5_c1x1_w2_m8_tma_sk1 80x128x64_s8_c1x1_w2_m8_tma_sk1; do
    impls=$impls,config:sm90_ws_${c}_${acc}_${lay}_swap
  done
  for run in 1 2; do
    timeout 120 /tmp/b/hgemm bench --suite scratch/ab/wide150-shapes.txt --impl $impls --modes graph --layout $lay \
      --acc $acc --out $o/w-$acc-$lay-$run.csv > $o/w-$acc-$lay-$run.log 2>&1 || echo "probe rc=$? $acc $lay $run"
  done
  echo "$acc $lay $(( $(date +%s) - t0 )) s"
done; done
tar czf $OUT/all.tgz -C $o .
