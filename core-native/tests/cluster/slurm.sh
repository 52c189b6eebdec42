# slurm.sh - real Slurm (Debian's slurm-wlm and munge) on the namespace cluster; sourced by cluster.sh.
#
# slurm_start: a munge key made here, munged (its socket in $D/munge, not the machine's /run/munge),
# slurm.conf written to $D/slurm (SLURM_CONF), slurmctld on the head, `slurmd -N nodeX` on each node;
# returns when every node is idle.  slurm_stop: the daemons, by the pids recorded at start.
# Settings chosen for a container on 2 cores: no cgroups (proctrack/linuxproc, task/none), nodes
# declared with 4 CPUs each whatever the machine has (SlurmdParameters=config_overrides), no
# accounting.  Each slurmd has its own spool, log and pid file (%n), so they never share state.
# Uses D, names, pids_file, say, fail and addr_of of cluster.sh.

slurm_pids=()

slurm_start() {
    local t
    for t in munged mungekey slurmctld slurmd srun sinfo; do
        command -v "$t" > /dev/null || cannot slurm "cluster: needs '$t': apt-get install slurm-wlm munge (make deps)"
    done
    local M=$D/munge S=$D/slurm
    mkdir -p "$M" "$S/ctld" && chmod 0700 "$M" || return 1
    # munged refuses keys and folders others can read or write; it runs as root here (--force)
    mungekey --create --keyfile="$M/munge.key" --bits=1024 || { say "mungekey failed"; return 1; }
    chmod 0600 "$M/munge.key"
    munged --force --socket="$M/munge.socket" --key-file="$M/munge.key" --pid-file="$M/munged.pid" \
           --log-file="$M/munged.log" --seed-file="$M/munged.seed" --foreground > "$M/munged.out" 2>&1 &
    slurm_pids+=($!); echo $! >> "$pids_file"; disown $!
    local w=200
    until [ -S "$M/munge.socket" ]; do
        w=$((w - 1)); [ $w -gt 0 ] || { say "munged did not start: $(tail -n 5 "$M/munged.log" "$M/munged.out" 2>&1)"; return 1; }
        sleep 0.05
    done

    : > "$S/plugstack.conf"
    {
        echo "# written by tests/cluster/slurm.sh for one test cluster; removed with it"
        echo "ClusterName=manatest"
        echo "SlurmctldHost=head($(addr_of head))"
        echo "SlurmUser=root"
        echo "SlurmdUser=root"
        echo "AuthType=auth/munge"
        echo "CredType=cred/munge"
        echo "AuthInfo=socket=$M/munge.socket"
        echo "StateSaveLocation=$S/ctld"
        echo "SlurmctldPidFile=$S/slurmctld.pid"
        echo "SlurmctldLogFile=$S/slurmctld.log"
        echo "SlurmdSpoolDir=$S/%n/spool"
        echo "SlurmdPidFile=$S/%n/slurmd.pid"
        echo "SlurmdLogFile=$S/%n/slurmd.log"
        echo "PlugStackConfig=$S/plugstack.conf"
        echo "ProctrackType=proctrack/linuxproc"
        echo "TaskPlugin=task/none"
        echo "SelectType=select/cons_tres"
        echo "SelectTypeParameters=CR_Core"
        echo "SchedulerType=sched/builtin"
        echo "JobAcctGatherType=jobacct_gather/none"
        echo "AccountingStorageType=accounting_storage/none"
        echo "MpiDefault=none"
        echo "ReturnToService=2"
        echo "SlurmdParameters=config_overrides"
        echo "SlurmctldTimeout=30"
        echo "SlurmdTimeout=30"
        echo "InactiveLimit=0"
        echo "KillWait=2"
        echo "MinJobAge=300"
        echo "JobRequeue=1"
        echo "SlurmctldDebug=info"
        echo "SlurmdDebug=info"
        for n in $names; do echo "NodeName=$n NodeAddr=$(addr_of "$n") CPUs=4 RealMemory=1000 State=UNKNOWN"; done
        echo "PartitionName=test Nodes=ALL Default=YES MaxTime=INFINITE State=UP"
    } > "$S/slurm.conf"
    export SLURM_CONF=$S/slurm.conf

    on head slurmctld -D -i -f "$S/slurm.conf" > "$S/slurmctld.out" 2>&1 &
    slurm_pids+=($!); echo $! >> "$pids_file"; disown $!
    for n in $names; do
        mkdir -p "$S/$n/spool" || return 1
        on "$n" slurmd -D -N "$n" -f "$S/slurm.conf" > "$S/$n/slurmd.out" 2>&1 &
        slurm_pids+=($!); echo $! >> "$pids_file"; disown $!
    done
    # every node idle: the controller heard from each slurmd
    w=600
    until [ "$(on head sinfo -h -N -t idle -o %N 2>/dev/null | sort -u | wc -l)" = "$(echo $names | wc -w)" ]; do
        w=$((w - 1))
        if [ $w -le 0 ]; then
            say "Slurm nodes not idle in 30 s:"; on head sinfo -N -l >&2
            tail -n 20 "$S/slurmctld.log" "$S"/node*/slurmd.log "$S"/*.out "$S"/node*/slurmd.out >&2
            return 1
        fi
        sleep 0.05
    done
    say "Slurm up: slurmctld on head, slurmd on $names (SLURM_CONF=$S/slurm.conf)"
}

slurm_stop() {
    local p
    [ -n "${SLURM_CONF:-}" ] && on head scancel --quiet --full --user=root 2>/dev/null
    for p in "${slurm_pids[@]}"; do kill -TERM "$p" 2>/dev/null; done
    return 0
}
