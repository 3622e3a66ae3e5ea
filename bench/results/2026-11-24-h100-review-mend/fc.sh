#!/usr/bin/env bash
set -u
O=$OUT/fc; mkdir -p $O /tmp/old
tar -xzf scratch/old.tar.gz -C /tmp/old
( cd /tmp/old && cmake -S . -B bo -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build bo -j8 --target test_first_call ) > $O/build-old.log 2>&1 &
( cmake -S . -B bn -G Ninja -DCMAKE_BUILD_TYPE=Release >/dev/null && cmake --build bn -j8 --target test_first_call ) > $O/build-new.log 2>&1
wait
for r in 1 2 3; do
  echo "old $r: $(cd /tmp/old/bo/tests && ./test_first_call 2>&1 | head -1)" >> $O/fc.txt
  echo "new $r: $(cd bn/tests && ./test_first_call 2>&1 | head -1)" >> $O/fc.txt
done
ls -laL bn/libhgemm.so /tmp/old/bo/libhgemm.so >> $O/fc.txt 2>&1
cat $O/fc.txt
