// Kamino's own pause program for the real-node test clusters (test/cluster/nodes): the process
// that holds a pod's namespaces. Kubernetes' pause is C and not a Go module; this does the same
// three things: wait, reap orphaned children (it is PID 1 of a pod that shares its PID namespace),
// and exit on SIGINT or SIGTERM.
module kamino.invalid/tools/pause

go 1.26
