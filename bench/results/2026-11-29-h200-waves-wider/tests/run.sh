#!/bin/bash
# Call 7 (the session's last device minutes): test_gemm_general on main with the wave rule, whose
# dispatch-path checks run the picks the rule changed.
set -u
t0=$(date +%s); o=$OUT
cmake -S . -B b -G Ninja -DCMAKE_BUILD_TYPE=Release -DHGEMM_GIT_HASH=$HASH > $o/build.log 2>&1 &&
  cmake --build b -j 16 --target test_gemm_general >> $o/build.log 2>&1 || { echo "BUILD FAILED"; tail -20 $o/build.log; exit 1; }
echo "built $(( $(date +%s)-t0 )) s"
HGEMM_USER_TABLE=/tmp/absent-user.table timeout 130 b/tests/test_gemm_general > $o/test-gemm-general.txt 2>&1
rc=$?
echo "test_gemm_general rc=$rc $(( $(date +%s)-t0 )) s"
grep -c "^ok" $o/test-gemm-general.txt; grep -v "^ok" $o/test-gemm-general.txt | tail -5
gzip -9 $o/build.log
