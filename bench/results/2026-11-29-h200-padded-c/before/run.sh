#!/bin/bash
# Shapes whose N or K is no multiple of 8 (GPT-2's vocabulary, 50257): what dispatch runs and how
# fast, against cublaslt-best; main e6eba06.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o; t0=$(date +%s)
export HGEMM_USER_TABLE=/tmp/absent-user.table
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo "BUILD FAILED" >> $o/progress; tail -30 $o/build.log; }
echo "built $(( $(date +%s)-t0 )) s" >> $o/progress
shapes=1x50257x768,8x50257x1600,24x50257x768,64x50257x768,100x50257x1024,128x50257x1600,512x50257x768,1024x50257x1024,2048x50257x768,2048x50257x1600,333x4099x4096,1024x4100x4096,2048x4096x4100,77x4096x4100,4096x4097x4096
timeout 300 b/hgemm bench --shape $shapes --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f32 \
  --out $o/ragged-f32.csv > $o/ragged.log 2>&1
echo "bench rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
gzip -9 -n $o/*.csv $o/*.log; tar czf $OUT/all.tgz -C $o .
cat $o/progress; tail -5 $o/ragged.log 2>/dev/null
