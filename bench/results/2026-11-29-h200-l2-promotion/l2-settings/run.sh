#!/bin/bash
# L2 experiment (branch l2-hints): eviction hints on the weights / activations and the tensor
# maps' L2 promotion, each setting in its own process against cublaslt-best, two rounds.
set -u
export HGEMM_USER_TABLE=/tmp/absent.table
S=12x57344x8192,14x28672x4096,16x128256x4096,12x152064x3584,13x27648x5120,8x28672x5120,12x4096x4096,14x2048x8192,150x10240x8192,128x28672x4096,300x8192x4608,256x7168x16384,96x24576x4096,2048x8192x8192,4096x14336x4096,1024x5120x5120
o=$OUT/r; mkdir -p $o
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=l2-hints > $o/build.log 2>&1 &&
  cmake --build build-gpu -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -30 $o/build.log; exit 1; }
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > $o/gpu.txt
for round in 1 2; do
  sets="h0p256 h1p256 h2p256 h3p256 h0p128 h0p0"; [ $round = 2 ] && sets="h0p0 h0p128 h3p256 h2p256 h1p256 h0p256"
  for s in $sets; do
    h=${s#h}; h=${h%%p*}; p=${s##*p}
    HGEMM_EXP_HINTS=$h HGEMM_EXP_PROMO=$p timeout 100 build-gpu/hgemm bench --shape $S --impl hgemm,cublaslt-best --modes graph --layout tn,nn --acc f32 --loops 7 --out $o/$s-$round.csv > $o/$s-$round.log 2>&1
    echo "$s $round rc=$?"
  done
done
gzip -9 $o/*.csv; tar czf $OUT/all.tgz -C $OUT r; rm -rf $o
