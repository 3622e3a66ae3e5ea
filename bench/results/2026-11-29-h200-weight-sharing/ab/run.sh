#!/bin/bash
# Call 1: e338fb9 (ref) against share-weights (new), alternated twice over llm-fresh and
# llm-heldout (f32, graph, tn+nn), then the changed TN shapes with the new tiles explicitly.
set -u
export HGEMM_USER_TABLE=/tmp/absent-user.table
export AB_REF=scratch/ab/ref.tar AB_REF_HASH=e338fb9 AB_ROUNDS=2 AB_TAG=share
export ARCHIVE=$OUT/all.tgz HGEMM_GIT_HASH=$NEW_HASH
c="sm90_ws_80x192x64_s6_c1x1_w3_m8_st_sk1_f32_tn_swap,sm90_ws_80x192x64_s6_c1x1_w3_m8_st_sk2_f32_tn_swap"
c="$c,sm90_ws_80x192x64_s6_c1x1_w3_m8_st_sk4_f32_tn_swap,sm90_ws_80x192x64_s6_c2x1_w3_m8_st_sk1_f32_tn_swap"
c="$c,sm90_ws_80x128x64_s8_c1x1_w2_m8_st_sk1_f32_tn_swap,sm90_ws_80x128x64_s8_c1x1_w2_m8_st_sk2_f32_tn_swap"
c="$c,sm90_ws_80x128x64_s8_c2x1_w2_m8_st_sk1_f32_tn_swap"
impls="hgemm,cublaslt-best"
for x in ${c//,/ }; do impls="$impls,config:$x"; done
export COMPARE_IMPLS=$impls COMPARE_TAG=new-tiles COMPARE_LOOPS=7
export COMPARE_SHAPES=77x4608x36864,40x5120x32768,150x5120x32768,150x3072x8192,150x9216x3072,150x8192x8192,150x10240x8192,77x19456x2560,96x24576x4096,300x6144x2560,150x59136x8192,300x8192x4608
nvidia-smi --query-gpu=name,driver_version,clocks.max.sm,power.limit --format=csv > /tmp/gpu.txt
timeout 560 scripts/gpu-check /tmp/gt ab-llm-fresh ab-llm-heldout compare
rc=$?
cp /tmp/gpu.txt /tmp/gt/
tar czf $OUT/all.tgz -C /tmp/gt .
echo "rc=$rc"
