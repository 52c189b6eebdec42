#!/bin/sh
# launch_lib.sh - what mana_launch and mana_restart share, sourced by both (POSIX sh).
#
# Installed as lib/mana/launch_lib.sh; each script finds it from its own resolved path
# (bin/../lib/mana/), so one runtime's scripts always take that runtime's library.  The scripts set
# `me` (their name, for messages) and define usage() before sourcing it; everything here is a
# function or a variable of theirs: nothing runs at sourcing time.

# ---- messages ----------------------------------------------------------------

die()   { echo "$me: $*" >&2; exit 1; }
usage_err() { echo "$me: $*" >&2; echo "Try '$me --help'." >&2; exit 2; }


# Signal name or number -> number; the runtime installs a handler for it, so
# KILL and STOP cannot be used.
sig_number() {
    s=${1#SIG}
    case $s in
        HUP) echo 1;; INT) echo 2;; QUIT) echo 3;; ILL) echo 4;; TRAP) echo 5;; ABRT) echo 6;;
        BUS) echo 7;; FPE) echo 8;; USR1) echo 10;; SEGV) echo 11;; USR2) echo 12;;
        PIPE) echo 13;; ALRM) echo 14;; TERM) echo 15;; STKFLT) echo 16;; CHLD) echo 17;;
        CONT) echo 18;; TSTP) echo 20;; TTIN) echo 21;; TTOU) echo 22;; URG) echo 23;;
        XCPU) echo 24;; XFSZ) echo 25;; VTALRM) echo 26;; PROF) echo 27;; WINCH) echo 28;;
        IO|POLL) echo 29;; PWR) echo 30;; SYS) echo 31;;
        *[!0-9]*|'') return 1;;
        *) [ "$s" -ge 1 ] && [ "$s" -le 64 ] && [ "$s" -ne 9 ] && [ "$s" -ne 19 ] || return 1
           echo "$s";;
    esac
}

is_uint() { case $1 in ''|*[!0-9]*) return 1;; *) return 0;; esac; }

# The MPI launcher this rank runs under, from the variables launchers give each rank.  Sets
# launcher (what was seen, for messages; empty: none), launcher_mpi (openmpi or mpich where the
# launcher belongs to one MPI only, else empty), launcher_rank and launcher_size (empty when it does
# not say).  The lower half reads the same variables in the same order (lh_read_settings in
# src/lower-half/main.c): keep the two in step.
#   Open MPI's mpirun       OMPI_COMM_WORLD_RANK, OMPI_COMM_WORLD_SIZE (and PMIX_*)
#   MPICH's mpirun (Hydra)  PMI_RANK, PMI_SIZE, PMI_FD, and its own HYDI_CONTROL_FD, MPI_LOCALNRANKS;
#                           other PMI launchers outside srun are MPICH's family too
#   srun                    SLURM_PROCID, SLURM_STEP_NUM_TASKS, and PMI_* (--mpi=pmi2) or PMIX_*
#                           (--mpi=pmix), which serve Open MPI and MPICH alike: no MPI named
#   prterun, other PMIx     PMIX_RANK alone: no MPI named, no size
# A batch script has SLURM_PROCID=0 without SLURM_STEP_NUM_TASKS: one process, no launcher.
launcher_env() {
    launcher= launcher_mpi= launcher_rank= launcher_size=
    if [ -n "${OMPI_COMM_WORLD_RANK:-}" ]; then
        launcher="Open MPI's mpirun (OMPI_COMM_WORLD_RANK)" launcher_mpi=openmpi
        launcher_rank=$OMPI_COMM_WORLD_RANK launcher_size=${OMPI_COMM_WORLD_SIZE:-}
    elif [ -n "${PMI_RANK:-}" ]; then
        launcher_rank=$PMI_RANK launcher_size=${PMI_SIZE:-}
        if [ -n "${HYDI_CONTROL_FD:-}${MPI_LOCALNRANKS:-}" ] || [ -z "${SLURM_STEP_NUM_TASKS:-}" ]; then
            launcher="MPICH's mpirun (PMI_RANK)" launcher_mpi=mpich
        else
            launcher="srun's PMI (PMI_RANK, SLURM_STEP_NUM_TASKS)"
        fi
    elif [ -n "${PMIX_RANK:-}" ]; then
        launcher_rank=$PMIX_RANK
        # under srun the step's size; under a launcher that srun started (prterun in an allocation)
        # SLURM_* describe its daemons, whose numbers are not the ranks'
        if [ -n "${SLURM_STEP_NUM_TASKS:-}" ] && [ "${SLURM_PROCID:-}" = "$PMIX_RANK" ]; then
            launcher="srun's PMIx (PMIX_RANK, SLURM_STEP_NUM_TASKS)" launcher_size=$SLURM_STEP_NUM_TASKS
        else
            launcher="a PMIx launcher (PMIX_RANK without OMPI_COMM_WORLD_RANK)"
        fi
    elif [ -n "${SLURM_PROCID:-}" ]; then
        launcher_rank=$SLURM_PROCID
        if [ -n "${SLURM_STEP_NUM_TASKS:-}" ]; then
            launcher="srun (SLURM_PROCID, SLURM_STEP_NUM_TASKS)" launcher_size=$SLURM_STEP_NUM_TASKS
        fi
    fi
    # a size that is not a number above the rank says nothing
    if ! is_uint "$launcher_size" || ! is_uint "$launcher_rank" || [ "$launcher_rank" -ge "$launcher_size" ]; then
        launcher_size=
    fi
    return 0
}

# rc_host, rc_port, rc_secret: the status file's Host, Port and Secret ("Key: value", the first line of
# each key, blanks around the value removed).  Read by the shell itself: a sed pipeline per key was nine
# processes in every rank of every launch and restart.
read_rc() {
    rc_host= rc_port= rc_secret=
    _seen=
    while IFS= read -r _line || [ -n "$_line" ]; do
        _key=${_line%%:*}
        [ "$_key" != "$_line" ] || continue
        case " $_seen " in *" $_key "*) continue;; esac
        _val=${_line#*:}
        _val=${_val#"${_val%%[![:space:]]*}"}
        _val=${_val%"${_val##*[![:space:]]}"}
        case $_key in
            Host) rc_host=$_val;;
            Port) rc_port=$_val;;
            Secret) rc_secret=$_val;;
            *) continue;;
        esac
        _seen="$_seen $_key"
    done < "$1"
}

# Stale status files from crashed jobs: MANA removes those older than a week.
clean_stale_rc() {
    [ -n "${HOME:-}" ] && [ -d "$HOME" ] &&
        find "$HOME" -maxdepth 1 -name '.mana*.rc' -type f -mtime +7 -exec rm -f {} + 2>/dev/null
    return 0
}

# Sets coord_host, coord_port, coord_secret from flags > environment >
# status file > localhost:7779, field by field; the file's Secret only goes
# with the file's Port (as the C client does).
resolve_coordinator() {
    rc_file= rc_host= rc_port= rc_secret=
    if [ -n "${MANA_RC:-}" ]; then
        rc_file=$MANA_RC
        [ -r "$rc_file" ] || die "cannot read status file $rc_file (MANA_RC)"
    elif [ -n "${HOME:-}" ]; then
        if [ -n "${SLURM_JOB_ID:-}" ]; then rc_file=$HOME/.mana-slurm-$SLURM_JOB_ID.rc
        else rc_file=$HOME/.mana.rc; fi
        [ -r "$rc_file" ] || rc_file=
    fi
    if [ -n "$rc_file" ]; then
        read_rc "$rc_file"
    fi
    env_host=${MANA_COORD_HOST:-${DMTCP_COORD_HOST:-}}
    env_port=${MANA_COORD_PORT:-${DMTCP_COORD_PORT:-}}
    coord_host=${opt_host:-${env_host:-${rc_host:-localhost}}}
    coord_port=${opt_port:-${env_port:-${rc_port:-7779}}}
    if ! is_uint "$coord_port" || [ "$coord_port" -lt 1 ] || [ "$coord_port" -gt 65535 ]; then
        die "bad coordinator port '$coord_port'"
    fi
    # The status file named this coordinator (no flag, no variable did): a rank that loses it
    # follows the file to the next coordinator (MANA_COORD_RC, see docs/control-plane.md).
    coord_rc=
    if [ -n "$rc_file" ] && [ -n "$rc_port" ] && [ -z "${opt_host:-}${env_host}" ] && [ -z "${opt_port:-}${env_port}" ]; then
        coord_rc=$(readlink -f -- "$rc_file")
    fi
    if [ -n "${MANA_COORD_SECRET:-}" ]; then coord_secret=$MANA_COORD_SECRET
    elif [ -n "$rc_secret" ] && [ "$rc_port" = "$coord_port" ]; then coord_secret=$rc_secret
    else coord_secret=; fi
}

# Refuses a path another user owns or can write ($1 names it, $2 is the path):
# an image or directory someone else controls would make this user run their
# code at restart.  $3 = "strict" also refuses group write (images).
check_owned() {
    st=$(stat -L -c '%u %a' -- "$2" 2>/dev/null) || die "cannot stat $1 $2"
    owner=${st%% *} mode=${st#* } me_uid=$(id -u)
    [ "$owner" = "$me_uid" ] ||
        die "$1 $2 belongs to uid $owner, not to you (uid $me_uid): refusing it"
    case $mode in
        *[2367]) die "$1 $2 is writable by other users (mode $mode): refusing it (chmod o-w $2)";;
    esac
    if [ "${3:-}" = strict ]; then
        case $mode in
            *[2367]?) die "$1 $2 is writable by its group (mode $mode): refusing it (chmod g-w $2)";;
        esac
    fi
    return 0
}

# The secret never enters the program's environment (its children would
# inherit it, its images would hold it, /proc/PID/environ would show it): it
# goes on a descriptor of a deleted 0600 file; the lower half reads it and
# closes the descriptor before the program starts (src/coord/secret_fd.h).
# The descriptor is the highest free one of 9..3: MPI launchers hand ranks
# descriptors of their own (MPICH's PMI_FD), which must stay untouched; when
# none is free the 0600 file stays, named by MANA_COORD_SECRET_FILE, and the
# lower half deletes it.
pass_secret() {
    unset MANA_COORD_SECRET MANA_COORD_SECRET_FD MANA_COORD_SECRET_FILE
    [ -n "$coord_secret" ] || return 0
    sf=$(umask 077 && mktemp "${TMPDIR:-/tmp}/mana_secret.XXXXXX") ||
        die "cannot create a temporary file for the coordinator secret"
    if ! printf '%s' "$coord_secret" > "$sf"; then
        rm -f -- "$sf"
        die "cannot write the coordinator secret to $sf"
    fi
    coord_secret=
    sfd=9
    while [ -e "/proc/$$/fd/$sfd" ]; do
        sfd=$((sfd - 1))
        if [ "$sfd" -lt 3 ]; then   # none free (sh redirects 0..9 only): the lower half deletes the file
            export MANA_COORD_SECRET_FILE="$sf"
            return 0
        fi
    done
    eval "exec $sfd< \"\$sf\""
    rm -f -- "$sf"
    export MANA_COORD_SECRET_FD=$sfd
}

# MANA_ROOT is the parent of the directory holding this script (bin/).
find_root() {
    self=$(readlink -f -- "$0") || die "cannot locate myself ($0)"
    MANA_ROOT=$(cd "$(dirname -- "$self")/.." && pwd -P) || die "cannot locate the runtime"
    [ -x "$MANA_ROOT/bin/lower-half" ] ||
        die "$MANA_ROOT/bin/lower-half not found: build the runtime first (make build)"
}

# Absolute path of an existing directory.
abs_dir() { (cd -- "$1" 2>/dev/null && pwd -P); }


# ---- the options both commands take ----------------------------------------

need_arg() { [ $# -ge 2 ] || usage_err "option $1 needs an argument"; }

common_options_init() {
    opt_verbose= opt_timing= opt_quiet= opt_host= opt_port= opt_interval= opt_signal= opt_job= opt_ckptdir=
}

# One option both commands take, at "$@": sets took to the words it used (1 or 2), or to 0 when $1 is
# none of them (the caller decides: its own option, the program, or an error).
common_option() {
    took=1
    case $1 in
        --verbose) opt_verbose=1;;
        --timing) opt_timing=1;;
        -q|--quiet) opt_quiet=1;;
        --help) usage; exit 0;;
        --ckptdir) need_arg "$@"; opt_ckptdir=$2; took=2;;
        --ckptdir=*) opt_ckptdir=${1#*=};;
        -h|--coord-host) need_arg "$@"; opt_host=$2; took=2
            [ -n "$opt_host" ] || usage_err "empty coordinator host";;
        --coord-host=*) opt_host=${1#*=}; [ -n "$opt_host" ] || usage_err "empty coordinator host";;
        -p|--coord-port) need_arg "$@"; opt_port=$2; took=2;;
        --coord-port=*) opt_port=${1#*=};;
        -i|--interval) need_arg "$@"; opt_interval=$2; took=2;;
        --interval=*) opt_interval=${1#*=};;
        --ckpt-signal) need_arg "$@"; opt_signal=$2; took=2;;
        --ckpt-signal=*) opt_signal=${1#*=};;
        --job) need_arg "$@"; opt_job=$2; took=2;;
        --job=*) opt_job=${1#*=};;
        --node-agent) MANA_NODE_AGENT=1;;
        # MANA options with nothing to do here: accepted so MANA job scripts run unchanged.
        --tmpdir|--coord-logfile) need_arg "$@"; took=2;;
        --tmpdir=*|--coord-logfile=*) ;;
        --use-shadowlibs) ;;
        --with-plugin|--with-plugin=*|--gdb)
            usage_err "${1%%=*} is not supported by this runtime (see docs/commands.md)";;
        *) took=0;;
    esac
}

# The values of the common options (and their variables) are sound; sets sig (the checkpoint signal).
check_common_options() {
    if [ -n "$opt_port" ]; then
        is_uint "$opt_port" && [ "$opt_port" -ge 1 ] && [ "$opt_port" -le 65535 ] ||
            usage_err "bad port '$opt_port' (1..65535)"
    fi
    if [ -n "$opt_interval" ]; then
        is_uint "$opt_interval" || usage_err "bad interval '$opt_interval' (whole seconds, 0 = none)"
    elif [ -n "${MANA_CKPT_INTERVAL:-}" ]; then
        is_uint "$MANA_CKPT_INTERVAL" || die "bad MANA_CKPT_INTERVAL '$MANA_CKPT_INTERVAL' (whole seconds)"
    fi
    if [ -n "$opt_signal" ]; then
        sig=$(sig_number "$opt_signal") || usage_err "bad checkpoint signal '$opt_signal'"
    else
        sig=${MANA_CKPT_SIGNAL:-40}
        sig=$(sig_number "$sig") || die "bad MANA_CKPT_SIGNAL '${MANA_CKPT_SIGNAL:-}'"
    fi
}

# ---- the runtime and the coordinator ------------------------------------------

# MANA_ROOT, and the coordinator's address and secret (coord_host, coord_port, coord_secret, coord_rc).
find_runtime_and_coordinator() {
    clean_stale_rc
    find_root
    # MANA_NO_COORD (a debugging aid: no coordinator at all): nothing to resolve, no status file needed
    if [ -n "${MANA_NO_COORD:-}" ] && [ "${MANA_NO_COORD}" != 0 ]; then
        coord_host=localhost coord_port=7779 coord_secret= coord_rc=
    else
        resolve_coordinator
    fi
}

# The environment the runtime reads (docs/commands.md), from the options and the variables; the secret
# goes on a descriptor (pass_secret).  Needs ckptdir and sig.
export_runtime_env() {
    export MANA_ROOT
    export MANA_COORD_HOST="$coord_host" MANA_COORD_PORT="$coord_port" MANA_COORD_RC="$coord_rc"
    export MANA_JOB="${opt_job:-${MANA_JOB:-${SLURM_JOB_ID:-}}}"
    if [ "${MANA_NODE_AGENT:-0}" != 0 ] && [ -z "${MANA_NO_COORD:-}" ]; then
        use_node_agent
    fi
    pass_secret
    export MANA_CKPT_DIR="$ckptdir"
    export MANA_CKPT_INTERVAL="${opt_interval:-${MANA_CKPT_INTERVAL:-0}}"
    export MANA_CKPT_SIGNAL="$sig"
    export MANA_DEBUG="${MANA_DEBUG:-}"
    [ -z "$opt_timing" ] || MANA_TIMING=1
    [ -z "$opt_quiet" ] || MANA_QUIET=1
    export MANA_TIMING="${MANA_TIMING:-}" MANA_QUIET="${MANA_QUIET:-}"
}

# MANA_NODE_AGENT=1 (--node-agent): this rank registers through its node's agent (bin/mana_node_agent,
# docs/architecture.md "The node agent"), which carries all the job's ranks on this node over one
# connection to the coordinator.  The first rank of the node starts the agent (an flock on the agent
# directory's lock decides), the others wait for its endpoint (bounded: MANA_AGENT_WAIT_MS); every
# rank then talks to 127.0.0.1:PORT exactly as to the coordinator (same handshake, same secret).  The
# agent directory is per user and per job: MANA_AGENT_DIR, else $TMPDIR/mana-agent-UID/JOB-PORT-PPID,
# where PPID (the process that started this launcher: mpirun's, Hydra's proxy or slurmstepd) is the
# same for all ranks of one job step on a node.  MANA_COORD_RC stays: a rank whose agent is gone follows
# the status file to the coordinator as it would today.  Control clients (-i's mana_coord_probe) keep
# talking to the coordinator itself (coord_host, coord_port).
use_node_agent() {
    [ -x "$MANA_ROOT/bin/mana_node_agent" ] ||
        die "$MANA_ROOT/bin/mana_node_agent not found: build the runtime first (make build), or unset MANA_NODE_AGENT"
    _key=$(printf '%s' "${MANA_JOB:-default}" | tr -c 'A-Za-z0-9._-' '_')
    agent_dir=${MANA_AGENT_DIR:-${TMPDIR:-/tmp}/mana-agent-$(id -u)/$_key-$coord_port-$PPID}
    # no MPI launcher (launcher_env): this process is the node's only rank of its job
    _ranks=
    [ -n "${launcher:-}" ] || _ranks="--ranks 1"
    agent_port=$(printf '%s' "$coord_secret" | "$MANA_ROOT/bin/mana_node_agent" --ensure --dir "$agent_dir" \
                     --coord-host "$coord_host" --coord-port "$coord_port" $_ranks) ||
        die "no node agent for this rank (MANA_NODE_AGENT=1): see the message above"
    export MANA_COORD_HOST=127.0.0.1 MANA_COORD_PORT="$agent_port"
}

# --verbose: the environment given to the runtime.
say_runtime_env() {
    echo "$me: MANA_ROOT=$MANA_ROOT MANA_COORD_HOST=$MANA_COORD_HOST MANA_COORD_PORT=$MANA_COORD_PORT MANA_JOB=$MANA_JOB MANA_CKPT_DIR=$MANA_CKPT_DIR MANA_CKPT_INTERVAL=$MANA_CKPT_INTERVAL MANA_CKPT_SIGNAL=$MANA_CKPT_SIGNAL" >&2
}
