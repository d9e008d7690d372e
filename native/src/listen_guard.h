/*
 * listen_guard.h - a kernel filter on a listening TCP socket that lets only given IPs connect.
 *
 * UCX's socket-address listener (the tcp_sockcm of UCX 1.13) reads what a connecting socket
 * sends and checks it with assertions, which abort the process: 64 zero bytes from any host
 * that reaches the port are enough. Its connection handler, where we could reject a host, runs
 * only after that read. So the kernel drops, before a connection exists, every packet to the
 * listener whose source IP is not one this process negotiates with: a classic BPF program on
 * the socket (SO_ATTACH_FILTER), which TCP runs on a listener's SYN as on any packet. A
 * connection accepted under the filter keeps the program it was accepted under, so a later
 * program with fewer IPs closes no connection.
 *
 * Plain sockets and numbers in, so that tests reach it without UCX (tests/unit_listen_guard.c).
 */
#ifndef FASTRMI_LISTEN_GUARD_H
#define FASTRMI_LISTEN_GUARD_H

#include <stddef.h>
#include <stdint.h>

/* Most IPs one program admits (each IPv6 one costs 9 instructions of the kernel's 4096). */
#define FR_LISTEN_GUARD_IPS_MAX 256

/*
 * The one listening TCP socket of this process bound to port (network order), found among the
 * process's open files: UCX does not hand out its listener's socket. 0 and *fd set, or -1 with
 * err saying why (no such socket, or more than one).
 */
int fr_listen_guard_find(uint16_t port, int *fd, char *err, size_t errlen);

/*
 * Lets only the count IPs in ips (16 bytes each, IPv4 as IPv4-mapped IPv6) connect to the
 * listening socket fd from now on; count 0 lets none. 0, or -1 with err saying why.
 */
int fr_listen_guard_admit(int fd, const unsigned char (*ips)[16], unsigned count, char *err, size_t errlen);

#endif
