# agents.sh - sourced by the cluster scripts that run jobs through node agents (cr_slurm.sh, cr_nodes.sh).
# The caller defines say, fail, ROOT and rc_file (the job's coordinator status file).
#
#   one_connection_per_node WHAT   the coordinator's LIST shows the ranks of each node on one connection
#                                  (their node agent's), and each node on a connection of its own
one_connection_per_node() {
    local l pairs nodes clients
    l=$(timeout 20 env MANA_RC="$rc_file" "$ROOT/bin/mana_coord_probe" --list 2>&1) || fail "$1: cannot list the ranks: $l"
    pairs=$(echo "$l" | awk '$1 == "rank" { print $4, $NF }' | sort -u)     # host, client id
    nodes=$(echo "$pairs" | awk '{ print $1 }' | sort -u | wc -l)
    clients=$(echo "$pairs" | awk '{ print $2 }' | sort -u | wc -l)
    [ "$(echo "$pairs" | wc -l)" = "$nodes" ] && [ "$clients" = "$nodes" ] ||
        fail "$1: not one connection per node: $(echo "$l" | tr '\n' ';')"
    say "$1: $nodes nodes, one node agent connection each: $(echo "$pairs" | tr '\n' ' ')"
}
