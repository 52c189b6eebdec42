#!/bin/sh
# test_launchers.sh SCRIPTS_DIR - the launchers' flags, refusals and the
# environment they hand to the lower half.  A fake MANA_ROOT holds copies of
# the scripts and a bin/lower-half that prints its arguments and MANA_*.
set -u
src=$1
fails=0
tmp=$(mktemp -d /tmp/mana_launchers.XXXXXX) || exit 2
trap 'rm -rf "$tmp"' EXIT

root=$tmp/root
mkdir -p "$root/bin" "$root/lib/mana" "$tmp/home" "$tmp/work" "$tmp/t"
cp "$src/mana_launch" "$src/mana_restart" "$root/bin/"
cp "$src/launch_lib.sh" "$root/lib/mana/"      # where make build installs it
cat > "$root/bin/lower-half" <<'FAKE'
#!/bin/sh
echo "ARGS:$*"
echo "LOWER:${0##*/}"
for v in MANA_ROOT MANA_COORD_HOST MANA_COORD_PORT MANA_COORD_RC MANA_COORD_SECRET MANA_COORD_SECRET_FD MANA_COORD_SECRET_FILE MANA_JOB \
         MANA_CKPT_DIR MANA_CKPT_INTERVAL MANA_CKPT_SIGNAL MANA_DEBUG MANA_TIMING MANA_QUIET MANA_RESTART_PAUSE \
         MANA_MPI_SHADOW; do
    eval "echo $v=\${$v-UNSET}"
done
# the secret arrives on a descriptor, as the real lower half reads it
[ -z "${MANA_COORD_SECRET_FD:-}" ] || eval "echo SECRET_ON_FD=\$(cat <&$MANA_COORD_SECRET_FD)"
if [ -n "${MANA_COORD_SECRET_FILE:-}" ]; then
    echo "SECRET_IN_FILE=$(cat "$MANA_COORD_SECRET_FILE") MODE=$(stat -c %a "$MANA_COORD_SECRET_FILE")"
    rm -f "$MANA_COORD_SECRET_FILE"      # as the lower half does
fi
for a in "$@"; do echo "ARG[$a]"; done
FAKE
chmod +x "$root/bin/lower-half"
cp "$root/bin/lower-half" "$root/bin/lower-half-openmpi"
cp "$root/bin/lower-half" "$root/bin/lower-half-mpich"
printf '#!/bin/sh\nexit 0\n' > "$tmp/work/app"
chmod +x "$tmp/work/app"
cat > "$tmp/home/.mana.rc" <<'RC'
Host: filehost
Port: 4321
Secret: 00ff00ff
Pid: 1
# This is a temporary file for communication between
RC

L=$root/bin/mana_launch R=$root/bin/mana_restart
clean_env() {
    env -i PATH=/usr/bin:/bin HOME="$tmp/home" TMPDIR="$tmp/t" "$@"
}

fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# expect NAME WANT_STATUS PATTERN -- command...: status and a line matching PATTERN
expect() {
    name=$1 want=$2 pat=$3
    shift 4
    out=$(cd "$tmp/work" && "$@" 2>&1)
    st=$?
    [ "$st" = "$want" ] || { fail "$name: status $st, want $want"; echo "$out" | sed 's/^/    /'; return; }
    printf '%s\n' "$out" | grep -q -- "$pat" || { fail "$name: no line matching '$pat'"; echo "$out" | sed 's/^/    /'; return; }
    echo "ok: $name"
}
# one_line NAME STATUS -- command: a refusal is exactly one line on stderr
one_line() {
    name=$1 want=$2
    shift 3
    n=$(cd "$tmp/work" && "$@" 2>&1 >/dev/null | wc -l)
    [ "$n" = 1 ] || fail "$name: $n lines of error, want 1"
}

# --- launch: environment from the status file and defaults
expect "launch defaults" 0 "MANA_COORD_HOST=filehost" -- clean_env "$L" ./app a 'b c'
expect "launch port from file" 0 "MANA_COORD_PORT=4321" -- clean_env "$L" ./app
expect "launch secret from file, on a descriptor" 0 "SECRET_ON_FD=00ff00ff\$" -- clean_env "$L" ./app
expect "launch secret not in the environment" 0 "MANA_COORD_SECRET=UNSET" -- clean_env "$L" ./app
expect "launch secret from the environment, moved to a descriptor" 0 "SECRET_ON_FD=envsecret\$" -- \
    clean_env MANA_COORD_SECRET=envsecret "$L" ./app
expect "launch secret from the environment, removed from it" 0 "MANA_COORD_SECRET=UNSET" -- \
    clean_env MANA_COORD_SECRET=envsecret "$L" ./app
[ -z "$(ls -A "$tmp/t")" ] && echo "ok: no secret file left behind" || fail "secret files left: $(ls "$tmp/t")"
# MPICH's launcher hands each rank its PMI connection as a descriptor (PMI_FD, often 9): untouched
expect "secret on a free descriptor, not a launcher's" 0 "SECRET_ON_FD=00ff00ff\$" -- \
    sh -c "exec 9</dev/null 8</dev/null; env -i PATH=/usr/bin:/bin HOME=$tmp/home TMPDIR=$tmp/t $L ./app"
expect "the launcher's descriptor 9 stays" 0 "MANA_COORD_SECRET_FD=7" -- \
    sh -c "exec 9</dev/null 8</dev/null; env -i PATH=/usr/bin:/bin HOME=$tmp/home TMPDIR=$tmp/t $L ./app"
# MPICH's launcher leaves 3..9 all open: then a 0600 file the lower half deletes
expect "no free descriptor: a 0600 file" 0 "SECRET_IN_FILE=00ff00ff MODE=600\$" -- \
    sh -c "exec 3</dev/null 4</dev/null 5</dev/null 6</dev/null 7</dev/null 8</dev/null 9</dev/null; env -i PATH=/usr/bin:/bin HOME=$tmp/home TMPDIR=$tmp/t $L ./app"
[ -z "$(ls -A "$tmp/t")" ] && echo "ok: the file went with the lower half" || fail "secret files left: $(ls "$tmp/t")"
expect "launch root" 0 "MANA_ROOT=$root\$" -- clean_env "$L" ./app
expect "launch ckptdir = cwd" 0 "MANA_CKPT_DIR=$tmp/work\$" -- clean_env "$L" ./app
expect "launch interval 0" 0 "MANA_CKPT_INTERVAL=0" -- clean_env "$L" ./app
expect "launch signal 40" 0 "MANA_CKPT_SIGNAL=40" -- clean_env "$L" ./app
expect "launch args kept" 0 "ARG\[b c\]" -- clean_env "$L" ./app a 'b c'
expect "launch program first" 0 "ARGS:./app a b c" -- clean_env "$L" ./app a 'b c'
expect "launch job empty" 0 "MANA_JOB=\$" -- clean_env "$L" ./app
expect "launch timing off" 0 "MANA_TIMING=\$" -- clean_env "$L" ./app
# --- flags and environment override
expect "env host" 0 "MANA_COORD_HOST=envhost" -- clean_env MANA_COORD_HOST=envhost "$L" ./app
expect "dmtcp alias" 0 "MANA_COORD_PORT=5555" -- clean_env DMTCP_COORD_PORT=5555 "$L" ./app
expect "no secret for other port" 0 "MANA_COORD_SECRET_FD=UNSET" -- clean_env DMTCP_COORD_PORT=5555 "$L" ./app
expect "flag host" 0 "MANA_COORD_HOST=flaghost" -- clean_env MANA_COORD_HOST=envhost "$L" -h flaghost ./app
expect "flag port" 0 "MANA_COORD_PORT=6000" -- clean_env MANA_COORD_PORT=5000 "$L" --coord-port 6000 ./app
expect "slurm job" 0 "MANA_JOB=77" -- clean_env SLURM_JOB_ID=77 MANA_RC="$tmp/home/.mana.rc" "$L" ./app
expect "job flag" 0 "MANA_JOB=mine" -- clean_env SLURM_JOB_ID=77 "$L" --job mine ./app
expect "MANA_RC" 0 "MANA_COORD_HOST=filehost" -- clean_env HOME=/nonexistent MANA_RC="$tmp/home/.mana.rc" "$L" ./app
expect "timing" 0 "MANA_TIMING=1" -- clean_env "$L" --timing ./app
expect "quiet" 0 "MANA_QUIET=1" -- clean_env "$L" -q ./app
expect "signal name" 0 "MANA_CKPT_SIGNAL=10" -- clean_env "$L" --ckpt-signal SIGUSR1 ./app
expect "signal number" 0 "MANA_CKPT_SIGNAL=34" -- clean_env "$L" --ckpt-signal 34 ./app
expect "interval" 0 "MANA_CKPT_INTERVAL=30" -- clean_env "$L" -i 30 ./app
# the fake root has no bin/mana_coord_probe: -i says the interval cannot be set (it did nothing, silently)
expect "interval without the probe" 0 "no checkpoints every 30 s: .*mana_coord_probe.* is missing" -- clean_env "$L" -i 30 ./app
expect "ckptdir created" 0 "MANA_CKPT_DIR=$tmp/work/ck1\$" -- clean_env "$L" --ckptdir ck1 ./app
expect "verbose" 0 "mana_launch: exec $root/bin/lower-half ./app x" -- clean_env "$L" --verbose ./app x
expect "program on PATH" 0 "ARGS:/usr/bin/true" -- clean_env "$L" true
expect "help" 0 "usage:" -- clean_env "$L" --help
expect "MANA's --tmpdir accepted" 0 "ARGS:./app" -- clean_env "$L" --tmpdir /tmp --coord-logfile=/tmp/x ./app
expect "--use-shadowlibs accepted" 0 "ARGS:./app" -- clean_env "$L" --use-shadowlibs ./app
expect "--with-plugin refused" 2 "not supported" -- clean_env "$L" --with-plugin x ./app
expect "bad --mpi" 2 "bad --mpi" -- clean_env "$L" --mpi lam ./app
# --- which MPI, for a program whose libraries name none (./app; python3 with mpi4py): the launcher's
# (the variables as Debian's mpirun.openmpi 4.1 and mpirun.mpich 4.0.2 set them, srun, prterun)
ompi="OMPI_COMM_WORLD_RANK=1 OMPI_COMM_WORLD_SIZE=2 OMPI_COMM_WORLD_LOCAL_RANK=1 PMIX_RANK=1 PMIX_NAMESPACE=x"
hydra="PMI_RANK=1 PMI_SIZE=2 PMI_FD=6 HYDI_CONTROL_FD=7 MPI_LOCALNRANKS=2 MPI_LOCALRANKID=1"
expect "Open MPI's mpirun names Open MPI" 0 "LOWER:lower-half-openmpi" -- clean_env $ompi "$L" ./app
expect "... and its library" 0 "MANA_MPI_SHADOW=$root/lib/mana/openmpi\$" -- clean_env $ompi "$L" ./app
expect "MPICH's mpirun names MPICH" 0 "LOWER:lower-half-mpich" -- clean_env $hydra "$L" ./app
expect "MPICH's mpirun in a Slurm step" 0 "LOWER:lower-half-mpich" -- \
    clean_env $hydra SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=1 "$L" ./app
expect "a PMI launcher outside srun is MPICH's" 0 "LOWER:lower-half-mpich" -- clean_env PMI_RANK=0 PMI_SIZE=4 "$L" ./app
expect "verbose says who named it" 0 "(MPI: openmpi, named by Open MPI's mpirun (OMPI_COMM_WORLD_RANK))" -- \
    clean_env $ompi "$L" --verbose ./app
expect "the flag over the launcher" 0 "LOWER:lower-half-mpich" -- clean_env $ompi "$L" --mpi mpich ./app
expect "MANA_MPI over the launcher" 0 "LOWER:lower-half\$" -- clean_env $ompi MANA_MPI=none "$L" ./app
# a launcher that serves both MPIs, with several ranks: refused, with the flags that settle it
srun2="SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=2 SLURM_NTASKS=2 SLURM_JOB_ID=5"
expect "srun of 2 names no MPI: refused" 1 "app links no MPI library, and srun (SLURM_PROCID, SLURM_STEP_NUM_TASKS) does not say which MPI its 2 ranks run: pass --mpi openmpi or --mpi mpich (the MPI the program loads), or --mpi none (2 processes without MPI)\$" -- \
    clean_env $srun2 MANA_RC="$tmp/home/.mana.rc" "$L" ./app
one_line "srun of 2: one line" 1 -- clean_env $srun2 MANA_RC="$tmp/home/.mana.rc" "$L" ./app
expect "srun's PMI of 2: refused" 1 "srun's PMI (PMI_RANK, SLURM_STEP_NUM_TASKS) does not say which MPI its 2 ranks run: pass --mpi openmpi" -- \
    clean_env PMI_RANK=1 PMI_SIZE=2 PMI_FD=4 $srun2 MANA_RC="$tmp/home/.mana.rc" "$L" ./app
expect "srun's PMIx of 2: refused" 1 "srun's PMIx (PMIX_RANK, SLURM_STEP_NUM_TASKS) does not say which MPI its 2 ranks run" -- \
    clean_env PMIX_RANK=1 $srun2 MANA_RC="$tmp/home/.mana.rc" "$L" ./app
expect "a PMIx launcher without a size: refused" 1 "a PMIx launcher (PMIX_RANK without OMPI_COMM_WORLD_RANK) says neither which MPI it runs nor how many ranks: pass --mpi openmpi or --mpi mpich" -- \
    clean_env PMIX_RANK=0 PMIX_NAMESPACE=x "$L" ./app
one_line "a PMIx launcher: one line" 1 -- clean_env PMIX_RANK=0 "$L" ./app
# prterun started by srun in an allocation: SLURM_* count its daemons, not the ranks
expect "PMIx ranks of a launcher srun started: no size from Slurm" 1 "a PMIx launcher .* says neither" -- \
    clean_env PMIX_RANK=3 SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=1 MANA_RC="$tmp/home/.mana.rc" "$L" ./app
expect "the runtime is not started when refused" 1 "does not say which MPI" -- clean_env $srun2 MANA_RC="$tmp/home/.mana.rc" "$L" --verbose ./app
out=$(cd "$tmp/work" && clean_env $srun2 MANA_RC="$tmp/home/.mana.rc" "$L" ./app 2>&1)
case $out in *ARGS:*) fail "a refused launch ran the lower half: $out";; *) echo "ok: a refused launch runs nothing";; esac
# one rank, or no launcher: a program without MPI, as before
expect "srun of 1: no MPI" 0 "LOWER:lower-half\$" -- clean_env SLURM_PROCID=0 SLURM_STEP_NUM_TASKS=1 MANA_RC="$tmp/home/.mana.rc" "$L" ./app
expect "a batch script (SLURM_PROCID=0, no step): no MPI" 0 "LOWER:lower-half\$" -- \
    clean_env SLURM_PROCID=0 SLURM_NTASKS=4 SLURM_JOB_ID=5 MANA_RC="$tmp/home/.mana.rc" "$L" ./app
expect "no launcher: no MPI" 0 "MANA_MPI_SHADOW=UNSET" -- clean_env "$L" ./app
# --mpi none under a launcher: N processes without MPI, ranks 0..N-1 of one job (the lower half takes N
# from the launcher); a launcher that does not say N is refused
expect "--mpi none under srun of 2" 0 "LOWER:lower-half\$" -- clean_env $srun2 MANA_RC="$tmp/home/.mana.rc" "$L" --mpi none ./app
expect "--mpi none under Open MPI's mpirun" 0 "LOWER:lower-half\$" -- clean_env $ompi "$L" --mpi none ./app
expect "--mpi none without a size: refused" 1 "--mpi none: a PMIx launcher (PMIX_RANK without OMPI_COMM_WORLD_RANK) does not say how many ranks the job has, so rank 2 cannot register as one of them" -- \
    clean_env PMIX_RANK=2 "$L" --mpi none ./app
one_line "--mpi none without a size: one line" 1 -- clean_env PMIX_RANK=2 "$L" --mpi none ./app
expect "--mpi openmpi under srun" 0 "LOWER:lower-half-openmpi" -- clean_env $srun2 MANA_RC="$tmp/home/.mana.rc" "$L" --mpi openmpi ./app
# --- usage errors (2) and refusals (1)
expect "no program" 2 "no program given" -- clean_env "$L"
expect "bad port" 2 "bad port" -- clean_env "$L" -p 99999 ./app
expect "bad signal" 2 "bad checkpoint signal" -- clean_env "$L" --ckpt-signal KILL ./app
expect "bad interval" 2 "bad interval" -- clean_env "$L" -i soon ./app
expect "unknown option" 2 "unknown option --frobnicate" -- clean_env "$L" --frobnicate ./app
expect "missing program" 1 "no such file" -- clean_env "$L" ./nothere
expect "bad MANA_RC" 1 "cannot read status file" -- clean_env MANA_RC=/nonexistent "$L" ./app
expect "MANA_NO_COORD needs no status file" 0 "MANA_COORD_SECRET=UNSET" -- clean_env MANA_NO_COORD=1 MANA_RC=/nonexistent "$L" ./app
expect "the status file to follow is passed on" 0 "MANA_COORD_RC=$tmp/home/.mana.rc\$" -- clean_env "$L" ./app
expect "no status file to follow when the port is given" 0 "MANA_COORD_RC=\$" -- clean_env MANA_COORD_PORT=5000 "$L" ./app
mkdir -p "$tmp/work/old/ckpt_rank_0"
expect "empty ckpt_rank ok" 0 "ARGS:" -- clean_env "$L" --ckptdir old ./app
: > "$tmp/work/old/ckpt_rank_0/ckpt_app_gen1.mana"
expect "stale ckptdir refused" 1 "already holds checkpoint images" -- clean_env "$L" --ckptdir old ./app
one_line "stale ckptdir one line" 1 -- clean_env "$L" --ckptdir old ./app
# --- ownership: directories and images others control are refused
mkdir -p "$tmp/work/shared"
chmod 0777 "$tmp/work/shared"
expect "world-writable ckptdir refused" 1 "writable by other users (mode 777)" -- clean_env "$L" --ckptdir shared ./app
one_line "world-writable ckptdir one line" 1 -- clean_env "$L" --ckptdir shared ./app
chmod 0755 "$tmp/work/shared"
mkdir -p "$tmp/work/shared/ckpt_rank_0"
chmod 0777 "$tmp/work/shared/ckpt_rank_0"
expect "world-writable ckpt_rank_N refused" 1 "ckpt_rank_0 is writable by other users" -- clean_env "$L" --ckptdir shared ./app
chmod 0700 "$tmp/work/shared/ckpt_rank_0"
expect "own ckptdir ok" 0 "ARGS:" -- clean_env "$L" --ckptdir shared ./app
if [ "$(id -u)" = 0 ] && chown 65534 "$tmp/work/shared/ckpt_rank_0" 2>/dev/null; then
    expect "someone else's ckpt_rank_N refused" 1 "belongs to uid 65534" -- clean_env "$L" --ckptdir shared ./app
else
    echo "skip: someone else's ckpt_rank_N (needs root to chown)"
fi
mv "$root/bin/lower-half" "$root/bin/lh"
expect "no runtime" 1 "build the runtime first" -- clean_env "$L" ./app
mv "$root/bin/lh" "$root/bin/lower-half"

# --- restart
expect "restart missing dir" 1 "does not exist" -- clean_env "$R" --restartdir nowhere
one_line "restart missing dir one line" 1 -- clean_env "$R" --restartdir nowhere
mkdir -p "$tmp/work/r1/ckpt_rank_0"
expect "restart no images" 1 "no checkpoint images" -- clean_env "$R" --restartdir r1
: > "$tmp/work/r1/ckpt_rank_0/ckpt_app_gen2.mana"
: > "$tmp/work/r1/ckpt_rank_0/ckpt_app_gen3.mana.tmp"
# a *.tmp beside a complete image goes to the lower half (it moves the *.tmp aside)
expect "restart beside a tmp" 0 "ARGS:--restore $tmp/work/r1\$" -- clean_env "$R" --restartdir r1
rm "$tmp/work/r1/ckpt_rank_0/ckpt_app_gen3.mana.tmp"
expect "restart ok" 0 "ARGS:--restore $tmp/work/r1\$" -- clean_env "$R" --restartdir r1
expect "restart ckptdir default" 0 "MANA_CKPT_DIR=$tmp/work/r1\$" -- clean_env "$R" --restartdir r1
expect "restart ckptdir flag" 0 "MANA_CKPT_DIR=$tmp/work/new\$" -- clean_env "$R" --restartdir r1 --ckptdir new
expect "restart from cwd" 0 "ARGS:--restore $tmp/work/r1\$" -- sh -c "cd r1 && env -i PATH=/usr/bin:/bin HOME=$tmp/home $R"
expect "restart rank image" 1 "no checkpoint image for rank 1" -- clean_env OMPI_COMM_WORLD_RANK=1 "$R" --restartdir r1
expect "restart rank 0 image" 0 "ARGS:--restore" -- clean_env PMI_RANK=0 "$R" --restartdir r1
expect "restart rank of srun" 1 "no checkpoint image for rank 1 of 2; this job has 2 ranks" -- clean_env SLURM_PROCID=1 SLURM_STEP_NUM_TASKS=2 "$R" --restartdir r1
expect "restart rank of a PMIx launcher" 1 "no checkpoint image for rank 1" -- clean_env PMIX_RANK=1 "$R" --restartdir r1
expect "restart takes no program" 2 "takes no program" -- clean_env "$R" ./app
mkdir -p "$tmp/work/r1/ckpt_rank_1" && : > "$tmp/work/r1/ckpt_rank_1/ckpt_app_gen2.mana"
expect "debug-rank: that rank pauses" 0 "MANA_RESTART_PAUSE=3" -- clean_env OMPI_COMM_WORLD_RANK=1 "$R" --restartdir r1 --debug-rank 1 --debug-level 3
expect "debug-rank: the mana_gdb line" 0 "mana_gdb --rank 1 --restartdir $tmp/work/r1 --level 3" -- clean_env OMPI_COMM_WORLD_RANK=1 "$R" --restartdir r1 --debug-rank 1 --debug-level 3
expect "debug-rank: other ranks run" 0 "MANA_RESTART_PAUSE=UNSET" -- clean_env OMPI_COMM_WORLD_RANK=0 MANA_RESTART_PAUSE=2 "$R" --restartdir r1 --debug-rank 1
expect "debug-level alone refused" 2 "needs --debug-rank" -- clean_env "$R" --restartdir r1 --debug-level 2
expect "restart verbose" 0 "mana_restart: exec $root/bin/lower-half --restore" -- clean_env "$R" --verbose --restartdir r1
expect "restart file host" 0 "MANA_COORD_HOST=filehost" -- clean_env "$R" --restartdir r1
expect "restart secret on a descriptor" 0 "SECRET_ON_FD=00ff00ff\$" -- clean_env "$R" --restartdir r1
expect "restart secret not in the environment" 0 "MANA_COORD_SECRET=UNSET" -- clean_env MANA_COORD_SECRET=x "$R" --restartdir r1
chmod g+w "$tmp/work/r1/ckpt_rank_0/ckpt_app_gen2.mana"
expect "restart group-writable image refused" 1 "ckpt_app_gen2.mana is writable by its group" -- clean_env "$R" --restartdir r1
one_line "restart group-writable image one line" 1 -- clean_env "$R" --restartdir r1
chmod 0600 "$tmp/work/r1/ckpt_rank_0/ckpt_app_gen2.mana"
chmod 0777 "$tmp/work/r1/ckpt_rank_0"
expect "restart world-writable rank directory refused" 1 "ckpt_rank_0 is writable by other users" -- clean_env "$R" --restartdir r1
chmod 0700 "$tmp/work/r1/ckpt_rank_0"
if [ "$(id -u)" = 0 ] && chown 65534 "$tmp/work/r1/ckpt_rank_0/ckpt_app_gen2.mana" 2>/dev/null; then
    expect "restart someone else's image refused" 1 "ckpt_app_gen2.mana belongs to uid 65534" -- clean_env "$R" --restartdir r1
    chown 0 "$tmp/work/r1/ckpt_rank_0/ckpt_app_gen2.mana"
else
    echo "skip: someone else's image (needs root to chown)"
fi
expect "restart own images ok" 0 "ARGS:--restore" -- clean_env "$R" --restartdir r1

# --- stale status files: older than 7 days go, others stay
touch -d '10 days ago' "$tmp/home/.mana-slurm-1.rc"
touch "$tmp/home/.mana-slurm-2.rc"
(cd "$tmp/work" && clean_env "$L" ./app >/dev/null 2>&1)
[ ! -e "$tmp/home/.mana-slurm-1.rc" ] && [ -e "$tmp/home/.mana-slurm-2.rc" ] &&
    [ -e "$tmp/home/.mana.rc" ] && echo "ok: stale rc cleanup" || fail "stale rc cleanup"

# --- one copy of the shared code: lib/mana/launch_lib.sh, found through a symbolic link too, and a
# clear refusal without it
for f in resolve_coordinator check_owned pass_secret launcher_env sig_number common_option; do
    n=$(cat "$src/mana_launch" "$src/mana_restart" | grep -c "^$f()")
    [ "$n" = 0 ] && grep -q "^$f()" "$src/launch_lib.sh" || fail "$f() is not (only) in launch_lib.sh"
done
echo "ok: shared code in launch_lib.sh only"
ln -s "$L" "$tmp/t/mana_launch_link"
expect "through a symbolic link" 0 "ARGS:./app x" -- clean_env "$tmp/t/mana_launch_link" ./app x
mv "$root/lib/mana/launch_lib.sh" "$tmp/t/"
expect "no launch_lib.sh" 1 "lib/mana/launch_lib.sh not found" -- clean_env "$L" ./app
expect "no launch_lib.sh (restart)" 1 "lib/mana/launch_lib.sh not found" -- clean_env "$R" --restartdir r1
mv "$tmp/t/launch_lib.sh" "$root/lib/mana/"

[ "$fails" = 0 ] && echo "launchers: all ok" || echo "launchers: $fails failure(s)"
[ "$fails" = 0 ]
