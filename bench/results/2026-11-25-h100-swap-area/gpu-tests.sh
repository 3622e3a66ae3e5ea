#!/usr/bin/env bash
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_BUILD_PYTHON=ON > /dev/null 2>&1
HGEMM_GIT_HASH=$1 ARCHIVE=$OUT/gpu.tgz timeout 590 scripts/gpu-check /tmp/o/gpu tests
