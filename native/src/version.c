/* version.c - the library's own version. */
#include "internal.h"

/* The Makefile passes -DFASTRMI_VERSION='"x.y.z"'; this default is for other builds. */
#ifndef FASTRMI_VERSION
#define FASTRMI_VERSION "0.1.0"
#endif

FASTRMI_API const char *fastrmi_version(void)
{
	return FASTRMI_VERSION;
}
