/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the kernel's <linux/limits.h>.  glibc's
 * <limits.h> includes <linux/limits.h> too, so pass the UAPI one through
 * and add only what wire.c uses.
 */
#ifndef NFSRDMA_WIRE_SHIM_LINUX_LIMITS_H
#define NFSRDMA_WIRE_SHIM_LINUX_LIMITS_H

#include_next <linux/limits.h>
#include <linux/types.h>

#define U32_MAX		((u32)~0U)

#endif /* NFSRDMA_WIRE_SHIM_LINUX_LIMITS_H */
