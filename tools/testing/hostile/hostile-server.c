// SPDX-License-Identifier: GPL-2.0
/*
 * hostile-server: an RPC-over-RDMA Version 1 responder that is honest
 * until told otherwise, for testing the client transport (xprtrdma.ko).
 *
 * Design.  It listens with librdmacm (default port 20049), accepts each
 * client connection (RFC 8797 private data read and answered) and proxies
 * it to a real NFS server over TCP (default 127.0.0.1:2049), one TCP
 * connection per RDMA connection:
 *
 *   client -> RDMA_MSG / RDMA_NOMSG call -> (RDMA Read of every Read chunk,
 *   Position-zero included; the RPC record reassembled, XDR pads put back)
 *   -> TCP record -> knfsd -> TCP record -> reply, sent inline when it fits
 *   the client's receive size; otherwise a READ-style reply has its data
 *   item (the opaque that ends the reply) RDMA Written into the call's
 *   Write chunk, and anything else goes by RDMA Write into the Reply chunk
 *   as RDMA_NOMSG.
 *
 * NFSv4.1 backchannel calls that knfsd sends on the TCP connection are
 * forwarded to the client as backward-direction RDMA_MSG Calls (RFC 8167)
 * and the client's replies go back on the TCP connection.
 *
 * Connection-manager cases drop the connection of the call they fire on
 * and answer the client's next connection request with a REJECT or with
 * crafted private data (pdata.c), or accept it and then never answer
 * anything on it, or send the dropped call's real reply first thing on
 * it.  Any message longer than the receive size the
 * client may assume from our private data (1 KiB without valid RFC 8797
 * data) is logged as a VIOLATION.
 *
 * Every codec step (headers in and out, private data) goes through the
 * project's one codec, nfsrdma/wire.h; only the deliberately malformed
 * headers are put together word by word.
 *
 * Cue.  A case is armed either with -x CASE on the command line or by
 * creating an empty file "hs.cue.CASE" in the control directory (-C DIR);
 * the server notices it within 200 ms, removes it and creates
 * "hs.armed.CASE".  An armed case picks the next call that matches its
 * selector (a call whose RPC bytes contain the marker string, default
 * "HOSTILE", optionally only one that offered no chunk for its reply or
 * only one that offered a Reply chunk; a call that offered a Write chunk,
 * or only one whose Write chunk starts with a segment that is not a whole
 * number of XDR words; or one that offered a Reply chunk), answers that ONE call with its crafted message(s) instead
 * of (or around) the real reply, creates "hs.fired.CASE" and disarms.
 * "hs.cue.none" disarms.  The control directory may be shared between
 * VMs (the test harness's /results); only file names carry information.
 *
 * Usage: hostile-server [-v] [-p PORT] [-t HOST:PORT] [-C DIR] [-m MARKER]
 *                       [-x CASE] [-l] [-F SEED [-n COUNT]]
 *   -l lists the cases.  -F fuzzes (see fuzz_reply()).  Runs until
 *   killed.  Log lines go to stdout.
 */

#define _GNU_SOURCE	/* memmem */
#include <arpa/inet.h>
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <signal.h>
#include <stdarg.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include <infiniband/verbs.h>
#include <rdma/rdma_cma.h>

#include "nfsrdma/wire.h"

#include "fuzz.h"
#include "pdata.h"

#define HS_INLINE		4096	/* our receive buffer size */
/*
 * Our send buffer size, advertised as such: a client whose receive
 * buffers are larger (rdma_max_inline_read raised) gets replies of up to
 * this much inline, so a call can go without a Reply chunk on one
 * connection and need one on the next (security-review-zero-retrans).
 */
#define HS_SEND_INLINE		16384
#define HS_RECV_DEPTH		160	/* > the client's 128 slots + backchannel */
#define HS_SEND_SLOTS		64
#define HS_MAX_GRANT		64
#define HS_STAGE_SIZE		(4u << 20)	/* RDMA Read / Write staging */
#define HS_MAX_RECORD		(4u << 20)
#define HS_MAX_CONNS		8
#define HS_SQ_DEPTH		(HS_SEND_SLOTS + 2 * NFSRDMA_WIRE_MAX_SEGS + 16)
#define HS_OP_TIMEOUT_MS	30000

#define RPC_CALL		0
#define RPC_REPLY		1

#define WRID_SEND		0x1000000000ULL
#define WRID_RDMA		0x2000000000ULL

struct hs_call {
	struct hs_call *next;
	__be32 xid;
	const struct hs_case *hc;	/* armed case for this call, or NULL */
	bool fuzz;			/* mutated messages go before its reply */
	u32 nr_write;			/* Write chunks offered (we use the first) */
	u32 wsegs_n;
	struct nfsrdma_wire_seg wsegs[NFSRDMA_WIRE_MAX_CHUNK_SEGS];
	bool has_reply;
	u32 rsegs_n;
	struct nfsrdma_wire_seg rsegs[NFSRDMA_WIRE_MAX_CHUNK_SEGS];
};

struct hs_conn {
	bool used, established, dead;
	bool starve;			/* receives are no longer reposted */
	bool silent;			/* accepted, and never answers */
	bool flap;			/* dropped at its first call after a reply */
	unsigned int replies;		/* replies sent on it */
	u32 early_left;			/* calls still to precede with early replies */
	struct nfsrdma_wire_seg early_seg;	/* the stale Reply chunk they name */
	struct hs_call *held;		/* inv-other: call whose reply waits for */
	uint8_t *held_rec;		/* another call with a chunk, and that */
	size_t held_len;		/* reply */
	unsigned int serial;
	struct rdma_cm_id *id;
	struct ibv_pd *pd;
	struct ibv_comp_channel *rch;
	struct ibv_cq *rcq, *scq;
	struct ibv_mr *recv_mr, *send_mr, *stage_mr;
	uint8_t *recv_buf, *send_buf, *stage;
	unsigned int send_next, sends_out;
	u32 peer_recv;			/* client's receive buffer size */
	u32 max_inline;			/* largest Send the client accepts */
	u32 adv_recv;			/* receive size the client may assume */
	u32 want_credits;		/* what the client asked for last */
	int tcp;
	uint8_t *tbuf;			/* TCP record reassembly */
	size_t tlen, tcap;
	struct hs_call *calls;
};

/* What a case is handed when it fires. */
struct hs_act {
	struct hs_conn *c;
	struct hs_call *call;
	const uint8_t *rec;		/* the real reply, or NULL if not forwarded */
	size_t len;
};

enum hs_sel {
	SEL_MARKER,	/* RPC bytes contain the marker string */
	SEL_WRITE,	/* offered a Write chunk */
	SEL_REPLY,	/* offered a Reply chunk */
	SEL_PLAIN,	/* contains the marker, offered no Write or Reply chunk */
	SEL_MREPLY,	/* contains the marker and offered a Reply chunk */
	SEL_WRITE_ODD,	/* offered a Write chunk for a READ that is not a
			 * whole number of XDR words (an odd O_DIRECT READ):
			 * an odd first segment, or an odd count */
	SEL_READLINK,	/* an NFS READLINK offering no Write or Reply chunk */
};

struct hs_case {
	const char *name;
	const char *what;
	enum hs_sel sel;
	bool forward;	/* pass the call to the NFS server first */
	void (*fire)(struct hs_act *a);
};

static int verbose;
static const char *listen_port = "20049";
static const char *target = "127.0.0.1:2049";
static const char *ctl_dir;
static const char *marker = "HOSTILE";
static const struct hs_case *armed;
static struct hs_conn conns[HS_MAX_CONNS];
static unsigned int conn_serial;
static struct nfsrdma_wire_hdr rx_hdr;	/* decode scratch, ~10 KiB */
static struct nfsrdma_wire_hdr tx_hdr;	/* encode scratch */

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	struct timespec ts;
	va_list ap;

	clock_gettime(CLOCK_REALTIME, &ts);
	printf("[%ld.%03ld] hostile-server: ", (long)ts.tv_sec % 100000,
	       ts.tv_nsec / 1000000);
	va_start(ap, fmt);
	vprintf(fmt, ap);
	va_end(ap);
	putchar('\n');
	fflush(stdout);
}

#define dbg(...) do { if (verbose) say(__VA_ARGS__); } while (0)

static long long now_ms(void)
{
	struct timespec ts;

	clock_gettime(CLOCK_MONOTONIC, &ts);
	return ts.tv_sec * 1000LL + ts.tv_nsec / 1000000;
}

static u32 get32(const uint8_t *p)
{
	uint32_t v;

	memcpy(&v, p, 4);
	return ntohl(v);
}

static void set32(uint8_t *p, u32 v)
{
	uint32_t be = htonl(v);

	memcpy(p, &be, 4);
}

static u32 xdr_round(u32 n)
{
	return (n + 3) & ~3u;
}

/* ---- control directory ------------------------------------------------ */

static void ctl_touch(const char *what, const char *name)
{
	char path[512];
	int fd;

	if (!ctl_dir)
		return;
	snprintf(path, sizeof(path), "%s/hs.%s.%s", ctl_dir, what, name);
	fd = open(path, O_CREAT | O_WRONLY | O_TRUNC, 0644);
	if (fd >= 0)
		close(fd);
}

/* ---- sends and RDMA operations ---------------------------------------- */

static void conn_fail(struct hs_conn *c, const char *why)
{
	if (!c->dead)
		say("conn %u: %s; disconnecting", c->serial, why);
	c->dead = true;
}

/* Reap send-queue completions; returns -1 on a failed work request. */
static int scq_reap(struct hs_conn *c, bool *rdma_done)
{
	struct ibv_wc wc[16];
	int n, i, rc = 0;

	while ((n = ibv_poll_cq(c->scq, 16, wc)) > 0) {
		for (i = 0; i < n; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				say("conn %u: %s completion: %s", c->serial,
				    wc[i].wr_id & WRID_RDMA ? "RDMA" : "Send",
				    ibv_wc_status_str(wc[i].status));
				rc = -1;
			}
			if (wc[i].wr_id & WRID_SEND)
				c->sends_out--;
			else if ((wc[i].wr_id & WRID_RDMA) && rdma_done)
				*rdma_done = true;
		}
	}
	return n < 0 ? -1 : rc;
}

/* Post a chain of RDMA Reads or Writes, the last one signalled, and wait. */
static int rdma_chain(struct hs_conn *c, struct ibv_send_wr *wrs,
		      struct ibv_sge *sges, unsigned int n)
{
	struct ibv_send_wr *bad;
	long long deadline;
	bool done = false;
	unsigned int i;

	if (!n)
		return 0;
	for (i = 0; i < n; i++) {
		wrs[i].sg_list = &sges[i];
		wrs[i].num_sge = 1;
		wrs[i].next = i + 1 < n ? &wrs[i + 1] : NULL;
		wrs[i].wr_id = i + 1 < n ? 0 : WRID_RDMA;
		wrs[i].send_flags = i + 1 < n ? 0 : IBV_SEND_SIGNALED;
	}
	if (ibv_post_send(c->id->qp, wrs, &bad)) {
		conn_fail(c, "cannot post RDMA work requests");
		return -1;
	}
	deadline = now_ms() + HS_OP_TIMEOUT_MS;
	while (!done) {
		if (scq_reap(c, &done)) {
			conn_fail(c, "RDMA operation failed");
			return -1;
		}
		if (done)
			break;
		if (now_ms() > deadline) {
			conn_fail(c, "RDMA operation timed out");
			return -1;
		}
		usleep(50);
	}
	return 0;
}

/*
 * Pull @segs into @dst (registered, within c->stage), in RDMA Reads of at
 * most HS_READ_PIECE bytes, HS_READ_BATCH of them in flight.  Under
 * soft-RoCE a Read of a whole 256 KiB segment waited out an RDMA retry
 * timeout (2.3 s) in 106 of 225 large WRITEs of xprt-hostile; in 64 KiB
 * pieces, 15 of 233 did, and the test ran 2.3 minutes shorter.
 */
#define HS_READ_PIECE	(64u << 10)
#define HS_READ_BATCH	16

static int rdma_read_segs(struct hs_conn *c, const struct nfsrdma_wire_read_seg *rs,
			  unsigned int n, uint8_t *dst)
{
	static struct ibv_send_wr wrs[HS_READ_BATCH];
	static struct ibv_sge sges[HS_READ_BATCH];
	unsigned int i, k = 0;
	u32 off, take;

	for (i = 0; i < n; i++) {
		for (off = 0; off < rs[i].seg.length; off += take) {
			take = rs[i].seg.length - off;
			if (take > HS_READ_PIECE)
				take = HS_READ_PIECE;
			memset(&wrs[k], 0, sizeof(wrs[k]));
			sges[k].addr = (uintptr_t)(dst + off);
			sges[k].length = take;
			sges[k].lkey = c->stage_mr->lkey;
			wrs[k].opcode = IBV_WR_RDMA_READ;
			wrs[k].wr.rdma.remote_addr = rs[i].seg.offset + off;
			wrs[k].wr.rdma.rkey = rs[i].seg.handle;
			if (++k == HS_READ_BATCH) {
				if (rdma_chain(c, wrs, sges, k))
					return -1;
				k = 0;
			}
		}
		dst += rs[i].seg.length;
	}
	return rdma_chain(c, wrs, sges, k);
}

/*
 * RDMA Write @len bytes from @src (within c->stage) into the chunk @segs;
 * @out gets the chunk as it is reported back (lengths actually written).
 */
static int rdma_write_chunk(struct hs_conn *c, const struct nfsrdma_wire_seg *segs,
			    u32 nsegs, const uint8_t *src, u32 len,
			    struct nfsrdma_wire_seg *out)
{
	static struct ibv_send_wr wrs[NFSRDMA_WIRE_MAX_CHUNK_SEGS];
	static struct ibv_sge sges[NFSRDMA_WIRE_MAX_CHUNK_SEGS];
	unsigned int i, n = 0;
	u32 left = len, take;

	for (i = 0; i < nsegs; i++) {
		take = left < segs[i].length ? left : segs[i].length;
		out[i] = segs[i];
		out[i].length = take;
		if (!take)
			continue;
		memset(&wrs[n], 0, sizeof(wrs[n]));
		sges[n].addr = (uintptr_t)src;
		sges[n].length = take;
		sges[n].lkey = c->stage_mr->lkey;
		wrs[n].opcode = IBV_WR_RDMA_WRITE;
		wrs[n].wr.rdma.remote_addr = segs[i].offset;
		wrs[n].wr.rdma.rkey = segs[i].handle;
		n++;
		src += take;
		left -= take;
	}
	if (left) {
		say("conn %u: %u bytes do not fit the chunk", c->serial, len);
		return -1;
	}
	return rdma_chain(c, wrs, sges, n);
}

/*
 * Send header + body as one message (either may be empty), followed by
 * @pad bytes of the staging buffer (a message larger than any receive
 * buffer), as a Send With Invalidate of @inv_rkey if @inv.
 */
static int post_send(struct hs_conn *c, const void *hdr, size_t hlen,
		     const void *body, size_t blen, u32 pad, bool inv,
		     u32 inv_rkey)
{
	unsigned int slot;
	uint8_t *dst;
	struct ibv_sge sge[2];
	struct ibv_send_wr wr = { 0 }, *bad;
	long long deadline = now_ms() + HS_OP_TIMEOUT_MS;

	if (c->dead)
		return -1;
	if (hlen + blen > HS_SEND_INLINE || pad > HS_STAGE_SIZE) {
		say("conn %u: %zu-byte message (and %u of padding) too large to send",
		    c->serial, hlen + blen, pad);
		return -1;
	}
	while (c->sends_out >= HS_SEND_SLOTS) {
		if (scq_reap(c, NULL) || now_ms() > deadline) {
			conn_fail(c, "Send failed or stuck");
			return -1;
		}
		usleep(50);
	}
	slot = c->send_next++ % HS_SEND_SLOTS;
	dst = c->send_buf + (size_t)slot * HS_SEND_INLINE;
	if (hlen)
		memcpy(dst, hdr, hlen);
	if (blen)
		memcpy(dst + hlen, body, blen);
	sge[0].addr = (uintptr_t)dst;
	sge[0].length = hlen + blen;
	sge[0].lkey = c->send_mr->lkey;
	sge[1].addr = (uintptr_t)c->stage;
	sge[1].length = pad;
	sge[1].lkey = c->stage_mr->lkey;
	wr.wr_id = WRID_SEND | slot;
	wr.sg_list = sge;
	wr.num_sge = pad ? 2 : hlen + blen ? 1 : 0;
	wr.opcode = inv ? IBV_WR_SEND_WITH_INV : IBV_WR_SEND;
	wr.invalidate_rkey = inv_rkey;
	wr.send_flags = IBV_SEND_SIGNALED;
	if (ibv_post_send(c->id->qp, &wr, &bad)) {
		conn_fail(c, "cannot post a Send");
		return -1;
	}
	c->sends_out++;
	return 0;
}

static int send_msg(struct hs_conn *c, const void *hdr, size_t hlen,
		    const void *body, size_t blen)
{
	return post_send(c, hdr, hlen, body, blen, 0, false, 0);
}

static u32 grant(struct hs_conn *c)
{
	u32 g = c->want_credits;

	if (c->early_left)
		return 1;	/* keep the client's calls queued for credits */
	if (g < 1)
		g = 1;
	if (g > HS_MAX_GRANT)
		g = HS_MAX_GRANT;
	return g;
}

static void hdr_init(struct nfsrdma_wire_hdr *h, __be32 xid, u32 credits,
		     u32 proc)
{
	memset(h, 0, offsetof(struct nfsrdma_wire_hdr, read));
	h->xid = xid;
	h->vers = NFSRDMA_WIRE_VERSION;
	h->credits = credits;
	h->proc = proc;
}

/* Encode tx_hdr and send it with @body inline. */
static int send_hdr(struct hs_conn *c, const void *body, size_t blen)
{
	uint8_t buf[HS_INLINE];
	int hl = nfsrdma_wire_encode(buf, sizeof(buf), &tx_hdr);

	if (hl < 0) {
		say("conn %u: cannot encode a reply header: %d", c->serial, hl);
		return -1;
	}
	return send_msg(c, buf, hl, body, blen);
}

/*
 * Where the data item of a READ-style reply sits: the opaque that ends
 * the reply (NFSv3 READ3resok, NFSv4 READ as the last operation of the
 * COMPOUND).  The first XDR word, scanning from the front, whose value n
 * satisfies off + 4 + roundup(n) == len is taken as its length.
 */
static bool find_data_item(const uint8_t *rec, size_t len, u32 cap,
			   u32 *off, u32 *n)
{
	size_t o;

	for (o = 24; o + 4 <= len; o += 4) {
		u32 v = get32(rec + o);

		if (v && v <= cap && o + 4 + (size_t)xdr_round(v) == len) {
			*off = o;
			*n = v;
			return true;
		}
	}
	return false;
}

static u32 chunk_cap(const struct nfsrdma_wire_seg *s, u32 n)
{
	u64 sum = 0;
	u32 i;

	for (i = 0; i < n; i++)
		sum += s[i].length;
	return sum > UINT32_MAX ? UINT32_MAX : (u32)sum;
}

/*
 * The honest reply: inline if it fits, else the data item by Write chunk,
 * else the whole reply by Reply chunk.  @xid and @credits are what the
 * header says (cases bend them).
 */
static int send_reply_as(struct hs_conn *c, const struct hs_call *call,
			 const uint8_t *rec, size_t len, __be32 xid, u32 credits)
{
	uint8_t hbuf[NFSRDMA_WIRE_MAX_HDR_SIZE];
	u32 off, n;
	int hl;

	hdr_init(&tx_hdr, xid, credits, NFSRDMA_WIRE_PROC_MSG);
	hl = nfsrdma_wire_encode(hbuf, sizeof(hbuf), &tx_hdr);
	if (hl > 0 && hl + len <= c->max_inline)
		return send_msg(c, hbuf, hl, rec, len);

	if (call->nr_write && call->wsegs_n &&
	    find_data_item(rec, len, chunk_cap(call->wsegs, call->wsegs_n),
			   &off, &n)) {
		size_t tail = off + 4 + xdr_round(n);
		size_t ilen = off + 4 + (len - tail);

		if (ilen + 16 + 16 * call->wsegs_n + 28 <= c->max_inline) {
			memcpy(c->stage, rec + off + 4, n);
			tx_hdr.nr_write = 1;
			tx_hdr.write[0].first = 0;
			tx_hdr.write[0].nr_segs = call->wsegs_n;
			if (rdma_write_chunk(c, call->wsegs, call->wsegs_n,
					     c->stage, n, tx_hdr.segs))
				return -1;
			/* inline: everything but the data bytes and their pad */
			memcpy(c->stage, rec, off + 4);
			memcpy(c->stage + off + 4, rec + tail, len - tail);
			dbg("xid %08x: %u data bytes by Write chunk", ntohl(xid), n);
			return send_hdr(c, c->stage, ilen);
		}
	}
	if (call->has_reply) {
		if (len > chunk_cap(call->rsegs, call->rsegs_n)) {
			say("conn %u: %zu-byte reply exceeds the Reply chunk",
			    c->serial, len);
			return -1;
		}
		memcpy(c->stage, rec, len);
		tx_hdr.proc = NFSRDMA_WIRE_PROC_NOMSG;
		tx_hdr.has_reply = true;
		tx_hdr.reply.first = 0;
		tx_hdr.reply.nr_segs = call->rsegs_n;
		if (rdma_write_chunk(c, call->rsegs, call->rsegs_n, c->stage,
				     len, tx_hdr.segs))
			return -1;
		dbg("xid %08x: %zu bytes by Reply chunk", ntohl(xid), len);
		return send_hdr(c, NULL, 0);
	}
	say("conn %u: %zu-byte reply to xid %08x fits no inline buffer and no chunk",
	    c->serial, len, ntohl(xid));
	return -1;
}

static int send_reply(struct hs_conn *c, const struct hs_call *call,
		      const uint8_t *rec, size_t len)
{
	c->replies++;
	return send_reply_as(c, call, rec, len, call->xid, grant(c));
}

/* ---- crafted messages ------------------------------------------------- */

struct raw {
	uint8_t b[HS_INLINE];
	size_t len;
};

static void put(struct raw *m, u32 v)
{
	if (m->len + 4 <= sizeof(m->b)) {
		set32(m->b + m->len, v);
		m->len += 4;
	}
}

static void put_seg(struct raw *m, const struct nfsrdma_wire_seg *s, u32 len)
{
	put(m, s->handle);
	put(m, len);
	put(m, s->offset >> 32);
	put(m, (u32)s->offset);
}

/*
 * A chunk's segment count and its segments, each claiming as much of
 * @claim bytes as it can hold: what a server that wrote @claim bytes
 * would return, whether or not it did.
 */
static void put_claim(struct raw *m, const struct nfsrdma_wire_seg *segs,
		      u32 nsegs, u32 claim)
{
	u32 i;

	put(m, nsegs);
	for (i = 0; i < nsegs; i++) {
		u32 take = claim < segs[i].length ? claim : segs[i].length;

		put_seg(m, &segs[i], take);
		claim -= take;
	}
}

static void put_fixed(struct raw *m, struct hs_act *a, u32 vers, u32 proc)
{
	memcpy(m->b + m->len, &a->call->xid, 4);
	m->len += 4;
	put(m, vers);
	put(m, grant(a->c));
	put(m, proc);
}

static void send_raw(struct hs_act *a, const struct raw *m, const void *body,
		     size_t blen)
{
	if (m->len + blen > a->c->max_inline)
		blen = a->c->max_inline > m->len ? a->c->max_inline - m->len : 0;
	send_msg(a->c, m->b, m->len, body, blen);
}

/* A minimal accepted-SUCCESS RPC reply for the call, when none is real. */
static const uint8_t *fake_body(struct hs_act *a, size_t *len)
{
	static uint8_t b[24];

	memcpy(b, &a->call->xid, 4);
	set32(b + 4, RPC_REPLY);
	set32(b + 8, 0);	/* MSG_ACCEPTED */
	set32(b + 12, 0);	/* verifier AUTH_NONE */
	set32(b + 16, 0);
	set32(b + 20, 0);	/* SUCCESS */
	*len = sizeof(b);
	return b;
}

static const uint8_t *body_of(struct hs_act *a, size_t *len)
{
	if (a->rec) {
		*len = a->len;
		return a->rec;
	}
	return fake_body(a, len);
}

/*
 * The real reply with the data item cut out, as it would travel inline
 * beside a Write chunk; @n gets the data item's length.
 */
static const uint8_t *head_of(struct hs_act *a, size_t *len, u32 *n)
{
	static uint8_t b[HS_INLINE];
	u32 off;

	*n = 0;
	if (a->rec && find_data_item(a->rec, a->len, UINT32_MAX, &off, n) &&
	    off + 4 <= sizeof(b)) {
		memcpy(b, a->rec, off + 4);
		*len = off + 4;
		return b;
	}
	return body_of(a, len);
}

static void c_unknown_xid(struct hs_act *a)
{
	uint8_t *copy = malloc(a->len);
	__be32 bogus = a->call->xid ^ htonl(0x5a5a0000);

	if (!copy)
		return;
	memcpy(copy, a->rec, a->len);
	memcpy(copy, &bogus, 4);
	send_reply_as(a->c, a->call, copy, a->len, bogus, grant(a->c));
	free(copy);
	send_reply(a->c, a->call, a->rec, a->len);
}

static void c_dup_reply(struct hs_act *a)
{
	send_reply(a->c, a->call, a->rec, a->len);
	send_reply(a->c, a->call, a->rec, a->len);
}

static void c_credits(struct hs_act *a, u32 credits)
{
	send_reply_as(a->c, a->call, a->rec, a->len, a->call->xid, credits);
}

static void c_credits_0(struct hs_act *a) { c_credits(a, 0); }
static void c_credits_1(struct hs_act *a) { c_credits(a, 1); }
static void c_credits_huge(struct hs_act *a) { c_credits(a, 0xffffffff); }

static void msg_with_empty_lists(struct hs_act *a, u32 vers, u32 proc)
{
	struct raw m = { .len = 0 };
	const uint8_t *b;
	size_t bl;

	put_fixed(&m, a, vers, proc);
	if (proc == NFSRDMA_WIRE_PROC_MSGP) {
		put(&m, 8);	/* rdma_align */
		put(&m, 1024);	/* rdma_thresh */
	}
	put(&m, 0);
	put(&m, 0);
	put(&m, 0);
	b = body_of(a, &bl);
	send_raw(a, &m, b, bl);
}

static void c_bad_version(struct hs_act *a)
{
	msg_with_empty_lists(a, 2, NFSRDMA_WIRE_PROC_MSG);
}

static void c_unknown_proc(struct hs_act *a)
{
	msg_with_empty_lists(a, NFSRDMA_WIRE_VERSION, 7);
}

static void c_msgp(struct hs_act *a)
{
	msg_with_empty_lists(a, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSGP);
}

static void c_done(struct hs_act *a)
{
	struct raw m = { .len = 0 };

	put_fixed(&m, a, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_DONE);
	send_raw(a, &m, NULL, 0);
}

/* Three bytes of junk (no XID to blame), then the real reply. */
static void c_short_header(struct hs_act *a)
{
	static const uint8_t junk[3] = { 0xde, 0xad, 0xbe };

	send_msg(a->c, junk, sizeof(junk), NULL, 0);
	send_reply(a->c, a->call, a->rec, a->len);
}

/* XID, version and credits, but no procedure. */
static void c_short_fixed(struct hs_act *a)
{
	struct raw m = { .len = 0 };

	put_fixed(&m, a, NFSRDMA_WIRE_VERSION, 0);
	m.len -= 4;
	send_raw(a, &m, NULL, 0);
}

/* A Write chunk of 50 segments, of which the message holds two. */
static void c_lists_overrun(struct hs_act *a)
{
	static const struct nfsrdma_wire_seg s = { 0x1234, 4096, 0x10000 };
	struct raw m = { .len = 0 };

	put_fixed(&m, a, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put(&m, 0);		/* no Read list */
	put(&m, 1);		/* a Write chunk */
	put(&m, 50);
	put_seg(&m, &s, 4096);
	put_seg(&m, &s, 4096);
	send_raw(a, &m, NULL, 0);
}

/* A Write chunk in the reply to a call that offered none. */
static void c_write_chunk_unoffered(struct hs_act *a)
{
	static const struct nfsrdma_wire_seg s = { 0x1234, 4096, 0x10000 };
	struct raw m = { .len = 0 };
	const uint8_t *b;
	size_t bl;

	put_fixed(&m, a, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put(&m, 0);
	put(&m, 1);
	put(&m, 1);
	put_seg(&m, &s, 512);
	put(&m, 0);		/* end of Write list */
	put(&m, 0);		/* no Reply chunk */
	b = body_of(a, &bl);
	send_raw(a, &m, b, bl);
}

/*
 * A reply header whose Write list is built by @chunks from the call's
 * offered Write chunk, with the real reply minus its data item inline.
 * No data is written: the header lies about it.
 */
static void write_list_reply(struct hs_act *a, void (*chunks)(struct raw *m,
							   struct hs_call *call))
{
	struct raw m = { .len = 0 };
	const uint8_t *b;
	size_t bl;
	u32 n;

	put_fixed(&m, a, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put(&m, 0);
	chunks(&m, a->call);
	put(&m, 0);		/* end of Write list */
	put(&m, 0);		/* no Reply chunk */
	b = head_of(a, &bl, &n);
	send_raw(a, &m, b, bl);
}

static void put_offered(struct raw *m, const struct hs_call *call, u32 extra)
{
	u32 i;

	put(m, 1);
	put(m, call->wsegs_n);
	for (i = 0; i < call->wsegs_n; i++)
		put_seg(m, &call->wsegs[i],
			call->wsegs[i].length + (i ? 0 : extra));
}

static void two_chunks(struct raw *m, struct hs_call *call)
{
	put_offered(m, call, 0);
	put_offered(m, call, 0);
}

static void longer_seg(struct raw *m, struct hs_call *call)
{
	put_offered(m, call, 4096);
}

static void no_segs(struct raw *m, struct hs_call *call)
{
	(void)call;
	put(m, 1);
	put(m, 0);
}

static void overflow_segs(struct raw *m, struct hs_call *call)
{
	put(m, 1);
	put(m, 2);
	put_seg(m, &call->wsegs[0], 0xfffff000);
	put_seg(m, &call->wsegs[0], 0x00002000);
}

static void c_too_many_write_chunks(struct hs_act *a) { write_list_reply(a, two_chunks); }
static void c_seg_len_too_long(struct hs_act *a) { write_list_reply(a, longer_seg); }
static void c_seg_count_0(struct hs_act *a) { write_list_reply(a, no_segs); }
static void c_len_overflow(struct hs_act *a) { write_list_reply(a, overflow_segs); }

/*
 * RDMA_NOMSG whose Reply chunk claims 4 KiB more than the call offered;
 * the real reply is written into the offered chunk first.
 */
static void c_reply_chunk_too_long(struct hs_act *a)
{
	struct hs_call *call = a->call;
	struct nfsrdma_wire_seg out[NFSRDMA_WIRE_MAX_CHUNK_SEGS];
	struct raw m = { .len = 0 };
	u32 i;

	if (a->len > chunk_cap(call->rsegs, call->rsegs_n))
		return;
	memcpy(a->c->stage, a->rec, a->len);
	if (rdma_write_chunk(a->c, call->rsegs, call->rsegs_n, a->c->stage,
			     a->len, out))
		return;
	put_fixed(&m, a, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_NOMSG);
	put(&m, 0);
	put(&m, 0);
	put(&m, 1);
	put(&m, call->rsegs_n);
	for (i = 0; i < call->rsegs_n; i++)
		put_seg(&m, &call->rsegs[i],
			call->rsegs[i].length + (i ? 0 : 4096));
	send_raw(a, &m, NULL, 0);
}

/* An RDMA_NOMSG header whose Reply chunk is the one segment @s, @len long. */
static void nomsg_one_seg(struct hs_act *a, const struct nfsrdma_wire_seg *s,
			  u32 len)
{
	struct raw m = { .len = 0 };

	put_fixed(&m, a, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_NOMSG);
	put(&m, 0);
	put(&m, 0);
	put(&m, 1);
	put(&m, 1);
	put_seg(&m, s, len);
	send_raw(a, &m, NULL, 0);
}

/*
 * RDMA_NOMSG whose Reply chunk is not the one offered: a steering tag the
 * client never registered, the offered address, 512 bytes (within the
 * offered length).  Nothing is written.
 */
static void c_reply_chunk_foreign(struct hs_act *a)
{
	struct nfsrdma_wire_seg s = a->call->rsegs[0];

	s.handle = ~s.handle;
	nomsg_one_seg(a, &s, 512);
}

/* RDMA_NOMSG naming a Reply chunk the call never offered. */
static void c_nomsg_without_reply_chunk(struct hs_act *a)
{
	static const struct nfsrdma_wire_seg s = { 0x1234, 4096, 0x10000 };

	nomsg_one_seg(a, &s, 512);
}

/*
 * The real reply to a READ, but only the first half of its data is RDMA
 * Written while the Write chunk claims all of it.  The client cannot
 * tell: what it hands up for the other half must be zeros, never what
 * its pages held before.
 */
static void c_overclaim_write(struct hs_act *a)
{
	struct hs_call *call = a->call;
	struct nfsrdma_wire_seg out[NFSRDMA_WIRE_MAX_CHUNK_SEGS];
	struct raw m = { .len = 0 };
	const uint8_t *b;
	size_t bl;
	u32 n, off;

	if (!a->rec || !find_data_item(a->rec, a->len, chunk_cap(call->wsegs,
					call->wsegs_n), &off, &n)) {
		say("conn %u: no READ data item to over-claim", a->c->serial);
		send_reply(a->c, call, a->rec, a->len);
		return;
	}
	memcpy(a->c->stage, a->rec + off + 4, n / 2);
	if (rdma_write_chunk(a->c, call->wsegs, call->wsegs_n, a->c->stage,
			     n / 2, out))
		return;
	put_fixed(&m, a, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put(&m, 0);
	put(&m, 1);
	put_claim(&m, call->wsegs, call->wsegs_n, n);
	put(&m, 0);		/* end of Write list */
	put(&m, 0);		/* no Reply chunk */
	b = head_of(a, &bl, &n);
	send_raw(a, &m, b, bl);
}

/*
 * The data of a READ RDMA Written into the first segment of its Write
 * chunk as an RDMA Write with Immediate, which RPC-over-RDMA never uses,
 * then the real reply.  The Write consumes one of the client's receives,
 * and that completion's length is the Write's, far past the end of any
 * receive buffer, whose bytes are still an earlier message's.
 */
static void c_write_imm(struct hs_act *a)
{
	struct hs_call *call = a->call;
	struct ibv_send_wr wr;
	struct ibv_sge sge;
	u32 n, off, take;

	if (!a->rec || !call->wsegs_n ||
	    !find_data_item(a->rec, a->len, chunk_cap(call->wsegs,
						      call->wsegs_n), &off, &n)) {
		say("conn %u: no READ data item to write with immediate",
		    a->c->serial);
		send_reply(a->c, call, a->rec, a->len);
		return;
	}
	take = n < call->wsegs[0].length ? n : call->wsegs[0].length;
	memcpy(a->c->stage, a->rec + off + 4, take);
	memset(&wr, 0, sizeof(wr));
	sge.addr = (uintptr_t)a->c->stage;
	sge.length = take;
	sge.lkey = a->c->stage_mr->lkey;
	wr.opcode = IBV_WR_RDMA_WRITE_WITH_IMM;
	wr.imm_data = htonl(0x484f5354);	/* "HOST" */
	wr.wr.rdma.remote_addr = call->wsegs[0].offset;
	wr.wr.rdma.rkey = call->wsegs[0].handle;
	if (rdma_chain(a->c, &wr, &sge, 1))
		return;
	say("conn %u: xid %08x: %u bytes by RDMA Write with Immediate",
	    a->c->serial, ntohl(call->xid), take);
	send_reply(a->c, call, a->rec, a->len);
}

/*
 * The real reply to a READ whose data item is not a whole number of XDR
 * words, with the item's XDR pad RDMA Written right after it and counted
 * in the Write chunk, as servers built to RFC 5666 did.  The pad bytes
 * are 0xee rather than zeros, so a client that handed them up would show
 * it.  RFC 8166 lets a client offer no room for the pad, but such a
 * server's Write past the chunk would break the connection (after every
 * reconnect): a client that offers no room is logged as a VIOLATION, and
 * answered without the pad.
 */
static void c_write_pad(struct hs_act *a)
{
	struct hs_call *call = a->call;
	struct hs_conn *c = a->c;
	u32 n, off, pad, cap;
	size_t tail, ilen;

	if (!a->rec || !find_data_item(a->rec, a->len, UINT32_MAX, &off, &n)) {
		say("conn %u: no READ data item to pad", c->serial);
		send_reply(c, call, a->rec, a->len);
		return;
	}
	pad = xdr_round(n) - n;
	cap = chunk_cap(call->wsegs, call->wsegs_n);
	if (n + pad > cap) {
		say("VIOLATION: conn %u: xid %08x offers %u bytes for a %u-byte data item and its %u-byte XDR pad",
		    c->serial, ntohl(call->xid), cap, n, pad);
		pad = 0;
	}
	memcpy(c->stage, a->rec + off + 4, n);
	memset(c->stage + n, 0xee, pad);
	hdr_init(&tx_hdr, call->xid, grant(c), NFSRDMA_WIRE_PROC_MSG);
	tx_hdr.nr_write = 1;
	tx_hdr.write[0].first = 0;
	tx_hdr.write[0].nr_segs = call->wsegs_n;
	if (rdma_write_chunk(c, call->wsegs, call->wsegs_n, c->stage, n + pad,
			     tx_hdr.segs))
		return;
	say("conn %u: xid %08x: %u data bytes and %u pad bytes by Write chunk",
	    c->serial, ntohl(call->xid), n, pad);
	/* inline: everything but the data bytes and their pad */
	tail = off + 4 + xdr_round(n);
	ilen = off + 4 + (a->len - tail);
	memcpy(c->stage, a->rec, off + 4);
	memcpy(c->stage + off + 4, a->rec + tail, a->len - tail);
	send_hdr(c, c->stage, ilen);
}

/*
 * Answer this call honestly, then stop reposting receives on the
 * connection: once the ones posted are used up, every Send of the client
 * meets RNR NAKs, retried for ever if it asked for that, and everything
 * behind it on its send queue (LOCAL_INV included) waits.
 */
static void c_starve(struct hs_act *a)
{
	a->c->starve = true;
	send_reply(a->c, a->call, a->rec, a->len);
}

/*
 * Early replies (security-review-early-reply).  The client numbers its
 * calls in sequence and assigns each XID, listing the call for a reply,
 * before the call is marshalled; with one credit granted, its next calls
 * wait there.  So for the next HS_EARLY_CALLS calls after the case fires,
 * each reply grants one credit, and each call received is preceded by
 * RDMA_NOMSG replies to the HS_EARLY_AHEAD XIDs after it, naming the
 * Reply chunk of the call the case fired on, whose registration the
 * client dropped when it took that call's real reply.  A call that has
 * not been marshalled has offered nothing: such a reply must be refused,
 * never judged against what the call's slot offered for an earlier call.
 * XIDs not yet used match nothing and are dropped.  Linux keeps its XID
 * counter in host order and puts it on the wire as it is: the XIDs after
 * a call are counted in the wire bytes read as little-endian.  When the
 * last of those calls has come, or their connection has closed (a refused
 * early reply costs the client its connection), hs.done.security-review-early-reply
 * tells the test.
 */
#define HS_EARLY_CALLS	32
#define HS_EARLY_AHEAD	4

/* The XID @k after @xid in a Linux client's order. */
static __be32 le_xid_add(__be32 xid, u32 k)
{
	uint8_t b[4];
	u32 v;
	__be32 out;

	memcpy(b, &xid, 4);
	v = (b[0] | b[1] << 8 | b[2] << 16 | (u32)b[3] << 24) + k;
	b[0] = v;
	b[1] = v >> 8;
	b[2] = v >> 16;
	b[3] = v >> 24;
	memcpy(&out, b, 4);
	return out;
}

static void early_replies(struct hs_conn *c, __be32 after)
{
	const struct nfsrdma_wire_seg *s = &c->early_seg;
	struct raw m;
	__be32 xid;
	u32 k;

	if (!--c->early_left)
		ctl_touch("done", "security-review-early-reply");
	for (k = 1; k <= HS_EARLY_AHEAD && !c->dead; k++) {
		xid = le_xid_add(after, k);
		m.len = 0;
		memcpy(m.b, &xid, 4);
		m.len = 4;
		put(&m, NFSRDMA_WIRE_VERSION);
		put(&m, 1);
		put(&m, NFSRDMA_WIRE_PROC_NOMSG);
		put(&m, 0);	/* no Read list */
		put(&m, 0);	/* no Write list */
		put(&m, 1);	/* a Reply chunk ... */
		put(&m, 1);	/* ... of one segment */
		put_seg(&m, s, s->length < 512 ? s->length : 512);
		if (send_msg(c, m.b, m.len, NULL, 0))
			return;
	}
}

static void c_early_reply(struct hs_act *a)
{
	a->c->early_seg = a->call->rsegs[0];
	a->c->early_left = HS_EARLY_CALLS;
	send_reply_as(a->c, a->call, a->rec, a->len, a->call->xid, 1);
	early_replies(a->c, a->call->xid);
}

static void err_hdr(struct raw *m, struct hs_act *a, u32 err)
{
	put_fixed(m, a, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_ERROR);
	put(m, err);
}

static void c_err_vers(struct hs_act *a)
{
	struct raw m = { .len = 0 };
	int n = nfsrdma_wire_encode_err_vers(m.b, sizeof(m.b), a->call->xid,
					     grant(a->c), 2, 3);

	if (n > 0) {
		m.len = n;
		send_raw(a, &m, NULL, 0);
	}
}

/*
 * ERR_VERS 2..2 as a server speaking only version 2 may send it: in its
 * own version, with the layout RFC 8166 fixes for every version.
 */
static void c_err_vers_foreign(struct hs_act *a)
{
	struct raw m = { .len = 0 };

	put_fixed(&m, a, 2, NFSRDMA_WIRE_PROC_ERROR);
	put(&m, NFSRDMA_WIRE_ERR_VERS);
	put(&m, 2);
	put(&m, 2);
	send_raw(a, &m, NULL, 0);
}

static void c_err_vers_inverted(struct hs_act *a)
{
	struct raw m = { .len = 0 };

	err_hdr(&m, a, NFSRDMA_WIRE_ERR_VERS);
	put(&m, 3);
	put(&m, 2);
	send_raw(a, &m, NULL, 0);
}

static void c_err_chunk(struct hs_act *a)
{
	struct raw m = { .len = 0 };
	int n = nfsrdma_wire_encode_err_chunk(m.b, sizeof(m.b), a->call->xid,
					      grant(a->c));

	if (n > 0) {
		m.len = n;
		send_raw(a, &m, NULL, 0);
	}
}

static void c_err_unknown(struct hs_act *a)
{
	struct raw m = { .len = 0 };

	err_hdr(&m, a, 99);
	send_raw(a, &m, NULL, 0);
}

/* ERR_VERS cut after its low version. */
static void c_err_short_body(struct hs_act *a)
{
	struct raw m = { .len = 0 };

	err_hdr(&m, a, NFSRDMA_WIRE_ERR_VERS);
	put(&m, 1);
	send_raw(a, &m, NULL, 0);
}

/* An RDMA_MSG header for the call with empty chunk lists. */
static void put_msg_no_chunks(struct raw *m, struct hs_act *a)
{
	put_fixed(m, a, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_MSG);
	put(m, 0);
	put(m, 0);
	put(m, 0);
}

/*
 * The real reply, inline with empty chunk lists, sent by post_send() with
 * @pad and @inv; the cases below use it for replies small enough to go
 * inline (the marker's LOOKUP or OPEN).
 */
static void inline_reply_sent_so(struct hs_act *a, u32 pad, bool inv,
				 u32 inv_rkey)
{
	struct raw m = { .len = 0 };
	const uint8_t *b;
	size_t bl;

	put_msg_no_chunks(&m, a);
	b = body_of(a, &bl);
	if (m.len + bl > a->c->max_inline) {
		say("conn %u: the reply does not go inline; sent honestly",
		    a->c->serial);
		send_reply(a->c, a->call, a->rec, a->len);
		return;
	}
	if (pad > HS_STAGE_SIZE) {
		say("conn %u: %u bytes of padding exceed the staging buffer",
		    a->c->serial, pad);
		return;
	}
	if (pad)
		memset(a->c->stage, 0xa5, pad);
	post_send(a->c, m.b, m.len, b, bl, pad, inv, inv_rkey);
}

/* A Send With Invalidate naming an rkey the client never offered. */
static void c_inv_foreign(struct hs_act *a)
{
	inline_reply_sent_so(a, 0, true, 0x5eed00a5);
}

/* The first segment of a Write or Reply chunk @o offered, or NULL. */
static const struct nfsrdma_wire_seg *first_chunk_seg(const struct hs_call *o)
{
	if (o->nr_write && o->wsegs_n)
		return &o->wsegs[0];
	if (o->has_reply && o->rsegs_n)
		return &o->rsegs[0];
	return NULL;
}

static void inv_other_send(struct hs_act *a, const struct hs_call *o)
{
	const struct nfsrdma_wire_seg *seg = first_chunk_seg(o);

	say("conn %u: xid %08x: Send With Invalidate of rkey %08x, offered by xid %08x, in flight",
	    a->c->serial, ntohl(a->call->xid), seg->handle, ntohl(o->xid));
	inline_reply_sent_so(a, 0, true, seg->handle);
	ctl_touch("done", a->call->hc->name);
}

/*
 * The real reply as a Send With Invalidate of an rkey that another call
 * in flight offered (the first segment of its Write or Reply chunk).  The
 * client's device lets it through, since the key is the client's own; the
 * other call's chunk is then dead, and moving its data will fail.  The
 * client must notice the key was not this call's, say so, and recover
 * every call in flight.  If no such call is in flight, the reply waits
 * for the next call that offers a chunk (inv_other_arrived()).
 * "hs.done.CASE" follows the reply, so that the test's readers stop.
 */
static void c_inv_other(struct hs_act *a)
{
	struct hs_conn *c = a->c;
	struct hs_call *o;

	for (o = c->calls; o; o = o->next) {
		if (first_chunk_seg(o)) {
			inv_other_send(a, o);
			return;
		}
	}
	free(c->held);
	free(c->held_rec);
	c->held = malloc(sizeof(*c->held));
	c->held_rec = a->rec ? malloc(a->len) : NULL;
	if (!c->held || (a->rec && !c->held_rec)) {
		say("conn %u: out of memory holding a reply", c->serial);
		return;
	}
	*c->held = *a->call;
	if (a->rec)
		memcpy(c->held_rec, a->rec, a->len);
	c->held_len = a->len;
	say("conn %u: no other call in flight offers a chunk; the reply waits for one",
	    c->serial);
}

/* A call arrived on @c: the reply inv-other holds may now name its chunk. */
static void inv_other_arrived(struct hs_conn *c, const struct hs_call *call)
{
	struct hs_act a = { c, c->held, c->held_rec, c->held_len };

	if (!c->held || !first_chunk_seg(call))
		return;
	inv_other_send(&a, call);
	free(c->held);
	free(c->held_rec);
	c->held = NULL;
	c->held_rec = NULL;
}

/* The real reply and 12 KiB more than the client's receive buffer. */
static void c_reply_oversized(struct hs_act *a)
{
	inline_reply_sent_so(a, a->c->peer_recv + 3 * HS_INLINE, false, 0);
}

/*
 * Before the real reply, twice the receives the client can have posted
 * (HS_RECV_DEPTH > its slot table) of unsolicited RDMA_MSG with XIDs it
 * never sent: they arrive faster than it reposts, so most wait in RNR
 * retries; each must be dropped and its receive reposted.
 */
static void c_unsolicited_burst(struct hs_act *a)
{
	struct raw m = { .len = 0 };
	uint8_t body[24];
	const uint8_t *b;
	unsigned int i;
	size_t bl;

	put_msg_no_chunks(&m, a);
	b = fake_body(a, &bl);
	memcpy(body, b, sizeof(body));
	for (i = 0; i < 2 * HS_RECV_DEPTH; i++) {
		__be32 xid = a->call->xid ^ htonl(0x00a50000 | (i + 1));

		/* A well-formed reply, but to a call never made. */
		memcpy(m.b, &xid, 4);
		memcpy(body, &xid, 4);
		if (send_msg(a->c, m.b, m.len, body, sizeof(body)))
			return;
	}
	send_reply(a->c, a->call, a->rec, a->len);
}

/*
 * Backchannel cases (RFC 8167).  After the real reply to the marker call
 * the server sends backward-direction Calls of its own: CB_NULL with
 * AUTH_NONE to the Linux client's callback program.  Their XIDs are
 * remembered, so the client's Replies to them are logged here instead of
 * reaching knfsd, and a Reply to a Call the client should have dropped
 * is a VIOLATION.  A well-formed CB_NULL follows a malformed one, so that
 * its answer ("answered") shows the backchannel still works.
 */
#define HS_CB_PROG	0x40000000	/* NFS4_CALLBACK, the client's choice */
#define HS_CB_NULL_SIZE	40
#define HS_BC_REMEMBERED 128
#define HS_BC_FLOOD	64

static struct {
	__be32 xid;
	bool must_drop;
} bc_sent[HS_BC_REMEMBERED];
static unsigned int bc_next, bc_serial;

static __be32 bc_new_xid(bool must_drop)
{
	unsigned int i = bc_next++ % HS_BC_REMEMBERED;

	bc_serial = (bc_serial + 1) & 0xffffff;
	bc_sent[i].xid = htonl(0xbc000000 | bc_serial);
	bc_sent[i].must_drop = must_drop;
	return bc_sent[i].xid;
}

/*
 * A Reply from the client: if it answers one of our own backward Calls,
 * log it and return true (it must not reach knfsd).
 */
static bool bc_reply_ours(struct hs_conn *c, __be32 xid)
{
	unsigned int i;

	for (i = 0; i < HS_BC_REMEMBERED; i++) {
		if (!bc_sent[i].xid || bc_sent[i].xid != xid)
			continue;
		if (bc_sent[i].must_drop)
			say("conn %u: VIOLATION: the client replied to backward call xid %08x, which it should have dropped",
			    c->serial, ntohl(xid));
		else
			say("conn %u: backward call xid %08x answered",
			    c->serial, ntohl(xid));
		bc_sent[i].xid = 0;
		return true;
	}
	return false;
}

/* CB_NULL, version 1, AUTH_NONE, as the RPC Call @xid; its length. */
static size_t cb_null(uint8_t *b, __be32 xid)
{
	memcpy(b, &xid, 4);
	set32(b + 4, RPC_CALL);
	set32(b + 8, 2);		/* RPC version */
	set32(b + 12, HS_CB_PROG);
	set32(b + 16, 1);
	set32(b + 20, 0);		/* CB_NULL */
	set32(b + 24, 0);		/* credential AUTH_NONE, empty */
	set32(b + 28, 0);
	set32(b + 32, 0);		/* verifier AUTH_NONE, empty */
	set32(b + 36, 0);
	return HS_CB_NULL_SIZE;
}

/* The fixed part of a backward Call's header: XID, version 1, 1 credit, RDMA_MSG. */
static void bc_fixed(struct raw *m, __be32 xid)
{
	memcpy(m->b + m->len, &xid, 4);
	m->len += 4;
	put(m, NFSRDMA_WIRE_VERSION);
	put(m, 1);
	put(m, NFSRDMA_WIRE_PROC_MSG);
}

/* A well-formed backward CB_NULL that the client must answer. */
static int bc_send_good(struct hs_conn *c)
{
	struct raw m = { .len = 0 };
	uint8_t body[HS_CB_NULL_SIZE];
	__be32 xid = bc_new_xid(false);

	bc_fixed(&m, xid);
	put(&m, 0);
	put(&m, 0);
	put(&m, 0);
	cb_null(body, xid);
	return send_msg(c, m.b, m.len, body, sizeof(body));
}

/* A backward CB_NULL that offers a Read chunk: RFC 8167 allows none. */
static void c_bc_chunks(struct hs_act *a)
{
	static const struct nfsrdma_wire_seg seg = {
		.handle = 0x5eed00bc, .length = HS_CB_NULL_SIZE,
		.offset = 0x10000,
	};
	struct raw m = { .len = 0 };
	uint8_t body[HS_CB_NULL_SIZE];
	__be32 xid = bc_new_xid(true);

	send_reply(a->c, a->call, a->rec, a->len);
	bc_fixed(&m, xid);
	put(&m, 1);			/* one Read segment, */
	put(&m, 0);			/* at position 0 */
	put_seg(&m, &seg, seg.length);
	put(&m, 0);			/* end of the Read list */
	put(&m, 0);			/* no Write list */
	put(&m, 0);			/* no Reply chunk */
	cb_null(body, xid);
	if (!send_msg(a->c, m.b, m.len, body, sizeof(body)))
		bc_send_good(a->c);
}

/* A backward CB_NULL whose RPC XID is not the transport header's. */
static void c_bc_forged_xid(struct hs_act *a)
{
	struct raw m = { .len = 0 };
	uint8_t body[HS_CB_NULL_SIZE];

	send_reply(a->c, a->call, a->rec, a->len);
	bc_fixed(&m, bc_new_xid(true));
	put(&m, 0);
	put(&m, 0);
	put(&m, 0);
	cb_null(body, bc_new_xid(true));
	if (!send_msg(a->c, m.b, m.len, body, sizeof(body)))
		bc_send_good(a->c);
}

/*
 * A backward CB_NULL 4 KiB longer than the client's receive buffer (its
 * arguments run on as the staging buffer's bytes): the client's Receive
 * fails and it must reconnect.
 */
static void c_bc_oversized(struct hs_act *a)
{
	struct raw m = { .len = 0 };
	uint8_t body[HS_CB_NULL_SIZE];
	__be32 xid = bc_new_xid(true);

	send_reply(a->c, a->call, a->rec, a->len);
	bc_fixed(&m, xid);
	put(&m, 0);
	put(&m, 0);
	put(&m, 0);
	cb_null(body, xid);
	post_send(a->c, m.b, m.len, body, sizeof(body),
		  a->c->peer_recv + HS_INLINE, false, 0);
}

/*
 * HS_BC_FLOOD backward CB_NULLs back to back, far more than the client's
 * backchannel slots (it grants 4 per RFC 8167 credit): each must be
 * answered or dropped, and none may take down the connection.
 */
static void c_bc_flood(struct hs_act *a)
{
	unsigned int i;

	send_reply(a->c, a->call, a->rec, a->len);
	for (i = 0; i < HS_BC_FLOOD; i++)
		if (bc_send_good(a->c))
			return;
}

/* One well-formed backward CB_NULL, after the cases above. */
static void c_bc_null(struct hs_act *a)
{
	send_reply(a->c, a->call, a->rec, a->len);
	bc_send_good(a->c);
}

/*
 * Fuzz mode (-F SEED): make fuzz-live's client target.  Before the real
 * reply to each call that contains the marker go HS_FUZZ_PER_CALL
 * mutated messages (tools/testing/hostile/fuzz.c): the reply as it would
 * travel inline, or one time in eight a backward CB_NULL, each mutated
 * anywhere, mostly in its transport header.  None is longer than the
 * client's receive buffer.  The client may take one of them for the
 * reply (the test does not verify what the marker's syscalls return);
 * the real reply then finds no call and is dropped.  Calls without the
 * marker are answered honestly, and the test verifies those: no mutated
 * message may carry an XID near theirs.  After
 * fuzz_count messages the server is honest again and creates
 * "hs.fuzz.done".
 */
#define HS_FUZZ_PER_CALL	32
/*
 * XIDs for the backward calls and the mutated XIDs: the call's with bits
 * flipped at both ends, so 2^31 away from it whether the client counts
 * its XIDs in network or (as Linux does) in little-endian byte order.
 */
#define HS_FUZZ_XID_FAR		0x80000080

static bool fuzzing;
static volatile sig_atomic_t stopping;

/* SIGTERM: stop at the next turn of the loop, saying how far fuzzing got. */
static void on_sigterm(int sig)
{
	(void)sig;
	stopping = 1;
}
static struct fuzz_rng fuzz_rng;
static uint64_t fuzz_seed;
static unsigned long fuzz_count = 100000, fuzz_sent;

static void fuzz_reply(struct hs_conn *c, const struct hs_call *call,
		       const uint8_t *rec, size_t len)
{
	size_t cap = c->max_inline < HS_INLINE ? c->max_inline : HS_INLINE;
	char what[160];
	unsigned int i;
	struct raw m;

	for (i = 0; i < HS_FUZZ_PER_CALL && fuzz_sent < fuzz_count; i++) {
		__be32 xid = call->xid, got;

		m.len = 0;
		if (!fuzz_below(&fuzz_rng, 8)) {
			xid = call->xid ^ htonl(HS_FUZZ_XID_FAR);
			bc_fixed(&m, xid);
			put(&m, 0);
			put(&m, 0);
			put(&m, 0);
			m.len += cb_null(m.b + m.len, xid);
		} else {
			memcpy(m.b, &call->xid, 4);
			m.len = 4;
			put(&m, NFSRDMA_WIRE_VERSION);
			put(&m, grant(c));
			put(&m, NFSRDMA_WIRE_PROC_MSG);
			put(&m, 0);
			put(&m, 0);
			put(&m, 0);
			if (len > cap - m.len)
				len = cap - m.len;
			memcpy(m.b + m.len, rec, len);
			m.len += len;
		}
		m.len = fuzz_mutate(&fuzz_rng, m.b, m.len, cap,
				    NFSRDMA_WIRE_MIN_MSG_SIZE + 8, what,
				    sizeof(what));
		/*
		 * A mutated XID would be a neighbour of the call's, and the
		 * client's XIDs are sequential: it could name an honest call
		 * in flight, whose verified result it would then replace.
		 * Any changed XID is moved far from them instead.
		 */
		if (m.len >= 4) {
			memcpy(&got, m.b, 4);
			if (got != xid) {
				got = call->xid ^ htonl(HS_FUZZ_XID_FAR);
				memcpy(m.b, &got, 4);
			}
		}
		dbg("fuzz #%lu xid %08x:%s", fuzz_sent, ntohl(call->xid), what);
		if (send_msg(c, m.b, m.len, NULL, 0))
			return;
		if (++fuzz_sent % 1000 == 0 || fuzz_sent == fuzz_count)
			say("fuzz-live: xprtrdma: %lu mutated messages sent, seed %llu%s",
			    fuzz_sent, (unsigned long long)fuzz_seed,
			    fuzz_sent == fuzz_count ? ": done" : "");
		if (fuzz_sent == fuzz_count)
			ctl_touch("fuzz", "done");
	}
}

/*
 * Connection-manager cases.  The call that fires one is never answered:
 * its connection is dropped, and the client's next connection request
 * gets the crafted response instead of an honest accept.  After that one
 * request the server is honest again, so the call completes on a later
 * connection.
 */
enum hs_cm {
	CM_HONEST,
	CM_REJECT,		/* rdma_reject(), no private data */
	CM_REJECT_PDATA,	/* rdma_reject() with garbage private data */
	CM_PDATA_ABSENT,	/* accept with no private data */
	CM_PDATA_SHORT,		/* accept with the format identifier alone */
	CM_PDATA_FOREIGN,	/* accept with 8 bytes of another format */
	CM_PDATA_VERSION,	/* accept with RFC 8797 data of version 2 */
	CM_PDATA_HUGE,		/* accept advertising 256 KiB each way */
	CM_PDATA_SMALL,		/* accept advertising 1 KiB each way */
	CM_SILENT,		/* accept, then never answer anything */
};

static enum hs_cm cm_next;

static void cm_arm(struct hs_act *a, enum hs_cm cm)
{
	cm_next = cm;
	conn_fail(a->c, "the next connection request gets a crafted response");
}

static void c_cm_reject(struct hs_act *a) { cm_arm(a, CM_REJECT); }
static void c_cm_reject_pdata(struct hs_act *a) { cm_arm(a, CM_REJECT_PDATA); }
static void c_pdata_absent(struct hs_act *a) { cm_arm(a, CM_PDATA_ABSENT); }
static void c_pdata_short(struct hs_act *a) { cm_arm(a, CM_PDATA_SHORT); }
static void c_pdata_foreign(struct hs_act *a) { cm_arm(a, CM_PDATA_FOREIGN); }
static void c_pdata_version(struct hs_act *a) { cm_arm(a, CM_PDATA_VERSION); }
static void c_pdata_huge(struct hs_act *a) { cm_arm(a, CM_PDATA_HUGE); }
static void c_pdata_small(struct hs_act *a) { cm_arm(a, CM_PDATA_SMALL); }
static void c_silent(struct hs_act *a) { cm_arm(a, CM_SILENT); }

/*
 * flap: the connection is dropped with the call unanswered, and each of
 * the next HS_FLAP_CONNS connections answers calls until the Send of its
 * first reply has completed (or, first, another call arrives after it),
 * then is dropped: a server that keeps accepting and dropping, each
 * connection short-lived but useful.  The client must back off its reconnects between them, not
 * reconnect in a tight loop; the calls complete on the connection after.
 */
#define HS_FLAP_CONNS	2
static unsigned int flap_left;

static void c_flap(struct hs_act *a)
{
	flap_left = HS_FLAP_CONNS;
	conn_fail(a->c, "flap: this and the next connections are dropped");
}

/*
 * old-conn-reply: the real reply is held back and the connection dropped;
 * the reply goes out first thing on the client's next connection, where
 * the call is either still waiting for its retransmission or already
 * retransmitted: a reply to a call the client made on a connection that
 * no longer exists.  Sent inline, as it would have been on the old one.
 */
static uint8_t *stale_rec;
static size_t stale_len;
static __be32 stale_xid;
static unsigned int stale_conn;

static void c_old_conn_reply(struct hs_act *a)
{
	free(stale_rec);
	stale_rec = a->rec ? malloc(a->len) : NULL;
	if (!stale_rec) {
		conn_fail(a->c, "no reply to hold");
		return;
	}
	memcpy(stale_rec, a->rec, a->len);
	stale_len = a->len;
	stale_xid = a->call->xid;
	stale_conn = a->c->serial;
	conn_fail(a->c, "the reply is held for the next connection");
}

/* On a newly established connection: the held reply, if there is one. */
static void stale_send(struct hs_conn *c)
{
	struct hs_call none = { .xid = stale_xid };

	if (!stale_rec)
		return;
	if (send_reply(c, &none, stale_rec, stale_len))
		say("conn %u: the held reply to xid %08x could not be sent",
		    c->serial, ntohl(stale_xid));
	else
		say("conn %u: stale reply to xid %08x of conn %u sent first",
		    c->serial, ntohl(stale_xid), stale_conn);
	free(stale_rec);
	stale_rec = NULL;
}

/*
 * security-review-zero-retrans: a call that went without chunks (the
 * client's receive buffers are large enough) is dropped unanswered, and
 * the next connection advertises 1 KiB inline, so its retransmission must
 * offer a Reply chunk: memory no earlier transmission registered.  That
 * retransmission's reply is the real one, but only its first half is RDMA
 * Written while the Reply chunk claims all of it.  The client cannot
 * tell: what it hands up for the other half must be zeros, never what
 * the memory held before.
 */
static __be32 zr_xid;
static bool zr_pending;

static void c_overclaim_reply(struct hs_act *a)
{
	struct hs_call *call = a->call;
	struct nfsrdma_wire_seg out[NFSRDMA_WIRE_MAX_CHUNK_SEGS];
	struct raw m = { .len = 0 };
	u32 half;

	if (!a->rec || !call->has_reply || !call->rsegs_n ||
	    a->len > chunk_cap(call->rsegs, call->rsegs_n)) {
		say("conn %u: no Reply chunk to over-claim", a->c->serial);
		send_reply(a->c, call, a->rec, a->len);
		return;
	}
	half = (a->len / 2) & ~3u;
	memcpy(a->c->stage, a->rec, half);
	if (rdma_write_chunk(a->c, call->rsegs, call->rsegs_n, a->c->stage,
			     half, out))
		return;
	put_fixed(&m, a, NFSRDMA_WIRE_VERSION, NFSRDMA_WIRE_PROC_NOMSG);
	put(&m, 0);		/* no Read list */
	put(&m, 0);		/* no Write list */
	put(&m, 1);
	put_claim(&m, call->rsegs, call->rsegs_n, a->len);
	send_raw(a, &m, NULL, 0);
	say("conn %u: xid %08x: %u of %zu reply bytes written, all over-claimed",
	    a->c->serial, ntohl(call->xid), half, a->len);
}

static const struct hs_case zr_second = {
	"security-review-zero-retrans",
	"the retransmission's Reply chunk claimed whole, half written",
	SEL_REPLY, true, c_overclaim_reply,
};

static void c_zero_retrans(struct hs_act *a)
{
	zr_xid = a->call->xid;
	zr_pending = true;
	cm_arm(a, CM_PDATA_SMALL);
}

static const struct hs_case cases[] = {
	{ "unknown-xid", "a reply for an XID never sent, then the real one", SEL_MARKER, true, c_unknown_xid },
	{ "dup-reply", "the real reply, twice", SEL_MARKER, true, c_dup_reply },
	{ "bad-version", "transport version 2", SEL_MARKER, true, c_bad_version },
	{ "unknown-proc", "procedure 7", SEL_MARKER, true, c_unknown_proc },
	{ "msgp", "RDMA_MSGP", SEL_MARKER, true, c_msgp },
	{ "done", "RDMA_DONE", SEL_MARKER, false, c_done },
	{ "credits-0", "the real reply granting 0 credits", SEL_MARKER, true, c_credits_0 },
	{ "credits-1", "the real reply granting 1 credit", SEL_MARKER, true, c_credits_1 },
	{ "credits-huge", "the real reply granting 2^32-1 credits", SEL_MARKER, true, c_credits_huge },
	{ "short-header", "a 3-byte message, then the real reply", SEL_MARKER, true, c_short_header },
	{ "short-fixed", "12 bytes: no procedure word", SEL_MARKER, false, c_short_fixed },
	{ "lists-overrun", "a 50-segment Write chunk in a 2-segment message", SEL_MARKER, false, c_lists_overrun },
	{ "write-chunk-unoffered", "a Write chunk the call did not offer", SEL_MARKER, true, c_write_chunk_unoffered },
	{ "too-many-write-chunks", "two Write chunks for one offered", SEL_WRITE, true, c_too_many_write_chunks },
	{ "seg-len-too-long", "a Write segment 4 KiB longer than offered", SEL_WRITE, true, c_seg_len_too_long },
	{ "seg-count-0", "a Write chunk of 0 segments", SEL_WRITE, true, c_seg_count_0 },
	{ "len-overflow", "Write segment lengths summing past 2^32", SEL_WRITE, true, c_len_overflow },
	{ "reply-chunk-too-long", "a Reply chunk 4 KiB longer than offered", SEL_REPLY, true, c_reply_chunk_too_long },
	{ "reply-chunk-foreign", "RDMA_NOMSG naming an rkey never offered", SEL_MREPLY, true, c_reply_chunk_foreign },
	{ "nomsg-without-reply-chunk", "RDMA_NOMSG, no Reply chunk offered", SEL_PLAIN, true, c_nomsg_without_reply_chunk },
	{ "err-vers", "ERR_VERS 2..3", SEL_MARKER, false, c_err_vers },
	{ "err-vers-foreign", "ERR_VERS 2..2 in version 2", SEL_MARKER, false, c_err_vers_foreign },
	{ "err-vers-inverted", "ERR_VERS 3..2", SEL_MARKER, false, c_err_vers_inverted },
	{ "err-chunk", "ERR_CHUNK", SEL_MARKER, false, c_err_chunk },
	{ "err-unknown", "RDMA_ERROR code 99", SEL_MARKER, false, c_err_unknown },
	{ "err-short-body", "ERR_VERS without its high version", SEL_MARKER, false, c_err_short_body },
	{ "inv-foreign", "Send With Invalidate of an rkey never offered", SEL_MARKER, true, c_inv_foreign },
	{ "inv-other", "Send With Invalidate of an rkey another call in flight offered", SEL_MARKER, true, c_inv_other },
	{ "reply-oversized", "12 KiB more than the client's receive buffer", SEL_MARKER, true, c_reply_oversized },
	{ "unsolicited-burst", "320 replies to XIDs never sent, then the real one", SEL_MARKER, true, c_unsolicited_burst },
	{ "security-review-overclaim-write", "a Write chunk claiming twice the bytes written", SEL_WRITE, true, c_overclaim_write },
	{ "write-imm", "the READ data by RDMA Write with Immediate", SEL_WRITE, true, c_write_imm },
	{ "security-review-starve", "the real reply, then no receive reposted", SEL_MARKER, true, c_starve },
	{ "security-review-starve-inline", "as security-review-starve (the test kills a call with no chunks)", SEL_MARKER, true, c_starve },
	{ "security-review-early-reply", "for 32 calls, 1 credit and RDMA_NOMSG to the 4 XIDs ahead", SEL_MREPLY, true, c_early_reply },
	{ "dropin-write-pad", "the XDR pad of an odd READ written into the Write chunk", SEL_WRITE_ODD, true, c_write_pad },
	{ "bc-chunks", "the real reply; a backward CB_NULL offering a Read chunk; a good one", SEL_MARKER, true, c_bc_chunks },
	{ "bc-forged-xid", "the real reply; a backward CB_NULL whose RPC XID differs; a good one", SEL_MARKER, true, c_bc_forged_xid },
	{ "bc-oversized", "the real reply; a backward CB_NULL 4 KiB past the client's receive buffer", SEL_MARKER, true, c_bc_oversized },
	{ "bc-flood", "the real reply; 64 backward CB_NULLs back to back", SEL_MARKER, true, c_bc_flood },
	{ "bc-null", "the real reply; one backward CB_NULL", SEL_MARKER, true, c_bc_null },
	{ "cm-reject", "drop the connection; reject the next request", SEL_MARKER, false, c_cm_reject },
	{ "cm-reject-pdata", "drop the connection; reject the next with 56 bytes of garbage", SEL_MARKER, false, c_cm_reject_pdata },
	{ "pdata-absent", "drop the connection; accept the next with no private data", SEL_MARKER, false, c_pdata_absent },
	{ "pdata-short", "drop the connection; accept the next with 4 bytes of private data", SEL_MARKER, false, c_pdata_short },
	{ "pdata-foreign", "drop the connection; accept the next with another format's 8 bytes", SEL_MARKER, false, c_pdata_foreign },
	{ "pdata-version", "drop the connection; accept the next with RFC 8797 version 2", SEL_MARKER, false, c_pdata_version },
	{ "pdata-huge", "drop the connection; accept the next advertising 256 KiB inline", SEL_MARKER, false, c_pdata_huge },
	{ "pdata-small", "drop the connection; accept the next advertising 1 KiB inline", SEL_MARKER, false, c_pdata_small },
	{ "silent", "drop the connection; accept the next and never answer on it", SEL_MARKER, false, c_silent },
	{ "flap", "drop the connection; on each of the next 2, one reply, then drop", SEL_MARKER, false, c_flap },
	{ "old-conn-reply", "drop the connection unanswered; the real reply first on the next", SEL_MARKER, true, c_old_conn_reply },
	{ "security-review-zero-retrans", "a READLINK with no chunks: drop; 1 KiB inline next; its Reply chunk claimed whole, half written", SEL_READLINK, false, c_zero_retrans },
};

#define NR_CASES (sizeof(cases) / sizeof(cases[0]))

static const struct hs_case *case_by_name(const char *name)
{
	size_t i;

	for (i = 0; i < NR_CASES; i++)
		if (!strcmp(cases[i].name, name))
			return &cases[i];
	return NULL;
}

static void arm(const struct hs_case *hc)
{
	unsigned int i;

	armed = hc;
	/* A new case: whatever the last one waited for is not coming. */
	zr_pending = false;
	flap_left = 0;
	for (i = 0; i < HS_MAX_CONNS; i++)
		conns[i].flap = false;
	say("armed %s (%s)", hc->name, hc->what);
	ctl_touch("armed", hc->name);
}

static void ctl_poll(void)
{
	static long long last;
	const struct hs_case *hc;
	struct dirent *de;
	char path[512];
	DIR *d;

	if (!ctl_dir || now_ms() - last < 200)
		return;
	last = now_ms();
	d = opendir(ctl_dir);
	if (!d)
		return;
	while ((de = readdir(d))) {
		if (strncmp(de->d_name, "hs.cue.", 7))
			continue;
		snprintf(path, sizeof(path), "%s/%s", ctl_dir, de->d_name);
		unlink(path);
		hc = case_by_name(de->d_name + 7);
		if (!strcmp(de->d_name + 7, "none")) {
			armed = NULL;
			say("disarmed");
			ctl_touch("armed", "none");
		} else if (hc)
			arm(hc);
		else
			say("unknown case '%s' cued", de->d_name + 7);
	}
	closedir(d);
}

static void fire(struct hs_conn *c, struct hs_call *call, const uint8_t *rec,
		 size_t len)
{
	struct hs_act a = { c, call, rec, len };

	say("conn %u: %s fires on xid %08x", c->serial, call->hc->name,
	    ntohl(call->xid));
	call->hc->fire(&a);
	ctl_touch("fired", call->hc->name);
}

/* ---- TCP side --------------------------------------------------------- */

static int tcp_connect(void)
{
	char host[256], *colon;
	struct addrinfo hints = { .ai_socktype = SOCK_STREAM }, *ai;
	int fd, one = 1, sz = 4 << 20;

	snprintf(host, sizeof(host), "%s", target);
	colon = strrchr(host, ':');
	if (!colon)
		return -1;
	*colon = '\0';
	if (getaddrinfo(host, colon + 1, &hints, &ai))
		return -1;
	fd = socket(ai->ai_family, SOCK_STREAM, 0);
	if (fd >= 0) {
		setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
		setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &sz, sizeof(sz));
		setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &sz, sizeof(sz));
		if (connect(fd, ai->ai_addr, ai->ai_addrlen)) {
			close(fd);
			fd = -1;
		}
	}
	freeaddrinfo(ai);
	return fd;
}

static int tcp_send_record(struct hs_conn *c, const uint8_t *rec, size_t len)
{
	uint8_t mark[4];
	size_t off = 0;
	ssize_t n;

	set32(mark, 0x80000000u | (u32)len);
	if (write(c->tcp, mark, 4) != 4)
		goto fail;
	while (off < len) {
		n = write(c->tcp, rec + off, len - off);
		if (n <= 0) {
			if (n < 0 && errno == EINTR)
				continue;
			goto fail;
		}
		off += n;
	}
	return 0;
fail:
	conn_fail(c, "TCP write to the NFS server failed");
	return -1;
}

/* ---- calls ------------------------------------------------------------ */

static struct hs_call *call_take(struct hs_conn *c, __be32 xid)
{
	struct hs_call **pp, *call;

	for (pp = &c->calls; *pp; pp = &(*pp)->next) {
		if ((*pp)->xid == xid) {
			call = *pp;
			*pp = call->next;
			return call;
		}
	}
	return NULL;
}

/*
 * The NFS operation @rec calls, and where its arguments start: an NFSv3
 * procedure, or the first operation of an NFSv4 COMPOUND after
 * [SEQUENCE,] PUTFH.  Enough XDR for the test's own calls.  Returns the
 * NFS version (3 or 4), or 0 for anything else.
 */
static u32 rpc_nfs_op(const uint8_t *rec, size_t len, u32 *op, size_t *args)
{
	size_t p = 24;
	u32 i, l, vers;

	if (len < p || get32(rec + 4) != RPC_CALL ||
	    get32(rec + 12) != 100003)
		return 0;
	vers = get32(rec + 16);
	for (i = 0; i < 2; i++) {	/* the credential, the verifier */
		if (p + 8 > len)
			return 0;
		l = get32(rec + p + 4);
		if (l > 400)
			return 0;
		p += 8 + xdr_round(l);
	}
	if (vers == 3) {
		*op = get32(rec + 20);
		*args = p;
		return 3;
	}
	if (vers != 4 || get32(rec + 20) != 1 || p + 4 > len)
		return 0;
	l = get32(rec + p);		/* the tag */
	if (l > 64)
		return 0;
	p += 4 + xdr_round(l) + 8;	/* minorversion, number of ops */
	while (p + 4 <= len) {
		*op = get32(rec + p);
		p += 4;
		if (*op == 53) {		/* SEQUENCE: session ID, 4 words */
			p += 32;
		} else if (*op == 22) {	/* PUTFH */
			if (p + 4 > len)
				return 0;
			l = get32(rec + p);
			if (l > 128)
				return 0;
			p += 4 + xdr_round(l);
		} else {
			*args = p;
			return 4;
		}
	}
	return 0;
}

/* Is @rec an NFS READLINK call (NFSv3 procedure 5, NFSv4 operation 27)? */
static bool rpc_is_readlink(const uint8_t *rec, size_t len)
{
	size_t args;
	u32 op;

	switch (rpc_nfs_op(rec, len, &op, &args)) {
	case 3:
		return op == 5;
	case 4:
		return op == 27;
	}
	return false;
}

/*
 * Is @rec an NFS READ (NFSv3 procedure 6, NFSv4 operation 25) whose
 * count is not a whole number of XDR words?  A client that stages the
 * data offers one word-aligned segment with room for the pad, so only
 * the call itself says the READ is odd.
 */
static bool rpc_is_odd_read(const uint8_t *rec, size_t len)
{
	size_t p;
	u32 op, l;

	switch (rpc_nfs_op(rec, len, &op, &p)) {
	case 3:
		if (op != 6 || p + 4 > len)
			return false;
		l = get32(rec + p);		/* the file handle */
		if (l > 64)
			return false;
		p += 4 + xdr_round(l) + 8;	/* offset */
		break;
	case 4:
		if (op != 25)
			return false;
		p += 16 + 8;			/* stateid, offset */
		break;
	default:
		return false;
	}
	return p + 4 <= len && (get32(rec + p) & 3);
}

static bool sel_matches(const struct hs_case *hc, const struct hs_call *call,
			const uint8_t *rec, size_t len)
{
	switch (hc->sel) {
	case SEL_WRITE:
		return call->nr_write && call->wsegs_n;
	case SEL_REPLY:
		return call->has_reply;
	case SEL_MARKER:
		return memmem(rec, len, marker, strlen(marker)) != NULL;
	case SEL_PLAIN:
		return !call->nr_write && !call->has_reply &&
		       memmem(rec, len, marker, strlen(marker)) != NULL;
	case SEL_MREPLY:
		return call->has_reply &&
		       memmem(rec, len, marker, strlen(marker)) != NULL;
	case SEL_WRITE_ODD:
		return call->nr_write && call->wsegs_n &&
		       ((call->wsegs[0].length & 3) || rpc_is_odd_read(rec, len));
	case SEL_READLINK:
		return !call->nr_write && !call->has_reply &&
		       rpc_is_readlink(rec, len);
	}
	return false;
}

/* Reassemble the RPC call from the inline part and the Read chunks. */
static uint8_t *assemble(struct hs_conn *c, const struct nfsrdma_wire_hdr *h,
			 const uint8_t *inl, size_t ilen, size_t *out_len)
{
	const uint8_t *base = inl;
	size_t blen = ilen, used = 0, bpos = 0, olen = 0, cap;
	uint8_t *stage = c->stage, *out;
	u32 i = 0, j, pos, clen;

	/* Pull every Read segment into the staging area, in list order. */
	for (j = 0; j < h->nr_read; j++)
		used += h->read[j].seg.length;
	if (used > HS_STAGE_SIZE || used + ilen + 4 * h->nr_read > HS_MAX_RECORD) {
		say("conn %u: Read chunks too large (%zu bytes)", c->serial, used);
		return NULL;
	}
	if (h->nr_read && rdma_read_segs(c, h->read, h->nr_read, stage))
		return NULL;

	cap = used + ilen + 4 * h->nr_read + 4;
	out = malloc(cap);
	if (!out)
		return NULL;
	used = 0;
	if (h->nr_read && h->read[0].position == 0) {
		/* Position zero: the chunk is the message (minus later chunks). */
		clen = 0;
		while (i < h->nr_read && h->read[i].position == 0)
			clen += h->read[i++].seg.length;
		base = stage;
		blen = clen;
		used = clen;
	}
	while (i < h->nr_read) {
		pos = h->read[i].position;
		clen = 0;
		j = i;
		while (j < h->nr_read && h->read[j].position == pos)
			clen += h->read[j++].seg.length;
		if (pos < olen || pos - olen > blen - bpos) {
			say("conn %u: Read position %u outside the message",
			    c->serial, pos);
			free(out);
			return NULL;
		}
		memcpy(out + olen, base + bpos, pos - olen);
		bpos += pos - olen;
		olen = pos;
		memcpy(out + olen, stage + used, clen);
		olen += clen;
		used += clen;
		while (olen & 3)
			out[olen++] = 0;	/* the XDR pad the chunk left out */
		i = j;
	}
	memcpy(out + olen, base + bpos, blen - bpos);
	olen += blen - bpos;
	*out_len = olen;
	return out;
}

static void handle_recv(struct hs_conn *c, const uint8_t *buf, size_t len)
{
	struct nfsrdma_wire_hdr *h = &rx_hdr;
	const uint8_t *inl;
	struct hs_call *call;
	uint8_t *rec;
	size_t ilen, rlen;
	int rc;

	if (c->silent) {
		say("conn %u: silent: a %zu-byte message swallowed", c->serial,
		    len);
		return;
	}
	rc = nfsrdma_wire_decode(h, buf, len);
	/* A backchannel reply: RDMA_MSG carrying an RPC Reply. */
	if (!rc && h->proc == NFSRDMA_WIRE_PROC_MSG && len - h->hdr_len >= 8 &&
	    get32(buf + h->hdr_len + 4) == RPC_REPLY) {
		__be32 rx;

		memcpy(&rx, buf + h->hdr_len, 4);
		if (bc_reply_ours(c, rx))
			return;
		dbg("backchannel reply xid %08x", get32(buf + h->hdr_len));
		tcp_send_record(c, buf + h->hdr_len, len - h->hdr_len);
		return;
	}
	if (!rc)
		rc = nfsrdma_wire_check_inline(h, len - h->hdr_len,
					       NFSRDMA_WIRE_DIR_CALL);
	inl = buf + (rc ? 0 : h->hdr_len);
	ilen = rc ? 0 : len - h->hdr_len;
	if (rc) {
		say("conn %u: undecodable call (%d), %zu bytes", c->serial, rc, len);
		if (len >= NFSRDMA_WIRE_PREFIX_SIZE) {
			uint8_t e[NFSRDMA_WIRE_ERR_VERS_SIZE];
			int n = rc == -EPROTONOSUPPORT ?
				nfsrdma_wire_encode_err_vers(e, sizeof(e), h->xid, grant(c), 1, 1) :
				nfsrdma_wire_encode_err_chunk(e, sizeof(e), h->xid, grant(c));
			if (n > 0)
				send_msg(c, e, n, NULL, 0);
		}
		return;
	}
	c->want_credits = h->credits;

	rec = assemble(c, h, inl, ilen, &rlen);
	if (!rec) {
		uint8_t e[NFSRDMA_WIRE_ERR_CHUNK_SIZE];
		int n = nfsrdma_wire_encode_err_chunk(e, sizeof(e), h->xid, grant(c));

		if (n > 0 && !c->dead)
			send_msg(c, e, n, NULL, 0);
		return;
	}
	if (rlen < 8) {
		free(rec);
		return;
	}

	call = calloc(1, sizeof(*call));
	if (!call) {
		free(rec);
		return;
	}
	call->xid = h->xid;
	call->nr_write = h->nr_write;
	if (h->nr_write) {
		call->wsegs_n = h->write[0].nr_segs;
		memcpy(call->wsegs, nfsrdma_wire_chunk_segs(h, &h->write[0]),
		       sizeof(call->wsegs[0]) * call->wsegs_n);
	}
	call->has_reply = h->has_reply;
	if (h->has_reply) {
		call->rsegs_n = h->reply.nr_segs;
		memcpy(call->rsegs, nfsrdma_wire_chunk_segs(h, &h->reply),
		       sizeof(call->rsegs[0]) * call->rsegs_n);
	}
	dbg("call xid %08x: %zu bytes, %u read segs, %u write chunks, reply chunk %d",
	    ntohl(call->xid), rlen, h->nr_read, h->nr_write, h->has_reply);
	if (c->flap && c->replies) {
		say("conn %u: flap: dropped at xid %08x after %u replies",
		    c->serial, ntohl(call->xid), c->replies);
		free(call);
		free(rec);
		conn_fail(c, "flap: a reply sent, the next call drops it");
		return;
	}
	if (zr_pending && call->xid == zr_xid && call->has_reply) {
		/* The retransmission security-review-zero-retrans waits for. */
		zr_pending = false;
		call->hc = &zr_second;
	} else if (armed && sel_matches(armed, call, rec, rlen)) {
		call->hc = armed;
		armed = NULL;
		if (!call->hc->forward) {
			fire(c, call, NULL, 0);
			free(call);
			free(rec);
			return;
		}
	}
	call->fuzz = fuzzing && fuzz_sent < fuzz_count && !call->hc &&
		     memmem(rec, rlen, marker, strlen(marker));
	if (c->early_left)
		early_replies(c, call->xid);
	call->next = c->calls;
	c->calls = call;
	tcp_send_record(c, rec, rlen);
	free(rec);
	inv_other_arrived(c, call);
}

/* One complete record from the NFS server. */
static void handle_record(struct hs_conn *c, const uint8_t *rec, size_t len)
{
	struct hs_call *call;
	__be32 xid;

	if (len < 8)
		return;
	memcpy(&xid, rec, 4);
	if (get32(rec + 4) == RPC_CALL) {
		/* RFC 8167: a backward-direction call, inline only. */
		hdr_init(&tx_hdr, xid, 1, NFSRDMA_WIRE_PROC_MSG);
		dbg("backchannel call xid %08x, %zu bytes", ntohl(xid), len);
		send_hdr(c, rec, len);
		return;
	}
	call = call_take(c, xid);
	if (!call) {
		say("conn %u: reply for unknown xid %08x dropped", c->serial,
		    ntohl(xid));
		return;
	}
	if (call->fuzz)
		fuzz_reply(c, call, rec, len);
	if (call->hc)
		fire(c, call, rec, len);
	else
		send_reply(c, call, rec, len);
	free(call);
}

static void tcp_input(struct hs_conn *c)
{
	ssize_t n;
	size_t off, fl, total;
	u32 mark;

	if (c->tcap - c->tlen < 65536) {
		size_t ncap = c->tcap ? c->tcap * 2 : 1 << 20;
		uint8_t *nb;

		if (ncap > 2 * HS_MAX_RECORD) {
			conn_fail(c, "TCP record too large");
			return;
		}
		nb = realloc(c->tbuf, ncap);
		if (!nb)
			return;
		c->tbuf = nb;
		c->tcap = ncap;
	}
	n = read(c->tcp, c->tbuf + c->tlen, c->tcap - c->tlen);
	if (n <= 0) {
		if (n < 0 && (errno == EINTR || errno == EAGAIN))
			return;
		conn_fail(c, "the NFS server closed the TCP connection");
		return;
	}
	c->tlen += n;
	/* Whole records: fragments are joined in place. */
	for (;;) {
		off = 0;
		total = 0;
		for (;;) {
			if (c->tlen < off + 4)
				return;
			mark = get32(c->tbuf + off);
			fl = mark & 0x7fffffff;
			if (c->tlen < off + 4 + fl)
				return;
			off += 4 + fl;
			total += fl;
			if (mark & 0x80000000u)
				break;
		}
		{
			uint8_t *rec = malloc(total ? total : 1);
			size_t p = 0, q = 0;

			if (!rec)
				return;
			while (p < off) {
				mark = get32(c->tbuf + p);
				fl = mark & 0x7fffffff;
				memcpy(rec + q, c->tbuf + p + 4, fl);
				q += fl;
				p += 4 + fl;
			}
			memmove(c->tbuf, c->tbuf + off, c->tlen - off);
			c->tlen -= off;
			handle_record(c, rec, total);
			free(rec);
		}
	}
}

/* ---- RDMA connections ------------------------------------------------- */

static int post_recv(struct hs_conn *c, unsigned int slot)
{
	struct ibv_sge sge = {
		.addr = (uintptr_t)(c->recv_buf + (size_t)slot * HS_INLINE),
		.length = HS_INLINE,
		.lkey = c->recv_mr->lkey,
	};
	struct ibv_recv_wr wr = { .wr_id = slot, .sg_list = &sge, .num_sge = 1 };
	struct ibv_recv_wr *bad;

	return ibv_post_recv(c->id->qp, &wr, &bad);
}

static void conn_free(struct hs_conn *c)
{
	struct hs_call *call;

	/*
	 * The early replies end with their connection: the client's next
	 * connection is not in the case, so it never sends the calls they
	 * were waiting for, and the test would wait for nothing.
	 */
	if (c->early_left) {
		say("conn %u: closed with %u early-reply calls to go", c->serial,
		    c->early_left);
		c->early_left = 0;
		ctl_touch("done", "security-review-early-reply");
	}
	while ((call = c->calls)) {
		c->calls = call->next;
		free(call);
	}
	free(c->held);
	free(c->held_rec);
	if (c->tcp >= 0)
		close(c->tcp);
	if (c->id) {
		if (c->established)
			rdma_disconnect(c->id);
		if (c->id->qp)
			rdma_destroy_qp(c->id);
	}
	if (c->recv_mr)
		ibv_dereg_mr(c->recv_mr);
	if (c->send_mr)
		ibv_dereg_mr(c->send_mr);
	if (c->stage_mr)
		ibv_dereg_mr(c->stage_mr);
	if (c->rcq)
		ibv_destroy_cq(c->rcq);
	if (c->scq)
		ibv_destroy_cq(c->scq);
	if (c->rch)
		ibv_destroy_comp_channel(c->rch);
	if (c->pd)
		ibv_dealloc_pd(c->pd);
	if (c->id)
		rdma_destroy_id(c->id);
	free(c->recv_buf);
	free(c->send_buf);
	free(c->stage);
	free(c->tbuf);
	memset(c, 0, sizeof(*c));
	c->tcp = -1;
}

/* The private data a CM case accepts with (pdata.c builds it). */
static enum hostile_pdata cm_pdata(enum hs_cm cm)
{
	switch (cm) {
	case CM_PDATA_ABSENT:
		return PDATA_ABSENT;
	case CM_PDATA_SHORT:
		return PDATA_SHORT;
	case CM_PDATA_FOREIGN:
		return PDATA_FOREIGN;
	case CM_PDATA_VERSION:
		return PDATA_VERSION;
	case CM_PDATA_HUGE:
		return PDATA_HUGE;
	case CM_PDATA_SMALL:
		return PDATA_SMALL;
	default:
		return PDATA_HONEST;
	}
}

/*
 * The private data of our accept into @buf (56 bytes): the honest RFC 8797
 * data, or what the CM case @cm crafts.  The receive size the client may
 * assume is what the shared decoder makes of those bytes (1 KiB unless
 * they are valid); a valid send size below what we would send inline
 * lowers @c's inline limit, so that we keep our own promise.  Returns its
 * length (0 for none) or -1.
 */
static int accept_pdata(enum hs_cm cm, uint8_t *buf, struct hs_conn *c)
{
	struct nfsrdma_wire_cm_pdata said;
	int len;

	len = hostile_pdata_build(cm_pdata(cm), HS_SEND_INLINE, HS_INLINE,
				  buf);
	if (len < 0)
		return -1;
	if (!nfsrdma_wire_decode_cm_pdata(&said, buf, len) &&
	    c->max_inline > said.send_size)
		c->max_inline = said.send_size;
	c->adv_recv = said.recv_size;
	return len;
}

static void conn_accept(struct rdma_cm_event *ev)
{
	struct rdma_cm_id *id = ev->id;
	struct nfsrdma_wire_cm_pdata peer;
	uint8_t pdata_buf[56];
	enum hs_cm cm;
	int plen;
	struct ibv_qp_init_attr qpa = { 0 };
	struct rdma_conn_param cp = { 0 };
	struct ibv_device_attr da;
	struct hs_conn *c = NULL;
	unsigned int i;
	int rc;

	rc = nfsrdma_wire_decode_cm_pdata(&peer, ev->param.conn.private_data,
					  ev->param.conn.private_data_len);
	cm = cm_next;
	cm_next = CM_HONEST;
	if (cm == CM_REJECT || cm == CM_REJECT_PDATA) {
		memset(pdata_buf, 0xa5, sizeof(pdata_buf));
		say("rejecting a connection request%s",
		    cm == CM_REJECT ? "" : " with garbage private data");
		if (cm == CM_REJECT)
			rdma_reject(id, NULL, 0);
		else
			rdma_reject(id, pdata_buf, sizeof(pdata_buf));
		return;
	}
	for (i = 0; i < HS_MAX_CONNS; i++)
		if (!conns[i].used) {
			c = &conns[i];
			break;
		}
	if (!c) {
		say("too many connections; rejecting");
		rdma_reject(id, NULL, 0);
		return;
	}
	memset(c, 0, sizeof(*c));
	c->used = true;
	c->tcp = -1;
	c->serial = ++conn_serial;
	c->id = id;
	id->context = c;
	c->peer_recv = peer.recv_size;
	c->max_inline = peer.recv_size < HS_SEND_INLINE ? peer.recv_size :
			HS_SEND_INLINE;
	c->want_credits = 1;
	c->silent = cm == CM_SILENT;
	if (flap_left) {
		flap_left--;
		c->flap = true;
		say("conn %u: flap: dropped once it has answered a call",
		    c->serial);
	}

	if (ibv_query_device(id->verbs, &da))
		goto fail;
	c->pd = ibv_alloc_pd(id->verbs);
	c->rch = ibv_create_comp_channel(id->verbs);
	if (!c->pd || !c->rch)
		goto fail;
	fcntl(c->rch->fd, F_SETFL, fcntl(c->rch->fd, F_GETFL) | O_NONBLOCK);
	c->rcq = ibv_create_cq(id->verbs, HS_RECV_DEPTH, c, c->rch, 0);
	c->scq = ibv_create_cq(id->verbs, HS_SQ_DEPTH, c, NULL, 0);
	c->recv_buf = calloc(HS_RECV_DEPTH, HS_INLINE);
	c->send_buf = calloc(HS_SEND_SLOTS, HS_SEND_INLINE);
	c->stage = calloc(1, HS_STAGE_SIZE);
	if (!c->rcq || !c->scq || !c->recv_buf || !c->send_buf || !c->stage)
		goto fail;
	c->recv_mr = ibv_reg_mr(c->pd, c->recv_buf, HS_RECV_DEPTH * HS_INLINE,
				IBV_ACCESS_LOCAL_WRITE);
	c->send_mr = ibv_reg_mr(c->pd, c->send_buf,
				 HS_SEND_SLOTS * HS_SEND_INLINE, 0);
	c->stage_mr = ibv_reg_mr(c->pd, c->stage, HS_STAGE_SIZE,
				 IBV_ACCESS_LOCAL_WRITE);
	if (!c->recv_mr || !c->send_mr || !c->stage_mr)
		goto fail;
	if (ibv_req_notify_cq(c->rcq, 0))
		goto fail;
	qpa.send_cq = c->scq;
	qpa.recv_cq = c->rcq;
	qpa.qp_type = IBV_QPT_RC;
	qpa.cap.max_send_wr = HS_SQ_DEPTH;
	qpa.cap.max_recv_wr = HS_RECV_DEPTH;
	qpa.cap.max_send_sge = 2;	/* reply-oversized: a message and its padding */
	qpa.cap.max_recv_sge = 1;
	if (rdma_create_qp(id, c->pd, &qpa))
		goto fail;
	for (i = 0; i < HS_RECV_DEPTH; i++)
		if (post_recv(c, i))
			goto fail;
	c->tcp = tcp_connect();
	if (c->tcp < 0) {
		say("cannot connect to the NFS server at %s", target);
		goto fail;
	}
	plen = accept_pdata(cm, pdata_buf, c);
	if (plen < 0)
		goto fail;
	cp.private_data = plen ? pdata_buf : NULL;
	cp.private_data_len = plen;
	cp.initiator_depth = ev->param.conn.responder_resources;
	if (cp.initiator_depth > da.max_qp_init_rd_atom)
		cp.initiator_depth = da.max_qp_init_rd_atom;
	cp.responder_resources = ev->param.conn.initiator_depth;
	if (cp.responder_resources > da.max_qp_rd_atom)
		cp.responder_resources = da.max_qp_rd_atom;
	cp.rnr_retry_count = 7;
	if (rdma_accept(id, &cp))
		goto fail;
	say("conn %u: accepted (private data %s: client send %u recv %u%s), inline reply limit %u, our private data %d bytes%s",
	    c->serial, rc ? "absent or invalid" : "ok", peer.send_size,
	    peer.recv_size, peer.remote_inv ? ", remote invalidation" : "",
	    c->max_inline, plen, cm == CM_HONEST ? "" : " (crafted)");
	return;
fail:
	say("cannot set up an accepted connection: %s", strerror(errno));
	rdma_reject(id, NULL, 0);
	/* Freed by the main loop, once this event has been acknowledged. */
	c->dead = true;
}

static void recv_input(struct hs_conn *c)
{
	struct ibv_cq *cq;
	struct ibv_wc wc[16];
	void *ctx;
	int n, i;

	if (ibv_get_cq_event(c->rch, &cq, &ctx))
		return;
	ibv_ack_cq_events(cq, 1);
	if (ibv_req_notify_cq(c->rcq, 0)) {
		conn_fail(c, "cannot rearm the receive CQ");
		return;
	}
	while (!c->dead && (n = ibv_poll_cq(c->rcq, 16, wc)) > 0) {
		for (i = 0; i < n && !c->dead; i++) {
			if (wc[i].status != IBV_WC_SUCCESS) {
				if (wc[i].status != IBV_WC_WR_FLUSH_ERR)
					say("conn %u: receive completion: %s", c->serial,
					    ibv_wc_status_str(wc[i].status));
				conn_fail(c, "receive failed");
				break;
			}
			if (wc[i].byte_len > c->adv_recv)
				say("conn %u: VIOLATION: a %u-byte message, past the %u-byte receives the client may assume",
				    c->serial, wc[i].byte_len, c->adv_recv);
			handle_recv(c, c->recv_buf + wc[i].wr_id * HS_INLINE,
				    wc[i].byte_len);
			if (!c->dead && !c->starve && post_recv(c, wc[i].wr_id))
				conn_fail(c, "cannot repost a receive");
		}
		scq_reap(c, NULL);
	}
}

static void cm_input(struct rdma_event_channel *ec)
{
	struct rdma_cm_event *ev;
	struct hs_conn *c;

	while (!rdma_get_cm_event(ec, &ev)) {
		c = ev->id->context;
		switch (ev->event) {
		case RDMA_CM_EVENT_CONNECT_REQUEST:
			conn_accept(ev);
			break;
		case RDMA_CM_EVENT_ESTABLISHED:
			if (c) {
				c->established = true;
				say("conn %u: established%s", c->serial,
				    c->silent ? " (silent)" : "");
				stale_send(c);
			}
			break;
		case RDMA_CM_EVENT_DISCONNECTED:
			if (c) {
				say("conn %u: client disconnected", c->serial);
				c->established = false;
				c->dead = true;
			}
			break;
		default:
			if (c) {
				say("conn %u: cm event %s", c->serial,
				    rdma_event_str(ev->event));
				if (ev->event != RDMA_CM_EVENT_TIMEWAIT_EXIT)
					c->dead = true;
			}
			break;
		}
		rdma_ack_cm_event(ev);
	}
}

static void usage(void)
{
	size_t i;

	fprintf(stderr,
		"usage: hostile-server [-v] [-p PORT] [-t HOST:PORT] [-C DIR] [-m MARKER] [-x CASE] [-l]\n"
		"                      [-F SEED [-n COUNT]]\n"
		"-F: before the reply to each call containing MARKER, mutated messages, until\n"
		"    COUNT (100000) have gone (make fuzz-live's client target)\n"
		"cases (selector: m = call containing MARKER, w = call offering a Write chunk,\n"
		"       r = call offering a Reply chunk, n = call containing MARKER that offered\n"
		"       no Write or Reply chunk, f = call containing MARKER that offered a\n"
		"       Reply chunk, p = call offering a Write chunk whose first segment\n"
		"       is not a whole number of XDR words):\n");
	for (i = 0; i < NR_CASES; i++)
		fprintf(stderr, "  %-26s %c %s\n", cases[i].name,
			"mwrnfp"[cases[i].sel], cases[i].what);
}

int main(int argc, char **argv)
{
	struct rdma_event_channel *ec;
	struct rdma_cm_id *listener;
	struct sockaddr_in sin = { .sin_family = AF_INET };
	struct pollfd pfd[1 + 2 * HS_MAX_CONNS];
	struct hs_conn *who[1 + 2 * HS_MAX_CONNS];
	const struct hs_case *hc;
	unsigned int i, n;
	int opt;

	while ((opt = getopt(argc, argv, "vp:t:C:m:x:lF:n:")) != -1) {
		switch (opt) {
		case 'F':
			fuzzing = true;
			fuzz_seed = strtoull(optarg, NULL, 10);
			fuzz_rng.state = fuzz_seed;
			break;
		case 'n':
			fuzz_count = strtoul(optarg, NULL, 10);
			break;
		case 'v':
			verbose = 1;
			break;
		case 'p':
			listen_port = optarg;
			break;
		case 't':
			target = optarg;
			break;
		case 'C':
			ctl_dir = optarg;
			break;
		case 'm':
			marker = optarg;
			break;
		case 'x':
			hc = case_by_name(optarg);
			if (!hc) {
				usage();
				return 2;
			}
			armed = hc;
			break;
		case 'l':
			usage();
			return 0;
		default:
			usage();
			return 2;
		}
	}
	for (i = 0; i < HS_MAX_CONNS; i++)
		conns[i].tcp = -1;
	signal(SIGTERM, on_sigterm);

	ec = rdma_create_event_channel();
	if (!ec || rdma_create_id(ec, &listener, NULL, RDMA_PS_TCP)) {
		perror("hostile-server: rdma_create_id");
		return 2;
	}
	fcntl(ec->fd, F_SETFL, fcntl(ec->fd, F_GETFL) | O_NONBLOCK);
	sin.sin_port = htons(atoi(listen_port));
	if (rdma_bind_addr(listener, (struct sockaddr *)&sin) ||
	    rdma_listen(listener, 8)) {
		perror("hostile-server: cannot listen");
		return 2;
	}
	say("listening on port %s, proxying to %s, marker \"%s\"%s%s",
	    listen_port, target, marker, ctl_dir ? ", control directory " : "",
	    ctl_dir ? ctl_dir : "");
	if (fuzzing)
		say("fuzz-live: xprtrdma: %lu mutated messages from seed %llu",
		    fuzz_count, (unsigned long long)fuzz_seed);
	if (armed)
		arm(armed);

	for (;;) {
		n = 0;
		pfd[n].fd = ec->fd;
		pfd[n].events = POLLIN;
		who[n++] = NULL;
		for (i = 0; i < HS_MAX_CONNS; i++) {
			struct hs_conn *c = &conns[i];

			if (!c->used || c->dead || !c->rch)
				continue;
			pfd[n].fd = c->rch->fd;
			pfd[n].events = POLLIN;
			who[n++] = c;
			pfd[n].fd = c->tcp;
			pfd[n].events = POLLIN;
			who[n++] = c;
		}
		if (poll(pfd, n, 200) < 0 && errno != EINTR)
			break;
		if (stopping) {
			if (fuzzing)
				say("fuzz-live: xprtrdma: %lu mutated messages sent, seed %llu: stopped",
				    fuzz_sent, (unsigned long long)fuzz_seed);
			return 0;
		}
		if (pfd[0].revents)
			cm_input(ec);
		for (i = 1; i < n; i++) {
			struct hs_conn *c = who[i];

			if (!pfd[i].revents || c->dead || !c->used)
				continue;
			if (pfd[i].fd == c->tcp)
				tcp_input(c);
			else
				recv_input(c);
		}
		for (i = 0; i < HS_MAX_CONNS; i++) {
			if (conns[i].used) {
				if (!conns[i].dead)
					scq_reap(&conns[i], NULL);
				/* A flap connection lives until its reply landed. */
				if (!conns[i].dead && conns[i].flap &&
				    conns[i].replies && !conns[i].sends_out)
					conn_fail(&conns[i], "flap: a reply delivered");
				if (conns[i].dead) {
					say("conn %u: closed", conns[i].serial);
					conn_free(&conns[i]);
				}
			}
		}
		ctl_poll();
	}
	return 1;
}
