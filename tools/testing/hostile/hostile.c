// SPDX-License-Identifier: GPL-2.0
/*
 * hostile: a deliberately misbehaving RPC-over-RDMA Version 1 requester.
 *
 * Each case opens a fresh connection to an NFS/RDMA server, sends one
 * crafted message (or a burst), and classifies what the server did.  Some
 * cases craft the connection instead: RFC 8797 private data missing,
 * malformed or at its extremes (pdata.c), a call sent twice with one XID,
 * a call whose connection is dropped at once and which then comes again
 * on a new one, or a Send longer than any receive a server may post.
 * Every reply must also fit the receive size our private data promised
 * (1 KiB when it was not valid).  The outcomes:
 *
 *   reply      an ordinary RPC reply to our call
 *   err_vers   RDMA_ERROR / ERR_VERS
 *   err_chunk  RDMA_ERROR / ERR_CHUNK
 *   closed     the server disconnected (or our QP was flushed by it)
 *   silent     nothing within the wait
 *
 * A case passes when the outcome is one the case allows.  A server that
 * is robust against a hostile client answers malformed transport headers
 * with the protocol's error reply or drops the connection; it never stays
 * silent on a header it could not parse, unless that header is itself an
 * RDMA_ERROR, and it keeps serving.
 *
 * Cases marked "on request only" run only when named: they hold server
 * resources for tens of seconds by design.
 *
 * Usage: hostile [-v] [-p PORT] [-w MS] [-s MS] [-H MS] [-S PREFIX [-X FILE]]
 *                SERVER [CASE...]
 *        hostile [-v] [-p PORT] [-w MS] -F SEED [-n COUNT] [-T SECONDS] [-j JOBS]
 *                SERVER
 *        hostile -D | -M
 *   -s: how long a stall case waits for the server to close it
 *   -H: how long a flood case holds its connections open
 *   -S: after each case, create PREFIX"case-"NAME and wait for
 *       PREFIX"checked-"NAME (the test's server side has checked what the
 *       case left behind); -X: stop waiting when FILE appears
 *   -F: fuzz instead (see run_fuzz()): COUNT mutated messages (default
 *       100000) or SECONDS, whichever ends first, from generator SEED;
 *       -j: in JOBS processes at once (see run_fuzz_jobs())
 *   -D: print the bytes nomsg-data-chunk writes to the file "p0-target"
 *       at the root of the server's NFSv4 export (which must exist and
 *       be writable by root), and exit
 *   -M: print what read-many-segs leaves in the file "p0-many" (which
 *       must exist and be empty before): -D's bytes at the start of each
 *       of its first 4 8 KiB blocks, the gaps zero; and exit
 * Exit status: 0 when every case passed, 1 otherwise, 2 on usage or
 * setup errors, or when a -S wait failed or was aborted.
 */

#include <arpa/inet.h>
#include <assert.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <poll.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <sys/prctl.h>
#include <sys/wait.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "nfsrdma/wire.h"

#include "fuzz.h"
#include "pdata.h"

#define HOSTILE_BUF_SIZE	4096
/*
 * A message being built: up to two send slots, for read-many-segs's
 * header (our server receives 8 KiB; a Send longer than a slot takes
 * consecutive ones).
 */
#define HOSTILE_MSG_SIZE	8192
#define HOSTILE_RECV_DEPTH	32
#define HOSTILE_SEND_DEPTH	64
#define HOSTILE_CREDITS		32
#define HOSTILE_FLOOD		256
#define HOSTILE_CM_TIMEOUT_MS	5000
/*
 * Setting a connection up waits longer: on the debug kernel under TCG an
 * address resolution or a CM handshake with a retransmitted MAD has been
 * seen to take more than 5 s, and a connection that never comes is a
 * setup failure of the run, not an outcome of any case.
 */
#define HOSTILE_SETUP_TIMEOUT_MS	30000
#define HOSTILE_RESOLVE_MS	10000
#define HOSTILE_FLOOD_CONNS	48
/* Memory the server may RDMA Read from: Position-zero and data chunks. */
#define HOSTILE_PULL_SIZE	65536
/* Memory the server may RDMA Write to: the fuzzer's Write and Reply chunks. */
#define HOSTILE_PUSH_SIZE	65536
/* The data chunk of nomsg-data-chunk: odd, so its XDR pad is omitted. */
#define HOSTILE_DATA_LEN	5001
/*
 * Where put_nomsg_write() lays out the pull region: each call's body in a
 * 1 KiB slot of its own at the start, the data they share 32 KiB in.
 */
#define HOSTILE_BODY_SLOT	1024
#define HOSTILE_DATA_AT		32768

/* What a case may see; a bitmask so a case can allow several. */
enum outcome {
	OUT_REPLY	= 1 << 0,
	OUT_ERR_VERS	= 1 << 1,
	OUT_ERR_CHUNK	= 1 << 2,
	OUT_CLOSED	= 1 << 3,
	OUT_SILENT	= 1 << 4,
	OUT_OTHER	= 1 << 5,
};

static const char *const outcome_names[] = {
	"reply", "err_vers", "err_chunk", "closed", "silent", "other",
};

struct conn {
	struct rdma_event_channel *ec;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_cq *cq;
	struct ibv_mr *send_mr;
	struct ibv_mr *recv_mr;
	struct ibv_mr *pull_mr;
	struct ibv_mr *push_mr;
	struct ibv_mr *push2_mr;	/* the same memory under a second key */
	uint8_t *send_buf;
	uint8_t *recv_buf;
	uint8_t *pull_buf;
	uint8_t *push_buf;
	unsigned int send_slot;
	unsigned int sends_out;
	unsigned int adv_recv;	/* the receive size our private data promised */
	bool closed;
};

/*
 * A message under construction, in XDR words.  @conn is the connection
 * it will go out on, for cases whose chunks point into its pull region.
 */
struct msg {
	uint8_t buf[HOSTILE_MSG_SIZE];
	size_t len;
	struct conn *conn;
};

static int verbose;
/*
 * Long enough to ride out the emulated link dropping a frame: RC then
 * retransmits only after its ack timeout, and a stall of nearly 5 s has
 * been seen between two VMs under TCG.  Only an outcome that never comes
 * waits this long.
 */
static int wait_ms = 10000;
/* How long a stall case waits for the server to give up on it. */
static int stall_ms = 90000;
/* How long a flood case holds its connections open. */
static int hold_ms = 10000;
static const char *port = "20049";
static uint32_t next_xid = 0x4e465200;
/*
 * -S PREFIX: after each case, touch PREFIX"case-"NAME and wait for
 * PREFIX"checked-"NAME, the other side's word that it has looked at what
 * the case left on the server; -X FILE gives up the wait when FILE
 * appears (the peer aborted).  One process for every case, so a case
 * costs no process start and no new device context.
 */
static const char *step_prefix;
static const char *step_abort;
#define STEP_WAIT_MS	(900 * 1000)

static void put32(struct msg *m, uint32_t v)
{
	uint32_t be = htonl(v);

	if (m->len + 4 > sizeof(m->buf)) {
		fprintf(stderr, "hostile: case overflows its buffer\n");
		exit(2);
	}
	memcpy(m->buf + m->len, &be, 4);
	m->len += 4;
}

static void put_seg(struct msg *m, uint32_t handle, uint32_t length,
		    uint64_t offset)
{
	put32(m, handle);
	put32(m, length);
	put32(m, offset >> 32);
	put32(m, (uint32_t)offset);
}

/* Transport header words up to and including the procedure. */
static void put_fixed(struct msg *m, uint32_t xid, uint32_t vers,
		      uint32_t proc)
{
	put32(m, xid);
	put32(m, vers);
	put32(m, HOSTILE_CREDITS);
	put32(m, proc);
}

/* An RPC NULL call to NFSv3 with AUTH_NONE: 40 bytes. */
static void put_null_call(struct msg *m, uint32_t xid)
{
	put32(m, xid);
	put32(m, 0);		/* CALL */
	put32(m, 2);		/* RPC version */
	put32(m, 100003);	/* NFS */
	put32(m, 3);
	put32(m, 0);		/* NULLPROC */
	put32(m, 0);		/* cred: AUTH_NONE, empty */
	put32(m, 0);
	put32(m, 0);		/* verf: AUTH_NONE, empty */
	put32(m, 0);
}

static void put_empty_lists(struct msg *m)
{
	put32(m, 0);		/* Read list */
	put32(m, 0);		/* Write list */
	put32(m, 0);		/* Reply chunk */
}

static void valid_null(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put_empty_lists(m);
	put_null_call(m, xid);
}

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

/*
 * Wait for a CM event of @type; any other event is a failure.  The
 * channel is non-blocking so a silent peer cannot hang us.
 */
static int cm_wait_ms(struct conn *c, enum rdma_cm_event_type type, int ms)
{
	long long deadline = now_ms() + ms;
	struct rdma_cm_event *ev;
	struct pollfd pfd = { .fd = c->ec->fd, .events = POLLIN };
	int got;

	while (now_ms() < deadline) {
		if (poll(&pfd, 1, 100) <= 0)
			continue;
		if (rdma_get_cm_event(c->ec, &ev))
			continue;
		got = ev->event;
		rdma_ack_cm_event(ev);
		if (got == (int)type)
			return 0;
		if (verbose || type != RDMA_CM_EVENT_DISCONNECTED)
			fprintf(stderr, "hostile: cm event %s while waiting for %s\n",
				rdma_event_str(got), rdma_event_str(type));
		return -1;
	}
	if (verbose || type != RDMA_CM_EVENT_DISCONNECTED)
		fprintf(stderr, "hostile: no %s within %d ms\n",
			rdma_event_str(type), ms);
	return -1;
}

static int cm_wait(struct conn *c, enum rdma_cm_event_type type)
{
	return cm_wait_ms(c, type, HOSTILE_CM_TIMEOUT_MS);
}

/* Note a disconnect without blocking. */
static void cm_poll(struct conn *c)
{
	struct rdma_cm_event *ev;

	while (!rdma_get_cm_event(c->ec, &ev)) {
		if (ev->event == RDMA_CM_EVENT_DISCONNECTED)
			c->closed = true;
		rdma_ack_cm_event(ev);
	}
}

static int post_recv(struct conn *c, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->recv_buf + slot * HOSTILE_BUF_SIZE),
		.length = HOSTILE_BUF_SIZE,
		.lkey = c->recv_mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

static void conn_close(struct conn *c)
{
	if (c->id && c->id->qp && !c->closed) {
		rdma_disconnect(c->id);
		cm_wait(c, RDMA_CM_EVENT_DISCONNECTED);
	}
	if (c->id && c->id->qp)
		rdma_destroy_qp(c->id);
	if (c->send_mr)
		ibv_dereg_mr(c->send_mr);
	if (c->recv_mr)
		ibv_dereg_mr(c->recv_mr);
	if (c->pull_mr)
		ibv_dereg_mr(c->pull_mr);
	if (c->push2_mr)
		ibv_dereg_mr(c->push2_mr);
	if (c->push_mr)
		ibv_dereg_mr(c->push_mr);
	if (c->cq)
		ibv_destroy_cq(c->cq);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	if (c->ec)
		rdma_destroy_event_channel(c->ec);
	free(c->send_buf);
	free(c->recv_buf);
	free(c->pull_buf);
	free(c->push_buf);
	memset(c, 0, sizeof(*c));
}

/*
 * Connect with private data of kind @pdata (honest: RFC 8797 data, as a
 * Linux client sends), asking (as Linux clients do) for unlimited RNR
 * retries.  With @no_recvs nothing is posted to the receive queue: every
 * reply the server sends is then refused with RNR NAKs, for ever.  With
 * @no_reads the connection offers no responder resources: the server may
 * not RDMA Read from us at all.
 */
static int conn_open(struct conn *c, const char *server, bool no_recvs,
		     bool no_reads, enum hostile_pdata pdata)
{
	struct nfsrdma_wire_cm_pdata said;
	uint8_t pd[NFSRDMA_WIRE_CM_PDATA_SIZE];
	int pdlen;
	struct ibv_qp_init_attr qpa = { 0 };
	struct rdma_conn_param cp = { 0 };
	struct addrinfo *ai, hints = { .ai_socktype = SOCK_STREAM };
	unsigned int i;

	memset(c, 0, sizeof(*c));
	if (getaddrinfo(server, port, &hints, &ai)) {
		fprintf(stderr, "hostile: cannot resolve %s\n", server);
		return -1;
	}
	c->ec = rdma_create_event_channel();
	if (!c->ec)
		goto fail;
	fcntl(c->ec->fd, F_SETFL, fcntl(c->ec->fd, F_GETFL) | O_NONBLOCK);
	if (rdma_create_id(c->ec, &c->id, NULL, RDMA_PS_TCP))
		goto fail;
	if (rdma_resolve_addr(c->id, NULL, ai->ai_addr, HOSTILE_RESOLVE_MS) ||
	    cm_wait_ms(c, RDMA_CM_EVENT_ADDR_RESOLVED, HOSTILE_SETUP_TIMEOUT_MS))
		goto fail;
	if (rdma_resolve_route(c->id, HOSTILE_RESOLVE_MS) ||
	    cm_wait_ms(c, RDMA_CM_EVENT_ROUTE_RESOLVED, HOSTILE_SETUP_TIMEOUT_MS))
		goto fail;

	c->pd = ibv_alloc_pd(c->id->verbs);
	c->cq = ibv_create_cq(c->id->verbs, HOSTILE_SEND_DEPTH + HOSTILE_RECV_DEPTH,
			      NULL, NULL, 0);
	c->send_buf = calloc(HOSTILE_SEND_DEPTH, HOSTILE_BUF_SIZE);
	c->recv_buf = calloc(HOSTILE_RECV_DEPTH, HOSTILE_BUF_SIZE);
	c->pull_buf = calloc(1, HOSTILE_PULL_SIZE);
	c->push_buf = calloc(1, HOSTILE_PUSH_SIZE);
	if (!c->pd || !c->cq || !c->send_buf || !c->recv_buf || !c->pull_buf ||
	    !c->push_buf)
		goto fail;
	c->send_mr = ibv_reg_mr(c->pd, c->send_buf,
				HOSTILE_SEND_DEPTH * HOSTILE_BUF_SIZE,
				IBV_ACCESS_LOCAL_WRITE);
	c->recv_mr = ibv_reg_mr(c->pd, c->recv_buf,
				HOSTILE_RECV_DEPTH * HOSTILE_BUF_SIZE,
				IBV_ACCESS_LOCAL_WRITE);
	c->pull_mr = ibv_reg_mr(c->pd, c->pull_buf, HOSTILE_PULL_SIZE,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_READ);
	c->push_mr = ibv_reg_mr(c->pd, c->push_buf, HOSTILE_PUSH_SIZE,
			       IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	c->push2_mr = ibv_reg_mr(c->pd, c->push_buf, HOSTILE_PUSH_SIZE,
				IBV_ACCESS_LOCAL_WRITE | IBV_ACCESS_REMOTE_WRITE);
	if (!c->send_mr || !c->recv_mr || !c->pull_mr || !c->push_mr ||
	    !c->push2_mr)
		goto fail;

	qpa.send_cq = c->cq;
	qpa.recv_cq = c->cq;
	qpa.qp_type = IBV_QPT_RC;
	qpa.cap.max_send_wr = HOSTILE_SEND_DEPTH;
	qpa.cap.max_recv_wr = HOSTILE_RECV_DEPTH;
	qpa.cap.max_send_sge = 1;
	qpa.cap.max_recv_sge = 1;
	if (rdma_create_qp(c->id, c->pd, &qpa))
		goto fail;
	for (i = 0; !no_recvs && i < HOSTILE_RECV_DEPTH; i++)
		if (post_recv(c, i))
			goto fail;

	pdlen = hostile_pdata_build(pdata, HOSTILE_BUF_SIZE, HOSTILE_BUF_SIZE,
				    pd);
	if (pdlen < 0)
		goto fail;
	/* What the server may send us is what the codec reads in it. */
	nfsrdma_wire_decode_cm_pdata(&said, pd, pdlen);
	c->adv_recv = said.recv_size;
	cp.private_data = pdlen ? pd : NULL;
	cp.private_data_len = pdlen;
	cp.responder_resources = no_reads ? 0 : 1;
	cp.initiator_depth = 1;
	cp.retry_count = 7;
	cp.rnr_retry_count = 7;
	if (rdma_connect(c->id, &cp) ||
	    cm_wait_ms(c, RDMA_CM_EVENT_ESTABLISHED, HOSTILE_SETUP_TIMEOUT_MS))
		goto fail;
	freeaddrinfo(ai);
	return 0;

fail:
	/* errno says little after a CM wait; cm_wait_ms() said what came. */
	fprintf(stderr, "hostile: cannot connect to %s port %s\n", server,
		port);
	freeaddrinfo(ai);
	conn_close(c);
	return -1;
}

/*
 * What a case may require of the RPC reply itself, beyond its arriving:
 * @body is the inline RPC message after the transport header.
 */
typedef bool (*reply_check_t)(const uint8_t *body, size_t len);

/* Classify one received message; a reply @check rejects is "other". */
static int classify(const uint8_t *buf, size_t len, uint32_t xid,
		    reply_check_t check)
{
	static struct nfsrdma_wire_hdr hdr;
	int rc = nfsrdma_wire_decode(&hdr, buf, len);

	/*
	 * Some servers echo the version word of the message they reject;
	 * the codec still decodes an RDMA_ERROR body then, and says so
	 * with -EPROTONOSUPPORT.
	 */
	if ((rc == 0 || rc == -EPROTONOSUPPORT) &&
	    hdr.proc == NFSRDMA_WIRE_PROC_ERROR) {
		if (verbose)
			fprintf(stderr, "hostile:   RDMA_ERROR err=%u xid=%08x vers %u-%u\n",
				hdr.err, ntohl(hdr.xid), hdr.vers_low, hdr.vers_high);
		if (hdr.err == NFSRDMA_WIRE_ERR_VERS)
			return OUT_ERR_VERS;
		if (hdr.err == NFSRDMA_WIRE_ERR_CHUNK)
			return OUT_ERR_CHUNK;
		return OUT_OTHER;
	}
	if (rc == 0 && (hdr.proc == NFSRDMA_WIRE_PROC_MSG ||
			hdr.proc == NFSRDMA_WIRE_PROC_NOMSG)) {
		if (ntohl(hdr.xid) != xid && verbose)
			fprintf(stderr, "hostile:   reply for xid %08x, expected %08x\n",
				ntohl(hdr.xid), xid);
		if (check && !check(buf + hdr.hdr_len, len - hdr.hdr_len))
			return OUT_OTHER;
		return OUT_REPLY;
	}
	if (verbose)
		fprintf(stderr, "hostile:   undecodable reply (%d), %zu bytes\n",
			rc, len);
	return OUT_OTHER;
}

/*
 * Send @len bytes followed by zeros up to @total (zero is allowed: a
 * zero-length Send is legal verbs).  A Send longer than one slot takes
 * that many consecutive slots.  Completions for earlier sends are reaped
 * by wait_outcome().
 */
static int send_padded(struct conn *c, const void *buf, size_t len,
		       size_t total)
{
	unsigned int n = total > HOSTILE_BUF_SIZE ?
		(total + HOSTILE_BUF_SIZE - 1) / HOSTILE_BUF_SIZE : 1;
	unsigned int slot = c->send_slot % HOSTILE_SEND_DEPTH;
	uint8_t *dst;
	struct ibv_sge sge = {
		.length = total,
		.lkey = c->send_mr->lkey,
	};
	struct ibv_send_wr wr = {
		.wr_id = UINT64_MAX,
		.sg_list = &sge,
		.num_sge = total ? 1 : 0,
		.opcode = IBV_WR_SEND,
		.send_flags = IBV_SEND_SIGNALED,
	};
	struct ibv_send_wr *bad;

	if (n > HOSTILE_SEND_DEPTH || len > total)
		return -1;
	if (slot + n > HOSTILE_SEND_DEPTH) {
		c->send_slot += HOSTILE_SEND_DEPTH - slot;
		slot = 0;
	}
	c->send_slot += n;
	dst = c->send_buf + slot * HOSTILE_BUF_SIZE;
	sge.addr = (uintptr_t)dst;
	memcpy(dst, buf, len);
	memset(dst + len, 0, total - len);
	if (ibv_post_send(c->id->qp, &wr, &bad))
		return -1;
	c->sends_out++;
	return 0;
}

static int send_raw(struct conn *c, const void *buf, size_t len)
{
	return send_padded(c, buf, len, len);
}

/*
 * Collect what the server does for up to wait_ms (or until @want replies
 * arrived).  Returns the union of outcomes seen.
 */
static int wait_outcome(struct conn *c, uint32_t xid, unsigned int want,
			unsigned int *replies, int ms, reply_check_t check)
{
	long long deadline = now_ms() + ms;
	struct ibv_wc wc[16];
	int seen = 0, n, i;

	*replies = 0;
	while (now_ms() < deadline && !c->closed) {
		n = ibv_poll_cq(c->cq, 16, wc);
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				/* The server tore the QP down under us. */
				if (verbose)
					fprintf(stderr, "hostile:   completion %s\n",
						ibv_wc_status_str(wc[i].status));
				c->closed = true;
				continue;
			}
			if (wc[i].wr_id == UINT64_MAX) {
				c->sends_out--;
				continue;
			}
			if (wc[i].wc_flags & IBV_WC_WITH_INV) {
				/*
				 * None of our keys may be invalidated: they
				 * are ordinary registrations.  Only
				 * swi-two-keys welcomes Send With Invalidate,
				 * and it offers two keys; the cases that put
				 * every chunk under one key never welcome it.
				 */
				fprintf(stderr, "hostile:   a Send With Invalidate of key 0x%x\n",
					wc[i].invalidated_rkey);
				seen |= OUT_OTHER;
			}
			if (wc[i].byte_len > c->adv_recv) {
				/* The server sent more than we said we take. */
				fprintf(stderr, "hostile:   a %u-byte message; our private data allowed %u\n",
					wc[i].byte_len, c->adv_recv);
				seen |= OUT_OTHER;
			}
			seen |= classify(c->recv_buf + wc[i].wr_id * HOSTILE_BUF_SIZE,
					 wc[i].byte_len, xid, check);
			(*replies)++;
			if (post_recv(c, wc[i].wr_id))
				c->closed = true;
		}
		cm_poll(c);
		if (*replies >= want)
			break;
		if (!n)
			usleep(1000);
	}
	if (c->closed)
		seen |= OUT_CLOSED;
	if (!seen)
		seen = OUT_SILENT;
	return seen;
}

/*
 * Wait (up to wait_ms) for the completion of the one Send outstanding;
 * true if it succeeded.  A reply that comes meanwhile is discarded: the
 * caller closes the connection next.
 */
static bool send_acked(struct conn *c)
{
	long long deadline = now_ms() + wait_ms;
	struct ibv_wc wc;
	int n;

	while (now_ms() < deadline) {
		n = ibv_poll_cq(c->cq, 1, &wc);
		if (n < 0)
			return false;
		if (!n) {
			usleep(1000);
			continue;
		}
		if (wc.wr_id == UINT64_MAX) {
			c->sends_out--;
			return wc.status == IBV_WC_SUCCESS;
		}
		if (wc.status != IBV_WC_SUCCESS)
			return false;
	}
	return false;
}

/* Case builders: each fills @m and says which outcomes are acceptable. */
struct hcase {
	const char *name;
	const char *what;
	int allowed;
	void (*build)(struct msg *m, uint32_t xid);
	unsigned int burst;	/* 0: send once */
	bool stall;		/* no receives; on request only */
	unsigned int conns;	/* a flood of connections; on request only */
	reply_check_t check;	/* what a reply must say, if anything */
	enum hostile_pdata pdata;	/* the private data we connect with */
	bool same_xid;		/* a burst repeats one call, XID and all */
	bool reconnect;		/* sent, connection dropped, sent again */
	size_t send_len;	/* zeros pad each Send to this length */
	bool no_reads;		/* connect offering no RDMA Read resources */
};

#define BAD	(OUT_ERR_CHUNK | OUT_CLOSED)

static void c_null(struct msg *m, uint32_t xid)
{
	valid_null(m, xid);
}

static void c_bad_version(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, 2, NFSRDMA_WIRE_PROC_MSG);
	put_empty_lists(m);
	put_null_call(m, xid);
}

static void c_bad_proc(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, 7);
	put_empty_lists(m);
	put_null_call(m, xid);
}

static void c_msgp(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSGP);
	put32(m, 4);		/* rdma_align */
	put32(m, 1024);		/* rdma_thresh */
	put_empty_lists(m);
	put_null_call(m, xid);
}

static void c_done(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_DONE);
}

static void c_zero_length(struct msg *m, uint32_t xid)
{
	(void)xid;
	m->len = 0;
}

static void truncated(struct msg *m, uint32_t xid, size_t keep)
{
	valid_null(m, xid);
	m->len = keep;
}

static void c_trunc_4(struct msg *m, uint32_t xid) { truncated(m, xid, 4); }
static void c_trunc_12(struct msg *m, uint32_t xid) { truncated(m, xid, 12); }
static void c_trunc_16(struct msg *m, uint32_t xid) { truncated(m, xid, 16); }
static void c_trunc_24(struct msg *m, uint32_t xid) { truncated(m, xid, 24); }

static void c_discriminator(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put32(m, 2);		/* neither "absent" nor "present" */
	put32(m, 0);
	put32(m, 0);
	put_null_call(m, xid);
}

static void c_read_unterminated(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put32(m, 1);
	put32(m, 40);
	put_seg(m, 0x1234, 4096, 0x10000);
	put32(m, 1);		/* another entry that never comes */
}

static void c_write_count_huge(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put32(m, 0);
	put32(m, 1);
	put32(m, 0xffffffff);	/* segments that cannot be there */
	put_seg(m, 0x1234, 4096, 0x10000);
}

static void c_reply_count_huge(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put32(m, 0);
	put32(m, 0);
	put32(m, 1);
	put32(m, 0x7fffffff);
	put_seg(m, 0x1234, 4096, 0x10000);
}

static void c_write_list_long(struct msg *m, uint32_t xid)
{
	int i;

	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put32(m, 0);
	for (i = 0; i < 100; i++) {
		put32(m, 1);
		put32(m, 1);
		put_seg(m, 0x1000 + i, 4096, 0x100000ULL * i);
	}
	put32(m, 0);
	put32(m, 0);
	put_null_call(m, xid);
}

static void c_read_len_overflow(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put32(m, 1);
	put32(m, 40);
	put_seg(m, 0x1234, 0x80000000, 0x10000);
	put32(m, 1);
	put32(m, 40);
	put_seg(m, 0x1235, 0x80000000, 0x90000000ULL);
	put32(m, 0);
	put32(m, 0);
	put32(m, 0);
	put_null_call(m, xid);
}

/*
 * A NULL call offering a Write chunk of 70 segments and a Reply chunk,
 * from a client whose private data said 1 KiB each way: the reply's
 * header, which returns the Write chunk, is then longer than the client
 * can receive, inline or beside a Reply chunk.  The chunks cannot carry
 * the reply, which is what ERR_CHUNK says.
 */
#define HOSTILE_ECHO_SEGS	70
static void c_reply_header_big(struct msg *m, uint32_t xid)
{
	struct conn *c = m->conn;
	uint64_t base = (uintptr_t)c->push_buf;
	int i;

	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put32(m, 0);		/* no Read list */
	put32(m, 1);		/* one Write chunk */
	put32(m, HOSTILE_ECHO_SEGS);
	for (i = 0; i < HOSTILE_ECHO_SEGS; i++)
		put_seg(m, c->push_mr->rkey, 512, base + 512 * i);
	put32(m, 0);		/* end of the Write list */
	put32(m, 1);		/* a Reply chunk */
	put32(m, 1);
	put_seg(m, c->push2_mr->rkey, 1024, base + 512 * HOSTILE_ECHO_SEGS);
	put_null_call(m, xid);
}

/*
 * RDMA_ERROR with an error code RFC 8166 does not define, sent as if it
 * were a call: an error all the same, and no error is ever answered.
 */
static void c_error_unknown(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_ERROR);
	put32(m, 9);
}

static void c_write_len_overflow(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put32(m, 0);
	put32(m, 1);
	put32(m, 2);
	put_seg(m, 0x1234, 0xffffffff, 0);
	put_seg(m, 0x1235, 0xffffffff, 0x100000000ULL);
	put32(m, 0);
	put32(m, 0);
	put_null_call(m, xid);
}

static void read_at(struct msg *m, uint32_t xid, uint32_t position)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put32(m, 1);
	put32(m, position);
	put_seg(m, 0x1234, 4096, 0x10000);
	put32(m, 0);
	put32(m, 0);
	put32(m, 0);
	put_null_call(m, xid);
}

static void c_pos_beyond(struct msg *m, uint32_t xid)
{
	read_at(m, xid, 0x100000);
}

static void c_pos_misaligned(struct msg *m, uint32_t xid)
{
	read_at(m, xid, 38);
}

/* Well-formed, but the steering tag is ours to invent: the RDMA Read fails. */
static void c_bogus_handle(struct msg *m, uint32_t xid)
{
	read_at(m, xid, 40);
}

static void c_nomsg_empty(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_NOMSG);
	put_empty_lists(m);
}

/* Byte @i of the data chunk nomsg-data-chunk writes (hostile -D prints it). */
static uint8_t data_byte(size_t i)
{
	return (uint8_t)(i * 7 + 3);
}

static void put_bytes(struct msg *m, const void *p, size_t len)
{
	static const uint8_t zero[4];

	if (m->len + len + 3 > sizeof(m->buf)) {
		fprintf(stderr, "hostile: case overflows its buffer\n");
		exit(2);
	}
	memcpy(m->buf + m->len, p, len);
	m->len += len;
	memcpy(m->buf + m->len, zero, (4 - len % 4) % 4);
	m->len += (4 - len % 4) % 4;
}

/*
 * An NFSv4.0 COMPOUND, AUTH_SYS as root: PUTROOTFH, LOOKUP @name, WRITE
 * of HOSTILE_DATA_LEN bytes at @offset with the anonymous stateid,
 * PUTROOTFH.  Ends just after the WRITE's data length word: what follows
 * (the data, its pad, the last op) is for the caller to place.
 */
static void put_write_call(struct msg *m, uint32_t xid, const char *name,
			   uint64_t offset)
{
	unsigned int i;

	put32(m, xid);
	put32(m, 0);		/* CALL */
	put32(m, 2);		/* RPC version */
	put32(m, 100003);	/* NFS */
	put32(m, 4);
	put32(m, 1);		/* COMPOUND */
	put32(m, 1);		/* cred: AUTH_SYS */
	put32(m, 20);
	put32(m, 0);		/* stamp */
	put32(m, 0);		/* machine name: empty */
	put32(m, 0);		/* uid 0 */
	put32(m, 0);		/* gid 0 */
	put32(m, 0);		/* no other groups */
	put32(m, 0);		/* verf: AUTH_NONE, empty */
	put32(m, 0);
	put32(m, 0);		/* tag: empty */
	put32(m, 0);		/* minor version 0: no SEQUENCE needed */
	put32(m, 4);		/* four operations */
	put32(m, 24);		/* PUTROOTFH */
	put32(m, 15);		/* LOOKUP */
	put32(m, strlen(name));
	put_bytes(m, name, strlen(name));
	put32(m, 38);		/* WRITE */
	for (i = 0; i < 4; i++)
		put32(m, 0);	/* the anonymous stateid */
	put32(m, offset >> 32);
	put32(m, (uint32_t)offset);
	put32(m, 2);		/* FILE_SYNC4 */
	put32(m, HOSTILE_DATA_LEN);
}

/*
 * RFC 8166 section 3.5.3: a Long Call in an RDMA_NOMSG may carry its
 * DDP-eligible data in Read chunks of their own besides the
 * Position-zero chunk.  The message body (the WRITE up to its data length
 * word, then the last operation) is the Position-zero chunk, in two
 * segments; the data is a second Read chunk at its XDR position, without
 * its pad, in @nsegs segments: 16 bytes each but the last, which takes
 * the rest.  The server must splice them all back into one call.  The
 * body lies in body slot @slot of the pull region, so that calls in
 * flight together each have their own; the data, the same for all, at
 * HOSTILE_DATA_AT.
 */
static void put_nomsg_write(struct msg *m, uint32_t xid, const char *name,
			    uint64_t offset, unsigned int nsegs,
			    unsigned int slot)
{
	struct conn *c = m->conn;
	struct msg body = { .len = 0 };
	uint8_t *body_at = c->pull_buf + slot * HOSTILE_BODY_SLOT;
	uint8_t *data_at = c->pull_buf + HOSTILE_DATA_AT;
	uint32_t pos, first, off = 0, n;
	size_t i;

	put_write_call(&body, xid, name, offset);
	pos = body.len;
	put32(&body, 24);	/* PUTROOTFH, after the data */
	memcpy(body_at, body.buf, body.len);
	for (i = 0; i < HOSTILE_DATA_LEN; i++)
		data_at[i] = data_byte(i);
	first = (pos / 2) & ~3U;

	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_NOMSG);
	put32(m, 1);
	put32(m, 0);
	put_seg(m, c->pull_mr->rkey, first, (uintptr_t)body_at);
	put32(m, 1);
	put32(m, 0);
	put_seg(m, c->pull_mr->rkey, body.len - first,
		(uintptr_t)(body_at + first));
	for (i = 0; i < nsegs; i++) {
		n = i < nsegs - 1 ? 16 : HOSTILE_DATA_LEN - off;
		put32(m, 1);
		put32(m, pos);
		put_seg(m, c->pull_mr->rkey, n, (uintptr_t)(data_at + off));
		off += n;
	}
	put32(m, 0);		/* end of the Read list */
	put32(m, 0);		/* Write list */
	put32(m, 0);		/* Reply chunk */
}

static void c_nomsg_data_chunk(struct msg *m, uint32_t xid)
{
	put_nomsg_write(m, xid, "p0-target", 0, 1, 0);
}

/*
 * The same WRITE with its data in HOSTILE_MANY_SEGS segments (as many as
 * one chunk may have), as a client that registers little pieces might
 * send it: more Read contexts than half our server's send queue takes
 * (it then reads them in turns), and where Reads need MRs (siw), more
 * than its QP's pool holds (one full data chunk per credit: 128).  The
 * header is 6.2 KiB: our server receives 8 KiB.  Sent HOSTILE_MANY_COPIES
 * times at once, each to its own 8 KiB block of "p0-many" (chosen by
 * XID, which the copies take in sequence), so that the copies contend
 * for the pool and a byte read into the wrong place by any of them shows.
 */
#define HOSTILE_MANY_SEGS	NFSRDMA_WIRE_MAX_CHUNK_SEGS
#define HOSTILE_MANY_COPIES	4
#define HOSTILE_MANY_BLOCK	8192

static_assert(HOSTILE_MANY_COPIES * HOSTILE_BODY_SLOT <= HOSTILE_DATA_AT,
	      "the copies' body slots end before the data");
static_assert(HOSTILE_DATA_AT + HOSTILE_DATA_LEN <= HOSTILE_PULL_SIZE,
	      "the data fits the pull region");
static_assert(HOSTILE_DATA_LEN <= HOSTILE_MANY_BLOCK,
	      "the copies' writes do not overlap");

static void c_read_many_segs(struct msg *m, uint32_t xid)
{
	unsigned int copy = xid % HOSTILE_MANY_COPIES;

	put_nomsg_write(m, xid, "p0-many", (uint64_t)copy * HOSTILE_MANY_BLOCK,
			HOSTILE_MANY_SEGS, copy);
}

/*
 * RFC 8797 lets a server invalidate the key of a call's
 * chunks with the reply's Send, once the client says it welcomes that.
 * Here the client does, but the call's Write chunk and Reply chunk lie
 * under two keys (one memory, registered twice): invalidating either
 * would tear down a registration the client still counts on, so the
 * reply must come as a plain Send.  wait_outcome() refuses any Send With
 * Invalidate; so would the device, these being ordinary registrations.
 */
static void c_swi_two_keys(struct msg *m, uint32_t xid)
{
	struct conn *c = m->conn;
	uint64_t base = (uintptr_t)c->push_buf;

	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put32(m, 0);		/* Read list */
	put32(m, 1);		/* a Write chunk of one segment */
	put32(m, 1);
	put_seg(m, c->push_mr->rkey, 4096, base);
	put32(m, 0);
	put32(m, 1);		/* a Reply chunk of one segment */
	put32(m, 1);
	put_seg(m, c->push2_mr->rkey, 4096, base + 4096);
	put_null_call(m, xid);
}

/*
 * The same shape, but the data chunk's position lies past the end of the
 * body the Position-zero chunk carries (a NULL call, 40 bytes): there is
 * no place in the call for it.
 */
static void c_nomsg_chunk_beyond(struct msg *m, uint32_t xid)
{
	struct conn *c = m->conn;
	struct msg body = { .len = 0 };
	uint64_t base = (uintptr_t)c->pull_buf;

	put_null_call(&body, xid);
	memcpy(c->pull_buf, body.buf, body.len);
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_NOMSG);
	put32(m, 1);
	put32(m, 0);
	put_seg(m, c->pull_mr->rkey, body.len, base);
	put32(m, 1);
	put32(m, body.len + 64);
	put_seg(m, c->pull_mr->rkey, 512, base + HOSTILE_DATA_AT);
	put32(m, 0);
	put32(m, 0);
	put32(m, 0);
}

/* An accepted RPC reply whose COMPOUND status is NFS4_OK. */
static bool compound_ok(const uint8_t *body, size_t len)
{
	uint32_t w[8];
	size_t off;

	if (len < 24)
		return false;
	memcpy(w, body, 24);
	/* xid, REPLY, MSG_ACCEPTED, verifier flavor and length, ... */
	if (ntohl(w[1]) != 1 || ntohl(w[2]) != 0)
		return false;
	if (ntohl(w[4]) > len)
		return false;
	off = 20 + ((ntohl(w[4]) + 3) & ~3U);
	if (off + 8 > len)
		return false;
	memcpy(w, body + off, 8);
	if (verbose)
		fprintf(stderr, "hostile:   accept_stat %u, COMPOUND status %u\n",
			ntohl(w[0]), ntohl(w[1]));
	return ntohl(w[0]) == 0 && ntohl(w[1]) == 0;
}

static const struct hcase cases[] = {
	{ "null", "a well-formed NULL call (control)", OUT_REPLY, c_null },
	{ "bad-version", "transport header version 2", OUT_ERR_VERS, c_bad_version },
	{ "bad-proc", "procedure type 7", BAD, c_bad_proc },
	{ "msgp", "RDMA_MSGP (not used in Version 1)", BAD, c_msgp },
	{ "done", "RDMA_DONE (not used in Version 1)", BAD, c_done },
	{ "zero-length", "a zero-length Send", OUT_CLOSED | OUT_ERR_CHUNK, c_zero_length },
	{ "trunc-4", "header cut after 4 bytes", OUT_CLOSED | OUT_ERR_CHUNK, c_trunc_4 },
	{ "trunc-12", "header cut after 12 bytes", BAD, c_trunc_12 },
	{ "trunc-16", "header cut after 16 bytes", BAD, c_trunc_16 },
	{ "trunc-24", "header cut after 24 bytes", BAD, c_trunc_24 },
	{ "discriminator", "list discriminator 2", BAD, c_discriminator },
	{ "read-unterminated", "Read list running off the message", BAD, c_read_unterminated },
	{ "write-count-huge", "Write chunk of 2^32-1 segments", BAD, c_write_count_huge },
	{ "reply-count-huge", "Reply chunk of 2^31-1 segments", BAD, c_reply_count_huge },
	{ "write-list-long", "Write list of 100 chunks", BAD, c_write_list_long },
	{ "read-len-overflow", "Read chunk lengths summing past 2^32", BAD, c_read_len_overflow },
	{ "write-len-overflow", "Write chunk lengths summing past 2^32", BAD, c_write_len_overflow },
	{ "pos-beyond", "Read position far beyond the message", BAD, c_pos_beyond },
	{ "pos-misaligned", "Read position not XDR-aligned", BAD, c_pos_misaligned },
	{ "bogus-handle", "Read chunk with an invented steering tag", BAD, c_bogus_handle },
	{ "nomsg-empty", "RDMA_NOMSG with no chunks", BAD, c_nomsg_empty },
	{ "nomsg-data-chunk", "RDMA_NOMSG WRITE, data in a second Read chunk",
	  OUT_REPLY, c_nomsg_data_chunk, .check = compound_ok },
	{ "read-many-segs", "4 RDMA_NOMSG WRITEs, data in 260 Read segments",
	  OUT_REPLY, c_read_many_segs, HOSTILE_MANY_COPIES,
	  .check = compound_ok },
	{ "nomsg-chunk-beyond", "RDMA_NOMSG, data chunk past the call's end",
	  BAD, c_nomsg_chunk_beyond },
	{ "error-unknown", "RDMA_ERROR with error code 9, as a call", OUT_SILENT,
	  c_error_unknown },
	{ "credit-flood", "256 calls against 32 credits", OUT_REPLY | OUT_CLOSED,
	  c_null, HOSTILE_FLOOD },
	{ "null-after", "a well-formed NULL call after all that", OUT_REPLY, c_null },
	{ "rnr-stall", "256 calls, unlimited RNR retry, no receives", OUT_CLOSED,
	  c_null, HOSTILE_FLOOD, true },
	{ "conn-flood", "48 connections held open, one NULL call on each",
	  OUT_REPLY, c_null, 0, false, HOSTILE_FLOOD_CONNS },
	{ "dup-call", "one NULL call twice, XID and all", OUT_REPLY, c_null, 2,
	  .same_xid = true },
	{ "dup-write", "one RDMA_NOMSG WRITE twice, XID and all", OUT_REPLY,
	  c_nomsg_data_chunk, 2, .same_xid = true, .check = compound_ok },
	{ "reconnect-write", "a WRITE, the connection dropped, it again on a new one",
	  OUT_REPLY, c_nomsg_data_chunk, .reconnect = true, .check = compound_ok },
	{ "pdata-absent", "no private data, then a NULL call", OUT_REPLY, c_null,
	  .pdata = PDATA_ABSENT },
	{ "pdata-short", "4 bytes of private data, then a NULL call", OUT_REPLY,
	  c_null, .pdata = PDATA_SHORT },
	{ "pdata-foreign", "another format's 8 bytes claiming 256 KiB", OUT_REPLY,
	  c_null, .pdata = PDATA_FOREIGN },
	{ "pdata-version", "RFC 8797 version 2 claiming 256 KiB", OUT_REPLY,
	  c_null, .pdata = PDATA_VERSION },
	{ "pdata-huge", "RFC 8797 claiming 256 KiB each way", OUT_REPLY, c_null,
	  .pdata = PDATA_HUGE },
	{ "pdata-small", "RFC 8797 claiming 1 KiB each way", OUT_REPLY, c_null,
	  .pdata = PDATA_SMALL },
	{ "send-oversized", "a 68 KiB Send after claiming 256 KiB", OUT_CLOSED,
	  c_null, .pdata = PDATA_HUGE, .send_len = 68 * 1024 },
	{ "swi-two-keys", "chunks under two keys, Send With Invalidate welcome",
	  OUT_REPLY, c_swi_two_keys, .pdata = PDATA_INV },
	{ "reply-header-big", "a reply header longer than our 1 KiB receive",
	  OUT_ERR_CHUNK, c_reply_header_big, .pdata = PDATA_SMALL },
	{ "read-no-ird", "a Read chunk, no RDMA Read resources offered",
	  OUT_ERR_CHUNK, c_nomsg_data_chunk, .no_reads = true },
	{ "null-last", "a well-formed NULL call after those", OUT_REPLY, c_null },
};

static void describe(char *out, size_t size, int set)
{
	size_t i, used = 0;

	out[0] = '\0';
	for (i = 0; i < sizeof(outcome_names) / sizeof(outcome_names[0]); i++)
		if (set & (1 << i))
			used += snprintf(out + used, size - used, "%s%s",
					 used ? "|" : "", outcome_names[i]);
}

/*
 * Open hc->conns connections one after the other, make each carry one
 * call (so each is known to be accepted and served), hold them all open
 * for hold_ms, then close them.  Passes when every call got a reply.
 */
static int run_flood(const char *server, const struct hcase *hc)
{
	struct conn *cs = calloc(hc->conns, sizeof(*cs));
	unsigned int i, opened = 0, replies, served = 0;
	static struct msg m;
	char got[64];
	int seen = 0;

	if (!cs)
		return -1;
	for (i = 0; i < hc->conns; i++) {
		uint32_t xid = next_xid++;

		if (conn_open(&cs[i], server, false, false, PDATA_HONEST))
			break;
		opened++;
		memset(&m, 0, sizeof(m));
		m.conn = &cs[i];
		hc->build(&m, xid);
		if (send_raw(&cs[i], m.buf, m.len)) {
			seen |= OUT_CLOSED;
			continue;
		}
		seen |= wait_outcome(&cs[i], xid, 1, &replies, wait_ms,
				     hc->check);
		served += replies;
	}
	printf("hostile: %u connections open, holding them for %d ms\n",
	       opened, hold_ms);
	fflush(stdout);
	usleep(hold_ms * 1000);
	for (i = 0; i < opened; i++)
		conn_close(&cs[i]);
	free(cs);
	if (opened < hc->conns)
		seen |= OUT_OTHER;
	describe(got, sizeof(got), seen);
	printf("%s %-18s %-40s got %-16s (%u of %u connections served)\n",
	       seen == OUT_REPLY && served == hc->conns ? "PASS" : "FAIL",
	       hc->name, hc->what, got, served, hc->conns);
	fflush(stdout);
	return seen == OUT_REPLY && served == hc->conns ? 0 : 1;
}

static int run_case(const char *server, const struct hcase *hc)
{
	unsigned int i, n = hc->burst ? hc->burst : 1, replies;
	char got[64], allowed[64];
	static struct msg m;
	struct conn c;
	uint32_t xid = next_xid;
	long long start;
	int seen, ok;

	if (hc->conns)
		return run_flood(server, hc);
	if (conn_open(&c, server, hc->stall, hc->no_reads, hc->pdata))
		return -1;
	if (hc->reconnect) {
		/*
		 * The call goes out and its connection goes away as soon as
		 * the server has it (the Send completed: RC acknowledged
		 * it), while the server may still be pulling its chunks:
		 * the same call then comes again on a new connection, as a
		 * client retransmits after a reconnect.
		 */
		memset(&m, 0, sizeof(m));
		m.conn = &c;
		hc->build(&m, xid);
		if (send_raw(&c, m.buf, m.len) || !send_acked(&c)) {
			printf("FAIL %-18s %-40s the first copy never reached the server\n",
			       hc->name, hc->what);
			conn_close(&c);
			return 1;
		}
		conn_close(&c);
		if (conn_open(&c, server, false, hc->no_reads, hc->pdata))
			return -1;
	}
	start = now_ms();
	for (i = 0; i < n; i++) {
		memset(&m, 0, sizeof(m));
		m.conn = &c;
		hc->build(&m, hc->same_xid ? xid : next_xid);
		next_xid++;
		if (send_padded(&c, m.buf, m.len,
				hc->send_len > m.len ? hc->send_len : m.len)) {
			c.closed = true;
			break;
		}
		/*
		 * Keep the send queue from overflowing during a flood; a
		 * server out of receives may never let it drain.
		 */
		while (c.sends_out >= HOSTILE_SEND_DEPTH - 1 && !c.closed &&
		       now_ms() < start + stall_ms) {
			cm_poll(&c);
			struct ibv_wc wc;
			int got_wc = ibv_poll_cq(c.cq, 1, &wc);

			if (got_wc > 0 && wc.status != IBV_WC_SUCCESS)
				c.closed = true;
			else if (got_wc > 0 && wc.wr_id == UINT64_MAX)
				c.sends_out--;
			else if (got_wc > 0 && post_recv(&c, wc.wr_id))
				c.closed = true;
		}
	}
	/*
	 * A repeated call needs only one answer: the server may drop the
	 * copy as a retransmission of a call it is still executing.  But
	 * the copy must not cost the connection: a second look, a second
	 * long, sees a close or an error that follows the first answer.
	 */
	seen = wait_outcome(&c, xid, hc->same_xid ? 1 : n, &replies,
			    hc->stall ? stall_ms : wait_ms, hc->check);
	if (hc->same_xid && !c.closed) {
		unsigned int more;

		seen |= wait_outcome(&c, xid, 1, &more, 1000, hc->check) &
			~OUT_SILENT;
		replies += more;
	}
	/* A flood passes only if nothing but replies or a close came back. */
	ok = (seen & ~hc->allowed) == 0;
	describe(got, sizeof(got), seen);
	describe(allowed, sizeof(allowed), hc->allowed);
	printf("%s %-18s %-40s got %-16s allowed %s", ok ? "PASS" : "FAIL",
	       hc->name, hc->what, got, allowed);
	if (hc->burst)
		printf(" (%u replies)", replies);
	/*
	 * How long the outcome took says how close a slow link came to the
	 * wait (-w) when a case passes only just.
	 */
	if (hc->stall)
		printf(" (closed after %lld ms)", now_ms() - start);
	else
		printf(" [%lld ms]", now_ms() - start);
	printf("\n");
	fflush(stdout);
	conn_close(&c);
	return ok ? 0 : 1;
}

/*
 * ---- fuzz mode (-F SEED): make fuzz-live's server target ----------------
 *
 * Well-formed calls of every shape the server parses (inline, Position-zero
 * Read chunk, data Read chunk, Write chunk, Reply chunk, a backchannel
 * Reply), each mutated by fuzz.c, sent back to back on one connection;
 * sometimes one twice, sometimes two swapped.  Every FUZZ_CHECK_EVERY
 * messages a well-formed NULL call must be answered with an accepted
 * SUCCESS reply: on the same connection, or, if the server closed it (as
 * it may for a message it cannot trust), on a new one.  A NULL call left
 * unanswered on a live connection, Sends the server stops taking, or a
 * server that no longer accepts connections ends the run with the seed
 * and the index of the message that replays it.
 */
#define FUZZ_CHECK_EVERY	16
#define FUZZ_HISTORY		8
#define FUZZ_SLOT		64	/* pull and push bytes per message */
#define FUZZ_RECONNECT_MS	30000

struct fuzz {
	struct fuzz_rng rng;
	uint64_t seed;
	const char *label;
	unsigned long sent, replies, checks, reconnects;
	uint32_t xid;
	uint32_t check_xid;
	bool check_ok;
	char history[FUZZ_HISTORY][160];
};

static unsigned long fuzz_count = 100000;
static int fuzz_seconds;

/* A NULL call in the pull region, for the chunks that point there. */
static uint64_t fz_pull_null(struct msg *m, uint32_t xid)
{
	struct conn *c = m->conn;
	size_t off = (xid % (HOSTILE_PULL_SIZE / FUZZ_SLOT)) * FUZZ_SLOT;
	struct msg call = { .len = 0 };

	put_null_call(&call, xid);
	memcpy(c->pull_buf + off, call.buf, call.len);
	return (uintptr_t)(c->pull_buf + off);
}

static uint64_t fz_push(struct msg *m, uint32_t xid)
{
	size_t off = (xid % (HOSTILE_PUSH_SIZE / 4096)) * 4096;

	return (uintptr_t)(m->conn->push_buf + off);
}

static void fz_inline(struct msg *m, uint32_t xid)
{
	valid_null(m, xid);
}

static void fz_pos0(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_NOMSG);
	put32(m, 1);
	put32(m, 0);
	put_seg(m, m->conn->pull_mr->rkey, 40, fz_pull_null(m, xid));
	put32(m, 0);		/* end of the Read list */
	put32(m, 0);		/* no Write list */
	put32(m, 0);		/* no Reply chunk */
}

static void fz_data_read(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put32(m, 1);
	put32(m, 40);
	put_seg(m, m->conn->pull_mr->rkey, 40, fz_pull_null(m, xid));
	put32(m, 0);
	put32(m, 0);
	put32(m, 0);
	put_null_call(m, xid);
}

static void fz_write_chunk(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put32(m, 0);
	put32(m, 1);
	put32(m, 1);
	put_seg(m, m->conn->push_mr->rkey, 4096, fz_push(m, xid));
	put32(m, 0);
	put32(m, 0);
	put_null_call(m, xid);
}

static void fz_reply_chunk(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put32(m, 0);
	put32(m, 0);
	put32(m, 1);
	put32(m, 1);
	put_seg(m, m->conn->push_mr->rkey, 4096, fz_push(m, xid));
	put_null_call(m, xid);
}

/* An RPC Reply, as a client answers a backchannel call: none was made. */
static void fz_bc_reply(struct msg *m, uint32_t xid)
{
	put_fixed(m, xid, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put_empty_lists(m);
	put32(m, xid);
	put32(m, 1);		/* REPLY */
	put32(m, 0);		/* MSG_ACCEPTED */
	put32(m, 0);
	put32(m, 0);
	put32(m, 0);		/* SUCCESS */
}

static const struct {
	const char *name;
	void (*build)(struct msg *m, uint32_t xid);
	size_t body;		/* bytes of RPC message after the header */
} fz_templates[] = {
	{ "inline", fz_inline, 40 },
	{ "pos0", fz_pos0, 0 },
	{ "data-read", fz_data_read, 40 },
	{ "write-chunk", fz_write_chunk, 40 },
	{ "reply-chunk", fz_reply_chunk, 40 },
	{ "bc-reply", fz_bc_reply, 24 },
};

#define FZ_NR_TEMPLATES (sizeof(fz_templates) / sizeof(fz_templates[0]))

/* An accepted SUCCESS reply to @xid, inline. */
static bool fz_is_check_reply(const uint8_t *buf, size_t len, uint32_t xid)
{
	static struct nfsrdma_wire_hdr hdr;
	uint32_t w[6];

	if (nfsrdma_wire_decode(&hdr, buf, len) ||
	    hdr.proc != NFSRDMA_WIRE_PROC_MSG || len - hdr.hdr_len < 24)
		return false;
	memcpy(w, buf + hdr.hdr_len, 24);
	return ntohl(w[0]) == xid && ntohl(w[1]) == 1 && w[2] == 0 &&
	       w[5] == 0;
}

/* Reap completions without waiting; a failed one means the QP is gone. */
static void fz_reap(struct conn *c, struct fuzz *f)
{
	struct ibv_wc wc[16];
	int n, i;

	while (!c->closed && (n = ibv_poll_cq(c->cq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				c->closed = true;
				continue;
			}
			if (wc[i].wr_id == UINT64_MAX) {
				c->sends_out--;
				continue;
			}
			f->replies++;
			if (fz_is_check_reply(c->recv_buf + wc[i].wr_id * HOSTILE_BUF_SIZE,
					      wc[i].byte_len, f->check_xid))
				f->check_ok = true;
			if (post_recv(c, wc[i].wr_id))
				c->closed = true;
		}
	}
	cm_poll(c);
}

static void fz_fail(struct fuzz *f, const char *why)
{
	unsigned int i;

	printf("fuzz-live: FAIL at message %lu of %s: %s\n", f->sent,
	       f->label, why);
	printf("fuzz-live: replay with: hostile -F %llu -n %lu SERVER\n",
	       (unsigned long long)f->seed, f->sent);
	for (i = 0; i < FUZZ_HISTORY; i++) {
		const char *h = f->history[(f->sent + i) % FUZZ_HISTORY];

		if (h[0])
			printf("fuzz-live:   %s\n", h);
	}
	fflush(stdout);
}

static int fz_reconnect(struct conn *c, const char *server, struct fuzz *f)
{
	long long deadline = now_ms() + FUZZ_RECONNECT_MS;

	conn_close(c);
	f->reconnects++;
	while (conn_open(c, server, false, false, PDATA_HONEST)) {
		if (now_ms() > deadline) {
			fz_fail(f, "the server accepts no new connection");
			return -1;
		}
		usleep(200000);
	}
	return 0;
}

/* Post one Send once the send queue has room; -1 if the server stalls it. */
static int fz_send(struct conn *c, struct fuzz *f, const void *buf, size_t len)
{
	long long deadline = now_ms() + wait_ms;

	while (c->sends_out >= HOSTILE_SEND_DEPTH - 1 && !c->closed) {
		fz_reap(c, f);
		if (now_ms() > deadline) {
			fz_fail(f, "the server stopped taking our Sends");
			return -1;
		}
		usleep(100);
	}
	if (c->closed || send_raw(c, buf, len))
		c->closed = true;
	return 0;
}

/* A well-formed NULL call must be answered, on a new connection if need be. */
static int fz_check(struct conn *c, const char *server, struct fuzz *f)
{
	static struct msg m;
	unsigned int attempt;
	long long deadline;

	for (attempt = 0; attempt < 3; attempt++) {
		if (c->closed && fz_reconnect(c, server, f))
			return -1;
		memset(&m, 0, sizeof(m));
		m.conn = c;
		/* Far from every mutated message's XID, nudged or not. */
		f->check_xid = f->xid++ ^ 0x80000000;
		f->check_ok = false;
		valid_null(&m, f->check_xid);
		if (fz_send(c, f, m.buf, m.len))
			return -1;
		deadline = now_ms() + wait_ms;
		while (!f->check_ok && !c->closed && now_ms() < deadline) {
			fz_reap(c, f);
			if (!f->check_ok)
				usleep(200);
		}
		if (f->check_ok) {
			f->checks++;
			return 0;
		}
		if (!c->closed) {
			fz_fail(f, "no reply to a well-formed NULL call on a live connection");
			return -1;
		}
	}
	fz_fail(f, "the connection closed under three well-formed NULL calls in a row");
	return -1;
}

static bool file_exists(const char *path)
{
	return path && access(path, F_OK) == 0;
}

/* Tell the step peer that case @name is done; wait for its check. */
static int step_wait(const char *name)
{
	long long deadline = now_ms() + STEP_WAIT_MS;
	char done[512], checked[512];
	int fd;

	if ((size_t)snprintf(done, sizeof(done), "%scase-%s", step_prefix,
			     name) >= sizeof(done) ||
	    (size_t)snprintf(checked, sizeof(checked), "%schecked-%s",
			     step_prefix, name) >= sizeof(checked)) {
		fprintf(stderr, "hostile: -S prefix too long\n");
		return -1;
	}
	fd = open(done, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		fprintf(stderr, "hostile: cannot create %s: %s\n", done,
			strerror(errno));
		return -1;
	}
	close(fd);
	while (!file_exists(checked)) {
		if (file_exists(step_abort) || now_ms() > deadline) {
			fprintf(stderr, "hostile: no check of case %s came\n",
				name);
			return -1;
		}
		usleep(100000);
	}
	return 0;
}

/* What one fuzzing process did, for the total over -j jobs. */
struct fuzz_tally {
	unsigned long sent, replies, checks, reconnects;
	int failed;
};

static int run_fuzz(const char *server, uint64_t seed, const char *label,
		    struct fuzz_tally *tally)
{
	static struct msg m, held;
	struct fuzz f = { .rng = { seed }, .seed = seed, .label = label };
	long long start = now_ms(), end = start + fuzz_seconds * 1000LL;
	struct conn c;
	bool holding = false;
	double secs;
	int rc = 0;

	f.xid = (uint32_t)fuzz_rand(&f.rng);
	if (conn_open(&c, server, false, false, PDATA_HONEST)) {
		printf("fuzz-live: %s: cannot connect to %s; seed %llu: FAILED\n",
		       label, server, (unsigned long long)seed);
		fflush(stdout);
		tally->failed = 1;
		return 2;
	}
	while (f.sent < fuzz_count && (!fuzz_seconds || now_ms() < end)) {
		unsigned int t = fuzz_below(&f.rng, FZ_NR_TEMPLATES);
		char *h = f.history[f.sent % FUZZ_HISTORY];
		uint32_t xid = f.xid++;
		size_t hlen;
		int n;

		if (c.closed && fz_reconnect(&c, server, &f)) {
			rc = 1;
			break;
		}
		memset(&m, 0, sizeof(m));
		m.conn = &c;
		fz_templates[t].build(&m, xid);
		hlen = m.len - fz_templates[t].body;
		n = snprintf(h, sizeof(f.history[0]), "#%lu %s xid %08x:",
			     f.sent, fz_templates[t].name, xid);
		/* Within one slot, as before messages could grow past it. */
		m.len = fuzz_mutate(&f.rng, m.buf, m.len, HOSTILE_BUF_SIZE,
				    hlen + 8, h + n, sizeof(f.history[0]) - n);
		if (verbose)
			fprintf(stderr, "%s\n", h);
		f.sent++;
		/* Now and then one twice, or two the other way round. */
		if (!fuzz_below(&f.rng, 32)) {
			if (fz_send(&c, &f, m.buf, m.len)) {
				rc = 1;
				break;
			}
		}
		if (!holding && !fuzz_below(&f.rng, 32)) {
			held = m;
			holding = true;
		} else {
			if (fz_send(&c, &f, m.buf, m.len) ||
			    (holding && fz_send(&c, &f, held.buf, held.len))) {
				rc = 1;
				break;
			}
			holding = false;
		}
		fz_reap(&c, &f);
		if (f.sent % FUZZ_CHECK_EVERY == 0 && fz_check(&c, server, &f)) {
			rc = 1;
			break;
		}
	}
	if (!rc && fz_check(&c, server, &f))
		rc = 1;
	secs = (now_ms() - start) / 1000.0;
	printf("fuzz-live: %s: %lu mutated messages in %.1f s (%.0f/s); %lu replies, %lu NULL checks answered, %lu reconnects; seed %llu: %s\n",
	       label, f.sent, secs, secs > 0 ? f.sent / secs : 0.0, f.replies,
	       f.checks, f.reconnects, (unsigned long long)seed,
	       rc ? "FAILED" : "ok");
	fflush(stdout);
	conn_close(&c);
	*tally = (struct fuzz_tally){ f.sent, f.replies, f.checks,
				      f.reconnects, rc };
	return rc;
}

/*
 * -j JOBS: that many fuzzing processes at once, each on its own
 * connection with its own seed (SEED, SEED+1, ...) and its share of the
 * messages.  The guests take turns on the emulated link, so one
 * connection leaves the server idle while each message and reconnect
 * travels; several keep it busy.  Each job's line names its seed, which
 * replays that job's messages (not their interleaving with the others').
 * The last line is the total, in the one-job format the tests parse.
 */
static int run_fuzz_jobs(const char *server, uint64_t seed, int jobs)
{
	unsigned long count = fuzz_count, share;
	struct fuzz_tally t, sum = { 0 };
	long long start = now_ms();
	int k, status, pipefd[2];
	char label[32];
	double secs;
	pid_t pid;

	if (jobs == 1)
		return run_fuzz(server, seed, "svcrdma", &t);
	if (pipe(pipefd)) {
		perror("hostile: pipe");
		return 2;
	}
	fflush(stdout);
	for (k = 0; k < jobs; k++) {
		share = count / jobs + ((unsigned long)k < count % jobs);
		pid = fork();
		if (pid < 0) {
			perror("hostile: fork");
			sum.failed = 1;
			break;
		}
		if (pid == 0) {
			/* Killed with the parent (the test's timeout). */
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			close(pipefd[0]);
			fuzz_count = share;
			snprintf(label, sizeof(label), "svcrdma job %d", k);
			memset(&t, 0, sizeof(t));
			run_fuzz(server, seed + k, label, &t);
			if (write(pipefd[1], &t, sizeof(t)) != sizeof(t))
				_exit(2);
			_exit(t.failed ? 1 : 0);
		}
	}
	close(pipefd[1]);
	while (read(pipefd[0], &t, sizeof(t)) == sizeof(t)) {
		sum.sent += t.sent;
		sum.replies += t.replies;
		sum.checks += t.checks;
		sum.reconnects += t.reconnects;
		sum.failed |= t.failed;
	}
	close(pipefd[0]);
	/* A job that died before reporting fails the run too. */
	while ((pid = wait(&status)) > 0)
		if (!WIFEXITED(status) || WEXITSTATUS(status))
			sum.failed = 1;
	secs = (now_ms() - start) / 1000.0;
	printf("fuzz-live: svcrdma: %lu mutated messages in %.1f s (%.0f/s); %lu replies, %lu NULL checks answered, %lu reconnects; seed %llu, %d jobs: %s\n",
	       sum.sent, secs, secs > 0 ? sum.sent / secs : 0.0, sum.replies,
	       sum.checks, sum.reconnects, (unsigned long long)seed, jobs,
	       sum.failed ? "FAILED" : "ok");
	fflush(stdout);
	return sum.failed ? 1 : 0;
}

int main(int argc, char **argv)
{
	int opt, failed = 0, ran = 0, rc, jobs = 1;
	char failed_names[512] = "";	/* every case name fits */
	bool fuzz = false;
	uint64_t seed = 0;
	const char *server;
	size_t i;

	while ((opt = getopt(argc, argv, "vp:w:s:H:DMF:n:T:j:S:X:")) != -1) {
		switch (opt) {
		case 'S':
			step_prefix = optarg;
			break;
		case 'X':
			step_abort = optarg;
			break;
		case 'F':
			fuzz = true;
			seed = strtoull(optarg, NULL, 10);
			break;
		case 'n':
			fuzz_count = strtoul(optarg, NULL, 10);
			break;
		case 'T':
			fuzz_seconds = atoi(optarg);
			break;
		case 'j':
			jobs = atoi(optarg);
			if (jobs < 1 || jobs > 64)
				goto usage;
			break;
		case 'D':
			/* What nomsg-data-chunk writes to p0-target. */
			for (i = 0; i < HOSTILE_DATA_LEN; i++)
				putchar(data_byte(i));
			return 0;
		case 'M':
			/* What read-many-segs leaves in p0-many. */
			for (i = 0; i < (HOSTILE_MANY_COPIES - 1) *
					HOSTILE_MANY_BLOCK + HOSTILE_DATA_LEN; i++)
				putchar(i % HOSTILE_MANY_BLOCK < HOSTILE_DATA_LEN ?
					data_byte(i % HOSTILE_MANY_BLOCK) : 0);
			return 0;
		case 'v':
			verbose = 1;
			break;
		case 'p':
			port = optarg;
			break;
		case 'w':
			wait_ms = atoi(optarg);
			break;
		case 's':
			stall_ms = atoi(optarg);
			break;
		case 'H':
			hold_ms = atoi(optarg);
			break;
		default:
			goto usage;
		}
	}
	if (optind >= argc)
		goto usage;
	server = argv[optind++];
	if (fuzz)
		return run_fuzz_jobs(server, seed, jobs);
	next_xid ^= (uint32_t)getpid() << 8;

	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int j, want = optind >= argc && !cases[i].stall &&
			      !cases[i].conns;

		for (j = optind; j < argc; j++)
			if (!strcmp(argv[j], cases[i].name))
				want = 1;
		if (!want)
			continue;
		rc = run_case(server, &cases[i]);
		if (rc < 0)
			return 2;
		failed += rc;
		if (rc)
			snprintf(failed_names + strlen(failed_names),
				 sizeof(failed_names) - strlen(failed_names),
				 " %s", cases[i].name);
		ran++;
		fflush(stdout);
		if (step_prefix && step_wait(cases[i].name))
			return 2;
	}
	/*
	 * The failed cases' names again on the last line: a harness that
	 * shows only the tail of a long log still says which case failed.
	 */
	printf("hostile: %d cases, %d failed%s%s\n", ran, failed,
	       failed ? ":" : "", failed_names);
	return failed ? 1 : 0;

usage:
	fprintf(stderr, "usage: hostile [-v] [-p PORT] [-w MS] [-s MS] [-H MS] [-S PREFIX [-X FILE]] SERVER [CASE...]\n"
		"       hostile [-v] [-p PORT] [-w MS] -F SEED [-n COUNT] [-T SECONDS] [-j JOBS] SERVER\n"
		"       hostile -D | -M\n");
	for (i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		fprintf(stderr, "  %-18s %s%s\n", cases[i].name, cases[i].what,
			cases[i].stall || cases[i].conns ?
			" (on request only)" : "");
	return 2;
}
