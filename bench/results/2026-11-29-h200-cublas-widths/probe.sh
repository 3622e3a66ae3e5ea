#!/usr/bin/env bash
# cuBLASLt's tile widths on llm-fresh's worst TN f32 shapes, through the JIT: every new swap-AB
# width against dispatch, the catalog's best measured config (fresh-dev exhaustive run) and
# cublaslt-best, interleaved in one graph-mode run. Run on the device from the repository root:
#   bash bench/results/2026-11-29-h200-cublas-widths/probe.sh OUT
# with the JIT cache (hgemm jit build) in scratch/jit.
set -uo pipefail
out=${1:?usage: probe.sh OUT}
mkdir -p "$out"
build=build-gpu
cmake -S . -B $build -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=OFF \
  -DHGEMM_GIT_HASH="${HGEMM_GIT_HASH:-unknown}" > "$out/build.log" 2>&1 &&
  cmake --build $build -j "$(nproc)" --target hgemm_cli >> "$out/build.log" 2>&1 || {
    tail -30 "$out/build.log"; exit 1; }
nvidia-smi --query-gpu=name,driver_version --format=csv > "$out/env.txt"
export HGEMM_JIT=1 HGEMM_JIT_CACHE=scratch/jit HGEMM_USER_TABLE=/tmp/absent-user.table
new="sm90_ws_80x192x64_s6_c1x1_w3_m8_st_sk1_f32_tn_swap
sm90_ws_96x192x64_s6_c1x1_w3_m8_st_sk1_f32_tn_swap
sm90_ws_104x64x64_s10_c1x1_w1_m8_st_sk1_f32_tn_swap
sm90_ws_40x128x64_s10_c1x1_w2_m8_st_sk1_f32_tn_swap
sm90_ws_152x128x64_s6_c1x1_w2_m8_st_sk1_f32_tn_swap
sm90_ws_152x128x64_s6_c1x1_w2_m8_st_sk2_f32_tn_swap
sm90_ws_184x128x64_s5_c1x1_w2_m8_st_sk1_f32_tn_swap
sm90_ws_232x128x64_s4_c1x1_w2_m8_st_sk1_f32_tn_swap
sm90_ws_232x128x64_s5_c1x1_w2_m8_st_sk1_f32_tn_swap
sm90_ws_232x64x64_s5_c1x1_w1_m8_st_sk1_f32_tn_swap
sm90_ws_96x256x64_s4_c1x1_w2_m8_st_sk1_f32_tn_swap
sm90_ws_96x256x64_s5_c1x1_w2_m8_st_sk1_f32_tn_swap
sm90_ws_112x256x64_s4_c1x1_w2_m8_st_sk1_f32_tn_swap"
catalog="sm90_ws_160x128x64_s6_c1x1_w2_n8_st_sk1_f32_tn_swap
sm90_ws_64x256x64_s4_c1x1_w1_m8_tma_sk1_f32_tn
sm90_ws_104x128x64_s7_c1x1_w2_m8_st_sk2_f32_tn_swap
sm90_ws_160x128x64_s6_c1x1_w2_m8_st_sk2_f32_tn_swap
sm90_ws_80x128x64_s8_c1x1_w2_m16_st_sk1_f32_tn_swap
sm90_ws_192x192x64_s4_c1x1_w3_n4_st_sk1_f32_tn
sm90_ws_64x96x64_s10_c1x1_w1_m2_st_sk1_f32_tn
sm90_ws_128x128x64_s7_c1x1_w2_m2_st_sk1_f32_tn
sm90_ws_128x96x64_s6_c1x1_w2_n8_st_sk1_f32_tn
sm90_ws_128x256x64_s4_c2x1_w2_m4_tma_sk1_f32_tn
sm90_ws_128x160x64_s6_c1x1_w2_m8_st_sk1_f32_tn"
impls="hgemm,cublaslt-best"
for c in $new $catalog; do impls="$impls,config:$c"; done
shapes=150x10240x8192,150x9216x3072,300x6144x2560,300x2560x9728,300x2560x4096,150x5120x32768,\
150x59136x8192,150x32064x3072,300x8192x4608,900x2560x9728,450x5120x5120,900x2048x8192,\
900x2048x2048,900x3072x2048,900x19456x2560,96x24576x4096,40x9216x3072,1200x3072x8192,\
1200x3072x3072,1200x5120x5120,1200x5120x27648,2500x3072x8192,2500x3072x3072,900x8192x4608,\
640x10240x8192,640x6144x5120
build-gpu/hgemm jit build $new > "$out/jit.log" 2>&1 || { cat "$out/jit.log"; exit 1; }
build-gpu/hgemm bench --shape "$shapes" --impl "$impls" --modes graph --layout tn --acc f32 \
  --loops 7 --out "$out/probe-f32.csv" > "$out/probe.log" 2>&1
rc=$?
tail -5 "$out/probe.log"
gzip -f "$out/probe-f32.csv"
exit $rc
