#!/bin/bash
# The wave rule's premise past four rounds: at the calls where the merged rule or the A/B lost
# (and 6000x5120x2880 NN, 0.86 with 208x128), dispatch beside eight compiled tiles of the rule's
# class, both layouts, fp32, two runs. Run: HASH=<rev> bash scratch/ab/call35-rounds-probe.sh (~4 min)
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o
t0=$(date +%s); unset HGEMM_JIT
cmake -S . -B /tmp/b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > /tmp/build.log 2>&1 &&
  cmake --build /tmp/b -j 16 --target hgemm_cli >> /tmp/build.log 2>&1 || { echo BUILD FAILED; tail -20 /tmp/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
cp scratch/ab/rounds-probe-shapes.txt $o/
for run in 1 2; do for lay in tn nn; do
  impls=hgemm,cublaslt-best
  for c in 208x128x64_s5_c1x1_w2_m8_tma_sk1_f32_${lay}_swap 208x192x64_s4_c1x1_w3_m8_tma_sk1_f32_${lay}_swap \
           176x128x64_s5_c1x1_w2_m8_tma_sk1_f32_${lay}_swap 152x128x64_s5_c1x1_w2_m8_tma_sk1_f32_${lay}_swap \
           232x128x64_s3_c1x1_w2_m8_tma_sk1_f32_${lay}_swap 96x256x64_s4_c1x1_w2_m8_tma_sk1_f32_${lay}_swap \
           128x256x64_s4_c2x1_w2_m8_tma_sk1_f32_${lay} 192x192x64_s4_c1x1_w3_m8_st_sk1_f32_${lay}; do
    impls=$impls,config:sm90_ws_$c
  done
  timeout 120 /tmp/b/hgemm bench --suite scratch/ab/rounds-probe-shapes.txt --impl $impls --modes graph --layout $lay \
    --acc f32 --out $o/r-$lay-$run.csv > $o/r-$lay-$run.log 2>&1 || echo "probe rc=$? $lay $run"
  echo "probe $lay $run $(( $(date +%s) - t0 )) s"
done; done
gzip $o/*.csv
tar czf $OUT/all.tgz -C $o .
