#!/usr/bin/env bash
T0=$(date +%s)
W=/tmp/wf; rm -rf $W; mkdir -p $W
[ -f build-gpu/build.ninja ] || cmake -S . -B build-gpu -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_BUILD_PYTHON=ON > /dev/null 2>&1
cmake --build build-gpu -j16 --target test_first_call > $W/build8.log 2>&1; echo "build8 $(( $(date +%s) - T0 )) s"
for i in 1 2 3; do build-gpu/tests/test_first_call 2>&1 | grep "first call"; done
cmake -S . -B build-gpu32 -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_BUILD_TESTS=ON -DHGEMM_BUILD_PYTHON=OFF -DHGEMM_SM90_CATALOG_SHARDS=32 > $W/cmake32.log 2>&1
cmake --build build-gpu32 -j16 --target test_first_call > $W/build32.log 2>&1; echo "build32 rc $? $(( $(date +%s) - T0 )) s"
for i in 1 2 3; do build-gpu32/tests/test_first_call 2>&1 | grep "first call"; done
ls -la build-gpu/CMakeFiles/hgemm_objects.dir/generated/*.o build-gpu32/CMakeFiles/hgemm_objects.dir/generated/*.o | awk '{print $5, $9}' > $W/sizes.txt
for i in 1 2; do CUDA_MODULE_LOADING=EAGER build-gpu/tests/test_first_call 2>&1 | grep "first call"; done
cd $W && tar czf $OUT/wf.tgz .
