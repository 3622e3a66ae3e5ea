#!/bin/bash
# Call 2: the general flavours' test, column-major A A/B (general-twins vs main), a prefill
# wave-fit probe over catalog and JIT tiles, llm-fresh f16 graph and f32 latency.
set -u
t0=$(date +%s); o=/tmp/o; rm -rf $o; mkdir -p $o
( while true; do tar czf $OUT/all.tgz.tmp -C $o . 2>/dev/null && mv $OUT/all.tgz.tmp $OUT/all.tgz; sleep 20; done ) &
arch=$!
export HGEMM_GIT_HASH=$HASH HGEMM_USER_TABLE=/tmp/absent-user.table
AB_REF=scratch/call2/main.tar AB_REF_HASH=d116f72 AB_IMPLS=hgemm,hgemm-acol AB_ROUNDS=2 \
  timeout 300 scripts/gpu-check $o/ab ab-scratch/call2/acol-ab.txt > $o/ab-console.log 2>&1
echo "ab rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
(cd build-gpu && timeout 120 ctest -R "^test_gemm_general$" --output-on-failure > $o/test-gemm-general.log 2>&1)
echo "test_gemm_general rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
impls=hgemm,cublaslt-best
for c in 128x256x64_s4_c2x1_w2_m8_tma 128x224x64_s4_c2x1_w2_m8_tma 128x192x64_s4_c2x1_w2_m8_tma \
  256x128x64_s4_c2x1_w2_m8_st 192x192x64_s4_c1x1_w3_m8_st 128x160x64_s6_c1x1_w2_m8_st \
  128x128x64_s7_c1x1_w2_m8_st 128x128x64_s5_c1x2_w2_m8_tma 128x96x64_s6_c1x1_w2_m8_st \
  128x112x64_s6_c1x1_w2_m8_st 64x256x64_s4_c1x1_w1_m8_tma; do
  impls="$impls,config:sm90_ws_${c}_sk1_f32_tn"; done
for c in 224x128x64_s5_c1x1_w2 208x128x64_s5_c1x1_w2 192x128x64_s5_c1x1_w2 176x128x64_s5_c1x1_w2 \
  160x128x64_s6_c1x1_w2 144x128x64_s6_c1x1_w2 112x128x64_s7_c1x1_w2 104x128x64_s7_c1x1_w2 \
  208x192x64_s4_c1x1_w3 232x128x64_s5_c1x1_w2 184x128x64_s5_c1x1_w2 96x256x64_s5_c1x1_w2 \
  232x128x64_s5_c2x1_w2; do
  impls="$impls,config:sm90_ws_${c}_m8_st_sk1_f32_tn_swap"; done
HGEMM_JIT=1 HGEMM_JIT_CACHE=scratch/call2/jit timeout 150 build-gpu/hgemm bench --suite scratch/call2/prefill-dev.txt \
  --impl "$impls" --modes graph --layout tn --acc f32 --loops 5 --out $o/prefill-f32.csv > $o/prefill.log 2>&1
echo "prefill rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
timeout 100 build-gpu/hgemm bench --suite llm-fresh --impl hgemm,cublaslt-best --modes graph \
  --layout tn,nn --acc f16 --out $o/fresh-f16.csv > $o/fresh-f16.log 2>&1
echo "fresh f16 rc=$? $(( $(date +%s)-t0 )) s" >> $o/progress
kill $arch; gzip -9 $o/*.csv 2>/dev/null; tar czf $OUT/all.tgz.tmp -C $o . && mv $OUT/all.tgz.tmp $OUT/all.tgz
cat $o/progress
