package io.fastrmi.netpipe;

/** What a server serves: the socket echo, the RMI service, or the same calls on Dirmi or gRPC. */
enum ServerMode { SOCKET, RMI, DIRMI, GRPC }
