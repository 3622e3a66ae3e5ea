#!/usr/bin/env bash
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_BUILD_PYTHON=ON > /dev/null 2>&1
export TUNE_LAYOUTS=nn TUNE_INCLUDE=m8_st_sk1_f32_nn_swap,m8_st_sk1_f16_nn_swap TUNE_TIME_LIMIT=${TL:-260}
HGEMM_GIT_HASH=$1 ARCHIVE=$OUT/inc.tgz timeout 590 scripts/gpu-check /tmp/o/inc include-bench/results/2026-11-25-h100-nn-swap-tables/shapes.txt
