/** The worker argument naming the egress proxy socket inside the worker's mount namespace. */
export const EGRESS_SOCKET_FLAG = '--egress-socket=';
