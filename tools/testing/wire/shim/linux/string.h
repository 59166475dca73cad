/* SPDX-License-Identifier: GPL-2.0 */
/* Userspace stand-in for the kernel's <linux/string.h>: memcpy(). */
#ifndef NFSRDMA_WIRE_SHIM_LINUX_STRING_H
#define NFSRDMA_WIRE_SHIM_LINUX_STRING_H

#include <string.h>

#endif /* NFSRDMA_WIRE_SHIM_LINUX_STRING_H */
