#!/bin/bash
# Call 3: the pair branch of share_weights (new) against the branch before it (ref 6409e6a),
# alternated three times over the nine TN calls it changes.
set -u
export HGEMM_USER_TABLE=/tmp/absent-user.table
export AB_REF=scratch/ab/ref2.tar AB_REF_HASH=6409e6a AB_ROUNDS=3 AB_TAG=pairs AB_LAYOUTS=tn
export ARCHIVE=$OUT/all.tgz HGEMM_GIT_HASH=$NEW_HASH
timeout 560 scripts/gpu-check /tmp/gt ab-scratch/ab/pairs.txt (pairs.txt here)
rc=$?
tar czf $OUT/all.tgz -C /tmp/gt .
echo "rc=$rc"
