/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Userspace stand-in for the kernel's <linux/types.h>, only as much as
 * wire.c and wire.h use.  The UAPI header supplies __u32 and __be32; the
 * kernel-internal short names and bool/size_t are added here.
 */
#ifndef NFSRDMA_WIRE_SHIM_LINUX_TYPES_H
#define NFSRDMA_WIRE_SHIM_LINUX_TYPES_H

#include_next <linux/types.h>
#include <stdbool.h>
#include <stddef.h>

typedef __u8 u8;
typedef __u16 u16;
typedef __u32 u32;
typedef __u64 u64;

#endif /* NFSRDMA_WIRE_SHIM_LINUX_TYPES_H */
