/*
 * libfabric.h - libfabric's exported functions, reached through pointers that
 * fr_libfabric_load fills at the first ofi probe or context (libfabric.c).
 */
#ifndef FASTRMI_LIBFABRIC_H
#define FASTRMI_LIBFABRIC_H

#include <stddef.h>
#include <stdint.h>

#include <rdma/fabric.h>

struct fr_libfabric {
	int (*getinfo)(uint32_t version, const char *node, const char *service, uint64_t flags,
		       const struct fi_info *hints, struct fi_info **info);
	void (*freeinfo)(struct fi_info *info);
	struct fi_info *(*dupinfo)(const struct fi_info *info);
	int (*fabric)(struct fi_fabric_attr *attr, struct fid_fabric **fabric, void *context);
	const char *(*strerror)(int errnum);
	uint32_t (*version)(void);
};

/* Filled by fr_libfabric_load; read only after it returned 0. */
extern struct fr_libfabric fr_fi;

/*
 * Loads libfabric once per process: 0, or -FI_ENOSYS with a message in err naming the
 * library or the symbol that could not be had (then every later call says the same).
 */
int fr_libfabric_load(char *err, size_t errlen);

/* fi_strerror once libfabric is loaded, else the C library's strerror (for a positive errno). */
const char *fr_fi_strerror(int errnum);

#endif
