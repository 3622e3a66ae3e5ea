#!/bin/bash
# The wave rule's direct-store tiles (128x160, 192x192) against TMA-store twins, one bench a shape.
set -u
o=/tmp/o; rm -rf $o; mkdir -p $o
t0=$(date +%s)
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target hgemm_cli >> $o/build.log 2>&1 || { echo BUILD FAILED; tail -20 $o/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
nvidia-smi --query-gpu=name,driver_version,power.limit --format=csv,noheader > $o/env.txt
export HGEMM_JIT=1 HGEMM_JIT_CACHE=/tmp/jitc
P=sm90_ws_
N160="${P}128x160x64_s5_c1x1_w2_m8_tma_sk1_f32_tn ${P}128x160x64_s5_c2x1_w2_m8_tma_sk1_f32_tn ${P}128x160x64_s5_c1x1_w2_m8_tma_sk1_f32_nn"
N192="${P}192x192x64_s3_c1x1_w3_m8_tma_sk1_f32_tn ${P}192x192x64_s3_c2x1_w3_m8_tma_sk1_f32_tn ${P}192x192x64_s3_c1x1_w3_m8_tma_sk1_f32_nn"
b/hgemm jit build $N160 $N192 --jobs 16 > $o/jit.log 2>&1; echo "jit rc=$?"
for n in $N160 $N192; do
  case $n in *_nn) l=nn;; *) l=tn;; esac
  timeout 60 b/hgemm verify --suite edge --impl config:$n --layout $l --acc f32 --out $o/verify-$n.csv >> $o/verify.log 2>&1 || echo "VERIFY FAIL $n"
done
echo "verify $(( $(date +%s) - t0 )) s"
i=0
while read -r shape lay tile alt; do
  i=$((i+1))
  case $tile in 128x160) st=128x160x64_s6_c1x1_w2_m8; tm=128x160x64_s5;; *) st=192x192x64_s4_c1x1_w3_m8; tm=192x192x64_s3;; esac
  impls=config:${P}${st}_st_sk1_f32_${lay},config:${P}${tm}_c1x1_${st#*_c1x1_}_tma_sk1_f32_${lay}
  impls=${impls/_c1x1_c1x1_/_c1x1_}
  [ $lay = tn ] && impls=$impls,config:${P}${tm}_c2x1_${st#*_c1x1_}_tma_sk1_f32_tn
  timeout 60 b/hgemm bench --shape $shape --impl $impls,cublaslt-best --modes graph --layout $lay --acc f32 --loops 9 \
    --out $o/plain-$i.csv >> $o/bench.log 2>&1 || echo "bench fail $shape $lay"
done <<'LIST'
450x5120x3072 tn 128x160
450x5120x5120 tn 128x160
750x2880x2880 tn 128x160
900x2560x4096 tn 128x160
900x5120x2880 tn 128x160
1200x6144x4096 tn 128x160
1200x4096x4096 tn 128x160
900x2560x9728 nn 128x160
750x2880x2880 nn 128x160
900x4608x4096 tn 192x192
900x19456x2560 tn 192x192
900x128256x2048 tn 192x192
900x4608x4096 nn 192x192
LIST
echo "done $(( $(date +%s) - t0 )) s"
tar czf $OUT/all.tgz -C $o .
