// SPDX-License-Identifier: GPL-2.0
/*
 * xprtrdma: the RPC-over-RDMA Version 1 client transport.
 *
 * Module glue: the sunrpc transport class ("rdma", netids rdma and rdma6),
 * the RDMA device client that turns a device removal into a disconnect,
 * the module parameter and the sysctls in /proc/sys/sunrpc.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sysctl.h>
#include <linux/sunrpc/xprt.h>
#include <rdma/ib_verbs.h>

#include "xprtrdma.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

/*
 * Tunables, read once when a transport is created; changing one affects
 * transports created afterwards.  max_slots (module parameter) and
 * rdma_slot_table_entries (sysctl) are the same variable.
 *
 * The sysctls accept exactly the ranges the in-tree rpcrdma accepts, so a
 * sysctl.conf written for it loads unchanged; a value beyond what this
 * transport supports is clamped where it is used (xprtrdma_setup()):
 * slots to 128, inline sizes to 16 KiB.  rdma_memreg_strategy,
 * rdma_inline_write_padding and rdma_pad_optimize are accepted and have no
 * effect: registration is always FRWR, and no pad is ever sent.
 */
int xprtrdma_max_slots = XPRTRDMA_MAX_CREDITS;
int xprtrdma_max_inline_read = XPRTRDMA_INLINE_DEFAULT;
int xprtrdma_max_inline_write = XPRTRDMA_INLINE_DEFAULT;
static int xprtrdma_memreg_strategy = 5;	/* the in-tree's FRWR */
static int xprtrdma_inline_write_padding;
static int xprtrdma_pad_optimize;

static int xprtrdma_min_slots_bound = XPRTRDMA_MIN_SLOTS;
static int xprtrdma_max_slots_bound = 16384;
static int xprtrdma_min_inline_bound = XPRTRDMA_INLINE_MIN;
static int xprtrdma_max_inline_bound = 65536;
static int xprtrdma_max_memreg_bound = 6;
static int xprtrdma_max_padding_bound = 4096;

static int xprtrdma_set_slots(const char *val, const struct kernel_param *kp)
{
	int n, ret;

	ret = kstrtoint(val, 0, &n);
	if (ret)
		return ret;
	/* The in-tree's floor; one slot could not make progress. */
	if (n < xprtrdma_min_slots_bound || n > xprtrdma_max_slots_bound)
		return -EINVAL;
	WRITE_ONCE(*(int *)kp->arg, n);
	return 0;
}

static const struct kernel_param_ops xprtrdma_slots_ops = {
	.set = xprtrdma_set_slots,
	.get = param_get_int,
};
module_param_cb(max_slots, &xprtrdma_slots_ops, &xprtrdma_max_slots, 0644);
MODULE_PARM_DESC(max_slots,
		 "RPC slots per transport (4-16384, used up to 128, default 128); same as sunrpc.rdma_slot_table_entries");

#define XPRTRDMA_INT_SYSCTL(_name, _var, _min, _max) {		\
	.procname	= _name,				\
	.data		= &(_var),				\
	.maxlen		= sizeof(int),				\
	.mode		= 0644,					\
	.proc_handler	= proc_dointvec_minmax,			\
	.extra1		= (_min),				\
	.extra2		= (_max),				\
}

/* The names the in-tree client uses, so admins' sysctl.conf keeps working. */
static struct ctl_table xprtrdma_sysctls[] = {
	XPRTRDMA_INT_SYSCTL("rdma_slot_table_entries", xprtrdma_max_slots,
			    &xprtrdma_min_slots_bound,
			    &xprtrdma_max_slots_bound),
	XPRTRDMA_INT_SYSCTL("rdma_max_inline_read", xprtrdma_max_inline_read,
			    &xprtrdma_min_inline_bound,
			    &xprtrdma_max_inline_bound),
	XPRTRDMA_INT_SYSCTL("rdma_max_inline_write", xprtrdma_max_inline_write,
			    &xprtrdma_min_inline_bound,
			    &xprtrdma_max_inline_bound),
	XPRTRDMA_INT_SYSCTL("rdma_memreg_strategy", xprtrdma_memreg_strategy,
			    SYSCTL_ZERO, &xprtrdma_max_memreg_bound),
	XPRTRDMA_INT_SYSCTL("rdma_inline_write_padding",
			    xprtrdma_inline_write_padding,
			    SYSCTL_ZERO, &xprtrdma_max_padding_bound),
	{
		.procname	= "rdma_pad_optimize",
		.data		= &xprtrdma_pad_optimize,
		.maxlen		= sizeof(int),
		.mode		= 0644,
		.proc_handler	= proc_dointvec,
	},
	NFSRDMA_CTL_TABLE_END
};

static struct ctl_table_header *xprtrdma_sysctl_header;

struct xprt_class xprtrdma_class = {
	.list	= LIST_HEAD_INIT(xprtrdma_class.list),
	.ident	= XPRT_TRANSPORT_RDMA,
	.setup	= xprtrdma_setup,
	.owner	= THIS_MODULE,
	.name	= "rdma",
	.netid	= { "rdma", "rdma6", "" },
};

static int xprtrdma_ib_add(struct ib_device *device)
{
	/* Connections find their device through rdma_cm; nothing to do. */
	return 0;
}

static void xprtrdma_ib_remove(struct ib_device *device, void *client_data)
{
	xprtrdma_device_removed(device);
}

static struct ib_client xprtrdma_ib_client = {
	.name	= "xprtrdma",
	.add	= xprtrdma_ib_add,
	.remove	= xprtrdma_ib_remove,
};

static int __init xprtrdma_init(void)
{
	int ret;

	ret = ib_register_client(&xprtrdma_ib_client);
	if (ret)
		return ret;

	/*
	 * Before the sysctls: the in-tree rpcrdma registers the same sysctl
	 * names, and next to it the clear message below must be what the
	 * admin sees, not a duplicate-entry splat.
	 */
	ret = xprt_register_transport(&xprtrdma_class);
	if (ret == -EEXIST) {
		pr_err("xprtrdma: RPC transport \"rdma\" is already registered, most likely by the in-tree rpcrdma module; unload it first (modprobe -r rpcrdma)\n");
		/* modprobe takes EEXIST for "already loaded" and says nothing. */
		ret = -EBUSY;
		goto out_unregister_client;
	}
	if (ret)
		goto out_unregister_client;

	/* Next to sunrpc's own entries in /proc/sys/sunrpc. */
	xprtrdma_sysctl_header = register_sysctl("sunrpc", xprtrdma_sysctls);
	if (!xprtrdma_sysctl_header) {
		ret = -ENOMEM;
		goto out_unregister_transport;
	}
	return 0;

out_unregister_transport:
	xprt_unregister_transport(&xprtrdma_class);
out_unregister_client:
	ib_unregister_client(&xprtrdma_ib_client);
	return ret;
}

static void __exit xprtrdma_exit(void)
{
	unregister_sysctl_table(xprtrdma_sysctl_header);
	xprt_unregister_transport(&xprtrdma_class);
	ib_unregister_client(&xprtrdma_ib_client);
}

module_init(xprtrdma_init);
module_exit(xprtrdma_exit);

MODULE_DESCRIPTION("RPC-over-RDMA Version 1 client transport (nfsrdma)");
MODULE_AUTHOR("nfsrdma developers");
MODULE_LICENSE("GPL");
