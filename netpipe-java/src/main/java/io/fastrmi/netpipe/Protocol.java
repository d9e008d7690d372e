package io.fastrmi.netpipe;

/** What carries the rmi and kernel commands' calls: Java RMI, or a reference peer (Cojen Dirmi, gRPC-java). */
enum Protocol { RMI, DIRMI, GRPC }
