/*
 * peer.c - who is at the other end of a TCP connection on this host, as the kernel says.
 *
 * Shared memory is used only between processes of one user, and a peer's word for who it is
 * counts for nothing: the owner of its socket is looked up with sock_diag (NETLINK_SOCK_DIAG,
 * one exact lookup, as `ss` does it but for one socket), the same table the kernel keeps for
 * /proc/net/tcp, in this process's network namespace; which process holds that socket, from
 * the process's open files (/proc/PID/fd).
 */
#define _GNU_SOURCE

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <netinet/in.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <linux/inet_diag.h>
#include <linux/netlink.h>
#include <linux/sock_diag.h>

#include "internal.h"

/* TCP_ESTABLISHED in the kernel's numbering of idiag_state. */
#define FR_TCP_ESTABLISHED 1
#define FR_DIAG_TIMEOUT_SEC 2

FASTRMI_API uint32_t fastrmi_process_uid(void)
{
	return (uint32_t)geteuid();
}

/* Fills src/dst of an inet_diag id from a 4- or 16-byte address; 0, or -1 for another length. */
static int fr_diag_address(__be32 out[4], const uint8_t *ip, size_t ip_len)
{
	if (ip_len != 4 && ip_len != 16)
		return -1;
	memcpy(out, ip, ip_len);
	return 0;
}

FASTRMI_API int fastrmi_tcp_peer(const uint8_t *peer_ip, size_t peer_ip_len, uint16_t peer_port,
				     const uint8_t *own_ip, size_t own_ip_len, uint16_t own_port,
				     uint32_t *uid, uint64_t *inode, char *err, size_t errlen)
{
	struct {
		struct nlmsghdr nlh;
		struct inet_diag_req_v2 req;
	} request;
	struct sockaddr_nl kernel = { .nl_family = AF_NETLINK };
	struct timeval timeout = { .tv_sec = FR_DIAG_TIMEOUT_SEC };
	union {
		struct nlmsghdr nlh;
		unsigned char bytes[1024];
	} reply;
	const struct inet_diag_msg *msg;
	const struct nlmsgerr *nlerr;
	ssize_t n;
	int fd, ret;

	fr_clearerr(err, errlen);
	if (peer_ip == NULL || own_ip == NULL || uid == NULL || inode == NULL || peer_ip_len != own_ip_len) {
		fr_seterr(err, errlen, "fastrmi_tcp_peer: bad argument");
		return FASTRMI_ERR_INVALID;
	}
	memset(&request, 0, sizeof(request));
	request.nlh.nlmsg_len = sizeof(request);
	request.nlh.nlmsg_type = SOCK_DIAG_BY_FAMILY;
	request.nlh.nlmsg_flags = NLM_F_REQUEST;
	/* An IPv4 lookup also finds the IPv6 sockets (the JDK's) that carry IPv4. */
	request.req.sdiag_family = peer_ip_len == 4 ? AF_INET : AF_INET6;
	request.req.sdiag_protocol = IPPROTO_TCP;
	request.req.idiag_states = 1u << FR_TCP_ESTABLISHED;
	/* The peer's socket: its local end is the peer's address, its remote end ours. */
	request.req.id.idiag_sport = htons(peer_port);
	request.req.id.idiag_dport = htons(own_port);
	request.req.id.idiag_cookie[0] = INET_DIAG_NOCOOKIE;
	request.req.id.idiag_cookie[1] = INET_DIAG_NOCOOKIE;
	if (fr_diag_address(request.req.id.idiag_src, peer_ip, peer_ip_len) != 0 ||
	    fr_diag_address(request.req.id.idiag_dst, own_ip, own_ip_len) != 0) {
		fr_seterr(err, errlen, "fastrmi_tcp_peer: an address of %zu bytes (4 or 16)", peer_ip_len);
		return FASTRMI_ERR_INVALID;
	}

	fd = socket(AF_NETLINK, SOCK_DGRAM | SOCK_CLOEXEC, NETLINK_SOCK_DIAG);
	if (fd < 0) {
		fr_seterr(err, errlen, "socket(NETLINK_SOCK_DIAG): %s", strerror(errno));
		return FASTRMI_ERR_PROVIDER;
	}
	ret = FASTRMI_ERR_PROVIDER;
	if (setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout)) != 0) {
		fr_seterr(err, errlen, "setsockopt(NETLINK_SOCK_DIAG, SO_RCVTIMEO): %s", strerror(errno));
		goto out;
	}
	if (sendto(fd, &request, sizeof(request), 0, (struct sockaddr *)&kernel, sizeof(kernel)) < 0) {
		fr_seterr(err, errlen, "sock_diag request: %s", strerror(errno));
		goto out;
	}
	n = recv(fd, &reply, sizeof(reply), 0);
	if (n < 0) {
		fr_seterr(err, errlen, "sock_diag reply: %s", strerror(errno));
		goto out;
	}
	if (!NLMSG_OK(&reply.nlh, (size_t)n)) {
		fr_seterr(err, errlen, "sock_diag reply is truncated (%zd bytes)", n);
		goto out;
	}
	if (reply.nlh.nlmsg_type == NLMSG_ERROR) {
		nlerr = NLMSG_DATA(&reply.nlh);
		if (reply.nlh.nlmsg_len >= NLMSG_LENGTH(sizeof(*nlerr)) && nlerr->error == -ENOENT) {
			fr_seterr(err, errlen, "no TCP connection from port %u to port %u in this network namespace",
				  (unsigned)peer_port, (unsigned)own_port);
			ret = FASTRMI_ERR_NOT_FOUND;
		} else {
			fr_seterr(err, errlen, "sock_diag lookup: %s",
				  reply.nlh.nlmsg_len >= NLMSG_LENGTH(sizeof(*nlerr)) ? strerror(-nlerr->error)
										     : "malformed error");
		}
		goto out;
	}
	msg = NLMSG_DATA(&reply.nlh);
	if (reply.nlh.nlmsg_type != SOCK_DIAG_BY_FAMILY || reply.nlh.nlmsg_len < NLMSG_LENGTH(sizeof(*msg))) {
		fr_seterr(err, errlen, "sock_diag reply of type %u and %u bytes", (unsigned)reply.nlh.nlmsg_type,
			  (unsigned)reply.nlh.nlmsg_len);
		goto out;
	}
	/* Without an established match the kernel may answer with a listener on that port. */
	if (msg->idiag_state != FR_TCP_ESTABLISHED || msg->id.idiag_sport != htons(peer_port) ||
	    msg->id.idiag_dport != htons(own_port)) {
		fr_seterr(err, errlen, "no established TCP connection from port %u to port %u on this host",
			  (unsigned)peer_port, (unsigned)own_port);
		ret = FASTRMI_ERR_NOT_FOUND;
		goto out;
	}
	*uid = msg->idiag_uid;
	*inode = msg->idiag_inode;
	ret = 0;
out:
	if (close(fd) != 0 && ret == 0) {
		fr_seterr(err, errlen, "close(NETLINK_SOCK_DIAG): %s", strerror(errno));
		ret = FASTRMI_ERR_PROVIDER;
	}
	return ret;
}

/* The numbers in /proc/PID/fd, unsorted; -1 (and err set) when the list cannot be read. */
static ssize_t fr_list_descriptors(DIR *dir, const char *path, int **out, char *err, size_t errlen)
{
	struct dirent *entry;
	int *fds = NULL;
	size_t count = 0, capacity = 0;

	/* readdir's NULL is the end or an error: errno tells them apart. */
	errno = 0;
	while ((entry = readdir(dir)) != NULL) {
		char *end;
		long fd = strtol(entry->d_name, &end, 10);

		if (end == entry->d_name || *end != '\0' || fd < 0 || fd > INT_MAX) {
			errno = 0; /* "." and "..", and strtol's ERANGE */
			continue;
		}
		if (count == capacity) {
			size_t grown = capacity ? capacity * 2 : 256;
			int *more = realloc(fds, grown * sizeof(*fds));

			if (more == NULL) {
				fr_seterr(err, errlen, "listing %s: out of memory for %zu descriptors", path, grown);
				free(fds);
				return -1;
			}
			fds = more;
			capacity = grown;
		}
		fds[count++] = (int)fd;
		errno = 0;
	}
	if (errno != 0) {
		fr_seterr(err, errlen, "readdir %s: %s", path, strerror(errno));
		free(fds);
		return -1;
	}
	*out = fds;
	return (ssize_t)count;
}

static int fr_descending(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;

	return (x < y) - (x > y);
}

FASTRMI_API int fastrmi_process_holds_socket(int64_t pid, uint64_t inode, char *err, size_t errlen)
{
	char path[64], name[16], link[64], wanted[64];
	int *fds = NULL;
	ssize_t count;
	DIR *dir;
	int dir_fd, held = 0;

	if (pid <= 0 || pid > INT_MAX) {
		fr_seterr(err, errlen, "no process %lld", (long long)pid);
		return FASTRMI_ERR_NOT_FOUND;
	}
	snprintf(path, sizeof(path), "/proc/%lld/fd", (long long)pid);
	snprintf(wanted, sizeof(wanted), "socket:[%llu]", (unsigned long long)inode);
	dir_fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dir_fd < 0) {
		fr_seterr(err, errlen, "open %s: %s", path, strerror(errno));
		return FASTRMI_ERR_NOT_FOUND;
	}
	dir = fdopendir(dir_fd);
	if (dir == NULL) {
		fr_seterr(err, errlen, "fdopendir %s: %s", path, strerror(errno));
		if (close(dir_fd) != 0)
			fr_report_errno("close(/proc/PID/fd)", errno);
		return FASTRMI_ERR_PROVIDER;
	}
	count = fr_list_descriptors(dir, path, &fds, err, errlen);
	if (count < 0) {
		held = FASTRMI_ERR_PROVIDER;
	} else {
		/*
		 * The newest descriptors first: the socket a handshake asks about is among the last a
		 * process opened, and a server with thousands of connections would otherwise read a link
		 * for each of them.
		 */
		if (count > 1)
			qsort(fds, (size_t)count, sizeof(*fds), fr_descending);
		for (ssize_t i = 0; i < count && !held; i++) {
			/* A descriptor closed while we look fails with ENOENT, and is not the one. */
			ssize_t n;

			snprintf(name, sizeof(name), "%d", fds[i]);
			n = readlinkat(dir_fd, name, link, sizeof(link) - 1);
			if (n > 0) {
				link[n] = '\0';
				held = strcmp(link, wanted) == 0;
			}
		}
	}
	free(fds);
	if (closedir(dir) != 0)
		fr_report_errno("closedir(/proc/PID/fd)", errno);
	return held;
}
