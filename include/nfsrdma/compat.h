/* SPDX-License-Identifier: GPL-2.0 */
/*
 * Force-included into every object.  Keep this tiny: it papers over kernel
 * API differences between the releases we build for, nothing else.
 */
#ifndef NFSRDMA_COMPAT_H
#define NFSRDMA_COMPAT_H

#include <linux/version.h>

#if LINUX_VERSION_CODE < KERNEL_VERSION(6, 1, 0)
#error "nfsrdma needs Linux 6.1 or later"
#endif

#endif /* NFSRDMA_COMPAT_H */
