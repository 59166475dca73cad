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

/*
 * We build for Debian 12's kernels: 6.1 and 6.12.  Where the first release
 * with a change is known it is the threshold; otherwise 6.12, and the
 * kernels in between are not targets.
 */

/* 6.10: __assign_str() takes the source from the event's __string(). */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 10, 0)
#define nfsrdma_assign_str(dst, src)	__assign_str(dst)
#else
#define nfsrdma_assign_str(dst, src)	__assign_str(dst, src)
#endif

/*
 * 6.11: sysctl handlers get a const struct ctl_table, and a table is sized
 * by ARRAY_SIZE() at registration, where an empty entry is an error; 6.1
 * stops at that empty entry.  End tables with NFSRDMA_CTL_TABLE_END, which
 * counts NFSRDMA_CTL_TABLE_END_N entries.
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 11, 0)
#define NFSRDMA_CTL_TABLE_CONST	const
#define NFSRDMA_CTL_TABLE_END
#define NFSRDMA_CTL_TABLE_END_N	0
#else
#define NFSRDMA_CTL_TABLE_CONST
#define NFSRDMA_CTL_TABLE_END	{ }
#define NFSRDMA_CTL_TABLE_END_N	1
#endif

/*
 * 6.12: the backchannel's callback queue is a lockless list woken through
 * the pool (was a list, a lock and a wait queue); svc_xprt_ops lost
 * xpo_secure_port (the svc layer judges the peer's port itself) and
 * xpo_start_tls (now xpo_handshake, which only a transport that asks for
 * a handshake needs).
 */
#if LINUX_VERSION_CODE >= KERNEL_VERSION(6, 12, 0)
#define NFSRDMA_BC_LWQ			1
#else
#define NFSRDMA_SVC_SECURE_PORT_OP	1
#endif

#endif /* NFSRDMA_COMPAT_H */
