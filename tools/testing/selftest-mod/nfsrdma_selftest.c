// SPDX-License-Identifier: GPL-2.0
/*
 * nfsrdma_selftest: the debug tier's negative controls.  Loaded with
 * fault=NAME, it commits one deliberate bug of the kind a checker of the
 * debug kernel must report, so that a harness which stopped seeing that
 * checker's reports fails its self-test instead of passing everything:
 *
 *   kasan     an out-of-bounds write past a kmalloc'd buffer, then a
 *             use-after-free of it (KASAN)
 *   lockdep   two mutexes taken in both orders (lockdep)
 *   kmemleak  a kmalloc'd buffer whose only pointer is dropped (kmemleak)
 *   dma       a streaming DMA mapping unmapped with the wrong length,
 *             against the first virtio PCI device (DMA-API debugging)
 *   ubsan     an array indexed past its end inside a larger object, which
 *             KASAN cannot see but UBSAN's bounds check does (UBSAN)
 *   list      a list_add() next to an entry whose back link a stray write
 *             changed (DEBUG_LIST, which refuses the add)
 *   sleep     a might_sleep() under a spinlock, without sleeping
 *             (DEBUG_ATOMIC_SLEEP)
 *   rcu       an RCU-protected pointer read outside any read-side critical
 *             section (PROVE_RCU; lockdep must still be on)
 *
 * The faults run from ordinary (not __init) functions, so their frames stay
 * in the module's core text, where the harness's kmemleak attribution looks.
 * Never install this module: it exists to misbehave.
 */
#include <linux/module.h>
#include <linux/slab.h>
#include <linux/mutex.h>
#include <linux/pci.h>
#include <linux/dma-mapping.h>
#include <linux/list.h>
#include <linux/spinlock.h>
#include <linux/rcupdate.h>

static char *fault = "";
module_param(fault, charp, 0444);
MODULE_PARM_DESC(fault, "bug to commit at load: kasan, lockdep, kmemleak, dma, ubsan, list, sleep, rcu");

/* Out of line, so the compiler cannot see the index and drop the access. */
static int index = 4;
module_param(index, int, 0444);
MODULE_PARM_DESC(index, "array index the ubsan fault uses (out of range: 4 or more)");

static noinline int fault_kasan(void)
{
	size_t len = 60;
	char *buf = kmalloc(len, GFP_KERNEL);

	if (!buf)
		return -ENOMEM;
	/* One byte past what was asked for. */
	OPTIMIZER_HIDE_VAR(len);
	buf[len] = 1;
	kfree(buf);
	/* And a write into the freed object, now in KASAN's quarantine. */
	OPTIMIZER_HIDE_VAR(buf);
	buf[0] = 2;
	return 0;
}

static DEFINE_MUTEX(lock_a);
static DEFINE_MUTEX(lock_b);

static noinline int fault_lockdep(void)
{
	/* A then B, then B then A: a deadlock waiting for a second thread. */
	mutex_lock(&lock_a);
	mutex_lock(&lock_b);
	mutex_unlock(&lock_b);
	mutex_unlock(&lock_a);

	mutex_lock(&lock_b);
	mutex_lock(&lock_a);
	mutex_unlock(&lock_a);
	mutex_unlock(&lock_b);
	return 0;
}

static noinline int fault_kmemleak(void)
{
	void *p = kmalloc(192, GFP_KERNEL);

	if (!p)
		return -ENOMEM;
	memset(p, 0x5a, 192);
	/* The only reference dies with this frame. */
	OPTIMIZER_HIDE_VAR(p);
	return 0;
}

static noinline int fault_dma(void)
{
	struct pci_dev *pdev;
	dma_addr_t addr;
	void *buf;
	int ret = 0;

	pdev = pci_get_device(PCI_VENDOR_ID_REDHAT_QUMRANET, PCI_ANY_ID, NULL);
	if (!pdev) {
		pr_err("nfsrdma_selftest: no virtio PCI device to map against\n");
		return -ENODEV;
	}
	buf = kmalloc(256, GFP_KERNEL);
	if (!buf) {
		ret = -ENOMEM;
		goto out;
	}
	addr = dma_map_single(&pdev->dev, buf, 256, DMA_TO_DEVICE);
	if (dma_mapping_error(&pdev->dev, addr)) {
		ret = -EIO;
		goto free;
	}
	/* Half the length it was mapped with. */
	dma_unmap_single(&pdev->dev, addr, 128, DMA_TO_DEVICE);
free:
	kfree(buf);
out:
	pci_dev_put(pdev);
	return ret;
}

struct ubsan_victim {
	int small[4];
	int after[4];
};

static noinline int fault_ubsan(void)
{
	struct ubsan_victim *v = kzalloc(sizeof(*v), GFP_KERNEL);

	if (!v)
		return -ENOMEM;
	/* Past small[] but inside the object: only the bounds check sees it. */
	v->small[index] = 1;
	kfree(v);
	return 0;
}

static noinline int fault_list(void)
{
	struct list_head head, a, b, stray;

	INIT_LIST_HEAD(&head);
	list_add(&a, &head);
	/* A stray write into the entry's back link... */
	WRITE_ONCE(a.prev, &stray);
	/* ...which the next add beside it must notice, and refuse. */
	list_add(&b, &head);
	return 0;
}

static DEFINE_SPINLOCK(sleep_lock);

static noinline int fault_sleep(void)
{
	/* What any sleeping call does first; nothing sleeps here. */
	spin_lock(&sleep_lock);
	might_sleep();
	spin_unlock(&sleep_lock);
	return 0;
}

static int rcu_target;
static int __rcu *rcu_victim = (int __rcu *)&rcu_target;

static noinline int fault_rcu(void)
{
	int *p;

	/* No rcu_read_lock(): nothing keeps *p alive while we read it. */
	p = rcu_dereference(rcu_victim);
	(void)READ_ONCE(*p);
	return 0;
}

static int __init selftest_init(void)
{
	static const struct {
		const char *name;
		int (*fn)(void);
	} faults[] = {
		{ "kasan", fault_kasan },
		{ "lockdep", fault_lockdep },
		{ "kmemleak", fault_kmemleak },
		{ "dma", fault_dma },
		{ "ubsan", fault_ubsan },
		{ "list", fault_list },
		{ "sleep", fault_sleep },
		{ "rcu", fault_rcu },
	};
	int i;

	for (i = 0; i < ARRAY_SIZE(faults); i++) {
		if (!strcmp(fault, faults[i].name)) {
			pr_info("nfsrdma_selftest: committing the %s fault\n", fault);
			return faults[i].fn();
		}
	}
	if (*fault) {
		pr_err("nfsrdma_selftest: unknown fault '%s'\n", fault);
		return -EINVAL;
	}
	return 0;
}

static void __exit selftest_exit(void)
{
}

module_init(selftest_init);
module_exit(selftest_exit);
MODULE_DESCRIPTION("nfsrdma debug-tier negative controls (never install)");
MODULE_LICENSE("GPL");
