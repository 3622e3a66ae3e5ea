#!/bin/bash
set -u
t0=$(date +%s); out=${OUT:?}
export HGEMM_USER_TABLE=/tmp/absent-user.table
cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_GIT_HASH=${HGEMM_GIT_HASH:?} > $out/build.log 2>&1 &&
  cmake --build build-gpu -j $(nproc) --target hgemm_cli >> $out/build.log 2>&1 || { tail -30 $out/build.log; exit 1; }
echo "build $(( $(date +%s) - t0 )) s"
for acc in f32 f16; do
  build-gpu/hgemm bench --suite llm-heldout --impl hgemm,cublaslt-best --modes graph,latency \
    --layout tn,nn --acc $acc --out $out/heldout-guard-$acc.csv > $out/heldout-guard-$acc.log 2>&1
  echo "heldout $acc rc=$? $(( $(date +%s) - t0 )) s"
done
build-gpu/hgemm bench --shape 37x4096x4096,512x4096x14336 --layout nn --acc f32 --modes graph \
  --impl hgemm,config:sm90_ws_32x64x64_s12_c1x1_w2_m1_st_sk1_f32_nn_swap,config:sm90_ws_32x64x64_s12_c1x1_w2_m8_st_sk1_f32_nn_swap,config:sm90_ws_128x128x64_s5_c1x2_w2_m1_tma_sk1_f32_nn,config:sm90_ws_128x128x64_s5_c1x2_w2_m8_tma_sk1_f32_nn,cublaslt-best \
  --out $out/raster-nn-f32.csv > $out/raster-nn.log 2>&1; echo "raster nn rc=$?"
build-gpu/hgemm bench --shape 1536x5120x14336 --layout tn --acc f32 --modes graph \
  --impl hgemm,config:sm90_ws_128x160x64_s6_c1x1_w2_n2_st_sk1_f32_tn,config:sm90_ws_128x160x64_s6_c1x1_w2_m8_st_sk1_f32_tn,cublaslt-best \
  --out $out/raster-tn-f32.csv > $out/raster-tn.log 2>&1; echo "raster tn rc=$?"
build-gpu/hgemm bench --shape 2048x3584x14336 --layout tn --acc f16 --modes graph \
  --impl hgemm,config:sm90_ws_128x224x64_s4_c2x1_w2_m1_tma_sk1_f16_tn,config:sm90_ws_128x224x64_s4_c2x1_w2_m8_tma_sk1_f16_tn,cublaslt-best \
  --out $out/raster-tn-f16.csv > $out/raster-tn16.log 2>&1; echo "raster tn16 rc=$?"
tail -3 $out/raster-*.log
gzip -9 -n $out/*.csv; tar czf /tmp/all.tgz -C $out . && rm -f $out/* && mv /tmp/all.tgz $out/
