// SPDX-License-Identifier: GPL-2.0
/*
 * svcrdma: RDMA Read and RDMA Write through the core rdma_rw API.
 *
 * Every transfer is described as a byte range of an xdr_buf (the reply,
 * or, for Reads, the request pages seen as one flat xdr_buf) and one
 * remote segment.  rdma_rw does the DMA mapping, splits the range over as
 * many work requests as the device's SGE limits need, and registers
 * memory where the transport requires it (iWARP).
 */

#include <linux/slab.h>
#include <linux/mm.h>

#include "svcrdma.h"
#include "trace.h"

/*
 * struct svcrdma_rw_op - one remote segment's worth of Read or Write
 * @node: link on &svcrdma_rw_set.ops
 * @ctx: the rdma_rw context
 * @nents: entries of @sgl handed to rdma_rw_ctx_init()
 * @size: bytes allocated for this op, for the memory gauge
 * @sgl: local memory, one entry per page piece
 */
struct svcrdma_rw_op {
	struct list_head	node;
	struct rdma_rw_ctx	ctx;
	unsigned int		nents;
	size_t			size;
	struct scatterlist	sgl[];
};

/**
 * svcrdma_rw_init - prepare an empty set of RDMA operations
 * @set: set to initialise
 * @dir: DMA_FROM_DEVICE for RDMA Read, DMA_TO_DEVICE for RDMA Write
 *
 * Context: any.
 */
void svcrdma_rw_init(struct svcrdma_rw_set *set, enum dma_data_direction dir)
{
	INIT_LIST_HEAD(&set->ops);
	set->nr_wrs = 0;
	set->dir = dir;
	set->status = IB_WC_SUCCESS;
	set->pinned = false;
	set->posted_wrs = 0;
	init_completion(&set->done);
}

/* Append the page pieces of [base, base + len) of a linear buffer. */
static unsigned int svcrdma_sg_kvec(struct scatterlist *sg, unsigned int n,
				    const u8 *base, u32 len)
{
	while (len) {
		u32 off = offset_in_page(base);
		u32 piece = min_t(u32, len, PAGE_SIZE - off);

		sg_set_page(&sg[n++], virt_to_page(base), piece, off);
		base += piece;
		len -= piece;
	}
	return n;
}

/*
 * Describe bytes [offset, offset + length) of @xdr in @sg.  The caller
 * has checked the range lies inside @xdr and sized @sg for it.
 */
static unsigned int svcrdma_sg_xdr(struct scatterlist *sg,
				   const struct xdr_buf *xdr, u32 offset,
				   u32 length)
{
	const struct kvec *head = &xdr->head[0];
	const struct kvec *tail = &xdr->tail[0];
	unsigned int n = 0;
	u32 piece;

	if (offset < head->iov_len) {
		piece = min_t(u32, length, head->iov_len - offset);
		n = svcrdma_sg_kvec(sg, n, (u8 *)head->iov_base + offset, piece);
		length -= piece;
		offset = 0;
	} else {
		offset -= head->iov_len;
	}

	if (length && offset < xdr->page_len) {
		u32 pos = xdr->page_base + offset;

		piece = min_t(u32, length, xdr->page_len - offset);
		length -= piece;
		while (piece) {
			u32 poff = offset_in_page(pos);
			u32 chunk = min_t(u32, piece, PAGE_SIZE - poff);

			sg_set_page(&sg[n++], xdr->pages[pos >> PAGE_SHIFT],
				    chunk, poff);
			pos += chunk;
			piece -= chunk;
		}
		offset = 0;
	} else if (length) {
		offset -= xdr->page_len;
	}

	if (length)
		n = svcrdma_sg_kvec(sg, n, (u8 *)tail->iov_base + offset,
				    length);
	return n;
}

/**
 * svcrdma_rw_add - add one remote segment's transfer to a set
 * @xp: connection the set will be posted on
 * @set: set to add to
 * @xdr: local memory, as an xdr_buf
 * @offset: first byte of @xdr to transfer
 * @length: bytes to transfer; must be non-zero
 * @rkey: the peer's steering tag for the segment
 * @raddr: remote address of the first byte
 *
 * The caller has validated the range against @xdr and against the
 * segment's length, so nothing here depends on peer input beyond the
 * rkey and address, which the device checks.
 *
 * Context: process; may sleep.
 *
 * Return: 0, -ENOMEM, or a negative errno from rdma_rw_ctx_init().
 */
int svcrdma_rw_add(struct svcrdma_xprt *xp, struct svcrdma_rw_set *set,
		   const struct xdr_buf *xdr, u32 offset, u32 length,
		   u32 rkey, u64 raddr)
{
	/* Head and tail may each add a page boundary; so may the pages. */
	unsigned int max = (length >> PAGE_SHIFT) + 6;
	struct svcrdma_rw_op *op;
	size_t size = struct_size(op, sgl, max);
	int ret;

	op = kmalloc(size, GFP_KERNEL);
	if (!op)
		return -ENOMEM;
	op->size = size;
	sg_init_table(op->sgl, max);
	op->nents = svcrdma_sg_xdr(op->sgl, xdr, offset, length);
	if (WARN_ON_ONCE(!op->nents || op->nents > max)) {
		kfree(op);
		return -EIO;
	}
	sg_mark_end(&op->sgl[op->nents - 1]);

	ret = rdma_rw_ctx_init(&op->ctx, xp->qp, xp->port, op->sgl, op->nents,
			       0, raddr, rkey, set->dir);
	if (ret < 0) {
		kfree(op);
		return ret;
	}
	set->nr_wrs += ret;
	svcrdma_mem_add(size);
	list_add_tail(&op->node, &set->ops);
	return 0;
}

/**
 * svcrdma_rw_chain - link a set's work requests into one chain
 * @xp: connection the chain will be posted on
 * @set: non-empty set
 * @tail: WR to run after the set (the reply's Send), or NULL to end the
 *	chain with a signaled WR completing @set->cqe
 *
 * Context: any.
 *
 * Return: the first work request of the chain.
 */
struct ib_send_wr *svcrdma_rw_chain(struct svcrdma_xprt *xp,
				    struct svcrdma_rw_set *set,
				    struct ib_send_wr *tail)
{
	struct ib_send_wr *first = tail;
	struct svcrdma_rw_op *op;

	list_for_each_entry_reverse(op, &set->ops, node)
		first = rdma_rw_ctx_wrs(&op->ctx, xp->qp, xp->port,
					first ? NULL : &set->cqe, first);
	return first;
}

static void svcrdma_read_done(struct ib_cq *cq, struct ib_wc *wc)
{
	struct svcrdma_rw_set *set =
		container_of(wc->wr_cqe, struct svcrdma_rw_set, cqe);
	struct svcrdma_xprt *xp = cq->cq_context;

	set->status = wc->status;
	if (wc->status != IB_WC_SUCCESS) {
		if (wc->status != IB_WC_WR_FLUSH_ERR) {
			pr_warn_ratelimited("svcrdma: RDMA Read from %s failed: %s\n",
					    xp->xprt.xpt_remotebuf,
					    ib_wc_status_msg(wc->status));
			svcrdma_stat_inc(SVCRDMA_STAT_WC_ERRORS);
			trace_svcrdma_wc_error(xp, "RDMA Read", wc);
		}
		svc_xprt_deferred_close(&xp->xprt);
	}
	complete(&set->done);
}

/**
 * svcrdma_rw_read_wait - post a set of RDMA Reads and wait for them
 * @xp: connection
 * @set: non-empty set built with DMA_FROM_DEVICE
 *
 * The Reads go out as one chain whose last WR is signaled; RC ordering
 * means its completion covers the whole chain.  The QP's responder
 * depth, negotiated at accept time, bounds how many the device keeps in
 * flight.
 *
 * Context: nfsd thread; sleeps until the chain completes or is flushed
 * (at most until the send queue is found stalled and stopped), or until
 * the connection's flush marker shows its completion was lost.  @set
 * must then outlive the CQ (it lives in the receive context).
 *
 * Return: 0, -E2BIG if the chain can never fit the send queue, or
 * -ENOTCONN if posting failed or a Read did not succeed.
 */
int svcrdma_rw_read_wait(struct svcrdma_xprt *xp, struct svcrdma_rw_set *set)
{
	unsigned long posted;
	const struct ib_send_wr *bad;
	struct ib_send_wr *first;
	bool ok;
	int ret;

	ret = svcrdma_sq_get(xp, set->nr_wrs);
	if (ret)
		return ret;
	set->cqe.done = svcrdma_read_done;
	first = svcrdma_rw_chain(xp, set, NULL);
	posted = jiffies;
	ret = svcrdma_post(xp, first, &bad);
	if (ret) {
		svcrdma_post_failed(xp, first, bad);
		svcrdma_sq_put(xp, set->nr_wrs);
		return -ENOTCONN;
	}
	ok = svcrdma_wait_wr(xp, &set->done, posted, "an RDMA Read");
	svcrdma_sq_put(xp, set->nr_wrs);
	/* A lost completion's handler may yet run: leave @set to it. */
	return ok && set->status == IB_WC_SUCCESS ? 0 : -ENOTCONN;
}

/**
 * svcrdma_rw_pin - keep the pages a set reads from alive until its release
 * @set: set built from a reply, not yet posted
 *
 * Takes one page reference per scatter entry, so an async reply's Writes
 * may still read pages nfsd has let go of (see svcrdma_sendto()).
 *
 * Context: any.
 *
 * Return: the number of references taken.
 */
unsigned int svcrdma_rw_pin(struct svcrdma_rw_set *set)
{
	struct svcrdma_rw_op *op;
	struct scatterlist *sg;
	unsigned int i, n = 0;

	list_for_each_entry(op, &set->ops, node)
		for_each_sg(op->sgl, sg, op->nents, i) {
			get_page(sg_page(sg));
			n++;
		}
	set->pinned = true;
	return n;
}

/**
 * svcrdma_rw_release - undo svcrdma_rw_add() for every op in a set
 * @xp: connection the set was built for
 * @set: set whose work requests have all completed, were never posted,
 *	were found lost behind a completed flush marker, or were drained
 *	before the QP is destroyed
 *
 * Drops the page references svcrdma_rw_pin() took, if it did.  The
 * contexts' MRs go back to the QP's pool: a Read waiting for one is
 * woken.
 *
 * Context: process (an nfsd thread, the send CQ's work item, or
 * xpo_free).
 */
void svcrdma_rw_release(struct svcrdma_xprt *xp, struct svcrdma_rw_set *set)
{
	struct svcrdma_rw_op *op, *next;
	bool freed = !list_empty(&set->ops);
	struct scatterlist *sg;
	unsigned int i;

	list_for_each_entry_safe(op, next, &set->ops, node) {
		list_del(&op->node);
		rdma_rw_ctx_destroy(&op->ctx, xp->qp, xp->port, op->sgl,
				    op->nents, set->dir);
		if (set->pinned)
			for_each_sg(op->sgl, sg, op->nents, i)
				put_page(sg_page(sg));
		svcrdma_mem_sub(op->size);
		kfree(op);
	}
	if (freed) {
		atomic_inc(&xp->rw_releases);
		wake_up(&xp->sq_wait);
	}
	set->nr_wrs = 0;
	set->pinned = false;
}
