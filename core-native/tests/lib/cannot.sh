# cannot.sh - what a harness does when this machine cannot run its case; sourced.
#
#   cannot KEY WHY      exit 77 (ctest: skipped) when MANA_TEST_CANNOT names KEY, else fail (exit 1)
#
# A key scenario that skips by itself would let CI pass without running it (a container without
# CAP_SYS_ADMIN, a machine without slurmd).  So a skip has to be asked for: MANA_TEST_CANNOT holds
# the keys of what this machine cannot do, separated by spaces or commas (docs/testing.md lists them:
# pid7fff, cluster, slurm, gdb-attach, softdirty, ...).  Without it the case fails and says which
# key would skip it.
cannot() {
    local key=$1 why=$2 k
    for k in $(printf '%s' "${MANA_TEST_CANNOT:-}" | tr ',' ' '); do
        if [ "$k" = "$key" ]; then
            echo "SKIP ($key, MANA_TEST_CANNOT): $why"
            exit 77
        fi
    done
    echo "FAIL: $why (set MANA_TEST_CANNOT=$key where this machine cannot do it)" >&2
    exit 1
}
