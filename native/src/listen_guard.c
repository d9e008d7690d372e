/*
 * listen_guard.c - a kernel filter on a listening TCP socket that lets only given IPs connect
 * (see listen_guard.h for why).
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <linux/filter.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>

#include "listen_guard.h"

#define FR_GUARD_ACCEPT 0xffffffffu /* a filter's "keep the whole packet" */
#define FR_GUARD_DROP 0u
/* Instructions before the IPv4 list, per IPv4 and IPv6 address, and the two final drops. */
#define FR_GUARD_HEAD 5u
#define FR_GUARD_PER_V4 2u
#define FR_GUARD_PER_V6 9u
#define FR_GUARD_MAX_INSNS (FR_GUARD_HEAD + FR_LISTEN_GUARD_IPS_MAX * FR_GUARD_PER_V6 + 2u)

static const unsigned char fr_guard_v4_mapped[12] = { 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0xff, 0xff };

static int fr_guard_fail(char *err, size_t errlen, const char *what, int errnum)
{
	if (err != NULL && errlen > 0)
		snprintf(err, errlen, "%s: %s", what, strerror(errnum));
	return -1;
}

/* The port a socket is bound to (network order), or 0 for one that is not TCP and listening. */
static uint16_t fr_guard_listening_port(int fd)
{
	struct sockaddr_storage sa;
	socklen_t len = sizeof(sa);
	int type = 0, listening = 0;
	socklen_t optlen = sizeof(int);

	if (getsockopt(fd, SOL_SOCKET, SO_TYPE, &type, &optlen) != 0 || type != SOCK_STREAM)
		return 0;
	optlen = sizeof(int);
	if (getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &optlen) != 0 || !listening)
		return 0;
	if (getsockname(fd, (struct sockaddr *)&sa, &len) != 0)
		return 0;
	if (sa.ss_family == AF_INET)
		return ((struct sockaddr_in *)&sa)->sin_port;
	if (sa.ss_family == AF_INET6)
		return ((struct sockaddr_in6 *)&sa)->sin6_port;
	return 0;
}

int fr_listen_guard_find(uint16_t port, int *fd, char *err, size_t errlen)
{
	DIR *dir = opendir("/proc/self/fd");
	struct dirent *entry;
	struct stat st;
	int found = -1, matches = 0;
	char *end;
	long n;

	if (dir == NULL)
		return fr_guard_fail(err, errlen, "opendir(/proc/self/fd)", errno);
	while ((entry = readdir(dir)) != NULL) {
		n = strtol(entry->d_name, &end, 10);
		if (*end != '\0' || end == entry->d_name || n < 0 || n == dirfd(dir))
			continue;
		if (fstat((int)n, &st) != 0 || !S_ISSOCK(st.st_mode) || fr_guard_listening_port((int)n) != port)
			continue;
		found = (int)n;
		matches++;
	}
	if (closedir(dir) != 0)
		return fr_guard_fail(err, errlen, "closedir(/proc/self/fd)", errno);
	if (matches != 1) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%d listening TCP sockets on port %u in this process, not one", matches,
				 (unsigned)ntohs(port));
		return -1;
	}
	*fd = found;
	return 0;
}

/* The 32-bit word at off of an IP, as a filter's absolute load reads it (network order). */
static uint32_t fr_guard_word(const unsigned char *ip, unsigned off)
{
	return (uint32_t)ip[off] << 24 | (uint32_t)ip[off + 1] << 16 | (uint32_t)ip[off + 2] << 8 | ip[off + 3];
}

/*
 * The program: by the IP version of the packet, its source address compared with each IPv4
 * address (2 instructions each) or each IPv6 one (9 each: a mismatch in any word skips to the
 * next address); kept on a match, dropped after the last. The branch to the IPv6 list is an
 * unconditional jump, whose offset is not limited to 255 instructions as a conditional one's is.
 */
static unsigned fr_guard_program(const unsigned char (*ips)[16], unsigned count, struct sock_filter *p)
{
	unsigned n = 0, v4 = 0, v6;

	for (unsigned i = 0; i < count; i++)
		if (memcmp(ips[i], fr_guard_v4_mapped, sizeof(fr_guard_v4_mapped)) == 0)
			v4++;
	/* The IPv4 list starts at FR_GUARD_HEAD and ends in a drop; the IPv6 list follows it. */
	v6 = FR_GUARD_HEAD + v4 * FR_GUARD_PER_V4 + 1;
	p[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_B | BPF_ABS, (uint32_t)SKF_NET_OFF);
	p[n++] = (struct sock_filter)BPF_STMT(BPF_ALU | BPF_AND | BPF_K, 0xf0);
	p[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 0x60, 0, 1);
	p[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JA, v6 - (FR_GUARD_HEAD - 1), 0, 0);
	p[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)SKF_NET_OFF + 12);
	for (unsigned i = 0; i < count; i++) {
		if (memcmp(ips[i], fr_guard_v4_mapped, sizeof(fr_guard_v4_mapped)) != 0)
			continue;
		p[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, fr_guard_word(ips[i], 12), 0, 1);
		p[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, FR_GUARD_ACCEPT);
	}
	p[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, FR_GUARD_DROP);
	for (unsigned i = 0; i < count; i++) {
		if (memcmp(ips[i], fr_guard_v4_mapped, sizeof(fr_guard_v4_mapped)) == 0)
			continue;
		for (unsigned w = 0; w < 4; w++) {
			p[n++] = (struct sock_filter)BPF_STMT(BPF_LD | BPF_W | BPF_ABS, (uint32_t)SKF_NET_OFF + 8 + 4 * w);
			p[n++] = (struct sock_filter)BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, fr_guard_word(ips[i], 4 * w), 0,
							      (uint8_t)(7 - 2 * w));
		}
		p[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, FR_GUARD_ACCEPT);
	}
	p[n++] = (struct sock_filter)BPF_STMT(BPF_RET | BPF_K, FR_GUARD_DROP);
	return n;
}

int fr_listen_guard_admit(int fd, const unsigned char (*ips)[16], unsigned count, char *err, size_t errlen)
{
	struct sock_filter *insns;
	struct sock_fprog prog;
	int ret;

	if (count > FR_LISTEN_GUARD_IPS_MAX) {
		if (err != NULL && errlen > 0)
			snprintf(err, errlen, "%u IPs to admit, at most %u", count, FR_LISTEN_GUARD_IPS_MAX);
		return -1;
	}
	insns = calloc(FR_GUARD_MAX_INSNS, sizeof(*insns));
	if (insns == NULL)
		return fr_guard_fail(err, errlen, "calloc(filter program)", ENOMEM);
	prog.len = (unsigned short)fr_guard_program(ips, count, insns);
	prog.filter = insns;
	ret = setsockopt(fd, SOL_SOCKET, SO_ATTACH_FILTER, &prog, sizeof(prog));
	if (ret != 0)
		ret = fr_guard_fail(err, errlen, "setsockopt(SO_ATTACH_FILTER)", errno);
	free(insns);
	return ret;
}
