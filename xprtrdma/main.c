// SPDX-License-Identifier: GPL-2.0
/*
 * xprtrdma: the RPC-over-RDMA Version 1 client transport.
 *
 * Module glue: the sunrpc transport class ("rdma", netids rdma and rdma6),
 * the RDMA device client that turns a device removal into a disconnect,
 * and the module parameters.
 */

#include <linux/module.h>
#include <linux/moduleparam.h>
#include <linux/sunrpc/xprt.h>
#include <rdma/ib_verbs.h>

#include "xprtrdma.h"

#define CREATE_TRACE_POINTS
#include "trace.h"

unsigned int xprtrdma_max_slots = XPRTRDMA_MAX_CREDITS;

static int xprtrdma_set_slots(const char *val, const struct kernel_param *kp)
{
	unsigned int n;
	int ret;

	ret = kstrtouint(val, 0, &n);
	if (ret)
		return ret;
	/* One slot cannot make progress; more than we ask credits for idles. */
	if (n < 2 || n > XPRTRDMA_MAX_CREDITS)
		return -EINVAL;
	*(unsigned int *)kp->arg = n;
	return 0;
}

static const struct kernel_param_ops xprtrdma_slots_ops = {
	.set = xprtrdma_set_slots,
	.get = param_get_uint,
};
module_param_cb(max_slots, &xprtrdma_slots_ops, &xprtrdma_max_slots, 0644);
MODULE_PARM_DESC(max_slots, "RPC slots per transport (2-128, default 128)");

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

	ret = xprt_register_transport(&xprtrdma_class);
	if (ret == -EEXIST) {
		pr_err("xprtrdma: RPC transport \"rdma\" is already registered, most likely by the in-tree rpcrdma module; unload it first (modprobe -r rpcrdma)\n");
		/* modprobe takes EEXIST for "already loaded" and says nothing. */
		ret = -EBUSY;
		goto out_unregister_client;
	}
	if (ret)
		goto out_unregister_client;
	return 0;

out_unregister_client:
	ib_unregister_client(&xprtrdma_ib_client);
	return ret;
}

static void __exit xprtrdma_exit(void)
{
	xprt_unregister_transport(&xprtrdma_class);
	ib_unregister_client(&xprtrdma_ib_client);
}

module_init(xprtrdma_init);
module_exit(xprtrdma_exit);

MODULE_DESCRIPTION("RPC-over-RDMA Version 1 client transport (nfsrdma)");
MODULE_AUTHOR("nfsrdma developers");
MODULE_LICENSE("GPL");
