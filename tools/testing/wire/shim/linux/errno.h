/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the kernel's <linux/errno.h>.  The UAPI header
 * has the same numbers for every code wire.c returns.  glibc's <errno.h>
 * also reaches this file, so it must stay a thin pass-through.
 */
#ifndef NFSRDMA_WIRE_SHIM_LINUX_ERRNO_H
#define NFSRDMA_WIRE_SHIM_LINUX_ERRNO_H

#include_next <linux/errno.h>

#endif /* NFSRDMA_WIRE_SHIM_LINUX_ERRNO_H */
